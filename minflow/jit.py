"""``minflow.jit``: the parts of torch.jit that model code uses while running eagerly.

minflow has no TorchScript. What model code asks of torch.jit in eager mode works as in
torch's eager mode: ``is_scripting()`` and ``is_tracing()`` are False, the decorators
(``ignore``, ``unused``, ``export``, ``interface``) and ``annotate`` leave code as it is,
and ``fork`` runs its function at once (as torch's does outside TorchScript). ``script`` and
``trace`` return the model or function unchanged, to run eagerly, and say so once with a
warning (``minflow.nn.Graph`` is minflow's compiler). ``save`` and ``load`` of TorchScript
archives are refused: save a ``state_dict`` with ``minflow.save`` instead.
"""
import typing
import warnings

__all__ = ["is_scripting", "is_tracing", "ignore", "unused", "export", "interface",
           "annotate", "Final", "Attribute", "fork", "wait", "script", "trace", "save", "load"]

Final = typing.Final
_warned = [False]


def is_scripting():
    """False: code runs eagerly, never as TorchScript.

    >>> minflow.jit.is_scripting()
    False
    """
    return False


def is_tracing():
    """False: minflow never traces through ``jit.trace``."""
    return False


def _keep(fn=None, **_):
    """A decorator (``@ignore`` or ``@ignore(drop=True)``) that leaves the function as it
    is."""
    return fn if callable(fn) else (lambda f: f)


ignore = unused = export = _keep
interface = _keep


def annotate(the_type, the_value):
    """``the_value``: a type hint for the TorchScript compiler, nothing at run time."""
    return the_value


def Attribute(value, the_type):     # noqa: N802  (torch's name)
    """``value``: a type hint for the TorchScript compiler, nothing at run time."""
    return value


class _Done:
    """The result of ``fork``: its function already ran."""

    def __init__(self, value):
        self._value = value

    def wait(self):
        return self._value

    def value(self):
        return self._value

    def done(self):
        return True


def fork(func, *args, **kwargs):
    """Run ``func(*args, **kwargs)`` now; ``wait`` on the result gives its value (torch's
    fork outside TorchScript also runs synchronously).

    >>> minflow.jit.wait(minflow.jit.fork(max, 2, 5))
    5
    """
    return _Done(func(*args, **kwargs))


def wait(future):
    """The value of a ``fork``."""
    return future.wait()


def _eager(obj, what):
    if not callable(obj):
        raise RuntimeError(f"{what}: expected a Module or a function, got "
                           f"{type(obj).__name__}")
    if not _warned[0]:
        _warned[0] = True
        warnings.warn(f"{what}: minflow has no TorchScript; the model runs eagerly "
                      f"(minflow.nn.Graph compiles a model or a training step)", UserWarning,
                      stacklevel=3)
    return obj


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """``obj`` (a Module, function or class) unchanged, to run eagerly; warns once."""
    if isinstance(obj, type):
        return obj
    return _eager(obj, "minflow.jit.script")


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None,
          check_tolerance=1e-5, strict=True, _force_outplace=False,
          _module_class=None, _compilation_unit=None, example_kwarg_inputs=None,
          _store_inputs=True):
    """``func`` unchanged, to run eagerly; warns once."""
    return _eager(func, "minflow.jit.trace")


def save(m, f, _extra_files=None):
    raise RuntimeError("minflow.jit.save: minflow has no TorchScript archive format; save the "
                       "model's state_dict with minflow.save and rebuild the model to load it")


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    raise RuntimeError("minflow.jit.load: minflow cannot read TorchScript archives; load a "
                       "state_dict saved with minflow.save into the model instead")

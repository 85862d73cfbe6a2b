"""What torch calls the tensor options of a factory function beyond dtype, device and
requires_grad: ``layout=`` and ``pin_memory=``.

minflow's tensors are all dense arrays with strides, so ``minflow.strided`` is the one
layout (torch's sparse layouts have no counterpart). ``pin_memory=True`` puts the result in
page-locked host memory, from which copies to a GPU are faster; without a GPU it is an
error, as torch's.

>>> minflow.zeros(2, layout=minflow.strided, pin_memory=False).layout
minflow.strided
"""
import functools
import inspect

from .device import cuda_is_available

__all__ = ["layout", "strided", "check_layout", "tensor_options"]


class layout:  # noqa: N801  (torch.layout)
    """How a tensor's elements are stored: ``minflow.strided`` (dense, with strides).

    >>> minflow.strided, minflow.ones(2).layout is minflow.strided
    (minflow.strided, True)
    """

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"minflow.{self.name}"

    def __reduce__(self):           # pickles as the one instance
        return _strided, ()


def _strided():
    return strided


strided = layout("strided")


def check_layout(value, where):
    """``layout=`` of ``where``: None or minflow.strided, else torch's TypeError."""
    if value is None or value is strided:
        return
    if isinstance(value, layout):
        raise RuntimeError(f"{where}(): minflow's tensors have the strided layout only, got "
                           f"{value!r}")
    raise TypeError(f"{where}(): argument 'layout' must be minflow.layout, not "
                    f"{type(value).__name__}")


def _pin_requested(value, where):
    """Whether ``pin_memory=`` asks for pinned memory (None and False do not); True without
    a GPU is torch's RuntimeError."""
    if value is None or value is False:
        return False
    if value is not True:
        raise TypeError(f"{where}(): argument 'pin_memory' must be bool, not "
                        f"{type(value).__name__}")
    if not cuda_is_available():
        raise RuntimeError(f"{where}(): pin_memory=True requires a CUDA or other accelerator "
                           f"backend; no pinned memory allocator is available on this system.")
    return True


def tensor_options(fn=None, *, name=None, with_layout=True, with_pin_memory=True):
    """Decorator: give factory function ``fn`` torch's keyword-only ``layout=None`` and
    ``pin_memory=False`` (those of the two that torch's own function takes), checked as
    torch checks them. ``name``: the function's public name in error messages (default
    ``fn``'s)."""
    def decorate(fn):
        where = name or fn.__name__
        taken = {"layout": with_layout, "pin_memory": with_pin_memory}

        @functools.wraps(fn)
        def factory(*args, layout=None, pin_memory=False, **kwargs):
            if layout is None and pin_memory is False:      # the defaults: nothing to check
                return fn(*args, **kwargs)
            for key, value, default in (("layout", layout, None),
                                        ("pin_memory", pin_memory, False)):
                if value is not default and not taken[key]:
                    raise TypeError(f"{where}() got an unexpected keyword argument '{key}'")
            check_layout(layout, where)
            if not _pin_requested(pin_memory, where):
                return fn(*args, **kwargs)
            return _pinned(fn(*args, **kwargs))

        sig = inspect.signature(fn)
        params = [p for p in sig.parameters.values() if p.kind is not p.VAR_KEYWORD]
        params += [inspect.Parameter(key, inspect.Parameter.KEYWORD_ONLY, default=default)
                   for key, default in (("layout", None), ("pin_memory", False)) if taken[key]]
        params += [p for p in sig.parameters.values() if p.kind is p.VAR_KEYWORD]
        factory.__signature__ = sig.replace(parameters=params)
        return factory
    return decorate(fn) if fn is not None else decorate


def _pinned(out):
    """``out`` copied into pinned memory, still a leaf that requires grad if it did."""
    pinned = out.detach().pin_memory()
    return pinned.requires_grad_() if out.requires_grad else pinned

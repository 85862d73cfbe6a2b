"""``minflow.compile``: torch.compile's entry point, so scripts that call it run.

minflow has no tracing JIT behind this name: the model or function comes back unchanged
and runs eagerly, with the same results torch.compile gives (it is torch's
``backend="eager"``). A one-time warning says so. ``minflow.nn.Graph`` is minflow's way to
compile a model or a training step into a graph.
"""
import warnings

__all__ = ["compile"]

_MODES = (None, "default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")
_warned = [False]


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,
            options=None, name=None, disable=False, recompile_limit=None,
            isolate_recompiles=False, shapes_spec=None):     # noqa: A001 (torch's name)
    """compile(model=None, *, fullgraph=False, dynamic=None, backend='inductor', mode=None,
    options=None, disable=False) -> model, unchanged (runs eagerly)

    As a call or a decorator (``@minflow.compile`` or ``@minflow.compile(mode=...)``).
    torch's checks of ``mode`` and ``options`` apply.

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     model = minflow.compile(minflow.nn.Linear(2, 1))
    >>> type(model).__name__
    'Linear'
    """
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be "
                           "specified at the same time.")
    if mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: "
                           f"{', '.join(m for m in _MODES if m)}")
    if model is None:
        return lambda fn: compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                                  mode=mode, options=options, disable=disable)
    if not callable(model):
        raise RuntimeError(f"compile: model must be a callable (a Module or a function), got "
                           f"{type(model).__name__}")
    if not disable and not _warned[0]:
        _warned[0] = True
        warnings.warn("minflow.compile: minflow has no torch.compile backend; the model runs "
                      "eagerly (minflow.nn.Graph compiles a model or a training step)",
                      UserWarning, stacklevel=2)
    return model

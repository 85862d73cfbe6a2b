"""skip_init: build a module without running its parameter initialisation."""
import inspect

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` with uninitialised (empty) parameters and buffers:
    built on the "meta" device (no data, so no init runs), then given empty storage on
    ``device`` (default cpu). The class must take a ``device`` argument.

    >>> m = minflow.nn.utils.skip_init(minflow.nn.Linear, 5, 1)
    >>> m.weight.shape, m.weight.device
    (minflow.Size([1, 5]), device(type='cpu'))
    """
    from ..modules.module import Module
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"skip_init: Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("skip_init: Module must support a 'device' arg to skip "
                           "initialization")
    final_device = kwargs.pop("device", "cpu")
    kwargs["device"] = "meta"
    return module_cls(*args, **kwargs).to_empty(device=final_device)

"""``nn.parallel``: DataParallel on at most one device.

As torch's DataParallel: without a GPU it only holds and runs the module; with one GPU it
moves the module there and sends the inputs to it. Splitting a batch over several GPUs
(replicate, scatter, parallel_apply, gather) is not implemented in minflow.
"""
from ..core.device import cuda_is_available
from ..core.device import device as _device
from ..core.tensor import Tensor
from .modules.module import Module

__all__ = ["DataParallel"]


class DataParallel(Module):
    """Run ``module`` on ``device_ids`` (default: every visible GPU), batches split on
    ``dim``. minflow runs it on no GPU or one; the wrapped module is ``.module`` (state_dict
    keys start with ``module.``).

    >>> model = minflow.nn.DataParallel(minflow.nn.Linear(2, 3))
    >>> model(minflow.ones(4, 2)).shape, list(model.state_dict())
    (minflow.Size([4, 3]), ['module.weight', 'module.bias'])
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        if not cuda_is_available():
            # NOTE: as torch without an accelerator: device_ids are ignored, dim and
            # output_device are not even kept
            self.module = module
            self.device_ids = []
            return
        from .. import cuda
        if device_ids is None:
            device_ids = list(range(cuda.device_count()))
        device_ids = [_device_index(d, "device_ids") for d in device_ids]
        if len(device_ids) > 1:
            raise RuntimeError(f"DataParallel: device_ids={device_ids} names "
                               f"{len(device_ids)} GPUs, but splitting a batch over several "
                               f"GPUs (replicate, scatter, parallel_apply, gather) is not "
                               f"implemented in minflow; pass device_ids=[{device_ids[0]}] "
                               f"to run on one GPU")
        self.dim = dim
        self.module = module
        self.device_ids = device_ids
        self.output_device = _device_index(
            device_ids[0] if output_device is None else output_device, "output_device")
        self.src_device_obj = _device(f"cuda:{device_ids[0]}")
        self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        for t in (*self.module.parameters(), *self.module.buffers()):
            if t.device != self.src_device_obj:
                raise RuntimeError(f"module must have its parameters and buffers on device "
                                   f"{self.src_device_obj} (device_ids[0]) but found one of "
                                   f"them on device: {t.device}")
        inputs, kwargs = _to_device((inputs, kwargs), self.src_device_obj)
        return self.module(*inputs, **kwargs)


def _device_index(d, argument):
    """A GPU index from an int, "cuda:N" or a cuda device, as torch's _get_device_index."""
    if isinstance(d, int) and not isinstance(d, bool):
        return d
    dev = _device(d) if isinstance(d, str) else d
    if getattr(dev, "type", None) != "cuda":
        raise ValueError(f"DataParallel: expected {argument} to name cuda devices (an index, "
                         f"'cuda:N' or a cuda device), got {d!r}")
    if dev.index is None:
        from .. import cuda
        return cuda.current_device()
    return dev.index


def _to_device(obj, device):
    """``obj`` with every tensor in it sent to ``device`` (scatter onto one device)."""
    if isinstance(obj, Tensor):
        return obj.to(device)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(_to_device(item, device) for item in obj))
    if isinstance(obj, (tuple, list)):
        return type(obj)(_to_device(item, device) for item in obj)
    if isinstance(obj, dict):
        return type(obj)((key, _to_device(value, device)) for key, value in obj.items())
    return obj

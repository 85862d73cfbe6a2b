"""Kernels of clone, contiguous, cast and to_device."""
from ...core.device import array_module, cuda_context
from ...core.dtype import ALL
from ..registry import register_kernel

register_kernel("clone", ("cpu", "cuda"), ALL)(lambda xp, x: x.copy())
register_kernel("contiguous", ("cpu", "cuda"), ALL)(lambda xp, x: xp.ascontiguousarray(x).copy()
                                                    if x.flags.c_contiguous
                                                    else xp.ascontiguousarray(x))
register_kernel("cast", ("cpu", "cuda"), ALL)(lambda xp, x, dtype: x.astype(dtype.np))


@register_kernel("to_device", "cpu", ALL)
def cpu_to_device(x, device):
    if device.type == "cpu":
        return x.copy()
    with cuda_context(device):
        return array_module("cuda").asarray(x)


@register_kernel("to_device", "cuda", ALL)
def cuda_to_device(x, device):
    if device.type == "cpu":
        return x.get()
    with cuda_context(device):
        return array_module("cuda").array(x, copy=True)

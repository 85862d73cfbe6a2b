"""Kernels of clone, contiguous, cast and to_device."""
import warnings

from ...core.device import array_module, cuda_context
from ...core.dtype import ALL, ALL_AND_COMPLEX, COMPLEX
from ..registry import register_kernel

register_kernel("clone", ("cpu", "cuda"), ALL_AND_COMPLEX)(lambda xp, x: x.copy())
register_kernel("contiguous", ("cpu", "cuda"), ALL_AND_COMPLEX)(
    lambda xp, x: xp.ascontiguousarray(x).copy() if x.flags.c_contiguous
    else xp.ascontiguousarray(x))
register_kernel("cast", ("cpu", "cuda"), ALL)(lambda xp, x, dtype: x.astype(dtype.np))


@register_kernel("cast", ("cpu", "cuda"), COMPLEX)
def cast_complex(xp, x, dtype):
    if dtype.is_complex:
        return x.astype(dtype.np)
    # NOTE: as torch, a warning and the real part (numpy's own ComplexWarning aside)
    warnings.warn("Casting complex values to real discards the imaginary part", UserWarning,
                  stacklevel=2)
    return x.real.astype(dtype.np)


@register_kernel("to_device", "cpu", ALL_AND_COMPLEX)
def cpu_to_device(x, device):
    if device.type == "cpu":
        return x.copy()
    with cuda_context(device):
        return array_module("cuda").asarray(x)


@register_kernel("to_device", "cuda", ALL_AND_COMPLEX)
def cuda_to_device(x, device):
    if device.type == "cpu":
        return x.get()
    with cuda_context(device):
        return array_module("cuda").array(x, copy=True)

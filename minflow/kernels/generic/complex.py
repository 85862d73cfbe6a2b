"""Kernels of the complex-number ops, written once against the array module (numpy or
cupy): both give ``.real`` / ``.imag`` of a complex array as views."""
import math

import numpy as np

from ...core.dtype import COMPLEX, FLOATS, INTS, bool as bool_, float32, float64
from ..registry import register_kernel

register_kernel("real", ("cpu", "cuda"), COMPLEX)(lambda xp, x: x.real)
register_kernel("imag", ("cpu", "cuda"), COMPLEX)(lambda xp, x: x.imag)
register_kernel("conj_physical", ("cpu", "cuda"), COMPLEX)(lambda xp, x: xp.conj(x))
register_kernel("angle", ("cpu", "cuda"), COMPLEX)(lambda xp, x: xp.angle(x))


@register_kernel("angle", ("cpu", "cuda"), FLOATS)
def angle_real(xp, x):
    # pi for negatives, 0 otherwise; NaN stays NaN (x * 0 is NaN there)
    return xp.where(x < 0, x.dtype.type(math.pi), x * 0)


@register_kernel("angle", ("cpu", "cuda"), INTS + (bool_,))
def angle_int(xp, x):
    return xp.where(x < 0, math.pi, 0.0).astype(xp.float32)


@register_kernel("view_as_real", ("cpu", "cuda"), COMPLEX)
def view_as_real(xp, x):
    # the real parts' view, with a last axis of stride one real reaching the imaginary part
    real = x.real
    return xp.lib.stride_tricks.as_strided(real, x.shape + (2,),
                                           real.strides + (real.itemsize,))


@register_kernel("view_as_complex", ("cpu", "cuda"), (float32, float64))
def view_as_complex(xp, x):
    if x.strides[-1] != x.itemsize:
        raise RuntimeError("view_as_complex: Tensor must have a last dimension with stride 1")
    if any(s % (2 * x.itemsize) for s in x.strides[:-1]):
        raise RuntimeError("view_as_complex: Tensor must have a stride divisible by 2 for "
                           "all but last dimension")
    return x.view(xp.complex64 if x.dtype == xp.float32 else xp.complex128)[..., 0]


@register_kernel("complex", ("cpu", "cuda"), (float32, float64), out=True)
def complex_(xp, real, imag, out=None):
    shape = np.broadcast_shapes(real.shape, imag.shape)     # shapes only: numpy's, for both
    if out is None:
        out = xp.empty(shape, xp.complex64 if real.dtype == xp.float32 else xp.complex128)
    out.real, out.imag = real, imag
    return out

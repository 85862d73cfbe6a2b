"""Kernels of the Fourier transforms: numpy.fft / cupy.fft, which take the same ``axes``
and ``norm`` arguments (numpy computes in complex128: the dispatcher rounds the result to
the inferred complex64 / float32)."""
from ...core.dtype import COMPLEX, FLOATS
from ..registry import register_kernel

BOTH = ("cpu", "cuda")


@register_kernel("fft_c2c", BOTH, COMPLEX)
def fft_c2c(xp, input, dim, norm, forward):
    return (xp.fft.fftn if forward else xp.fft.ifftn)(input, axes=dim, norm=norm)


@register_kernel("fft_r2c", BOTH, FLOATS)
def fft_r2c(xp, input, dim, norm):
    return xp.fft.rfftn(input, axes=dim, norm=norm)


@register_kernel("fft_c2r", BOTH, COMPLEX)
def fft_c2r(xp, input, dim, norm, last_dim_size):
    sizes = [input.shape[d] for d in dim[:-1]] + [last_dim_size]
    return xp.fft.irfftn(input, s=sizes, axes=dim, norm=norm)

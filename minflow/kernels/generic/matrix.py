"""Kernels of the matrix ops, written once against the array module (numpy or cupy)."""
from ...core.device import linalg_raises
from ...core.dispatch import LinAlgError
from ...core.dtype import ALL, COMPLEX, float32, float64
from ..registry import register_kernel

LINALG = (float32, float64)     # numpy.linalg has no float16, as torch's cpu kernels


def diagonal_view(xp, x, offset, dim1, dim2):
    """The diagonal as a writable strided view (numpy's own ``diagonal`` is read-only)."""
    n = max(0, min(x.shape[dim1], x.shape[dim2] - offset) if offset >= 0
            else min(x.shape[dim1] + offset, x.shape[dim2]))
    rest = [d for d in range(x.ndim) if d not in (dim1, dim2)]
    shape = tuple(x.shape[d] for d in rest) + (n,)
    if n == 0:
        return xp.empty(shape, x.dtype)
    start = [slice(None)] * x.ndim
    start[dim2 if offset >= 0 else dim1] = slice(abs(offset), None)
    strides = tuple(x.strides[d] for d in rest) + (x.strides[dim1] + x.strides[dim2],)
    return xp.lib.stride_tricks.as_strided(x[tuple(start)], shape, strides)


register_kernel("diagonal", ("cpu", "cuda"), ALL + COMPLEX)(diagonal_view)


@register_kernel("diagonal_grad", ("cpu", "cuda"), ALL + COMPLEX)
def diagonal_grad(xp, grad_out, input_size, offset, dim1, dim2):
    out = xp.zeros(input_size, grad_out.dtype)
    diagonal_view(xp, out, offset, dim1, dim2)[...] = grad_out
    return out


@register_kernel("inverse", ("cpu", "cuda"), LINALG + COMPLEX)
def inverse(xp, x):
    try:
        with linalg_raises(xp):
            return xp.linalg.inv(x)
    except xp.linalg.LinAlgError:
        from .solve import batch_prefix, singular
        where = batch_prefix(xp, singular(xp, x), x.shape[:-2])
        raise LinAlgError(f"linalg.inv: {where}The input matrix is singular, so the inversion "
                          f"could not be completed.") from None


@register_kernel("det", ("cpu", "cuda"), LINALG + COMPLEX)
def det(xp, x):
    return xp.asarray(xp.linalg.det(x))

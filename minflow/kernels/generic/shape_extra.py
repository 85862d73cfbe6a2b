"""Kernels of unfold (a strided view) and its backward, written once against the array
module."""
from ...core.dtype import ALL_AND_COMPLEX
from ...ops.shape_extra import unfold_shape
from ..registry import register_kernel


def unfold_view(xp, x, dimension, size, step):
    """Windows as a view: dim ``dimension`` steps by ``step`` elements, the new last dim by
    one (numpy's sliding_window_view has no step, and cupy has none)."""
    shape = unfold_shape(x.shape, dimension, size, step)
    if x.ndim == 0:
        return x.reshape(shape)
    strides = list(x.strides)
    strides[dimension] *= step
    return xp.lib.stride_tricks.as_strided(x, shape, tuple(strides) + (x.strides[dimension],))


register_kernel("unfold", ("cpu", "cuda"), ALL_AND_COMPLEX)(unfold_view)


@register_kernel("unfold_grad", ("cpu", "cuda"), ALL_AND_COMPLEX)
def unfold_grad(xp, grad_out, input_size, dimension, size, step):
    out = xp.zeros(input_size, grad_out.dtype)
    if not input_size:
        return grad_out.reshape(()).copy() if size else out
    windows = grad_out.shape[dimension]
    moved = xp.moveaxis(out, dimension, -1)                 # a view of out
    grads = xp.moveaxis(grad_out, dimension, -2)            # (..., windows, size)
    for j in range(size):       # one offset at a time: the positions it hits are distinct
        moved[..., j + step * xp.arange(windows)] += grads[..., j]
    return out

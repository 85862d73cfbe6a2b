"""im2col and col2im kernels (unfold / fold), written once against the array module with
the conv kernels' strided windows: one copy for im2col, one slice-add per kernel offset
for col2im."""
from ...core.dtype import FLOATS
from ...ops.fold import blocks
from ..registry import register_kernel
from .conv import _col2im, _im2col


def _pads(padding):
    return (padding[0], padding[0], padding[1], padding[1])


@register_kernel("im2col", ("cpu", "cuda"), FLOATS)
def im2col(xp, input, kernel_size, dilation, padding, stride):
    n, c, h, w = input.shape
    out_hw = blocks((h, w), kernel_size, dilation, padding, stride)
    cols = _im2col(xp, input, kernel_size, stride, _pads(padding), dilation, 1, out_hw)
    return cols.reshape(n, c * kernel_size[0] * kernel_size[1], out_hw[0] * out_hw[1])


@register_kernel("col2im", ("cpu", "cuda"), FLOATS)
def col2im(xp, input, output_size, kernel_size, dilation, padding, stride):
    n, ckk, _ = input.shape
    per_channel = kernel_size[0] * kernel_size[1]
    out_hw = blocks(output_size, kernel_size, dilation, padding, stride)
    cols = input.reshape((n, ckk // per_channel, per_channel) + out_hw)
    return _col2im(xp, lambda k: cols[:, :, k], (n, ckk // per_channel) + tuple(output_size),
                   _pads(padding), kernel_size, stride, dilation, out_hw, input.dtype)

"""The 3-D convolution and pooling ops run the N-d kernels of conv.py (float16
adaptive_avg_pool3d has its own: torch's sums in float16)."""
from ...core.dtype import FLOATS, INTS
from ..registry import register_kernel
from .conv import (adaptive_avg_pool, adaptive_avg_pool_grad, avg_pool, avg_pool_grad, conv,
                   conv_grad_input, conv_grad_weight, max_pool, max_pool_gather, max_pool_grad)


def adaptive_avg_pool3d(xp, input, output_size):
    if input.dtype == xp.float16:
        return _half_adaptive_avg_pool3d(xp, input, output_size)
    return adaptive_avg_pool(xp, input, output_size)


def _windows(xp, size, out):
    """(start, length) of the windows that tile a dim of ``size`` into ``out``."""
    i = xp.arange(out)
    start = (i * size) // out
    return start, -((-(i + 1) * size) // out) - start


def _half_adaptive_avg_pool3d(xp, input, output_size):
    """torch's cpu kernel on float16: each window summed in float16, element by element in
    (d, h, w) order, then divided by its depth, height and width in turn (each step rounded
    to float16); here one step runs for every window at once."""
    (sd, ld), (sh, lh), (sw, lw) = [_windows(xp, s, o) for s, o in
                                    zip(input.shape[-3:], output_size)]
    ld, lh, lw = ld[:, None, None], lh[None, :, None], lw[None, None, :]
    total = xp.zeros(input.shape[:-3] + tuple(output_size), input.dtype)
    for a in range(int(ld.max())):
        for b in range(int(lh.max())):
            for c in range(int(lw.max())):
                d, h, w = (xp.minimum(s + k, n - 1) for s, k, n in
                           zip((sd, sh, sw), (a, b, c), input.shape[-3:]))
                inside = (a < ld) & (b < lh) & (c < lw)
                total = xp.where(inside, total + input[..., d[:, None, None], h[None, :, None],
                                                       w[None, None, :]], total)
    for length in (ld, lh, lw):
        total = total / length.astype(input.dtype)
    return total

register_kernel("conv3d", ("cpu", "cuda"), FLOATS, out=True)(conv)
for _name, _kernel in (("conv3d_grad_input", conv_grad_input),
                       ("conv3d_grad_weight", conv_grad_weight),
                       ("max_pool3d_grad", max_pool_grad), ("avg_pool3d", avg_pool),
                       ("avg_pool3d_grad", avg_pool_grad),
                       ("adaptive_avg_pool3d", adaptive_avg_pool3d),
                       ("adaptive_avg_pool3d_grad", adaptive_avg_pool_grad)):
    register_kernel(_name, ("cpu", "cuda"), FLOATS)(_kernel)
for _name, _kernel in (("max_pool3d", max_pool), ("max_pool3d_gather", max_pool_gather)):
    register_kernel(_name, ("cpu", "cuda"), INTS + FLOATS)(_kernel)

"""Shape kernels, written once against the array module (numpy or cupy).

The view ops return views of their input: reshape's caller (ops/shape.py) only asks for
shapes the layout allows without a copy.
"""
from ...core.dtype import ALL
from ..registry import register_kernel

register_kernel("reshape", ("cpu", "cuda"), ALL)(lambda xp, x, shape: x.reshape(shape))
register_kernel("unsqueeze", ("cpu", "cuda"), ALL)(lambda xp, x, dim: xp.expand_dims(x, dim))
register_kernel("expand", ("cpu", "cuda"), ALL)(lambda xp, x, shape: xp.broadcast_to(x, shape))
register_kernel("permute", ("cpu", "cuda"), ALL)(lambda xp, x, dims: xp.transpose(x, dims))


def _keep_where(xp, input, keep):
    return xp.where(keep, input, xp.zeros((), input.dtype))


@register_kernel("tril", ("cpu", "cuda"), ALL)
def tril(xp, input, diagonal):
    """Keep entries with j - i <= diagonal of each matrix in the last two dims."""
    return _keep_where(xp, input, xp.tri(*input.shape[-2:], k=diagonal, dtype=bool))


@register_kernel("triu", ("cpu", "cuda"), ALL)
def triu(xp, input, diagonal):
    """Keep entries with j - i >= diagonal of each matrix in the last two dims."""
    return _keep_where(xp, input, ~xp.tri(*input.shape[-2:], k=diagonal - 1, dtype=bool))


@register_kernel("narrow", ("cpu", "cuda"), ALL)
def narrow(xp, input, dim, start, length):
    return input[(slice(None),) * dim + (slice(start, start + length),)]


@register_kernel("cat", ("cpu", "cuda"), ALL)
def cat(xp, tensors, dim):
    kept = [t for t in tensors if t.shape != (0,)]      # torch skips 1-d empty tensors
    if not kept:
        return xp.empty((0,), tensors[0].dtype)
    return xp.concatenate(kept, axis=dim)


@register_kernel("pad", ("cpu", "cuda"), ALL)
def pad(xp, input, pad, value):
    """Fill the output with ``value``, then copy in the (cropped) input."""
    shape, src, dst = list(input.shape), [slice(None)] * input.ndim, [slice(None)] * input.ndim
    for i in range(len(pad) // 2):
        d, before, after = input.ndim - 1 - i, pad[2 * i], pad[2 * i + 1]
        lo, hi = max(-before, 0), input.shape[d] - max(-after, 0)
        src[d] = slice(lo, hi)
        dst[d] = slice(max(before, 0), max(before, 0) + hi - lo)
        shape[d] += before + after
    out = xp.full(shape, value, dtype=input.dtype)
    out[tuple(dst)] = input[tuple(src)]
    return out

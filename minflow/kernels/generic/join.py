"""Join kernels, written once against the array module (numpy or cupy).

narrow returns a view of its input; cat, pad, tril and triu return new arrays.
"""
from ...core.dtype import ALL_AND_COMPLEX
from ..registry import register_kernel


@register_kernel("narrow", ("cpu", "cuda"), ALL_AND_COMPLEX)
def narrow(xp, input, dim, start, length):
    return input[(slice(None),) * dim + (slice(start, start + length),)]


@register_kernel("cat", ("cpu", "cuda"), ALL_AND_COMPLEX)
def cat(xp, tensors, dim):
    kept = [t for t in tensors if t.shape != (0,)]      # torch skips 1-d empty tensors
    if not kept:
        return xp.empty((0,), tensors[0].dtype)
    return xp.concatenate(kept, axis=dim)


def _keep_where(xp, input, keep):
    return xp.where(keep, input, xp.zeros((), input.dtype))


@register_kernel("tril", ("cpu", "cuda"), ALL_AND_COMPLEX)
def tril(xp, input, diagonal):
    """Keep entries with j - i <= diagonal of each matrix in the last two dims."""
    return _keep_where(xp, input, xp.tri(*input.shape[-2:], k=diagonal, dtype=bool))


@register_kernel("triu", ("cpu", "cuda"), ALL_AND_COMPLEX)
def triu(xp, input, diagonal):
    """Keep entries with j - i >= diagonal of each matrix in the last two dims."""
    return _keep_where(xp, input, ~xp.tri(*input.shape[-2:], k=diagonal - 1, dtype=bool))


@register_kernel("pad", ("cpu", "cuda"), ALL_AND_COMPLEX)
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

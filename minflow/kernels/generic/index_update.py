"""Kernel of scatter_reduce, written once against the array module (numpy or cupy)."""
from ...core.dtype import ALL
from ..registry import register_kernel


def _combine(xp, reduce):
    # NOTE: maximum / minimum propagate NaN, as torch's amax / amin do; on bools add and
    # maximum are a logical or, multiply and minimum a logical and, as torch
    return {"sum": xp.add, "mean": xp.add, "prod": xp.multiply, "amax": xp.maximum,
            "amin": xp.minimum}[reduce]


def _targets(xp, out_shape, index, dim):
    """The flat position in the output of each element of ``index``."""
    coords = list(xp.indices(index.shape))
    coords[dim] = index.astype(xp.int64)
    flat = xp.zeros(index.shape, xp.int64)
    for c, n in zip(coords, out_shape):
        flat = flat * n + c
    return flat.reshape(-1)


def _segment_reduce(xp, target, values, combine):
    """(target ids, reduced values): values with equal targets combined, by a stable sort
    then a doubling scan (log2(n) whole-array steps, no per-element loop)."""
    order = xp.argsort(target, kind="stable")
    t, v = target[order], values[order]
    step = 1
    while step < t.size:
        same = t[step:] == t[:-step]
        v = xp.concatenate([v[:step], xp.where(same, combine(v[:-step], v[step:]), v[step:])])
        step *= 2
    last = xp.ones(t.size, bool)
    last[:-1] = t[1:] != t[:-1]
    return t[last], v[last]


@register_kernel("scatter_reduce", ("cpu", "cuda"), ALL)      # on bools: or, and
def scatter_reduce(xp, input, index, src, dim, reduce, include_self):
    out = input.reshape(-1).copy()
    if index.size == 0:
        return out.reshape(input.shape)
    shape = input.shape if input.ndim else (1,)
    index = index.reshape(index.shape if index.ndim else (1,))
    src = src.reshape(src.shape if src.ndim else (1,))
    target = _targets(xp, shape, index, dim)
    values = src[tuple(slice(0, n) for n in index.shape)].reshape(-1)
    combine = _combine(xp, reduce)
    ids, reduced = _segment_reduce(xp, target, values, combine)
    if include_self:
        reduced = combine(out[ids], reduced)
    if reduce == "mean":
        counts = xp.bincount(target, minlength=out.size)[ids] + (1 if include_self else 0)
        reduced = reduced // counts if out.dtype.kind in "iu" else reduced / counts
    out[ids] = reduced.astype(out.dtype)
    return out.reshape(input.shape)

"""Kernels of the sorting ops, written once against the array module (numpy or cupy)."""
from ...core.dtype import ALL, COMPLEX, INTS, NUMERIC
from ...ops.sorting import run_starts
from ..registry import register_kernel


def _argsort(xp, x, dim, descending):
    """A stable argsort; descending keeps equal elements in their order too (and NaN,
    which sorts last ascending, comes first), by sorting the reversed input ascending."""
    if not descending:
        return x.argsort(axis=dim, kind="stable")
    n = x.shape[dim]
    reversed_order = xp.flip(x, dim).argsort(axis=dim, kind="stable")
    return (n - 1) - xp.flip(reversed_order, dim)


@register_kernel("argsort", ("cpu", "cuda"), NUMERIC)
def argsort(xp, x, dim, descending):
    if x.ndim == 0:
        return xp.zeros((), xp.int64)
    return _argsort(xp, x, dim, descending).astype(xp.int64)


def _kept(xp, rows, k, largest):
    """Per row, the column indices (ascending) of the k elements a stable sort would put
    first: those beyond the k-th value (found by partition, O(n)), then the earliest of
    those equal to it. NaN counts as the largest value, as in the sort."""
    kth = rows.shape[1] - k if largest else k - 1
    threshold = xp.partition(rows, kth, axis=1)[:, kth:kth + 1]     # NaN partitions last
    beyond = rows > threshold if largest else rows < threshold
    equal = rows == threshold
    if rows.dtype.kind == "f":
        nan, nan_threshold = xp.isnan(rows), xp.isnan(threshold)
        beyond |= (nan & ~nan_threshold) if largest else (~nan & nan_threshold)
        equal |= nan & nan_threshold
    need = k - beyond.sum(axis=1, keepdims=True)
    kept = beyond | (equal & (xp.cumsum(equal, axis=1) <= need))
    return xp.nonzero(kept)[1].reshape(-1, k)          # k per row, row-major order


@register_kernel("topk", ("cpu", "cuda"), NUMERIC)
def topk(xp, x, k, dim, largest, sorted):
    """Select the k kept elements with a partition, then sort only those (stably, so ties
    come in index order): the same indices as a full stable sort's first k."""
    if x.ndim == 0:
        return xp.zeros((), xp.int64)
    moved = xp.moveaxis(x, dim, -1)
    if k == 0 or moved.size == 0:
        return xp.moveaxis(xp.zeros(moved.shape[:-1] + (k,), xp.int64), -1, dim)
    rows = moved.reshape(-1, moved.shape[-1])
    kept = _kept(xp, rows, k, largest)
    order = _argsort(xp, xp.take_along_axis(rows, kept, 1), 1, largest)
    index = xp.take_along_axis(kept, order, 1).astype(xp.int64)
    return xp.moveaxis(index.reshape(moved.shape[:-1] + (k,)), -1, dim)


@register_kernel("flip", ("cpu", "cuda"), ALL + COMPLEX)
def flip(xp, x, dims):
    return xp.flip(x, dims).copy() if dims else x.copy()


@register_kernel("roll", ("cpu", "cuda"), ALL + COMPLEX)
def roll(xp, x, shifts, dims):
    return xp.roll(x, shifts, axis=dims) if dims else x.copy()


@register_kernel("unique", ("cpu", "cuda"), ALL)
def unique(xp, x, sorted, dim):
    if dim is None:
        values, inverse, counts = xp.unique(x.reshape(-1), return_inverse=True,
                                            return_counts=True)
        return values, inverse.reshape(x.shape).astype(xp.int64), counts.astype(xp.int64)
    values, inverse, counts = xp.unique(x, axis=dim, return_inverse=True, return_counts=True)
    return values, inverse.reshape(-1).astype(xp.int64), counts.astype(xp.int64)


@register_kernel("unique_consecutive", ("cpu", "cuda"), ALL)
def unique_consecutive(xp, x, dim):
    starts = run_starts(xp, x, dim)
    size = starts.shape[0]
    first = xp.nonzero(starts)[0]
    counts = xp.diff(xp.concatenate([first, xp.array([size])])).astype(xp.int64)
    inverse = (xp.cumsum(starts) - 1).astype(xp.int64)
    if dim is None:
        return x.reshape(-1)[first], inverse.reshape(x.shape), counts
    return xp.take(x, first, axis=dim), inverse, counts


@register_kernel("bincount", ("cpu", "cuda"), INTS)
def bincount(xp, x, weights, minlength):
    return xp.bincount(x, weights=weights, minlength=minlength)

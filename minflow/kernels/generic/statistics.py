"""Kernels of the order-statistics ops, written once against the array module (numpy or
cupy)."""
import math

from ...core.dtype import ALL, FLOATS, NUMERIC
from ..registry import register_kernel


@register_kernel("median", ("cpu", "cuda"), NUMERIC)
def median(xp, x, ignore_nan):
    flat = x.reshape(-1)
    if x.dtype.kind == "f":
        nan = xp.isnan(flat)
        if ignore_nan:
            flat = flat[~nan]
        elif bool(nan.any()):
            return xp.array(xp.nan, x.dtype)
    if flat.size == 0:
        return xp.array(xp.nan if x.dtype.kind == "f" else 0, x.dtype)
    k = (flat.size - 1) // 2
    return xp.asarray(xp.partition(flat, k)[k])


def _rows(xp, x, dim):
    """x with ``dim`` moved last and the other dims flattened: shape (rows, n)."""
    moved = xp.moveaxis(x, dim, -1)
    return moved.reshape(-1, moved.shape[-1]), moved.shape[:-1]


@register_kernel("mode", ("cpu", "cuda"), ALL)
def mode(xp, x, dim):
    """Per row: sort (stable), cut into runs of equal values, take the first longest run
    (the smallest value among the most frequent) and its last element (the last
    occurrence, a stable sort keeps equal elements in order)."""
    rows, batch = _rows(xp, x, dim)
    count, n = rows.shape
    order = rows.argsort(axis=1, kind="stable")
    ordered = xp.take_along_axis(rows, order, 1)
    starts = xp.ones((count, n), bool)
    starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]      # NaN != NaN: each its own run
    run = xp.cumsum(starts.reshape(-1)) - 1                 # run id of each element, flat
    lengths = xp.bincount(run)
    last = xp.cumsum(lengths) - 1                           # flat position of each run's end
    best = (lengths[run].reshape(count, n)).argmax(axis=1)  # first longest run, per row
    column = last[run.reshape(count, n)[xp.arange(count), best]] - xp.arange(count) * n
    index = order[xp.arange(count), column]
    return xp.expand_dims(index.reshape(batch).astype(xp.int64), dim)


@register_kernel("histc", ("cpu", "cuda"), FLOATS)
def histc(xp, x, bins, min, max):
    """torch's binning: bin = int((v - low) * bins / (high - low)) in x's dtype, the last
    bin closed on the right."""
    flat = x.reshape(-1)
    low, high = min, max
    if low == high and flat.size:
        low, high = float(flat.min()), float(flat.max())
    if low == high:
        low, high = low - 1, high + 1
    if not (math.isfinite(low) and math.isfinite(high)):
        raise RuntimeError(f"histc: range of [{low}, {high}] is not finite")
    t = x.dtype.type
    inside = flat[(flat >= t(low)) & (flat <= t(high))]
    index = ((inside - t(low)) * t(bins) / (t(high) - t(low))).astype(xp.int64)
    index = xp.minimum(index, bins - 1)
    return xp.bincount(index, minlength=bins)[:bins].astype(x.dtype)

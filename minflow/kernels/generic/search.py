"""Kernels of searchsorted and isin, written once against the array module (numpy or
cupy)."""
from ...core.dtype import NUMERIC
from ..registry import register_kernel


@register_kernel("searchsorted", ("cpu", "cuda"), NUMERIC)
def searchsorted(xp, seq, values, sorter, right, out_int32):
    """torch's binary search, run for every value at once: each of the log2(n) + 1 rounds
    halves every value's [low, high) range. The same comparisons as torch's (``not
    seq[mid] >= v`` moves right) give the same answers, NaN included."""
    n = seq.shape[-1]
    if n == 0:
        return xp.zeros(values.shape, xp.int32 if out_int32 else xp.int64)
    rows = seq.reshape(-1, n)
    if sorter is not None:
        rows = xp.take_along_axis(rows, sorter.reshape(-1, n), 1)
    v = values.reshape(rows.shape[0], -1) if seq.ndim > 1 else values.reshape(1, -1)
    low = xp.zeros(v.shape, xp.int64)
    high = xp.full(v.shape, n, xp.int64)
    for _ in range(n.bit_length()):
        active = low < high
        mid = (low + high) >> 1
        at_mid = xp.take_along_axis(rows, xp.minimum(mid, n - 1), 1)
        before = ~(at_mid > v) if right else ~(at_mid >= v)
        low = xp.where(active & before, mid + 1, low)
        high = xp.where(active & ~before, mid, high)
    return low.reshape(values.shape).astype(xp.int32 if out_int32 else xp.int64)


@register_kernel("isin", ("cpu", "cuda"), NUMERIC)
def isin(xp, elements, test_elements, invert):
    return xp.isin(elements, test_elements, invert=invert)

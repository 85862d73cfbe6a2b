"""Kernels of the sorting ops, written once against the array module (numpy or cupy)."""
from ...core.dtype import ALL, INTS, NUMERIC
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


@register_kernel("topk", ("cpu", "cuda"), NUMERIC)
def topk(xp, x, k, dim, largest, sorted):
    if x.ndim == 0:
        return xp.zeros((), xp.int64)
    index = [slice(None)] * x.ndim
    index[dim] = slice(0, k)
    return _argsort(xp, x, dim, largest)[tuple(index)].astype(xp.int64)


@register_kernel("flip", ("cpu", "cuda"), ALL)
def flip(xp, x, dims):
    return xp.flip(x, dims).copy() if dims else x.copy()


@register_kernel("roll", ("cpu", "cuda"), ALL)
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


@register_kernel("bincount", ("cpu", "cuda"), INTS)
def bincount(xp, x, weights, minlength):
    return xp.bincount(x, weights=weights, minlength=minlength)

"""Indexing kernels, written once against the array module (numpy or cupy).

Index arrays are bounds-checked here with PyTorch's message: numpy's own names no op and
cupy's fancy indexing wraps out-of-range indices silently.
"""
import numpy as np

from ...core.dtype import ALL_AND_COMPLEX
from ..registry import register_kernel


def checked(xp, index, size, dim, op, error=IndexError):
    """``index`` with negative entries wrapped, or an ``error`` naming the bound."""
    if index.size == 0:
        return index
    low, high = int(index.min()), int(index.max())
    if high >= size or low < -size:
        bad = high if high >= size else low
        raise error(f"{op}: index {bad} is out of bounds for dimension {dim} with size "
                    f"{size}")
    return index if low >= 0 else xp.where(index < 0, index + size, index)


def add_at(xp, target, key, values):
    """``target[key] += values`` with repeated indices summed (``add.at``; atomic adds on cupy)."""
    if xp is np or target.dtype not in (xp.int64, xp.bool_):
        xp.add.at(target, key, values)
    elif target.dtype == xp.int64:
        # NOTE: cupy has no int64 atomic add; uint64 addition wraps to the same bits
        xp.add.at(target.view(xp.uint64), key, xp.asarray(values).astype(xp.uint64))
    else:                               # no bool atomics: add in int32, nonzero is True
        wide = target.astype(xp.int32)
        xp.add.at(wide, key, xp.asarray(values).astype(xp.int32))
        target[...] = wide != 0


def _key(xp, input, indices, dims, op):
    """The numpy index tuple: whole slices, and the checked index arrays at ``dims``."""
    key = [slice(None)] * (dims[-1] + 1)
    for index, dim in zip(indices, dims):
        key[dim] = checked(xp, index, input.shape[dim], dim, op)
    return tuple(key)


@register_kernel("getitem", ("cpu", "cuda"), ALL_AND_COMPLEX)
def getitem(xp, input, index):
    return input[index + (Ellipsis,)]     # the Ellipsis keeps a 0-d result a view, not a scalar


@register_kernel("getitem_scatter", ("cpu", "cuda"), ALL_AND_COMPLEX)
def getitem_scatter(xp, input, src, index):
    out = input.copy()
    out[index] = src
    return out


@register_kernel("index", ("cpu", "cuda"), ALL_AND_COMPLEX)
def index(xp, input, indices, dims):
    out = input[_key(xp, input, indices, dims, "index")]
    # NOTE: numpy lays x[:, idx] out with the indexed dim outermost; torch's result of a
    # contiguous input is contiguous (so .view works on it)
    return xp.ascontiguousarray(out) if input.flags.c_contiguous else out


@register_kernel("index_put", ("cpu", "cuda"), ALL_AND_COMPLEX)
def index_put(xp, input, indices, values, dims, accumulate):
    out = input.copy()
    key = _key(xp, out, indices, dims, "index_put")
    if accumulate:
        add_at(xp, out, key, values)
    else:
        out[key] = values
    return out


@register_kernel("nonzero", ("cpu", "cuda"), ALL_AND_COMPLEX)
def nonzero(xp, input):
    return xp.argwhere(input)


def _coords(xp, index, dim, size, op):
    """The index tuple of gather / scatter: ``index`` along ``dim``, a broadcast arange
    along every other dim. An index out of bounds is a RuntimeError here, as torch's."""
    key = []
    for axis, n in enumerate(index.shape):
        if axis == dim:
            key.append(checked(xp, index, size, dim, op, RuntimeError))
        else:
            key.append(xp.arange(n).reshape((n,) + (1,) * (index.ndim - axis - 1)))
    return tuple(key)


def _at_least_1d(*arrays):
    return [a.reshape(1) if a.ndim == 0 else a for a in arrays]


@register_kernel("gather", ("cpu", "cuda"), ALL_AND_COMPLEX)
def gather(xp, input, index, dim):
    if index.size == 0:             # any shape goes, as torch's
        return xp.empty(index.shape, input.dtype)
    source, where = _at_least_1d(input, index)
    out = source[_coords(xp, where, dim, source.shape[dim], "gather")]
    return out.reshape(index.shape)


def _scatter(xp, input, index, src, dim, accumulate, op):
    out = input.copy()
    if index.size == 0:
        return out
    target, where, source = _at_least_1d(out, index, src)
    key = _coords(xp, where, dim, target.shape[dim], op)
    values = source[tuple(slice(0, n) for n in where.shape)]
    if accumulate:
        add_at(xp, target, key, values)
    else:
        target[key] = values
    return out


@register_kernel("scatter", ("cpu", "cuda"), ALL_AND_COMPLEX)
def scatter(xp, input, index, src, dim):
    return _scatter(xp, input, index, src, dim, False, "scatter")


@register_kernel("scatter_add", ("cpu", "cuda"), ALL_AND_COMPLEX)
def scatter_add(xp, input, index, src, dim):
    return _scatter(xp, input, index, src, dim, True, "scatter_add")

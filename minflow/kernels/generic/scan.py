"""Kernels of the scans (ops/scan.py), written once against the array module.

numpy scans with ``ufunc.accumulate`` (one pass); on cupy, whose accumulate does not
cover maximum, minimum or logaddexp, ``_doubling_scan`` does it in log2(n) elementwise
passes (Hillis and Steele).
"""
import numpy as np

from ...core.dtype import ALL, FLOATS
from ..registry import register_kernel


def _doubling_scan(xp, combine, x, axis):
    """The inclusive scan of an associative ``combine`` along ``axis``: after the pass
    with step s, each element combines the 2s elements ending at it.

    >>> from minflow.kernels.generic.scan import _doubling_scan
    >>> _doubling_scan(np, np.maximum, np.array([1, 3, 2, 5, 4]), 0).tolist()
    [1, 3, 3, 5, 5]
    """
    out = xp.moveaxis(x, axis, -1).copy()
    step = 1
    while step < out.shape[-1]:
        out[..., step:] = combine(out[..., :-step], out[..., step:])   # right side first
        step *= 2
    return xp.moveaxis(out, -1, axis)


def _accumulate(xp, name, x, axis):
    ufunc = getattr(xp, name)
    return ufunc.accumulate(x, axis=axis) if xp is np else _doubling_scan(xp, ufunc, x, axis)


@register_kernel("logcumsumexp", ("cpu", "cuda"), FLOATS)
def logcumsumexp(xp, x, dim):
    if x.ndim == 0:
        return x.copy()
    wide = x.astype(xp.float32) if x.dtype == xp.float16 else x     # as torch's accumulate
    return _accumulate(xp, "logaddexp", wide, dim).astype(x.dtype)


def _cumulative(xp, name, x, dim):
    """(running extreme, index of the element it came from): the last index among ties
    and, from the first NaN on, NaN with the index of the latest NaN."""
    if x.ndim == 0:
        return x.copy(), xp.zeros((), xp.int64)
    values = _accumulate(xp, name, x, dim)
    taken = x == values
    if x.dtype.kind == "f":
        taken |= xp.isnan(x)
    shape = [1] * x.ndim
    shape[dim] = x.shape[dim]
    positions = xp.arange(x.shape[dim], dtype=xp.int64).reshape(shape)
    return values, _accumulate(xp, "maximum", xp.where(taken, positions, 0), dim)


@register_kernel("cummax", ("cpu", "cuda"), ALL)
def cummax(xp, x, dim):
    return _cumulative(xp, "maximum", x, dim)


@register_kernel("cummin", ("cpu", "cuda"), ALL)
def cummin(xp, x, dim):
    return _cumulative(xp, "minimum", x, dim)

"""Reduction kernels, written once against the array module (numpy or cupy).

NOTE: they call the array's methods (``x.sum(...)``), not ``xp.sum(x, ...)``: numpy's
function forms add about 1 us of Python dispatch per call, the methods go straight to C.
"""
import numpy as np

from ...core.dtype import ALL, COMPLEX, FLOATS, NUMERIC
from ..registry import register_kernel


def _accumulate(xp, x, dtype):
    """The dtype to sum in: ``dtype`` if given, else int64 for ints and bools; float16 sums
    in float32 (the dispatcher casts the result back), as torch does."""
    out = dtype.np if dtype is not None else (x.dtype if x.dtype.kind in "fc" else xp.int64)
    return xp.float32 if out == xp.float16 else out


@register_kernel("sum", ("cpu", "cuda"), ALL + COMPLEX, out=True)
def sum_(xp, x, dim, keepdim, dtype, out=None):
    if x.__class__ is np.ndarray:
        # np.add.reduce is what ndarray.sum runs, called from here so that an overflow
        # warning is raised in minflow's module (and filtered as minflow's: dispatch.py)
        return np.add.reduce(x, axis=dim, keepdims=keepdim, dtype=_accumulate(xp, x, dtype),
                             out=out)
    return x.sum(axis=dim, keepdims=keepdim, dtype=_accumulate(xp, x, dtype), out=out)


@register_kernel("prod", ("cpu", "cuda"), ALL + COMPLEX)
def prod(xp, x, dim, keepdim, dtype):
    # ints and bools multiply in int64, as torch
    out_dtype = dtype.np if dtype is not None else (x.dtype if x.dtype.kind in "fc" else
                                                    xp.int64)
    return x.prod(axis=dim, keepdims=keepdim, dtype=out_dtype)


@register_kernel("amax", ("cpu", "cuda"), ALL)
def amax(xp, x, dim, keepdim):
    return xp.asarray(x.max(axis=dim, keepdims=keepdim))


@register_kernel("amin", ("cpu", "cuda"), ALL)
def amin(xp, x, dim, keepdim):
    return xp.asarray(x.min(axis=dim, keepdims=keepdim))


@register_kernel("all", ("cpu", "cuda"), ALL)
def all_(xp, x, dim, keepdim):
    return xp.asarray(x.all(axis=dim, keepdims=keepdim))


@register_kernel("any", ("cpu", "cuda"), ALL)
def any_(xp, x, dim, keepdim):
    return xp.asarray(x.any(axis=dim, keepdims=keepdim))


def _arg(xp, fn, x, dim, keepdim):
    if x.ndim == 0:
        return xp.zeros((), xp.int64)
    if dim is None:
        index = fn(x.reshape(-1)).astype(xp.int64)
        return index.reshape((1,) * x.ndim) if keepdim else index
    index = fn(x, axis=dim).astype(xp.int64)
    return xp.expand_dims(index, dim) if keepdim else index


@register_kernel("argmax", ("cpu", "cuda"), ALL)
def argmax(xp, x, dim, keepdim):
    return _arg(xp, xp.argmax, x, dim, keepdim)


@register_kernel("argmin", ("cpu", "cuda"), ALL)
def argmin(xp, x, dim, keepdim):
    return _arg(xp, xp.argmin, x, dim, keepdim)


def _extreme_dim(xp, fn, x, dim, keepdim):
    if x.ndim == 0:
        return x.copy(), xp.zeros((), xp.int64)
    index = xp.expand_dims(fn(x, axis=dim).astype(xp.int64), dim)
    values = xp.take_along_axis(x, index, axis=dim)
    if not keepdim:
        values, index = values.squeeze(dim), index.squeeze(dim)
    return values, index


@register_kernel("max_dim", ("cpu", "cuda"), ALL)
def max_dim(xp, x, dim, keepdim):
    return _extreme_dim(xp, xp.argmax, x, dim, keepdim)


@register_kernel("min_dim", ("cpu", "cuda"), ALL)
def min_dim(xp, x, dim, keepdim):
    return _extreme_dim(xp, xp.argmin, x, dim, keepdim)


@register_kernel("cumsum", ("cpu", "cuda"), ALL + COMPLEX)
def cumsum(xp, x, dim, dtype):
    if x.ndim == 0:
        return x.copy()
    return x.cumsum(axis=dim, dtype=_accumulate(xp, x, dtype))


@register_kernel("cumprod", ("cpu", "cuda"), ALL + COMPLEX)
def cumprod(xp, x, dim, dtype):
    if x.ndim == 0:
        return x.copy()
    return x.cumprod(axis=dim, dtype=_accumulate(xp, x, dtype))

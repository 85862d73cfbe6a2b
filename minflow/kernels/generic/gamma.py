"""Kernels of the gamma family and Bessel functions (ops/gamma.py), written once against
the array module: scipy.special on numpy where scipy is installed, else the pure-numpy
fallbacks of gamma_fallback.py; cupyx.scipy.special on cupy.

Where scipy's value at an edge differs from torch's, torch's is taken: lgamma(-inf) is
+inf, i0 and i1 are NaN at +-inf, polygamma(n >= 1) at +-inf follows torch's formulas.
"""
import math

from ...core.dtype import FLOATS
from ..registry import register_kernel
from . import gamma_fallback
from .special import _special


def _float(xp, x):
    """scipy's ufuncs compute float16 in float32; the fallbacks, everything in float64."""
    return x.astype(xp.float32) if x.dtype == xp.float16 else x


@register_kernel("lgamma", ("cpu", "cuda"), FLOATS)
def lgamma(xp, x):
    special = _special(xp)
    out = special.gammaln(_float(xp, x)) if special is not None else gamma_fallback.lgamma(x)
    return xp.where(x == -math.inf, math.inf, out).astype(x.dtype)


@register_kernel("digamma", ("cpu", "cuda"), FLOATS)
def digamma(xp, x):
    special = _special(xp)
    out = special.psi(_float(xp, x)) if special is not None else gamma_fallback.digamma(x)
    return out.astype(x.dtype)


@register_kernel("polygamma", ("cpu", "cuda"), FLOATS)
def polygamma(xp, x, n):
    if n == 0:
        return digamma(xp, x)
    special = _special(xp)
    if special is not None:
        # n as an array: cupyx's polygamma breaks on a Python int order
        out = special.polygamma(xp.asarray(n, dtype=xp.float64), _float(xp, x).astype(xp.float64))
    else:
        out = gamma_fallback.polygamma(n, x)
    # torch: trigamma(-inf) is NaN, and its zeta formula gives NaN at +inf for n >= 2
    edge = x == -math.inf if n == 1 else (x == math.inf)
    return xp.where(edge, math.nan, out).astype(x.dtype)


def _torch_edges(xp, a, x, p):
    """torch's values where scipy's are NaN: P(nan, 0) = 0, P(nan, inf) = 1 and
    P(inf, nan) = 0 (given as P; igammac takes 1 - P there)."""
    p = xp.where(xp.isnan(a) & (x == 0), 0.0, p)
    p = xp.where(xp.isnan(a) & (x == math.inf), 1.0, p)
    return xp.where((a == math.inf) & xp.isnan(x), 0.0, p)


def _edge_mask(xp, a, x):
    return (xp.isnan(a) & ((x == 0) | (x == math.inf))) | ((a == math.inf) & xp.isnan(x))


@register_kernel("igamma", ("cpu", "cuda"), FLOATS)
def igamma(xp, a, x):
    a64, x64 = a.astype(xp.float64), x.astype(xp.float64)
    special = _special(xp)
    p = special.gammainc(a64, x64) if special is not None else gamma_fallback.gammainc(a64, x64)
    return _torch_edges(xp, a64, x64, p).astype(a.dtype)


@register_kernel("igammac", ("cpu", "cuda"), FLOATS)
def igammac(xp, a, x):
    a64, x64 = a.astype(xp.float64), x.astype(xp.float64)
    special = _special(xp)
    # NOTE: 1 - P loses the upper tail; scipy's gammaincc computes Q directly
    q = special.gammaincc(a64, x64) if special is not None else \
        1 - gamma_fallback.gammainc(a64, x64)
    edges = 1 - _torch_edges(xp, a64, x64, xp.zeros_like(q))
    return xp.where(_edge_mask(xp, a64, x64), edges, q).astype(a.dtype)


@register_kernel("i0", ("cpu", "cuda"), FLOATS)
def i0(xp, x):
    out = xp.i0(_float(xp, x))          # numpy and cupy both have i0
    return xp.where(xp.isinf(x), math.nan, out).astype(x.dtype)     # torch: NaN at +-inf


@register_kernel("i1", ("cpu", "cuda"), FLOATS)
def i1(xp, x):
    special = _special(xp)
    out = special.i1(_float(xp, x)) if special is not None else gamma_fallback.i1(x)
    return xp.where(xp.isinf(x), math.nan, out).astype(x.dtype)     # torch: NaN at +-inf


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
        out = special.polygamma(n, _float(xp, x).astype(xp.float64))
    else:
        out = gamma_fallback.polygamma(n, x)
    # torch: trigamma(-inf) is NaN, and its zeta formula gives NaN at +inf for n >= 2
    edge = x == -math.inf if n == 1 else (x == math.inf)
    return xp.where(edge, math.nan, out).astype(x.dtype)


@register_kernel("i0", ("cpu", "cuda"), FLOATS)
def i0(xp, x):
    out = xp.i0(_float(xp, x))          # numpy and cupy both have i0
    return xp.where(xp.isinf(x), math.nan, out).astype(x.dtype)     # torch: NaN at +-inf


@register_kernel("i1", ("cpu", "cuda"), FLOATS)
def i1(xp, x):
    special = _special(xp)
    out = special.i1(_float(xp, x)) if special is not None else gamma_fallback.i1(x)
    return xp.where(xp.isinf(x), math.nan, out).astype(x.dtype)     # torch: NaN at +-inf


"""Kernels of torch.special's Bessel and Airy functions (ops/special_functions.py): ports of
torch's own Cephes-derived code (aten/src/ATen/native/Math.h), written once against the
array module. Each keeps torch's branches and does the same float operations in the same
order, in the input's dtype; instead of branching per element, every branch is computed
for the whole array and ``where`` picks. Results agree with torch's to a few ulps: its
compiled loops fuse some multiply-adds, and numpy's exp, sin... may differ from glibc's in
the last bit (relative to the value, more near the zeros of Y0, Y1 and Ai).

float32 and float64 only: torch has no float16 kernel for these either. Coefficient
tables: kernels/generic/cephes_tables.py.
"""
import functools
import math
import types

import numpy as np

from ...core.dtype import float32, float64
from ..registry import register_kernel
from . import cephes_tables as C

DTYPES = (float32, float64)
SQRT_2_OVER_PI = 0.797884560802865355879892119868763737
PI_4, PI_3_4 = 0.785398163397448309615660845819875721, 2.356194490192344928846982537459627163
TWO_OVER_PI = 0.636619772367581343075535053490057448


def _quiet(kernel):
    """Run ``kernel`` without numpy's warnings: branches not taken may overflow or divide
    by 0 (their values are discarded)."""
    @functools.wraps(kernel)
    def run(xp, *arrays):
        with np.errstate(all="ignore"):
            return kernel(xp, *arrays)
    return run


def _register(op_name):
    return lambda kernel: register_kernel(op_name, ("cpu", "cuda"), DTYPES)(_quiet(kernel))


@functools.lru_cache(maxsize=None)
def libm(xp):
    """exp, log, sin, cos and arccos of the array module ``xp``, with float32 computed in
    float64 and rounded once: so they give glibc's float results, which torch's loops
    call, nearly always (numpy's own float32 loops are often an ulp away).

    >>> minflow.kernels.generic.bessel.libm(np).exp(np.float32([1.0]))
    array([2.7182817], dtype=float32)
    """
    def rounded_once(fn):
        def run(x):
            if x.dtype == np.float32:
                return fn(x.astype(np.float64)).astype(np.float32)
            return fn(x)
        return run
    return types.SimpleNamespace(**{name: rounded_once(getattr(xp, name))
                                    for name in ("exp", "log", "sin", "cos", "arccos")})


def horner(z, coefficients):
    """c_0 z^n + ... + c_n, as torch's loops ``r = r * z + C[i]`` from r = 0.

    >>> minflow.kernels.generic.bessel.horner(np.array([2.0]), (1.0, 0.0, 3.0))
    array([7.])
    """
    t = z.dtype.type
    result = z * 0
    for c in coefficients:
        result = result * z + t(c)
    return result


def chebyshev_series(xp, w, coefficients):
    """1/2 (b_0 - b_2) of b_k = w b_{k+1} - b_{k+2} + c_k: the Chebyshev series torch's
    modified Bessel functions sum inline (Cephes' chbevl)."""
    t = w.dtype.type
    p = q = xp.zeros_like(w)
    a = xp.full_like(w, t(coefficients[0]))
    for c in coefficients[1:]:
        p, q = q, a
        a = w * q - p + t(c)
    return t(0.5) * (a - p)


# ---- Bessel functions of the first and second kind ---------------------------------------
def _far(xp, x, w, tables, phase, second_kind):
    """The form of J and Y for x > 5: sqrt(2 / (pi x)) (P cos(x - phase) - 5/x Q sin(x -
    phase)), with sin and cos swapped (and a plus) for Y; P and Q rational in w."""
    t = x.dtype.type
    m = libm(xp)
    pp, pq, qp, qq = tables
    p = horner(w, pp) / horner(w, pq)
    q = horner(w, qp) / horner(w, qq)
    s = x - t(phase)
    if second_kind:
        value = p * m.sin(s) + t(5.0) / x * q * m.cos(s)
    else:
        value = p * m.cos(s) - t(5.0) / x * q * m.sin(s)
    return value * t(SQRT_2_OVER_PI) / xp.sqrt(x)


J0_FAR = (C.J0_PP, C.J0_PQ, C.J0_QP, C.J0_QQ)
J1_FAR = (C.J1_PP, C.J1_PQ, C.J1_QP, C.J1_QQ)


def j0(xp, x):
    """J0(x), torch's bessel_j0_forward, which y0 uses.

    NOTE: torch's J0, J1, Y0 and Y1 drop the leading 1 of Cephes' denominators (its
    p1evl), so they miss the functions by up to ~1e-8 (Y1 by 9e-7 just above 5); the
    ports keep that, to agree with torch. minflow.special.bessel_j0 and bessel_j1 are
    scipy's (Cephes' own)."""
    t = x.dtype.type
    x = xp.abs(x)
    z = x * x
    near = (z - t(5.78318596294678452118)) * (z - t(30.4712623436620863991)) \
        * horner(z, C.J0_RP) / horner(z, C.J0_RQ)
    near = xp.where(x < t(0.00001), t(1.0) - z / t(4.0), near)
    far = _far(xp, x, t(25.0) / z, J0_FAR, PI_4, False)
    return xp.where(x <= t(5.0), near, far)


def j1(xp, x):
    """J1(x), torch's bessel_j1_forward (which y1 uses): odd, J1(-x) = -J1(x)."""
    t = x.dtype.type
    a = xp.where(x < 0, -x, x)
    z = a * a
    near = horner(z, C.J1_RP) / horner(z, C.J1_RQ) * a * (z - t(14.6819706421238932572)) \
        * (z - t(49.2184563216946036703))
    far = _far(xp, a, t(5.0) / a * (t(5.0) / a), J1_FAR, PI_3_4, False)
    value = xp.where(a <= t(5.0), near, far)
    return xp.where(x < 0, -value, value)


def _second_kind_edges(xp, x, value):
    """Y0 and Y1 are -inf at 0 and NaN for x < 0."""
    t = x.dtype.type
    return xp.where(x == 0, t(-math.inf), xp.where(x < 0, t(math.nan), value))


@_register("special_bessel_y0")
def y0(xp, x):
    """Y0(x), torch's bessel_y0_forward."""
    t = x.dtype.type
    m = libm(xp)
    z = x * x
    near = horner(z, C.Y0_YP) / horner(z, C.Y0_YQ) + t(TWO_OVER_PI) * m.log(x) * j0(xp, x)
    far = _far(xp, x, t(25.0) / z, J0_FAR, PI_4, True)
    return _second_kind_edges(xp, x, xp.where(x <= t(5.0), near, far))


@_register("special_bessel_y1")
def y1(xp, x):
    """Y1(x), torch's bessel_y1_forward."""
    t = x.dtype.type
    m = libm(xp)
    z = x * x
    near = x * (horner(z, C.Y1_YP) / horner(z, C.Y1_YQ)) \
        + t(TWO_OVER_PI) * (j1(xp, x) * m.log(x) - t(1.0) / x)
    far = _far(xp, x, t(5.0) / x * (t(5.0) / x), J1_FAR, PI_3_4, True)
    return _second_kind_edges(xp, x, xp.where(x <= t(5.0), near, far))


# ---- the Airy function Ai ----------------------------------------------------------------
@_register("special_airy_ai")
def airy_ai(xp, x):
    """Ai(x), torch's airy_ai_forward: an asymptotic form below -2.09 and one from 2.09 up
    (0 past 103.892), the Maclaurin series between; NaN at +-inf.

    NOTE: as in J0, torch's AFD and AGD sums drop Cephes' leading 1, so below -2.09 it
    misses Ai by up to 3e-6; kept, to agree with torch."""
    t = x.dtype.type
    m = libm(xp)
    u = t(-2.0) * x * xp.sqrt(-x) / t(3.0)           # (2/3) |x|^(3/2), for x < 0
    z = t(1.0) / u
    zz = z * z
    theta = u + t(0.25) * t(math.pi)
    left = t(5.64189583547756286948e-01) / xp.sqrt(xp.sqrt(-x)) * (
        m.sin(theta) * (t(1.0) + zz * horner(zz, C.AIRY_AFN) / horner(zz, C.AIRY_AFD))
        - m.cos(theta) * (z * horner(zz, C.AIRY_AGN) / horner(zz, C.AIRY_AGD)))
    zeta = t(2.0) * x * xp.sqrt(x) / t(3.0)
    ratio = horner(t(1.0) / zeta, C.AIRY_AN) / horner(t(1.0) / zeta, C.AIRY_AD)
    right = t(5.64189583547756286948e-01) * ratio \
        / (t(2.0) * xp.sqrt(xp.sqrt(x)) * m.exp(zeta))
    below, above = x < t(-2.09), x >= t(2.09)
    series = _airy_series(xp, xp.where(below | above, t(0.0), x))
    value = xp.where(below, left, xp.where(above, right, series))
    value = xp.where(x > t(103.892), t(0.0), value)
    return xp.where(xp.isinf(x), t(math.nan), value)


def _airy_series(xp, x):
    """c1 f(x) - c2 g(x), f and g summed term by term until |term / f| <= eps, each
    element stopping where torch's loop does (the terms' divisors k run in lockstep)."""
    t = x.dtype.type
    eps = np.finfo(x.dtype).eps
    f, m = xp.ones_like(x), xp.ones_like(x)
    g, n = x.copy(), x.copy()
    z = x * x * x
    k = 1.0
    active = xp.ones(x.shape, dtype=bool)
    while bool(active.any()):
        m_next = m * z / t(k + 1) / t(k + 2)
        n_next = n * z / t(k + 2) / t(k + 3)
        f = xp.where(active, f + m_next, f)
        g = xp.where(active, g + n_next, g)
        m, n = xp.where(active, m_next, m), xp.where(active, n_next, n)
        active &= xp.abs(m / f) > t(eps)
        k += 3.0
    return t(0.355028053887817239260) * f - t(0.258819403792806798405) * g


# ---- modified Bessel functions -------------------------------------------------------------
def i0(xp, x):
    """I0(x), torch's modified_bessel_i0_forward."""
    t = x.dtype.type
    m = libm(xp)
    a = xp.abs(x)
    inner = m.exp(a) * chebyshev_series(xp, a / t(2.0) - t(2.0), C.I0_A)
    outer = m.exp(a) * chebyshev_series(xp, t(32.0) / a - t(2.0), C.I0_B) / xp.sqrt(a)
    return xp.where(a <= t(8.0), inner, outer)


def i1(xp, x):
    """I1(x), torch's modified_bessel_i1_forward: odd."""
    t = x.dtype.type
    m = libm(xp)
    a = xp.abs(x)
    inner = chebyshev_series(xp, a / t(2.0) - t(2.0), C.I1_A) * a * m.exp(a)
    outer = m.exp(a) * chebyshev_series(xp, t(32.0) / a - t(2.0), C.I1_B) / xp.sqrt(a)
    value = xp.where(a <= t(8.0), inner, outer)
    return xp.where(x < 0, -value, value)


register_kernel("special_modified_bessel_i0", ("cpu", "cuda"), DTYPES)(_quiet(i0))
register_kernel("special_modified_bessel_i1", ("cpu", "cuda"), DTYPES)(_quiet(i1))


def _k_edges(xp, x, value):
    """K0 and K1 (scaled or not) are +inf at 0 and NaN for x < 0."""
    t = x.dtype.type
    return xp.where(x == 0, t(math.inf), xp.where(x < 0, t(math.nan), value))


def _k0_near(xp, x):
    """K0 on (0, 2]: 1/2 (a - p) - ln(x / 2) I0(x).

    NOTE: torch writes ``log(0.5 * x)`` with a double 0.5, so in float32 this difference
    is computed in float64 and rounded once; so it is here."""
    series = chebyshev_series(xp, x * x - x.dtype.type(2.0), C.K0_A)
    wide = series.astype(np.float64) - xp.log(0.5 * x.astype(np.float64)) \
        * i0(xp, x).astype(np.float64)
    return wide.astype(x.dtype)


def _k1_near(xp, x):
    """K1 on (0, 2]: ln(x / 2) I1(x) + 1/2 (a - p) / x."""
    t = x.dtype.type
    m = libm(xp)
    series = chebyshev_series(xp, x * x - t(2.0), C.K1_A)
    return m.log(t(0.5) * x) * i1(xp, x) + series / x


def _k_far(xp, x, coefficients):
    """The Chebyshev series of e^x sqrt(x) K(x) for x > 2."""
    t = x.dtype.type
    return chebyshev_series(xp, t(8.0) / x - t(2.0), coefficients)


@_register("special_modified_bessel_k0")
def k0(xp, x):
    """K0(x), torch's modified_bessel_k0_forward."""
    t = x.dtype.type
    m = libm(xp)
    far = m.exp(-x) * _k_far(xp, x, C.K0_B) / xp.sqrt(x)
    return _k_edges(xp, x, xp.where(x <= t(2.0), _k0_near(xp, x), far))


@_register("special_modified_bessel_k1")
def k1(xp, x):
    """K1(x), torch's modified_bessel_k1_forward."""
    t = x.dtype.type
    m = libm(xp)
    far = m.exp(-x) * _k_far(xp, x, C.K1_B) / xp.sqrt(x)
    return _k_edges(xp, x, xp.where(x <= t(2.0), _k1_near(xp, x), far))


@_register("special_scaled_modified_bessel_k0")
def k0e(xp, x):
    """e^x K0(x), torch's scaled_modified_bessel_k0_forward."""
    t = x.dtype.type
    m = libm(xp)
    series = chebyshev_series(xp, x * x - t(2.0), C.K0_A)
    near = (series - m.log(t(0.5) * x) * i0(xp, x)) * m.exp(x)
    far = _k_far(xp, x, C.K0_B) / xp.sqrt(x)
    return _k_edges(xp, x, xp.where(x <= t(2.0), near, far))


@_register("special_scaled_modified_bessel_k1")
def k1e(xp, x):
    """e^x K1(x), torch's scaled_modified_bessel_k1_forward."""
    t = x.dtype.type
    m = libm(xp)
    near = _k1_near(xp, x) * m.exp(x)
    far = _k_far(xp, x, C.K1_B) / xp.sqrt(x)
    return _k_edges(xp, x, xp.where(x <= t(2.0), near, far))


# ---- the spherical Bessel function j0 ------------------------------------------------------
# the Maclaurin coefficients of sin(x) / x after the 1, as torch's 1 / (+-k!)
SPHERICAL_J0_DIVISORS = (-6.0, 120.0, -5040.0, 362880.0, -39916800.0, 6227020800.0)


@_register("special_spherical_bessel_j0")
def spherical_j0(xp, x):
    """sin(x) / x, from its Maclaurin series where |x| < 1/2; 0 at +-inf."""
    t = x.dtype.type
    m = libm(xp)
    z = x * x
    series = t(0.0)
    for divisor in reversed(SPHERICAL_J0_DIVISORS):
        series = t(1.0) / t(divisor) + z * series
    series = t(1.0) + z * series
    value = xp.where(xp.abs(x) < t(0.5), series, m.sin(x) / x)
    return xp.where(xp.isinf(x), t(0.0), value)

"""Kernels of ops/special_polynomials.py, written once against the array module: ports of
torch's own code (aten/src/ATen/native/Math.h) for the Hurwitz zeta function and the
orthogonal polynomials, with torch's branches and operations in torch's order.

Elementwise loops become loops over array steps: all elements take the same step at once
(a term of a series, a degree of a recurrence), and each leaves where torch's loop would
stop for it. A recurrence thus costs one step per degree up to the largest n that needs
it (like torch, whose loop runs n times per element). float32 and float64 only, as torch.
"""
import functools
import math

import numpy as np

from ...core.dtype import float32, float64
from ..registry import register_kernel
from .bessel import libm

DTYPES = (float32, float64)


def _elementwise(op_name):
    """Register a kernel of (x, n): both broadcast and flattened (either may be a Python
    number), run without numpy's warnings (branches not taken may overflow), reshaped."""
    def register(kernel):
        @functools.wraps(kernel)
        def run(xp, x, n):
            dtype = (x if isinstance(x, xp.ndarray) else n).dtype
            x, n = xp.broadcast_arrays(xp.asarray(x, dtype), xp.asarray(n, dtype))
            with np.errstate(all="ignore"):
                return kernel(xp, x.ravel(), n.ravel()).reshape(x.shape)
        return register_kernel(op_name, ("cpu", "cuda"), DTYPES)(run)
    return register


def degree(xp, n):
    """n as torch's ``static_cast<int64_t>(n)`` on x86: truncated toward 0; NaN, +-inf and
    values outside int64 give a negative degree (INT64_MIN there), so the value 0.

    >>> n = np.array([2.7, -0.5, np.nan, 1e30])
    >>> minflow.kernels.generic.special_polynomials.degree(np, n)
    array([ 2,  0, -1, -1])
    """
    fits = xp.isfinite(n) & (xp.abs(n) < 2.0 ** 63)
    return xp.where(fits, n, -1).astype(xp.int64)


def recurrence(xp, step, x, n, p, q, stop_at_nan=True):
    """q after the steps (p, q) <- (q, step(k, x, p, q)) for k = 1 .. n - 1, each element
    with its own n (all step together; finished ones leave). As torch's loops, with
    ``stop_at_nan`` an element stops where q turns NaN."""
    result = q.copy()
    live = (n >= 2) & ~xp.isnan(q) if stop_at_nan else n >= 2
    index = xp.nonzero(live)[0]
    x, n, p, q = x[index], n[index], p[index], q[index]
    k = 1
    while index.size:
        p, q = q, step(k, x, p, q)
        k += 1
        going = n > k
        if stop_at_nan:
            going &= ~xp.isnan(q)
        if not bool(going.all()):
            result[index[~going]] = q[~going]
            index, x, n, p, q = index[going], x[going], n[going], p[going], q[going]
    return result


def settle(xp, cases, step, x, k, q, stop_at_nan=True):
    """torch's early returns, (condition, value) in order (the first that holds wins),
    and the recurrence from (p, q) = (1, q) for the other elements."""
    settled = xp.zeros(x.shape, dtype=bool)
    for condition, _ in cases:
        settled |= condition
    value = recurrence(xp, step, x, xp.where(settled, 0, k), xp.ones_like(x), q, stop_at_nan)
    for condition, case in reversed(cases):
        value = xp.where(condition, case, value)
    return value


def fma(xp, a, b, c):
    """a * b + c rounded once, as the fused multiply-add torch's compiled loops use (its
    x86 builds contract ``a * b - c * d`` into fma(a, b, -(c * d))). float32 through
    float64, where the product is exact; float64 from the product's exact error
    (Dekker's two-product) and a two-sum, plain a * b + c where the split overflows.

    >>> a = np.array([1.0 + 2.0 ** -30])
    >>> minflow.kernels.generic.special_polynomials.fma(np, a, a, -(a * a))
    array([8.67361738e-19])
    """
    if a.dtype == np.float32:
        return (a.astype(np.float64) * b.astype(np.float64) + c).astype(np.float32)
    product = a * b
    (a_hi, a_lo), (b_hi, b_lo) = _split(a), _split(b)
    error = ((a_hi * b_hi - product) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    total = product + c
    back = total - product
    rest = (product - (total - back)) + (c - back)
    fused = total + (rest + error)
    return xp.where(xp.isfinite(fused), fused, total)


def _split(a):
    """a = hi + lo, hi with 26 significant bits (Veltkamp's split)."""
    scaled = a * 134217729.0
    hi = scaled - (scaled - a)
    return hi, a - hi


def _signed(xp, value, positive):
    """value where ``positive``, else -value (torch's ``n % 2 == 0`` tests, and x > 0)."""
    return xp.where(positive, value, -value)


# ---- Chebyshev polynomials -----------------------------------------------------------------
def _as(x, k):
    return k.astype(x.dtype)


def _edge(xp, kind, z, k, at_one):
    """The value at z = +1 (``at_one``) or z = -1, torch's closed forms there."""
    t = z.dtype.type
    even = k % 2 == 0
    ones, odd_count = t(1.0) * xp.ones_like(z), _as(z, k + k + 1)
    if kind == "t":
        return _signed(xp, ones, at_one | even)
    if kind == "u":
        return _signed(xp, _as(z, k + 1), at_one | even)
    if kind == "v":
        return xp.where(at_one, ones, _signed(xp, odd_count, even))
    return xp.where(at_one, odd_count, _signed(xp, ones, even))


def _closed_form(xp, kind, z, k, shifted):
    """torch's trigonometric forms on |z| < 1, theta = acos(z): T_n = cos(n theta),
    U_n = sin((n+1) theta) / sin(theta), V_n = cos((n+1/2) theta) / cos(theta/2),
    W_n = sin((n+1/2) theta) / sin(theta/2); where a divisor degenerates, torch's value."""
    t = z.dtype.type
    sin, cos = libm(xp).sin, libm(xp).cos
    theta = libm(xp).arccos(z)
    even = k % 2 == 0
    if kind == "t":
        return cos(_as(z, k) * theta)
    if kind == "u":
        m = _as(z, k + 1)
        return xp.where(sin(theta) != 0, sin(m * theta) / sin(theta), m * cos(m * theta) / z)
    half = _as(z, k) + t(0.5)
    if kind == "v":
        return xp.where(sin(theta / t(2.0)) != 1, cos(half * theta) / cos(theta / t(2.0)),
                        _signed(xp, _as(z, k + k + 1), even))
    ones = t(1.0) * xp.ones_like(z)
    fallback = _signed(xp, ones, even) if shifted else \
        xp.where(z > 0, _as(z, k + k + 1), _signed(xp, ones, even))
    return xp.where(cos(theta / t(2.0)) != 1, sin(half * theta) / sin(theta / t(2.0)),
                    fallback)


FIRST = {"t": lambda z: z, "u": lambda z: z + z, "v": lambda z: z + z - z.dtype.type(1.0),
         "w": lambda z: z + z + z.dtype.type(1.0)}


def _chebyshev(xp, kind, z, k, edge, at_one, threshold, shifted=False):
    """A Chebyshev polynomial of z: 0 for n < 0, torch's values at the edges, the closed
    form for n > threshold on |z| < 1, 1 for n = 0, else the recurrence
    P_{k+1} = 2 z P_k - P_{k-1} from P_0 = 1 and P_1 = FIRST[kind](z)."""
    t = z.dtype.type
    cases = [(k < 0, t(0.0)), (edge, _edge(xp, kind, z, k, at_one)),
             ((k > threshold) & (xp.abs(z) < 1), _closed_form(xp, kind, z, k, shifted)),
             (k == 0, t(1.0))]
    return settle(xp, cases, lambda _, z, p, q: fma(xp, z + z, q, -p), z, k, FIRST[kind](z))


def _register_chebyshev(kind, threshold, shifted_threshold):
    @_elementwise(f"special_chebyshev_polynomial_{kind}")
    def chebyshev(xp, x, n):
        return _chebyshev(xp, kind, x, degree(xp, n), xp.abs(x) == 1, x > 0, threshold)

    @_elementwise(f"special_shifted_chebyshev_polynomial_{kind}")
    def shifted_chebyshev(xp, x, n):
        # NOTE: torch's edges are x == 1 and x == 0, not 2x - 1 == +-1 (which also holds
        # for tiny x)
        y = x + x - x.dtype.type(1.0)
        return _chebyshev(xp, kind, y, degree(xp, n), (x == 1) | (x == 0), x == 1,
                          shifted_threshold, shifted=True)


for _kind, _threshold, _shifted_threshold in (("t", 6, 6), ("u", 8, 6), ("v", 8, 6),
                                              ("w", 8, 4)):
    _register_chebyshev(_kind, _threshold, _shifted_threshold)


# ---- Hermite, Laguerre and Legendre polynomials ------------------------------------------
HERMITE_LIMIT = {np.dtype(np.float32): 128, np.dtype(np.float64): 512}


@_elementwise("special_hermite_polynomial_h")
def hermite_h(xp, x, n):
    """H_{k+1} = 2x H_k - 2k H_{k-1}; NaN past degree 128 (float32) or 512 (float64)."""
    t, k = x.dtype.type, degree(xp, n)

    def step(j, x, p, q):
        return fma(xp, x + x, q, -(t(j + j) * p))
    cases = [(k < 0, t(0.0)), (k == 0, t(1.0)), (k > HERMITE_LIMIT[x.dtype], t(math.nan))]
    return settle(xp, cases, step, x, k, x + x, stop_at_nan=False)


@_elementwise("special_hermite_polynomial_he")
def hermite_he(xp, x, n):
    """He_{k+1} = x He_k - k He_{k-1}; NaN past degree 128 (float32) or 512 (float64)."""
    t, k = x.dtype.type, degree(xp, n)

    def step(j, x, p, q):
        return fma(xp, x, q, -(t(j) * p))
    cases = [(k < 0, t(0.0)), (k == 0, t(1.0)), (k > HERMITE_LIMIT[x.dtype], t(math.nan))]
    return settle(xp, cases, step, x, k, x.copy(), stop_at_nan=False)


@_elementwise("special_laguerre_polynomial_l")
def laguerre_l(xp, x, n):
    """(k+1) L_{k+1} = (2k + 1 - x) L_k - k L_{k-1}; 1 at x = 0."""
    t, k = x.dtype.type, degree(xp, n)

    def step(j, x, p, q):
        return fma(xp, t(j + j) + (t(1.0) - x), q, -(t(j) * p)) / t(j + 1)
    cases = [(k < 0, t(0.0)), (x == 0, t(1.0)), (k == 0, t(1.0))]
    return settle(xp, cases, step, x, k, t(1.0) - x)


@_elementwise("special_legendre_polynomial_p")
def legendre_p(xp, x, n):
    """(k+1) P_{k+1} = (2k+1) x P_k - k P_{k-1}; +-1 at x = +-1."""
    t, k = x.dtype.type, degree(xp, n)

    def step(j, x, p, q):
        return fma(xp, t(j + j + 1) * x, q, -(t(j) * p)) / t(j + 1)
    cases = [(k < 0, t(0.0)), (xp.abs(x) == 1, _edge(xp, "t", x, k, x > 0)), (k == 0, t(1.0))]
    return settle(xp, cases, step, x, k, x.copy())


# ---- the Hurwitz zeta function ---------------------------------------------------------------
MACHEP = 1.11022302462515654042e-16
# the Euler-Maclaurin divisors (2k)! / B_2k
ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
          7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
          -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18)


@_elementwise("special_zeta")
def zeta(xp, x, q):
    """zeta(x, q) = sum_k (k + q)^-x, torch's zeta: inf at x = 1 and at q = 0, -1, -2 ...;
    NaN for x < 1 and for q < 0 with x not an integer.

    NOTE: torch's cpu kernel sums in float64 for float32 too, from a first term q^-x
    computed in the input's dtype; so does this one, on both devices (torch's cuda kernel
    sums float32 in float32). A q far below 0 costs a term per unit of -q, as in torch."""
    first = xp.power(q, -x)
    pole = (q <= 0) & (q == xp.floor(q))
    cases = [(x == 1, math.inf), (x < 1, math.nan), (pole, math.inf),
             ((q <= 0) & (x != xp.floor(x)), math.nan)]
    settled = xp.zeros(x.shape, dtype=bool)
    for condition, _ in cases:
        settled |= condition
    wide = [xp.where(settled, fill, a).astype(xp.float64) for a, fill in
            ((x, 2.0), (q, 1.0), (first, 1.0))]
    value = _hurwitz(xp, *wide)
    for condition, case in reversed(cases):
        value = xp.where(condition, case, value)
    return value.astype(x.dtype)


def _hurwitz(xp, x, q, s):
    """The sum of (q + k)^-x term by term, from s = q^-x, until a term is below MACHEP s
    (done) or, after at least 9 terms, q + k > 9: there the Euler-Maclaurin tail."""
    result = xp.empty_like(s)
    index, a = xp.arange(s.size), q
    tails, terms, width = [], 0, 16
    while index.size:
        width = max(2, min(width, 4096, 2 ** 22 // index.size))
        steps = xp.arange(1, width + 1)
        # a + 1, a + 2 ... and the partial sums, each added one at a time as torch does
        ones = xp.ones((index.size, width))
        bases = xp.cumsum(xp.concatenate([a[:, None], ones], axis=1), axis=1)[:, 1:]
        powers = bases ** -x[:, None]
        sums = xp.cumsum(xp.concatenate([s[:, None], powers], axis=1), axis=1)[:, 1:]
        converged = (-MACHEP * sums < powers) & (powers < MACHEP * sums)
        stop = converged | ((terms + steps >= 9) & ~(bases <= 9.0))
        first = xp.argmax(stop, axis=1)
        rows = xp.arange(index.size)
        stopped, done = stop[rows, first], converged[rows, first]
        result[index[done]] = sums[rows, first][done]
        tail = stopped & ~done
        tails.append((index[tail], x[tail], sums[rows, first][tail], bases[rows, first][tail],
                      powers[rows, first][tail]))
        going = ~stopped
        index, x, a, s = index[going], x[going], bases[:, -1][going], sums[:, -1][going]
        terms, width = terms + width, width * 2
    for where, *tail in tails:
        result[where] = _euler_maclaurin(xp, *tail)
    return result


def _euler_maclaurin(xp, x, s, w, b):
    """s + w^(1-x) / (x - 1) - w^-x / 2 + the Bernoulli terms, summed until a term is
    below MACHEP of the sum (at most 12)."""
    s = s + b * w / (x - 1.0)
    s = s - 0.5 * b
    a, k = xp.ones_like(s), 0.0
    result, done = s.copy(), xp.zeros(s.shape, dtype=bool)
    for divisor in ZETA_A:
        a = a * (x + k)
        b = b / w
        term = a * b / divisor
        s = s + term
        small = xp.abs(term / s) < MACHEP
        result = xp.where(done, result, s)
        done |= small
        k += 1.0
        a = a * (x + k)
        b = b / w
        k += 1.0
    return result

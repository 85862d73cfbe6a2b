"""Pure-numpy lgamma, digamma, polygamma and i1, used where scipy is not installed.

All compute in float64 and follow scipy's values at the edges:
- lgamma: the standard library's math.lgamma, elementwise; +inf at the poles.
- digamma: the recurrence psi(x) = psi(x + 1) - 1/x up to x >= 10, then the asymptotic
  series ln x - 1/(2x) - sum B_2k / (2k x^2k); reflection psi(x) = psi(1 - x) -
  pi / tan(pi x) below 0. Relative error below 1e-13 away from the poles.
- polygamma(n >= 1): (-1)^(n+1) n! zeta(n + 1, x), the Hurwitz zeta by direct sum until
  x + k >= 10 and the Euler-Maclaurin tail; +inf at the poles (x a non-positive integer).
- i1: its power series sum (x/2)^(2k+1) / (k! (k+1)!), summed until the terms stop
  counting; each term is made from the last, so nothing overflows before the result.
"""
import math

import numpy as np

_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6)   # B_2 ... B_14


def _lgamma_scalar(v):
    if v <= 0 and v == math.floor(v):
        return math.inf
    return math.lgamma(v)


_lgamma = np.vectorize(_lgamma_scalar, otypes=[np.float64])


def lgamma(x):
    """>>> minflow.kernels.generic.gamma_fallback.lgamma(np.array([0.5, 0.0])).round(6)
    array([0.572365,      inf])
    """
    return _lgamma(np.asarray(x, np.float64))


def digamma(x):
    """>>> minflow.kernels.generic.gamma_fallback.digamma(np.array([1.0])).round(6)
    array([-0.577216])
    """
    x = np.asarray(x, np.float64)
    reflect = x < 0
    z = np.where(reflect, 1 - x, x)
    acc = np.zeros_like(z)
    with np.errstate(divide="ignore", invalid="ignore"):
        while np.any(small := z < 10):
            acc -= np.where(small, 1 / z, 0)
            z = np.where(small, z + 1, z)
        inv2 = 1 / (z * z)
        tail = sum(b / (2 * k) * inv2 ** k for k, b in enumerate(_BERNOULLI, 1))
        out = np.log(z) - 0.5 / z - tail + acc
        out = np.where(reflect, out - math.pi / np.tan(math.pi * x), out)
    out = np.where(x == 0, np.copysign(np.inf, -np.copysign(1, x)), out)
    return np.where(reflect & (x == np.floor(x)), np.nan, out)


def _hurwitz_zeta(s, x):
    """zeta(s, x) = sum_{k >= 0} (x + k)^-s for an integer s >= 2."""
    total = np.zeros_like(x)
    a = x.copy()
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        while np.any(small := a < 10):
            total += np.where(small, a ** -s, 0)
            a = np.where(small, a + 1, a)
        tail = a ** (1 - s) / (s - 1) + 0.5 * a ** -s
        rising, power, factorial = float(s), a ** (-s - 1), 2.0
        for j, b in enumerate(_BERNOULLI, 1):
            tail += b / factorial * rising * power
            rising *= (s + 2 * j - 1) * (s + 2 * j)
            power = power / (a * a)
            factorial *= (2 * j + 1) * (2 * j + 2)
    return total + tail


def polygamma(n, x):
    """>>> minflow.kernels.generic.gamma_fallback.polygamma(1, np.array([1.0])).round(6)
    array([1.644934])
    """
    x = np.asarray(x, np.float64)
    if n == 0:
        return digamma(x)
    out = (-1) ** (n + 1) * math.factorial(n) * _hurwitz_zeta(n + 1, x)
    pole = (x <= 0) & (x == np.floor(x))
    return np.where(pole, np.inf if n % 2 else -np.inf, out)


def i1(x):
    """>>> minflow.kernels.generic.gamma_fallback.i1(np.array([1.0])).round(6)
    array([0.565159])
    """
    x = np.asarray(x, np.float64)
    half = x / 2
    term = half.copy()
    total = term.copy()
    quarter = half * half
    k = 0
    with np.errstate(over="ignore", invalid="ignore"):
        while np.any(np.abs(term) > 1e-17 * np.abs(total)):
            k += 1
            term = term * quarter / (k * (k + 1))
            total = total + term
    return total


def gammainc(a, x):
    """P(a, x), the regularized lower incomplete gamma function: a series for x < a + 1,
    else 1 - Q(a, x) from Legendre's continued fraction for Q (modified Lentz).

    >>> minflow.kernels.generic.gamma_fallback.gammainc(np.array([1.0]), np.array([1.0])).round(6)
    array([0.632121])
    """
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        log_front = a * np.log(x) - x - lgamma(a)      # log(x^a e^-x / Gamma(a))
        series = np.exp(log_front) * _gammainc_series(a, x)
        fraction = 1 - np.exp(log_front) * _gammaincc_fraction(a, x)
        out = np.where(x < a + 1, series, fraction)
        out = np.where(x == 0, 0.0, out)
        out = np.where((a == 0) & (x > 0), 1.0, out)
        out = np.where(x == np.inf, 1.0, out)
    invalid = (a < 0) | (x < 0) | ((a == 0) & (x == 0)) | np.isnan(a) | np.isnan(x)
    return np.where(invalid, np.nan, out)


def _gammainc_series(a, x):
    """sum_n x^n / (a (a+1) ... (a+n))."""
    term = 1 / a
    total = term.copy()
    for n in range(1, 100_000):
        term = term * x / (a + n)
        total = total + term
        if not np.any(np.abs(term) > 1e-17 * np.abs(total)):
            break
    return total


def _gammaincc_fraction(a, x):
    """1 / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / (x + 5 - a - ...)))."""
    tiny = 1e-300
    b = x + 1 - a
    c = np.full_like(b, 1 / tiny)
    d = 1 / np.where(np.abs(b) < tiny, tiny, b)
    h = d.copy()
    for i in range(1, 100_000):
        an = -i * (i - a)
        b = b + 2
        d = an * d + b
        d = 1 / np.where(np.abs(d) < tiny, tiny, d)
        c = b + an / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        delta = d * c
        h = h * delta
        if not np.any(np.abs(delta - 1) > 1e-16):
            break
    return h

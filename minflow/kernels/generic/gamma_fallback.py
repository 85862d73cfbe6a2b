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

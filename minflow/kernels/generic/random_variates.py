"""Kernels of the samplers with tensor parameters (ops/random_variates.py), written once
against the array module: numpy's and cupy's Generators both have standard_gamma,
poisson and binomial with array parameters.

The draws are made in float64 and cast to the input's dtype.
"""
import math

import numpy as np

from ...core.device import Device
from ...core.dtype import FLOATS
from ...core.random import generator_for
from ..registry import register_kernel
from .gamma import digamma


def _rng(xp, generator):
    device = Device("cpu" if xp is np else "cuda")
    return generator_for(generator, device).rng(device.type)


@register_kernel("standard_gamma", ("cpu", "cuda"), FLOATS)
def standard_gamma(xp, alpha, generator):
    shape = alpha.astype(xp.float64)
    positive = shape > 0
    draws = _rng(xp, generator).standard_gamma(xp.where(positive, shape, 1.0), size=shape.shape)
    # torch: no sample below the smallest normal number (log_prob stays finite)
    tiny = np.finfo(alpha.dtype).tiny
    return xp.maximum(xp.where(positive, draws, 0.0), tiny).astype(alpha.dtype)


_MAX_TERMS = 1_000_000


@register_kernel("standard_gamma_grad", ("cpu", "cuda"), FLOATS)
def standard_gamma_grad(xp, alpha, sample):
    """-(dP(a, x)/da) / p(x; a), with P(a, x) = sum_n x^(a+n) e^-x / Gamma(a+n+1).

    Term n of the series, divided by the density p(x; a) = x^(a-1) e^-x / Gamma(a), is
    v_n = x^(n+1) / (a (a+1) ... (a+n)), and d/da of term n is the term times
    log x - digamma(a+n+1): both follow by recurrence, so no Gamma function overflows.
    The terms grow while a+n < x, then fall faster than geometrically.
    """
    a_in, x_in = xp.broadcast_arrays(alpha.astype(xp.float64), sample.astype(xp.float64))
    # the series for a > 0, 0 < x < inf; elsewhere NaN, but 0 at x = 0 (as torch)
    valid = xp.isfinite(a_in) & xp.isfinite(x_in) & (a_in > 0) & (x_in > 0)
    a, x = xp.where(valid, a_in, 1.0), xp.where(valid, x_in, 1.0)
    log_x = xp.log(x)
    v = x / a
    psi = digamma(xp, a + 1)
    total = v * (log_x - psi)
    size = v.copy()
    for n in range(1, _MAX_TERMS):
        v = v * x / (a + n)
        psi = psi + 1 / (a + n)
        total += v * (log_x - psi)
        size += v
        if bool(((a + n > x) & (v <= 1e-17 * size)).all()):
            break
    else:       # about 8 sqrt(x) terms past x - a are needed: a and x near 1e10 and beyond
        raise RuntimeError(f"standard_gamma_grad: the series did not converge in "
                           f"{_MAX_TERMS} terms (largest sample {float(x.max())}, largest "
                           f"concentration {float(a.max())})")
    edge = xp.where((x_in == 0) & (a_in > 0) & xp.isfinite(a_in), 0.0, math.nan)
    return xp.where(valid, -total, edge).astype(alpha.dtype)


@register_kernel("poisson", ("cpu", "cuda"), FLOATS)
def poisson(xp, rate, generator):
    if rate.size and not bool((rate >= 0).all()):
        raise RuntimeError("poisson: invalid Poisson rate, expected rate to be non-negative")
    return _rng(xp, generator).poisson(rate.astype(xp.float64), size=rate.shape).astype(rate.dtype)


@register_kernel("binomial", ("cpu", "cuda"), FLOATS)
def binomial(xp, count, prob, generator):
    count, prob = xp.broadcast_arrays(count, prob)
    if count.size and not bool(((prob >= 0) & (prob <= 1)).all()):
        raise RuntimeError("binomial: expected all elements of prob in [0, 1]")
    if count.size and not bool((count >= 0).all()):
        raise RuntimeError("binomial: expected all elements of count >= 0")
    draws = _rng(xp, generator).binomial(count.astype(xp.int64), prob.astype(xp.float64),
                                         size=count.shape)
    return draws.astype(count.dtype)

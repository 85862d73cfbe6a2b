"""Kernels of the sampling ops, written once against the array module (numpy or cupy).

They draw only with methods that numpy's and cupy's Generators share (random,
standard_exponential), so one body serves both devices.
"""
import numpy as np

from ...core.device import Device
from ...core.dtype import FLOATS, NUMERIC
from ...core.random import generator_for
from ..registry import register_kernel


def _rng(xp, generator):
    device = Device("cpu" if xp is np else "cuda")
    return generator_for(generator, device).rng(device.type)


@register_kernel("randperm", ("cpu", "cuda"), NUMERIC)
def randperm(xp, n, dtype, device, generator):
    rng = generator_for(generator, device).rng(device.type)
    return rng.random(n).argsort().astype(dtype.np)


@register_kernel("exponential", ("cpu", "cuda"), FLOATS)
def exponential(xp, lambd, shape, dtype, device, generator):
    rng = generator_for(generator, device).rng(device.type)
    return (rng.standard_exponential(shape) / lambd).astype(dtype.np)


@register_kernel("bernoulli", ("cpu", "cuda"), FLOATS)
def bernoulli(xp, p, generator):
    if p.size and not bool(((p >= 0) & (p <= 1)).all()):
        raise RuntimeError("bernoulli: expected all elements of input in [0, 1]")
    return (_rng(xp, generator).random(p.shape) < p).astype(p.dtype)


def _check_weights(xp, weights, num_samples, replacement):
    if not bool(xp.isfinite(weights).all()) or bool((weights < 0).any()):
        raise RuntimeError("multinomial: invalid distribution: expected finite, "
                           "non-negative weights")
    nonzero = (weights > 0).sum(axis=-1)
    if not bool((nonzero > 0).all()):
        raise RuntimeError("multinomial: invalid distribution: a row of weights sums to 0")
    if not replacement and not bool((nonzero >= num_samples).all()):
        raise RuntimeError(f"multinomial: invalid distribution (with replacement=False, not "
                           f"enough non-zero categories to draw {num_samples} samples)")


@register_kernel("multinomial", ("cpu", "cuda"), FLOATS)
def multinomial(xp, input, num_samples, replacement, generator):
    rng = _rng(xp, generator)
    weights = input.astype(xp.float64).reshape(-1, input.shape[-1])
    _check_weights(xp, weights, num_samples, replacement)
    rows = weights.shape[0]
    if replacement:     # inverse CDF: where uniforms fall among the cumulative weights
        cdf = weights.cumsum(axis=-1)
        cdf /= cdf[:, -1:]
        u = rng.random((rows, num_samples))
        out = xp.stack([xp.searchsorted(cdf[r], u[r], side="right") for r in range(rows)])
        out = xp.minimum(out, weights.shape[-1] - 1)
    else:               # the num_samples smallest of E_i / w_i, E_i ~ Exp(1) (weighted
        keys = rng.standard_exponential(weights.shape)      # sampling without replacement)
        with np.errstate(divide="ignore"):
            keys = xp.where(weights > 0, keys / weights, xp.inf)
        out = keys.argsort(axis=-1, kind="stable")[:, :num_samples]
    return out.astype(xp.int64).reshape(input.shape[:-1] + (num_samples,))

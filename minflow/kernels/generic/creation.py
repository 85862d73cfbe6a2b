"""Kernels of the creation ops."""
import numpy as np

from ...core.dtype import ALL_AND_COMPLEX, FLOATS, INTS, NUMERIC
from ...core.random import generator_for
from ...ops.creation import arange_length
from ..registry import register_kernel


@register_kernel("full", ("cpu", "cuda"), ALL_AND_COMPLEX)
def full(xp, shape, fill_value, dtype, device):
    # NOTE: not xp.full, which is Python around empty + copyto and twice as slow on small
    # arrays; numpy's fill also raises for nan or inf into ints, as torch, where full wraps
    out = xp.empty(shape, dtype=dtype.np)
    out.fill(fill_value)
    return out


@register_kernel("empty", ("cpu", "cuda"), ALL_AND_COMPLEX)
def empty(xp, shape, dtype, device):
    return xp.empty(shape, dtype=dtype.np)


@register_kernel("arange", ("cpu", "cuda"), NUMERIC)
def arange(xp, start, end, step, dtype, device):
    # as torch: values start + i * step in float64 (numpy's own float32 arange accumulates
    # rounding error) or in int64 with truncated start and step
    n = arange_length(start, end, step, dtype)
    if dtype.is_floating_point:
        return (start + xp.arange(n, dtype=xp.float64) * step).astype(dtype.np)
    return (int(start) + xp.arange(n, dtype=xp.int64) * int(step)).astype(dtype.np)


@register_kernel("linspace", ("cpu", "cuda"), NUMERIC)
def linspace(xp, start, end, steps, dtype, device):
    # as torch's cpu kernel: the first half start + i * step, the second end - (steps - 1 - i)
    # * step, in the dtype's own arithmetic; ints truncate start and end and take a float64
    # step. NOTE: torch's compiled loop fuses each float multiply-add (one rounding), which
    # float32 gets exactly by computing in float64 and float64 by long double (where numpy's
    # is wider); float16 rounds each step.
    if dtype.is_floating_point:
        compute = dtype.np.type
    else:
        compute, start, end = xp.float64, int(start), int(end)
    start, end = compute(start), compute(end)
    if steps <= 1:
        return xp.full(steps, start, dtype=dtype.np)
    step = (end - start) / compute(steps - 1)
    wide = _fused_type(xp, dtype) or compute
    i = xp.arange(steps)
    values = xp.where(i < steps // 2, wide(start) + wide(step) * i.astype(wide),
                      wide(end) - wide(step) * (steps - 1 - i).astype(wide))
    return values.astype(dtype.np)


def _fused_type(xp, dtype):
    """A type wide enough that ``a + b * i`` rounded once to ``dtype`` is the fused
    multiply-add's result; None where there is none or torch does not fuse (float16, ints)."""
    if dtype.name == "float32":
        return xp.float64
    if dtype.name == "float64" and xp is np and np.finfo(np.longdouble).nmant > 52:
        return np.longdouble
    return None


@register_kernel("eye", ("cpu", "cuda"), ALL_AND_COMPLEX)
def eye(xp, n, m, dtype, device):
    return xp.eye(n, m, dtype=dtype.np)


@register_kernel("uniform", ("cpu", "cuda"), FLOATS)
def uniform(xp, low, high, shape, dtype, device, generator):
    rng = generator_for(generator, device).rng(device.type)
    return (rng.random(shape) * (high - low) + low).astype(dtype.np)


@register_kernel("normal", ("cpu", "cuda"), FLOATS)
def normal(xp, mean, std, shape, dtype, device, generator):
    rng = generator_for(generator, device).rng(device.type)
    return (rng.standard_normal(shape) * std + mean).astype(dtype.np)


@register_kernel("randint", ("cpu", "cuda"), INTS + FLOATS)
def randint(xp, low, high, shape, dtype, device, generator):
    rng = generator_for(generator, device).rng(device.type)
    return rng.integers(low, high, size=shape).astype(dtype.np)

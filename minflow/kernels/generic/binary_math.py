"""Kernels of the binary math ops (ops/binary_math.py), written once against the array
module: numpy's and cupy's ufuncs where they compute what torch does, a few lines where
they do not (xlogy at 0, heaviside of NaN)."""
from ...core.dtype import FLOATS, INTS, NUMERIC, bool as bool_
from ..registry import register_array_function, register_kernel
from .elementwise import _check_divisor

register_array_function("fmod", "fmod", FLOATS)
for _op, _fn in (("hypot", "hypot"), ("copysign", "copysign"), ("logaddexp", "logaddexp"),
                 ("logaddexp2", "logaddexp2"), ("nextafter", "nextafter")):
    register_array_function(_op, _fn, FLOATS)
for _op, _fn in (("fmax", "fmax"), ("fmin", "fmin")):
    register_array_function(_op, _fn, NUMERIC)
register_array_function("fmax", "logical_or", (bool_,))      # as maximum's: cupy's fmax
register_array_function("fmin", "logical_and", (bool_,))     # has no bool loop to rely on
for _op, _fn in (("gcd", "gcd"), ("lcm", "lcm")):
    register_array_function(_op, _fn, INTS)


@register_kernel("fmod", ("cpu", "cuda"), INTS)
def fmod_int(xp, input, other):
    _check_divisor(xp, other, "fmod")
    return xp.fmod(input, other)


@register_kernel("xlogy", ("cpu", "cuda"), FLOATS)
def xlogy(xp, input, other):
    # NOTE: 0 * log(0) would be NaN; torch's xlogy is 0 there (and NaN where other is NaN)
    dtype = (input if isinstance(input, xp.ndarray) else other).dtype    # one may be a number
    input, other = xp.asarray(input, dtype), xp.asarray(other, dtype)
    zero = (input == 0) & ~xp.isnan(other)
    return xp.where(zero, dtype.type(0), input * xp.log(other))


@register_kernel("heaviside", ("cpu", "cuda"), NUMERIC)
def heaviside(xp, input, values):
    # NOTE: numpy's heaviside gives NaN for NaN input; torch's ``input > 0`` gives 0
    return xp.where(input == 0, values, input > 0).astype(input.dtype)


register_kernel("heaviside", ("cpu", "cuda"), (bool_,))(
    lambda xp, input, values: xp.logical_or(input, values))

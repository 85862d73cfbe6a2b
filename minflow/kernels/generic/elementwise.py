"""Elementwise kernels, written once against the array module (numpy or cupy).

Most are the array library's ufuncs registered as they are; the rest are a few lines.
"""
from ...core.dtype import ALL, FLOATS, INTS, NUMERIC, bool as bool_
from ..registry import register_array_function, register_kernel

SIGNED = NUMERIC

for _op, _fn in (("neg", "negative"), ("abs", "absolute"), ("sign", "sign"),
                 ("square", "square")):
    register_array_function(_op, _fn, SIGNED)
for _op in ("floor", "ceil"):
    register_array_function(_op, _op, FLOATS)
    register_kernel(_op, ("cpu", "cuda"), INTS)(lambda xp, x: x.copy())
register_kernel("round", ("cpu", "cuda"), NUMERIC)(lambda xp, x: xp.round(x))
for _op, _fn in (("exp", "exp"), ("expm1", "expm1"), ("log", "log"), ("log1p", "log1p"),
                 ("sqrt", "sqrt"), ("reciprocal", "reciprocal"), ("sin", "sin"),
                 ("cos", "cos"), ("tanh", "tanh")):
    register_array_function(_op, _fn, FLOATS)


@register_kernel("rsqrt", ("cpu", "cuda"), FLOATS)
def rsqrt(xp, x):
    return xp.reciprocal(xp.sqrt(x))


@register_kernel("sigmoid", ("cpu", "cuda"), FLOATS)
def sigmoid(xp, x):
    # NOTE: 1 / (1 + exp(-x)) overflows exp for large negative x; the tanh form never does.
    out = xp.tanh(x * 0.5)
    out *= 0.5
    out += 0.5
    return out


for _op, _fn in (("add", "add"), ("sub", "subtract"), ("mul", "multiply"),
                 ("maximum", "maximum"), ("minimum", "minimum")):
    register_array_function(_op, _fn, NUMERIC)
register_array_function("add", "logical_or", (bool_,))
register_array_function("mul", "logical_and", (bool_,))
register_array_function("remainder", "remainder", NUMERIC)
register_array_function("floor_divide", "floor_divide", NUMERIC)
register_array_function("maximum", "logical_or", (bool_,))
register_array_function("minimum", "logical_and", (bool_,))


@register_kernel("pow", ("cpu", "cuda"), NUMERIC)
def pow_(xp, input, exponent):
    if input.__class__ is not xp.ndarray:      # scalar ** tensor
        input = xp.asarray(input, dtype=exponent.dtype)
    if input.dtype.kind == "i" and xp.any(xp.asarray(exponent) < 0):
        raise ValueError("Integers to negative integer powers are not allowed.")
    return xp.power(input, exponent)


@register_kernel("div", ("cpu", "cuda"), NUMERIC)
def div(xp, input, other, rounding_mode):
    if rounding_mode is None:
        return xp.true_divide(input, other)
    if rounding_mode == "floor":
        return xp.floor_divide(input, other)
    if xp.asarray(input).dtype.kind == "f":
        return xp.trunc(xp.true_divide(input, other))
    quotient = xp.floor_divide(input, other)
    # floor and trunc differ when the signs differ and the division is inexact
    fix = (xp.remainder(input, other) != 0) & ((xp.asarray(input) < 0) != (xp.asarray(other) < 0))
    return quotient + fix


for _op, _fn in (("eq", "equal"), ("ne", "not_equal"), ("lt", "less"), ("le", "less_equal"),
                 ("gt", "greater"), ("ge", "greater_equal")):
    register_array_function(_op, _fn, ALL)
for _op in ("logical_and", "logical_or", "logical_xor", "logical_not"):
    register_array_function(_op, _op, ALL)
register_array_function("isnan", "isnan", FLOATS)
register_array_function("isfinite", "isfinite", FLOATS)
register_array_function("isinf", "isinf", FLOATS)
register_kernel("isnan", ("cpu", "cuda"), INTS + (bool_,))(lambda xp, x: xp.zeros(x.shape, bool))
register_kernel("isinf", ("cpu", "cuda"), INTS + (bool_,))(lambda xp, x: xp.zeros(x.shape, bool))
register_kernel("isfinite", ("cpu", "cuda"), INTS + (bool_,))(lambda xp, x: xp.ones(x.shape, bool))
register_array_function("bitwise_not", "invert", INTS + (bool_,))


@register_kernel("where", ("cpu", "cuda"), ALL)
def where(xp, condition, input, other):
    return xp.where(condition, input, other)


@register_kernel("clamp", ("cpu", "cuda"), NUMERIC)
def clamp(xp, input, min, max):
    if min is not None:
        input = xp.maximum(input, min)
    if max is not None:
        input = xp.minimum(input, max)
    return input if min is not None or max is not None else input.copy()


@register_kernel("masked_fill", ("cpu", "cuda"), ALL)
def masked_fill(xp, input, mask, value):
    return xp.where(mask, xp.asarray(value, dtype=input.dtype), input)

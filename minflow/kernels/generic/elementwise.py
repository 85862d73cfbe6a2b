"""Elementwise kernels, written once against the array module (numpy or cupy).

Most are the array library's ufuncs registered as they are; the rest are a few lines.
"""
import numpy as np

from ...core.dtype import ALL, COMPLEX, FLOATS, INTS, NUMERIC, DTypeError, bool as bool_, float16
from ..registry import register_array_function, register_kernel

SIGNED = NUMERIC

for _op, _fn in (("neg", "negative"), ("abs", "absolute"), ("square", "square")):
    register_array_function(_op, _fn, SIGNED)
register_array_function("neg", "negative", COMPLEX)
register_array_function("abs", "absolute", COMPLEX)     # a real result, as torch
register_array_function("sign", "sign", INTS)
register_array_function("sign", "copy", (bool_,))


@register_kernel("sign", ("cpu", "cuda"), FLOATS)
def sign(xp, x):
    # NOTE: numpy's sign(nan) is nan; torch's is 0. (Not nan_to_num: ~5 us of Python.)
    out = xp.asarray(xp.sign(x))        # asarray: a 0-d input gives a numpy scalar
    xp.copyto(out, 0, where=xp.isnan(out))
    return out


for _op in ("floor", "ceil"):
    register_array_function(_op, _op, FLOATS)
    register_kernel(_op, ("cpu", "cuda"), INTS)(lambda xp, x: x.copy())


@register_kernel("round", ("cpu", "cuda"), NUMERIC)
def round_(xp, x, decimals):
    return xp.round(x, decimals) if decimals else xp.round(x)
for _op, _fn in (("exp", "exp"), ("expm1", "expm1"), ("log", "log"), ("log1p", "log1p"),
                 ("sqrt", "sqrt"), ("reciprocal", "reciprocal"), ("sin", "sin"),
                 ("cos", "cos"), ("tanh", "tanh")):
    register_array_function(_op, _fn, FLOATS)
for _op in ("exp", "expm1", "log", "log1p", "sqrt", "reciprocal", "sin", "cos", "tanh",
            "square"):
    register_array_function(_op, _op, COMPLEX)


@register_kernel("rsqrt", ("cpu", "cuda"), FLOATS + COMPLEX)
def rsqrt(xp, x):
    return xp.reciprocal(xp.sqrt(x))


@register_kernel("sigmoid", ("cpu", "cuda"), FLOATS + COMPLEX)
def sigmoid(xp, x):
    # NOTE: 1 / (1 + exp(-x)) overflows exp for large negative x; the tanh form never does.
    if x.dtype == xp.float16:
        return _half_sigmoid(xp, x)
    out = xp.tanh(x * 0.5)
    out *= 0.5
    out += 0.5
    return out


def _half_sigmoid(xp, x):
    """float16 as torch's kernel: 1 / (1 + exp(-x)) in float32, rounded once by the
    dispatcher (the tanh form loses the small values to cancellation); exp's overflow to
    inf gives the right 0."""
    with np.errstate(over="ignore"):
        return 1 / (1 + xp.exp(-x.astype(xp.float32)))


@register_kernel("tanh_grad", ("cpu", "cuda"), FLOATS)
def tanh_grad(xp, grad_out, output):
    return grad_out * (1 - output * output)


@register_kernel("sigmoid_grad", ("cpu", "cuda"), FLOATS)
def sigmoid_grad(xp, grad_out, output):
    return grad_out * output * (1 - output)


for _op, _fn in (("add", "add"), ("sub", "subtract"), ("maximum", "maximum"),
                 ("minimum", "minimum")):
    register_array_function(_op, _fn, NUMERIC)
register_array_function("mul", "multiply", tuple(d for d in NUMERIC if d is not float16))
for _op, _fn in (("add", "add"), ("sub", "subtract"), ("mul", "multiply"), ("pow", "power")):
    register_array_function(_op, _fn, COMPLEX)
_NUMBERS = (int, float)


# NOTE: torch's float16 mul and div by a Python number take the number in float32 (numpy
# would round it to float16 first: 0.1 becomes 0.09998) and round only the result.

@register_kernel("mul", ("cpu", "cuda"), (float16,), out=True)
def mul_half(xp, input, other, out=None):
    if input.__class__ in _NUMBERS:
        input, other = xp.float32(input), other.astype(xp.float32)
    elif other.__class__ in _NUMBERS:
        input, other = input.astype(xp.float32), xp.float32(other)
    return xp.multiply(input, other, out=out)


register_array_function("add", "logical_or", (bool_,))
register_array_function("mul", "logical_and", (bool_,))
register_array_function("remainder", "remainder", FLOATS)
register_array_function("floor_divide", "floor_divide", FLOATS)


def _check_divisor(xp, other, name):
    """Integer division by zero is an error, as in torch (numpy would return 0)."""
    if not xp.all(xp.asarray(other) != 0):
        raise RuntimeError(f"{name}: ZeroDivisionError (integer division by zero)")


@register_kernel("remainder", ("cpu", "cuda"), INTS)
def remainder_int(xp, input, other):
    _check_divisor(xp, other, "remainder")
    return xp.remainder(input, other)


@register_kernel("floor_divide", ("cpu", "cuda"), INTS)
def floor_divide_int(xp, input, other):
    _check_divisor(xp, other, "floor_divide")
    return xp.floor_divide(input, other)
register_array_function("maximum", "logical_or", (bool_,))
register_array_function("minimum", "logical_and", (bool_,))


@register_kernel("pow", ("cpu", "cuda"), NUMERIC)
def pow_(xp, input, exponent):
    if input.__class__ is not xp.ndarray:      # scalar ** tensor
        input = xp.asarray(input, dtype=exponent.dtype)
    if input.dtype.kind != "i":
        return xp.power(input, exponent)
    negative = xp.asarray(exponent) < 0
    if not xp.any(negative):
        return xp.power(input, exponent)
    # torch's integer rule for negative exponents: 1 -> 1, -1 -> +-1, anything else -> 0
    out = xp.power(input, xp.where(negative, 0, exponent))
    odd = xp.remainder(exponent, 2) != 0
    inverse = xp.where(input == 1, 1, xp.where(input == -1, xp.where(odd, -1, 1), 0))
    return xp.where(negative, inverse, out).astype(out.dtype)


@register_kernel("pow", ("cpu", "cuda"), (bool_,))
def pow_bool(xp, input, exponent):
    # as torch: only a bool tensor to a Python bool power (x ** y for x, y in {0, 1})
    if not isinstance(input, xp.ndarray) or isinstance(exponent, xp.ndarray):
        raise DTypeError('pow: "pow" not implemented for bool: a bool tensor only takes a '
                         'Python bool exponent')
    return xp.logical_or(input, not exponent)


@register_kernel("div", ("cpu", "cuda"), COMPLEX)
def div_complex(xp, input, other, rounding_mode):
    if rounding_mode is not None:
        raise RuntimeError(f"div: rounding_mode={rounding_mode!r} is not implemented for "
                           f"complex tensors (there is no order to round in)")
    return xp.true_divide(input, other)


@register_kernel("div", ("cpu", "cuda"), NUMERIC)
def div(xp, input, other, rounding_mode):
    if rounding_mode is None:
        if other.__class__ in _NUMBERS and input.dtype == xp.float16:
            return xp.true_divide(input.astype(xp.float32), xp.float32(other))
        return xp.true_divide(input, other)
    if xp.asarray(input).dtype.kind == "i":
        _check_divisor(xp, other, "div")
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
register_array_function("eq", "equal", COMPLEX)
register_array_function("ne", "not_equal", COMPLEX)
for _op in ("logical_and", "logical_or", "logical_xor", "logical_not"):
    register_array_function(_op, _op, ALL)
register_array_function("isnan", "isnan", FLOATS)
register_array_function("isfinite", "isfinite", FLOATS)
register_array_function("isinf", "isinf", FLOATS)
for _op in ("isnan", "isfinite", "isinf"):
    register_array_function(_op, _op, COMPLEX)
register_kernel("isnan", ("cpu", "cuda"), INTS + (bool_,))(lambda xp, x: xp.zeros(x.shape, bool))
register_kernel("isinf", ("cpu", "cuda"), INTS + (bool_,))(lambda xp, x: xp.zeros(x.shape, bool))
register_kernel("isfinite", ("cpu", "cuda"), INTS + (bool_,))(lambda xp, x: xp.ones(x.shape, bool))
register_array_function("bitwise_not", "invert", INTS + (bool_,))
for _op in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    register_array_function(_op, _op, INTS + (bool_,))


def _shift_operands(xp, input, other):
    """Both operands as arrays of their (promoted) dtype, the shift amounts with invalid ones
    (negative, or not below the bit width: undefined in C) replaced by 0, and where they
    were valid."""
    dtype = (input if hasattr(input, "dtype") else other).dtype
    input, other = xp.asarray(input, dtype=dtype), xp.asarray(other, dtype=dtype)
    valid = (other >= 0) & (other < 8 * dtype.itemsize)
    return input, xp.where(valid, other, 0).astype(dtype), valid


@register_kernel("bitwise_left_shift", ("cpu", "cuda"), INTS)
def bitwise_left_shift(xp, input, other):
    input, amounts, valid = _shift_operands(xp, input, other)
    return xp.where(valid, xp.left_shift(input, amounts), 0).astype(input.dtype)


@register_kernel("bitwise_right_shift", ("cpu", "cuda"), INTS)
def bitwise_right_shift(xp, input, other):
    input, amounts, valid = _shift_operands(xp, input, other)
    sign_fill = xp.where(input < 0, -1, 0)          # all bits shifted out: the sign remains
    return xp.where(valid, xp.right_shift(input, amounts), sign_fill).astype(input.dtype)


@register_kernel("where", ("cpu", "cuda"), ALL + COMPLEX)
def where(xp, condition, input, other):
    return xp.where(condition, input, other)


@register_kernel("clamp", ("cpu", "cuda"), NUMERIC)
def clamp(xp, input, min, max):
    if min is not None:
        input = xp.maximum(input, min)
    if max is not None:
        input = xp.minimum(input, max)
    return input if min is not None or max is not None else input.copy()


@register_kernel("masked_fill", ("cpu", "cuda"), ALL + COMPLEX)
def masked_fill(xp, input, mask, value):
    return xp.where(mask, xp.asarray(value, dtype=input.dtype), input)


# NOTE: numpy has no axpy, so input += alpha * other needs the product somewhere. Written
# into ``other`` it would change a tensor the caller still holds (a gradient); a temporary
# of other's size would raise peak memory by a whole weight. Blocks of rows go through one
# scratch of at most this many elements instead; each block costs ~1.5 us of Python, hence
# big ones.
_SCRATCH = 65536


@register_kernel("add_scaled_", ("cpu", "cuda"), FLOATS + COMPLEX)
def add_scaled_(xp, input, other, alpha):
    if other.size <= _SCRATCH or other.ndim == 0:
        input += xp.multiply(other, alpha)
        return input
    rows = max(1, _SCRATCH * other.shape[0] // other.size)
    scratch = xp.empty((rows,) + other.shape[1:], other.dtype)
    for start in range(0, other.shape[0], rows):
        block = input[start:start + rows]       # `input[a:b] += x` would also assign back
        xp.add(block, xp.multiply(other[start:start + rows], alpha, out=scratch[:len(block)]),
               out=block)
    return input

"""Elementwise ops: math, arithmetic with broadcasting and promotion, comparisons, logic.

Each op is declared once here; kernels live in kernels/generic/elementwise.py and grad
functions in autograd/grads/elementwise.py.
"""
import warnings

from ..core import dtype as dtypes
from ..core.dispatch import apply, run_in_place, run_into
from ..core.functional import generate_function, make_inplace, public, tensor_method
from ..core.inplace import write_out
from ..core.namespace import F
from ..core.tensor import Tensor
from . import infer
from .registry import Attr, Input, define_op, get_op

EW = ("elementwise", "no_side_effect")
BC = ("elementwise", "broadcast", "no_side_effect")

_UNARY_DOCS = {
    "neg": "-x", "abs": "|x|", "sign": "sign(x) in {-1, 0, 1}", "square": "x * x",
    "floor": "largest integer <= x", "ceil": "smallest integer >= x",
    "round": "x rounded half to even", "exp": "e^x", "expm1": "e^x - 1 (exact near 0)",
    "log": "ln x", "log1p": "ln(1 + x) (exact near 0)", "sqrt": "x^(1/2)",
    "rsqrt": "1 / sqrt(x)", "reciprocal": "1 / x", "sin": "sin x", "cos": "cos x",
    "tanh": "tanh x", "sigmoid": "1 / (1 + e^-x)",
}
_SAME_DTYPE = ("neg", "abs", "sign", "square", "floor", "ceil")
_TO_FLOAT = ("exp", "expm1", "log", "log1p", "sqrt", "rsqrt", "reciprocal", "sin", "cos",
             "tanh", "sigmoid")


def _neg_infer(input):
    if input.dtype is dtypes.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    return input._data.shape, input.dtype


def _square_infer(input):
    # square is pow(x, 2): a bool input promotes with the int 2 to int64, as torch
    return input._data.shape, dtypes.int64 if input.dtype is dtypes.bool else input.dtype


def _abs_infer(input):
    # |x| of a complex input is real: complex64 -> float32, as torch
    return infer.unary(input)[0], dtypes.to_real(input.dtype)


_UNARY_INFERS = {"neg": _neg_infer, "square": _square_infer, "abs": _abs_infer}

for _name in _SAME_DTYPE + _TO_FLOAT:
    # NOTE: abs promotes nothing: its real output must not cast a complex input
    _op = define_op(_name, ["input"], infer=_UNARY_INFERS.get(_name, infer.unary if _name in
                                                              _SAME_DTYPE else infer.unary_float),
                    traits=EW, promote=None if _name == "abs" else "out",
                    doc=f"Elementwise {_UNARY_DOCS[_name]}.")
    generate_function(_op, method=True, out=True, inplace=True,
                      doc=f"{_name}(input, out=None) -> Tensor\n\nElementwise "
                          f"{_UNARY_DOCS[_name]}.\n\n>>> minflow.{_name}(minflow.tensor([0.5]))"
                          f".shape\nminflow.Size([1])")


# ---- fused grad ops: one kernel where the chain rule written in ops would run three ----

def _grad_infer(grad_out, output):
    if grad_out._data.shape != output._data.shape or grad_out.dtype is not output.dtype:
        raise RuntimeError(f"expected grad_out like output (shape {list(output._data.shape)}, "
                           f"dtype {output.dtype.name}), got shape "
                           f"{list(grad_out._data.shape)}, dtype {grad_out.dtype.name}")
    infer.check_dtype(output, dtypes.FLOATS, "output")
    return output._data.shape, output.dtype


TANH_GRAD = define_op("tanh_grad", ["grad_out", "output"], infer=_grad_infer, traits=EW,
                      doc="grad_out * (1 - y^2), y = tanh(x): tanh's backward.")
SIGMOID_GRAD = define_op("sigmoid_grad", ["grad_out", "output"], infer=_grad_infer, traits=EW,
                         doc="grad_out * y * (1 - y), y = sigmoid(x): sigmoid's backward.")


def _round_infer(input, decimals):
    if decimals and not input.dtype.is_floating_point:
        raise dtypes.DTypeError(f"decimals={decimals} needs a floating input, got "
                                f"{input.dtype.name}")
    return input._data.shape, input.dtype


_round_op = define_op("round", ["input"], attrs=[Attr("decimals", "int", 0)],
                      infer=_round_infer, traits=EW,
                      doc="Elementwise x rounded half to even (to ``decimals`` places).")


@public(method=True)
def round(input, *, decimals=0, out=None):
    """round(input, *, decimals=0, out=None) -> Tensor

    Round half to even, to ``decimals`` decimal places (negative: left of the point).

    >>> minflow.round(minflow.tensor([0.5, 1.5, 1.25]), decimals=0).tolist()
    [0.0, 2.0, 1.0]
    """
    result = apply(_round_op, (input,), {"decimals": decimals})
    return result if out is None else write_out(result, out, "round")


make_inplace(round, "round_")


def _sub_infer(input, other):
    if _is_bool(input) or _is_bool(other):
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    return infer.binary(input, other)


def _is_bool(x):
    return x.dtype is dtypes.bool if isinstance(x, Tensor) else isinstance(x, bool)


def _pow_infer(input, exponent):
    shape, dtype = infer.binary(input, exponent)
    if (dtype.category < 2 and isinstance(exponent, int) and not isinstance(exponent, bool)
            and exponent < 0):
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    return shape, dtype


_BINARY_INFERS = {"sub": _sub_infer, "pow": _pow_infer,
                  "remainder": infer.tensor_somewhere(infer.binary),
                  "maximum": infer.tensors_only(infer.binary),
                  "minimum": infer.tensors_only(infer.binary)}
_BINARY_DOCS = {
    "add": "input + other", "sub": "input - other", "mul": "input * other",
    "floor_divide": "floor(input / other)",
    "remainder": "input - floor(input / other) * other (sign of other, as Python's %)",
    "pow": "input ** exponent", "maximum": "max(input, other), NaN propagating",
    "minimum": "min(input, other), NaN propagating",
}
for _name, _doc in _BINARY_DOCS.items():
    _second = "exponent" if _name == "pow" else "other"
    _numbers = _name not in ("maximum", "minimum")     # torch's take tensors only
    _op = define_op(_name, [Input("input", scalar_ok=_numbers),
                            Input(_second, scalar_ok=_numbers)],
                    infer=_BINARY_INFERS.get(_name, infer.binary), traits=BC, promote="out",
                    doc=f"Elementwise {_doc}, broadcasting and promoting dtypes.")
    _three = "3" if _numbers else "minflow.tensor([3.])"
    if _name not in ("add", "sub"):
        generate_function(_op, method=True, out=True, inplace=_numbers,
                          doc=f"{_name}(input, {_second}, out=None) -> Tensor\n\n"
                              f"Elementwise {_doc}, with broadcasting and type promotion."
                              f"\n\n>>> minflow.{_name}(minflow.tensor([5.]), {_three})"
                              f".tolist()[0] > 0\nTrue")

_add_op, _sub_op = get_op("add"), get_op("sub")


def _scaled(name, input, other, alpha):
    """``alpha * other``, with PyTorch's checks on alpha's type."""
    result = dtypes.result_type(input, other)
    if isinstance(alpha, bool):
        if result is not dtypes.bool:
            raise RuntimeError(f"{name}: Boolean alpha only supported for Boolean results.")
    elif isinstance(alpha, float) and not result.is_differentiable:
        raise RuntimeError(f"{name}: For integral input tensors, argument alpha must not be a "
                           f"floating point number.")
    if result is dtypes.bool:
        if alpha:
            return other
        return F.zeros_like(other) if isinstance(other, Tensor) else False
    if isinstance(other, Tensor) and other.dtype is not result:
        other = F.cast(other, result)    # as torch: scaled in the result's dtype, not other's
    return F.mul(other, alpha)


@public(method=True)
def add(input, other, *, alpha=1, out=None):
    """add(input, other, *, alpha=1, out=None) -> Tensor

    out = input + alpha * other, broadcasting and promoting dtypes.

    >>> minflow.add(minflow.tensor([1, 2]), 10, alpha=2).tolist()
    [21, 22]
    """
    if alpha != 1 or isinstance(alpha, bool):
        other = _scaled("add", input, other, alpha)
    result = apply(_add_op, (input, other), {})
    return result if out is None else write_out(result, out, "add")


@public(method=True)
def sub(input, other, *, alpha=1, out=None):
    """sub(input, other, *, alpha=1, out=None) -> Tensor

    out = input - alpha * other.

    >>> minflow.sub(minflow.tensor([5.0]), 1.5).tolist()
    [3.5]
    """
    if alpha != 1 or isinstance(alpha, bool):
        other = _scaled("sub", input, other, alpha)
    result = apply(_sub_op, (input, other), {})
    return result if out is None else write_out(result, out, "sub")


def _add_scaled_infer(input, other, alpha):
    if not (isinstance(other, Tensor) and other._data.shape == input._data.shape
            and other.dtype is input.dtype and input.dtype.is_differentiable):
        raise RuntimeError(f"expected other like input (a floating tensor of shape "
                           f"{list(input._data.shape)} and dtype {input.dtype.name}), got "
                           f"{other!r:.80}")
    return input._data.shape, input.dtype


# NOTE: ``x.add_(y, alpha=a)`` as add(x, mul(y, a)) would make a temporary of y's size
# (a whole weight, for SGD written out by hand); this op writes x in place with none.
ADD_SCALED_ = define_op(
    "add_scaled_", [Input("input", mutable=True), "other"], infer=_add_scaled_infer,
    attrs=[Attr("alpha", "float")], traits=("no_grad", "elementwise"),
    doc="input += alpha * other in place, other of input's shape and dtype (add_ with "
        "alpha outside autograd).")


def _into(op, name):
    """add_ / sub_ outside autograd: the kernel writes into self (see dispatch.run_into).
    With a float alpha and ``other`` like self, one ``add_scaled_`` call does it all."""
    def direct(self, other, *, alpha=1):
        if alpha == 1 and not isinstance(alpha, bool):
            return run_into(op, (self, other), {}, self)
        if (isinstance(alpha, (int, float)) and not isinstance(alpha, bool)
                and isinstance(other, Tensor) and other.dtype is self.dtype
                and self.dtype.is_floating_point and other._data.shape == self._data.shape
                and _writeable(self) and not _overlaps(self, other)):
            inputs, attrs = (self, other), {"alpha": float(alpha if name == "add" else -alpha)}
            if not run_in_place(ADD_SCALED_, inputs, attrs):
                apply(ADD_SCALED_, inputs, attrs)
            if self._version is not None:
                self._version[0] += 1
            return True
        other = _scaled(name, self, other, alpha)
        return run_into(op, (self, other), {}, self)
    return direct


def _writeable(t):
    """A cpu array can be read-only (numpy's broadcast views, from_numpy of one); a cupy
    one always is writeable."""
    return t.device.type == "cuda" or (t.device.type == "cpu" and t._data.flags.writeable)


def _overlaps(a, b):
    """Whether two tensors may share memory (then the blockwise update could read a
    block of b that it already wrote through a)."""
    base_a = a if a._base is None else a._base
    base_b = b if b._base is None else b._base
    return base_a is base_b or a._data is b._data


make_inplace(add, "add_", _into(_add_op, "add"))
make_inplace(sub, "sub_", _into(_sub_op, "sub"))
public(sub, name="subtract")
public(F.mul, name="multiply")

_div_op = define_op(
    "div", [Input("input", scalar_ok=True), Input("other", scalar_ok=True)],
    infer=lambda input, other, rounding_mode: (
        infer.binary_float(input, other) if rounding_mode is None
        else infer.binary(input, other)),
    attrs=[Attr("rounding_mode", "str", None, optional=True, choices=("trunc", "floor"))],
    traits=BC, promote="out", doc="Elementwise input / other; ints divide to float.")


@public(method=True)
def div(input, other, *, rounding_mode=None, out=None):
    """div(input, other, *, rounding_mode=None, out=None) -> Tensor

    input / other. ``rounding_mode``: None (true division: integers give float32),
    "trunc" (round toward zero) or "floor" (round down).

    >>> minflow.div(minflow.tensor([7, -7]), 2).tolist()
    [3.5, -3.5]
    >>> minflow.div(minflow.tensor([7, -7]), 2, rounding_mode="floor").tolist()
    [3, -4]
    """
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        input = F.tensor(input)         # as torch: div(7, 2) is tensor(3.5000)
    if rounding_mode == "trunc" and dtypes.result_type(input, other) is dtypes.bfloat16:
        # as torch: the quotient rounded to bfloat16 first, then truncated (the widened
        # float32 kernel would truncate the exact quotient)
        result = F.trunc(apply(_div_op, (input, other), {"rounding_mode": None}))
    else:
        result = apply(_div_op, (input, other), {"rounding_mode": rounding_mode})
    return result if out is None else write_out(result, out, "div")


make_inplace(div, "div_")
public(div, name="divide")
public(div, name="true_divide")

for _name, _sym in (("eq", "=="), ("ne", "!="), ("lt", "<"), ("le", "<="), ("gt", ">"),
                    ("ge", ">=")):
    _op = define_op(_name, [Input("input"), Input("other", scalar_ok=True)],
                    infer=infer.compare, traits=BC + ("no_grad",), promote="common",
                    doc=f"Elementwise input {_sym} other as a bool tensor.")
    generate_function(_op, method=True, out=True, inplace=True,     # x.eq_(y): 1 / 0 in x
                      doc=f"{_name}(input, other, out=None) -> Tensor\n\nElementwise "
                          f"``input {_sym} other`` (bool).\n\n>>> minflow.{_name}("
                          f"minflow.tensor([1, 2]), 2).dtype\nminflow.bool")

for _name, _doc in (("logical_and", "and"), ("logical_or", "or"), ("logical_xor", "xor")):
    _op = define_op(_name, [Input("input"), Input("other")],
                    infer=infer.tensors_only(infer.compare), traits=BC + ("no_grad",),
                    doc=f"Elementwise logical {_doc}; nonzero counts as True.")
    generate_function(_op, method=True, out=True,
                      doc=f"{_name}(input, other, out=None) -> Tensor\n\nElementwise logical "
                          f"{_doc} (bool).\n\n>>> minflow.{_name}(minflow.tensor([True]), "
                          f"minflow.tensor([False])).dtype\nminflow.bool")

_bool_out = (lambda input: (input._data.shape, dtypes.bool))
for _name, _doc in (("logical_not", "logical not (nonzero counts as True)"),
                    ("isnan", "test for NaN"), ("isfinite", "test for a finite value"),
                    ("isinf", "test for +-inf")):
    _op = define_op(_name, ["input"], infer=_bool_out, traits=EW + ("no_grad",),
                    doc=f"Elementwise {_doc} (bool output).")
    generate_function(_op, method=True, out=_name == "logical_not",
                      doc=f"{_name}(input) -> Tensor\n\nElementwise {_doc}.\n\n"
                          f">>> minflow.{_name}(minflow.tensor([1.0])).dtype\nminflow.bool")


def _integral(shape, dtype):
    if dtype.is_floating_point:
        raise dtypes.DTypeError(f"expected bool or integer operands, got {dtype.name}")
    return shape, dtype


def _bitwise_infer(input, other):
    return _integral(*infer.binary(input, other))


def _bitwise_not_infer(input):
    return _integral(*infer.unary(input))


_op = define_op("bitwise_not", ["input"], infer=_bitwise_not_infer, traits=EW + ("no_grad",),
                doc="Elementwise bitwise not (logical not for bool).")
generate_function(_op, method=True, doc="bitwise_not(input) -> Tensor\n\n``~input`` for bool "
                  "and integer tensors.\n\n>>> (~minflow.tensor([True])).tolist()\n[False]")
for _name, _sym in (("bitwise_and", "&"), ("bitwise_or", "|"), ("bitwise_xor", "^")):
    _op = define_op(_name, [Input("input", scalar_ok=True), Input("other", scalar_ok=True)],
                    infer=infer.tensor_somewhere(_bitwise_infer), traits=BC + ("no_grad",),
                    promote="out",
                    doc=f"Elementwise ``input {_sym} other`` on bool and integer tensors.")
    generate_function(_op, method=True, out=True, inplace=True,
                      doc=f"{_name}(input, other, out=None) -> Tensor\n\nElementwise ``input "
                          f"{_sym} other`` for bool and integer tensors (logical for bool).\n\n"
                          f">>> minflow.{_name}(minflow.tensor([5]), 3).dtype\nminflow.int64")


def _shift_infer(input, other):
    shape, dtype = infer.binary(input, other)
    if dtype.category != 1:
        raise dtypes.DTypeError(f"expected integer operands, got {dtype.name}")
    return shape, dtype


_SHIFTS = {
    "bitwise_left_shift": ("<<", "input * 2^other, wrapped to the dtype; 0 where other is "
                           "negative or not less than the dtype's bit width",
                           ">>> minflow.tensor([1, 128], dtype=minflow.uint8) << 1\n"
                           "tensor([2, 0], dtype=minflow.uint8)"),
    "bitwise_right_shift": (">>", "floor(input / 2^other) (an arithmetic shift for signed "
                            "dtypes); where other is negative or not less than the bit width, "
                            "-1 for negative input and 0 otherwise",
                            ">>> minflow.tensor([-128, 100], dtype=minflow.int8) >> 2\n"
                            "tensor([-32,  25], dtype=minflow.int8)"),
}
for _name, (_sym, _math, _example) in _SHIFTS.items():
    _op = define_op(_name, [Input("input", scalar_ok=True), Input("other", scalar_ok=True)],
                    infer=_shift_infer, traits=BC + ("no_grad",), promote="out",
                    doc=f"Elementwise ``input {_sym} other`` on integer tensors.")
    generate_function(_op, method=True, out=True, inplace=True,
                      doc=f"{_name}(input, other, *, out=None) -> Tensor\n\nElementwise "
                          f"``input {_sym} other`` for integer tensors (both promoted to their "
                          f"common dtype): {_math}, as torch.\n\n{_example}")


def _where_infer(condition, input, other):
    infer.check_dtype(condition, (dtypes.bool,), "condition")
    shape = infer.broadcast_shapes(infer._shape_of(condition), infer._shape_of(input),
                                   infer._shape_of(other))
    return shape, infer._binary_dtype(input, other)


_where_op = define_op("where", [Input("condition", promote=False),
                                Input("input", scalar_ok=True), Input("other", scalar_ok=True)],
                      infer=_where_infer, traits=BC, promote="out",
                      doc="Elementwise choice: input where condition, else other.")


@public
def where(condition, input=None, other=None):
    """where(condition, input, other) -> Tensor

    Pick ``input`` where ``condition`` is True, else ``other``, broadcasting all three.
    ``where(condition)`` alone is ``nonzero(condition, as_tuple=True)``.

    >>> x = minflow.tensor([-1.0, 2.0])
    >>> minflow.where(x > 0, x, 0.0).tolist()
    [0.0, 2.0]
    """
    if input is None and other is None:
        return F.nonzero(condition, as_tuple=True)
    if input is None or other is None:
        raise TypeError("where: expected both input and other, or neither")
    if isinstance(condition, Tensor) and condition.dtype is dtypes.uint8:
        warnings.warn("where received a uint8 condition tensor; this is deprecated (as in "
                      "torch), use a bool condition instead", UserWarning, stacklevel=2)
        condition = F.ne(condition, 0)
    return apply(_where_op, (condition, input, other), {})


def _where_method(self, condition, other):
    """``x.where(condition, y)`` is ``where(condition, x, y)``.

    >>> x = minflow.tensor([-1.0, 2.0])
    >>> x.where(x > 0, 0.0)
    tensor([0., 2.])
    """
    return F.where(condition, self, other)


tensor_method("where")(_where_method)


def _clamp_infer(input, min, max):
    if min is None and max is None:
        raise RuntimeError("At least one of 'min' or 'max' must not be None")
    bounds = [b for b in (min, max) if b is not None]
    return input._data.shape, dtypes.result_type(input, *bounds)


_clamp_op = define_op("clamp", [Input("input")],
                      attrs=[Attr("min", "scalar", None, optional=True),
                             Attr("max", "scalar", None, optional=True)],
                      infer=_clamp_infer, traits=EW, promote="out",
                      doc="Elementwise min(max(input, min), max) with scalar bounds.")


@public(method=True)
def clamp(input, min=None, max=None, *, out=None):
    """clamp(input, min=None, max=None, *, out=None) -> Tensor

    min(max(input, min), max) elementwise; either bound may be None, a number or a tensor
    (all three broadcast together). Where min > max the result is max, as in PyTorch.

    >>> minflow.clamp(minflow.tensor([-2.0, 0.5, 3.0]), -1, 1).tolist()
    [-1.0, 0.5, 1.0]
    """
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        result = _clamp_tensor(input, min, max)
    else:
        dtype = dtypes.result_type(input, *(b for b in (min, max) if b is not None))
        if dtype.category == 1:         # integer bounds must fit an integer result
            min, max = (None if b is None else dtypes.checked_scalar(b, dtype, "clamp")
                        for b in (min, max))
        result = apply(_clamp_op, (input,), {"min": min, "max": max})
    return result if out is None else write_out(result, out, "clamp")


def _clamp_tensor(input, min, max):
    """clamp with tensor bounds, as two ``where``: the gradient goes to whichever of input,
    min and max is picked (to input at equality, as PyTorch)."""
    try:
        _clamp_infer(input, min, max)
        infer.broadcast_shapes(*(infer._shape_of(x) for x in (input, min, max) if x is not None))
    except (RuntimeError, TypeError) as err:
        raise type(err)(f"clamp: {err}") from None
    out = input
    if min is not None:
        out = F.where(F.lt(out, min), min, out)
    if max is not None:
        out = F.where(F.gt(out, max), max, out)
    return out


make_inplace(clamp, "clamp_")
public(clamp, name="clip", method=True)


@public(method=True)
def clamp_min(input, min):
    """clamp_min(input, min) -> Tensor: ``clamp(input, min=min)``.

    >>> minflow.clamp_min(minflow.tensor([-1.0, 2.0]), 0).tolist()
    [0.0, 2.0]
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"clamp_min: expected input to be a Tensor, got {type(input).__name__}")
    if min is None:
        raise TypeError("clamp_min: expected min to be a number or a Tensor, got None")
    return clamp(input, min=min)


@public(method=True)
def clamp_max(input, max):
    """clamp_max(input, max) -> Tensor: ``clamp(input, max=max)``.

    >>> minflow.clamp_max(minflow.tensor([-1.0, 2.0]), 0).tolist()
    [-1.0, 0.0]
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"clamp_max: expected input to be a Tensor, got {type(input).__name__}")
    if max is None:
        raise TypeError("clamp_max: expected max to be a number or a Tensor, got None")
    return clamp(input, max=max)


def _check_mask(input, mask):
    """The shape input and the bool mask broadcast to (the result's, as torch's
    out-of-place masked_fill; the in-place one keeps input's shape)."""
    infer.check_dtype(mask, (dtypes.bool,), "mask")
    return infer.broadcast_shapes(input._data.shape, mask._data.shape)


def _masked_fill_infer(input, mask, value):
    return _check_mask(input, mask), input.dtype


_masked_fill_op = define_op("masked_fill", [Input("input"), Input("mask", promote=False)],
                            attrs=[Attr("value", "scalar")], infer=_masked_fill_infer,
                            traits=BC, doc="input with value written where mask is True.")


@public(method=True)
def masked_fill(input, mask, value):
    """masked_fill(input, mask, value) -> Tensor

    Copy of ``input`` with ``value`` (a number or a 0-dim tensor, converted to input's
    dtype) where the bool ``mask`` is True; input and mask broadcast together.

    >>> x = minflow.tensor([1.0, 2.0])
    >>> x.masked_fill(x > 1, 0.0).tolist()
    [1.0, 0.0]
    """
    if not isinstance(value, Tensor):
        value = dtypes.checked_scalar(value, getattr(input, "dtype", dtypes.float32),
                                      "masked_fill")
        return apply(_masked_fill_op, (input, mask), {"value": value})
    if value.ndim != 0:
        raise RuntimeError(f"masked_fill: only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.ndim} dimension(s)")
    try:
        _check_mask(input, mask)
    except (RuntimeError, TypeError) as err:
        raise type(err)(f"masked_fill: {err}") from None
    return F.where(mask, F.cast(value, input.dtype), input)    # gradient reaches value too


make_inplace(masked_fill, "masked_fill_")

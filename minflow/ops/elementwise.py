"""Elementwise ops: math, arithmetic with broadcasting and promotion, comparisons, logic.

Each op is declared once here; kernels live in kernels/generic/elementwise.py and grad
functions in autograd/grads/elementwise.py.
"""
from ..core import dtype as dtypes
from ..core.dispatch import apply
from ..core.functional import generate_function, make_inplace, public, tensor_method
from ..core.inplace import write_out
from ..core.namespace import F
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
_SAME_DTYPE = ("neg", "abs", "sign", "square", "floor", "ceil", "round")
_TO_FLOAT = ("exp", "expm1", "log", "log1p", "sqrt", "rsqrt", "reciprocal", "sin", "cos",
             "tanh", "sigmoid")

for _name in _SAME_DTYPE + _TO_FLOAT:
    _op = define_op(_name, ["input"], infer=infer.unary if _name in _SAME_DTYPE
                    else infer.unary_float, traits=EW, promote="out",
                    doc=f"Elementwise {_UNARY_DOCS[_name]}.")
    generate_function(_op, method=True, out=True, inplace=True,
                      doc=f"{_name}(input, out=None) -> Tensor\n\nElementwise "
                          f"{_UNARY_DOCS[_name]}.\n\n>>> minflow.{_name}(minflow.tensor([0.5]))"
                          f".shape\nminflow.Size([1])")

_BINARY_DOCS = {
    "add": "input + other", "sub": "input - other", "mul": "input * other",
    "floor_divide": "floor(input / other)",
    "remainder": "input - floor(input / other) * other (sign of other, as Python's %)",
    "pow": "input ** exponent", "maximum": "max(input, other), NaN propagating",
    "minimum": "min(input, other), NaN propagating",
}
for _name, _doc in _BINARY_DOCS.items():
    _second = "exponent" if _name == "pow" else "other"
    _op = define_op(_name, [Input("input", scalar_ok=True), Input(_second, scalar_ok=True)],
                    infer=infer.binary, traits=BC, promote="out",
                    doc=f"Elementwise {_doc}, broadcasting and promoting dtypes.")
    if _name not in ("add", "sub"):
        generate_function(_op, method=True, out=True, inplace=_name != "maximum"
                          and _name != "minimum",
                          doc=f"{_name}(input, {_second}, out=None) -> Tensor\n\n"
                              f"Elementwise {_doc}, with broadcasting and type promotion."
                              f"\n\n>>> minflow.{_name}(minflow.tensor([4.]), 2).tolist()"
                              f"[0] > 0\nTrue")

_add_op, _sub_op = get_op("add"), get_op("sub")


def _scaled(other, alpha):
    return other if alpha == 1 else F.mul(other, alpha)


@public(method=True)
def add(input, other, *, alpha=1, out=None):
    """add(input, other, *, alpha=1, out=None) -> Tensor

    out = input + alpha * other, broadcasting and promoting dtypes.

    >>> minflow.add(minflow.tensor([1, 2]), 10, alpha=2).tolist()
    [21, 22]
    """
    result = apply(_add_op, (input, _scaled(other, alpha) if alpha != 1 else other), {})
    return result if out is None else write_out(result, out, "add")


@public(method=True)
def sub(input, other, *, alpha=1, out=None):
    """sub(input, other, *, alpha=1, out=None) -> Tensor

    out = input - alpha * other.

    >>> minflow.sub(minflow.tensor([5.0]), 1.5).tolist()
    [3.5]
    """
    result = apply(_sub_op, (input, _scaled(other, alpha) if alpha != 1 else other), {})
    return result if out is None else write_out(result, out, "sub")


make_inplace(add, "add_")
make_inplace(sub, "sub_")
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
    result = apply(_div_op, (input, other), {"rounding_mode": rounding_mode})
    return result if out is None else write_out(result, out, "div")


make_inplace(div, "div_")
public(div, name="divide")
public(div, name="true_divide")

for _name, _sym in (("eq", "=="), ("ne", "!="), ("lt", "<"), ("le", "<="), ("gt", ">"),
                    ("ge", ">=")):
    _op = define_op(_name, [Input("input", scalar_ok=True), Input("other", scalar_ok=True)],
                    infer=infer.compare, traits=BC + ("no_grad",), promote="common",
                    doc=f"Elementwise input {_sym} other as a bool tensor.")
    generate_function(_op, method=True, out=True,
                      doc=f"{_name}(input, other, out=None) -> Tensor\n\nElementwise "
                          f"``input {_sym} other`` (bool).\n\n>>> minflow.{_name}("
                          f"minflow.tensor([1, 2]), 2).dtype\nminflow.bool")

for _name, _doc in (("logical_and", "and"), ("logical_or", "or"), ("logical_xor", "xor")):
    _op = define_op(_name, [Input("input"), Input("other", scalar_ok=True)],
                    infer=infer.compare, traits=BC + ("no_grad",),
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


def _bitwise_not_infer(input):
    infer.check_dtype(input, (dtypes.bool,) + dtypes.INTS)
    return input._data.shape, input.dtype


_op = define_op("bitwise_not", ["input"], infer=_bitwise_not_infer, traits=EW + ("no_grad",),
                doc="Elementwise bitwise not (logical not for bool).")
generate_function(_op, method=True, doc="bitwise_not(input) -> Tensor\n\n``~input`` for bool "
                  "and integer tensors.\n\n>>> (~minflow.tensor([True])).tolist()\n[False]")


def _where_infer(condition, input, other):
    infer.check_dtype(condition, (dtypes.bool,), "condition")
    shape = infer.broadcast_shapes(infer._shape_of(condition), infer._shape_of(input),
                                   infer._shape_of(other))
    return shape, infer._binary_dtype(input, other)


_op = define_op("where", [Input("condition", promote=False), Input("input", scalar_ok=True),
                          Input("other", scalar_ok=True)],
                infer=_where_infer, traits=BC, promote="out",
                doc="Elementwise choice: input where condition, else other.")
generate_function(_op, doc="where(condition, input, other) -> Tensor\n\nPick ``input`` where "
                  "``condition`` is True, else ``other``, broadcasting all three.\n\n"
                  ">>> x = minflow.tensor([-1.0, 2.0])\n>>> minflow.where(x > 0, x, 0.0).tolist()"
                  "\n[0.0, 2.0]")


def _where_method(self, condition, other):
    """``x.where(condition, y)`` is ``where(condition, x, y)``."""
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
                      doc="Elementwise min(max(input, min), max).")
generate_function(_clamp_op, method=True, out=True, inplace=True,
                  doc="clamp(input, min=None, max=None, out=None) -> Tensor\n\n"
                      "min(max(input, min), max) elementwise; either bound may be None.\n\n"
                      ">>> minflow.clamp(minflow.tensor([-2.0, 0.5, 3.0]), -1, 1).tolist()\n"
                      "[-1.0, 0.5, 1.0]")
public(F.clamp, name="clip", method=True)


def _masked_fill_infer(input, mask, value):
    infer.check_dtype(mask, (dtypes.bool,), "mask")
    shape = infer.broadcast_shapes(input._data.shape, mask._data.shape)
    if shape != tuple(input._data.shape):
        raise RuntimeError(f"mask of shape {list(mask._data.shape)} must broadcast to input "
                           f"shape {list(input._data.shape)}")
    if input.dtype.category < dtypes.scalar_dtype(value).category:
        raise RuntimeError(f"value {value!r} cannot be converted to dtype {input.dtype.name} "
                           f"without overflow")
    return input._data.shape, input.dtype


_op = define_op("masked_fill", [Input("input"), Input("mask", promote=False)],
                attrs=[Attr("value", "scalar")], infer=_masked_fill_infer, traits=BC,
                doc="input with value written where mask is True.")
generate_function(_op, method=True, inplace=True,
                  doc="masked_fill(input, mask, value) -> Tensor\n\nCopy of ``input`` with "
                      "``value`` where the bool ``mask`` (broadcast to input) is True.\n\n"
                      ">>> x = minflow.tensor([1.0, 2.0])\n"
                      ">>> x.masked_fill(x > 1, 0.0).tolist()\n[1.0, 0.0]")

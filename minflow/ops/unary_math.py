"""Unary math beyond ops/elementwise.py: tan, the inverse trigonometric and hyperbolic
functions, log2 / log10 / exp2, erfc, sinc, angle conversion, logit, nan_to_num, the sign
tests (signbit, isposinf, isneginf, isreal), positive, frexp, and the numpy-style aliases
torch has (arcsin, absolute, negative ...).

Kernels: kernels/generic/unary_math.py; grad functions: autograd/grads/unary_math.py.
"""
import collections
import numbers

from ..core import dtype as dtypes
from ..core.dispatch import apply
from ..core.functional import generate_function, make_inplace, public
from ..core.inplace import write_out
from ..core.namespace import F
from . import infer
from .registry import Attr, define_op

EW = ("elementwise", "no_side_effect")

# name: (formula, example input, the example's printed result); integer and bool inputs
# give the default float dtype, as in torch
_FLOAT_OPS = {
    "tan": ("tan x", "[0.0, 0.5]", "tensor([0.0000, 0.5463])"),
    "asin": ("arcsin x, in [-pi/2, pi/2]; NaN outside [-1, 1]", "[0.0, 1.0]",
             "tensor([0.0000, 1.5708])"),
    "acos": ("arccos x, in [0, pi]; NaN outside [-1, 1]", "[1.0, 0.0]",
             "tensor([0.0000, 1.5708])"),
    "atan": ("arctan x, in (-pi/2, pi/2)", "[0.0, 1.0]", "tensor([0.0000, 0.7854])"),
    "sinh": ("(e^x - e^-x) / 2", "[0.0, 1.0]", "tensor([0.0000, 1.1752])"),
    "cosh": ("(e^x + e^-x) / 2", "[0.0, 1.0]", "tensor([1.0000, 1.5431])"),
    "asinh": ("ln(x + sqrt(x^2 + 1))", "[0.0, 1.0]", "tensor([0.0000, 0.8814])"),
    "acosh": ("ln(x + sqrt(x^2 - 1)); NaN below 1", "[1.0, 2.0]", "tensor([0.0000, 1.3170])"),
    "atanh": ("ln((1 + x) / (1 - x)) / 2; +-inf at +-1, NaN outside [-1, 1]", "[0.0, 0.5]",
              "tensor([0.0000, 0.5493])"),
    "log2": ("log_2 x", "[1.0, 8.0]", "tensor([0., 3.])"),
    "log10": ("log_10 x", "[1.0, 10.0]", "tensor([0., 1.])"),
    "exp2": ("2^x", "[0.0, 3.0]", "tensor([1., 8.])"),
    "erfc": ("1 - erf(x), exact where erf(x) is near 1", "[0.0, 3.0]",
             "tensor([1.0000e+00, 2.2090e-05])"),
    "sinc": ("sin(pi x) / (pi x), 1 at 0 (the normalized sinc)", "[0.0, 0.5]",
             "tensor([1.0000, 0.6366])"),
    "deg2rad": ("x * pi / 180", "[180.0, 90.0]", "tensor([3.1416, 1.5708])"),
    "rad2deg": ("x * 180 / pi", "[3.14159265, 1.0]", "tensor([180.0000,  57.2958])"),
}

for _name, (_formula, _x, _printed) in _FLOAT_OPS.items():
    _op = define_op(_name, ["input"], infer=infer.unary_float, traits=EW, promote="out",
                    doc=f"Elementwise {_formula}.")
    generate_function(_op, method=True, out=True, inplace=True,
                      doc=f"{_name}(input, *, out=None) -> Tensor\n\nElementwise {_formula}; "
                          f"integer and bool inputs give the default float dtype.\n\n"
                          f">>> minflow.{_name}(minflow.tensor({_x}))\n{_printed}")

for _alias, _name in (("arcsin", "asin"), ("arccos", "acos"), ("arctan", "atan"),
                      ("arcsinh", "asinh"), ("arccosh", "acosh"), ("arctanh", "atanh"),
                      ("absolute", "abs"), ("negative", "neg")):
    public(getattr(F, _name), name=_alias, method=True)
    public(getattr(F, _name + "_"), name=_alias + "_", method=True)


def _logit_infer(input, eps):
    return infer.unary_float(input)


_logit = define_op("logit", ["input"], attrs=[Attr("eps", "float", None, optional=True)],
                   infer=_logit_infer, traits=EW, promote="out",
                   doc="Elementwise ln(z / (1 - z)), z = input clamped to [eps, 1 - eps] "
                       "when eps is given.")


@public(method=True)
def logit(input, eps=None, *, out=None):
    """logit(input, eps=None, *, out=None) -> Tensor

    The inverse of sigmoid: ln(z / (1 - z)), with z = clamp(input, eps, 1 - eps) when
    ``eps`` is given, else z = input (NaN outside [0, 1], +-inf at 1 and 0). The gradient
    is 0 where eps clamps, as in torch.

    >>> minflow.logit(minflow.tensor([0.5, 0.75, 1.0]), eps=1e-6)
    tensor([ 0.0000,  1.0986, 13.8023])
    """
    if isinstance(eps, numbers.Real) and eps < 0:     # torch: a negative eps clamps nothing
        eps = None
    result = apply(_logit, (input,), {"eps": eps})
    return result if out is None else write_out(result, out, "logit")


make_inplace(logit, "logit_")


def _nan_to_num_infer(input, nan, posinf, neginf):
    return infer.unary(input)


_nan_to_num = define_op("nan_to_num", ["input"],
                        attrs=[Attr("nan", "float", 0.0),
                               Attr("posinf", "float", None, optional=True),
                               Attr("neginf", "float", None, optional=True)],
                        infer=_nan_to_num_infer, traits=EW,
                        doc="input with NaN, +inf and -inf replaced by finite numbers (the "
                            "dtype's largest and lowest by default).")


@public(method=True)
def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    """nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None) -> Tensor

    Replace NaN by ``nan``, +inf by ``posinf`` and -inf by ``neginf`` (default: the
    largest and the lowest finite number of input's dtype); integer and bool inputs come
    back unchanged. The gradient is 1 at finite elements and 0 at the replaced ones.

    >>> minflow.nan_to_num(minflow.tensor([float("nan"), float("inf"), -1.5]), posinf=9.0)
    tensor([ 0.0000,  9.0000, -1.5000])
    """
    result = apply(_nan_to_num, (input,), {"nan": nan, "posinf": posinf, "neginf": neginf})
    return result if out is None else write_out(result, out, "nan_to_num")


make_inplace(nan_to_num, "nan_to_num_")


def _bool_out(input):
    return infer.unary(input)[0], dtypes.bool


def _bool_test(op, doc):
    """The public function of a bool-valued test: ``out`` must be a bool tensor, as torch."""
    def fn(input, *, out=None):
        result = apply(op, (input,), {})
        if out is None:
            return result
        if getattr(out, "dtype", None) is not dtypes.bool:
            got = out.dtype.name if hasattr(out, "dtype") else type(out).__name__
            raise RuntimeError(f"{op.name} does not support non-boolean outputs: expected out "
                               f"of dtype bool, got {got}")
        return write_out(result, out, op.name)
    fn.__name__ = fn.__qualname__ = op.name
    fn.__doc__ = doc
    return public(fn, method=True)


for _name, _doc, _x, _printed in (
        ("signbit", "test for a set sign bit: True for negative numbers, -0.0 included",
         "[-0.0, 0.0, -2.0]", "[True, False, True]"),
        ("isposinf", "test for +inf", "[float('inf'), -float('inf'), 1.0]",
         "[True, False, False]"),
        ("isneginf", "test for -inf", "[float('inf'), -float('inf'), 1.0]",
         "[False, True, False]")):
    _op = define_op(_name, ["input"], infer=_bool_out, traits=EW + ("no_grad",),
                    doc=f"Elementwise {_doc} (bool output).")
    _bool_test(_op, f"{_name}(input, *, out=None) -> Tensor\n\nElementwise {_doc} (bool; "
                    f"integer and bool inputs have no infinities, nor a sign bit on their "
                    f"zeros). ``out`` must be a bool tensor.\n\n>>> minflow.{_name}("
                    f"minflow.tensor({_x})).tolist()\n{_printed}")


@public(method=True)
def isreal(input):
    """isreal(input) -> Tensor

    Elementwise test for a zero imaginary part (bool): every element of a real tensor.

    >>> minflow.isreal(minflow.tensor([1.0, float("nan")])).tolist()
    [True, True]
    >>> minflow.isreal(minflow.tensor([1 + 0j, 2j])).tolist()
    [True, False]
    """
    if input.dtype.is_complex:
        return F.eq(F.imag(input), 0)
    return F.ones_like(input, dtype=dtypes.bool)


@public(method=True)
def positive(input):
    """positive(input) -> Tensor

    ``+input``: the input itself, as torch; bool tensors are refused.

    >>> x = minflow.tensor([-1.0, 2.0])
    >>> minflow.positive(x) is x
    True
    """
    if input.dtype is dtypes.bool:
        raise RuntimeError("positive: The `+` operator, on a bool tensor is not supported.")
    return input


public(F.sign_, name="sgn_", method=True)     # sgn itself: ops/complex.py (z / |z|)


def _frexp_infer(input):
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"frexp: torch.frexp() only supports floating-point dtypes, got "
                           f"{input.dtype.name}")
    return [(input._data.shape, input.dtype), (input._data.shape, dtypes.int32)]


FREXP = define_op("frexp", ["input"], outputs=("mantissa", "exponent"), infer=_frexp_infer,
                  traits=EW, doc="Elementwise mantissa in (-1, -0.5] or [0.5, 1) and int32 "
                                 "exponent with input = mantissa * 2^exponent.")


def _frexp_repr(self):
    return (f"minflow.return_types.frexp(\nmantissa={self.mantissa!r},\n"
            f"exponent={self.exponent!r})")


# (mantissa, exponent), named and printed as torch's ``return_types.frexp``
_FrexpResult = type("frexp", (collections.namedtuple("frexp", ["mantissa", "exponent"]),),
                    {"__slots__": (), "__repr__": _frexp_repr})


@public(method=True)
def frexp(input, *, out=None):
    """frexp(input, *, out=None) -> (Tensor mantissa, Tensor exponent)

    Splits a float tensor into ``mantissa`` (input's dtype, 0.5 <= |mantissa| < 1) and an
    int32 ``exponent`` with input = mantissa * 2^exponent; zeros, infinities and NaN keep
    their value with exponent 0. The gradient flows to the mantissa only:
    grad / 2^exponent. ``out`` is a (mantissa, exponent) pair.

    >>> minflow.frexp(minflow.tensor([8.0, -0.75, 0.0]))
    minflow.return_types.frexp(
    mantissa=tensor([ 0.5000, -0.7500,  0.0000]),
    exponent=tensor([4, 0, 0], dtype=minflow.int32))
    """
    result = apply(FREXP, (input,), {})
    if out is not None:
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError(f"frexp: expected out to be a (mantissa, exponent) pair of "
                            f"Tensors, got {type(out).__name__}")
        result = tuple(write_out(r, o, "frexp") for r, o in zip(result, out))
    return _FrexpResult(*result)

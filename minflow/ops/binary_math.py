"""Binary math beyond ops/elementwise.py: fmod, hypot, copysign, logaddexp, logaddexp2,
xlogy, fmax, fmin, heaviside, nextafter, gcd, lcm; the composites float_power and ldexp;
the comparison aliases torch has (not_equal, greater ...).

All broadcast. Where torch takes a Python number for ``other`` (fmod, copysign, xlogy,
float_power) so does minflow; elsewhere both operands must be tensors, as in torch.
Kernels: kernels/generic/binary_math.py; grad functions: autograd/grads/binary_math.py.
"""
from ..core import dtype as dtypes
from ..core.functional import generate_function, make_inplace, public, tensor_method
from ..core.inplace import inplace, write_out
from ..core.namespace import F
from ..core.tensor import Tensor
from . import infer
from .registry import Input, define_op

BC = ("elementwise", "broadcast", "no_side_effect")


def _tensors(name, **operands):
    for arg, x in operands.items():
        if not isinstance(x, Tensor):
            raise TypeError(f"{name}: expected {arg} to be a Tensor, got {type(x).__name__}")


def _infer(name, result, scalar_other=False, tensor_input=True):
    """An infer function: operand checks, then ``result(input, other)``."""
    def infer_fn(input, other):
        if tensor_input:
            _tensors(name, input=input)
        if not scalar_other:
            _tensors(name, other=other)
        return result(input, other)
    return infer_fn


def _heaviside_infer(input, values):
    _tensors("heaviside", input=input, values=values)
    if input.dtype is not values.dtype:
        raise RuntimeError(f"heaviside is not yet implemented for tensors with different "
                           f"dtypes: got input {input.dtype.name} and values "
                           f"{values.dtype.name}")
    return infer.binary(input, values)


# name: (formula, result: "promote" or "float", tensors only, example, printed result)
_OPS = {
    "fmod": ("input - trunc(input / other) * other: the C remainder, with input's sign",
             "promote", False, "minflow.tensor([7.0, -7.0]), 3", "[1.0, -1.0]"),
    "hypot": ("sqrt(input^2 + other^2), without overflow", "promote", True,
              "minflow.tensor([3.0]), minflow.tensor([4.0])", "[5.0]"),
    "copysign": ("|input| with the sign of other (-0.0 counts as negative)", "float", False,
                 "minflow.tensor([1.0, 2.0]), -0.0", "[-1.0, -2.0]"),
    "logaddexp": ("ln(e^input + e^other), without overflow", "promote", True,
                  "minflow.tensor([0.0]), minflow.tensor([0.0])", "[0.6931471824645996]"),
    "logaddexp2": ("log_2(2^input + 2^other), without overflow", "promote", True,
                   "minflow.tensor([3.0]), minflow.tensor([3.0])", "[4.0]"),
    "xlogy": ("input * ln(other), 0 where input is 0 (unless other is NaN)", "float",
              False, "minflow.tensor([0.0, 2.0]), 0.0", "[0.0, -inf]"),
    "fmax": ("max(input, other), ignoring a NaN operand", "promote", True,
             "minflow.tensor([1.0, float('nan')]), minflow.tensor([float('nan'), 2.0])",
             "[1.0, 2.0]"),
    "fmin": ("min(input, other), ignoring a NaN operand", "promote", True,
             "minflow.tensor([1.0, float('nan')]), minflow.tensor([float('nan'), 2.0])",
             "[1.0, 2.0]"),
    "nextafter": ("the next representable number after input toward other", "promote", True,
                  "minflow.tensor([1.0]), minflow.tensor([2.0])", "[1.0000001192092896]"),
    "gcd": ("greatest common divisor of |input| and |other| (integers)", "promote", True,
            "minflow.tensor([12, -18]), minflow.tensor([8, 12])", "[4, 6]"),
    "lcm": ("least common multiple of |input| and |other| (integers)", "promote", True,
            "minflow.tensor([4, -6]), minflow.tensor([6, 4])", "[12, 12]"),
}
_NO_GRAD = ("gcd", "lcm")
_NO_INPLACE = ("logaddexp", "logaddexp2", "fmax", "fmin")

for _name, (_formula, _result, _tensor_only, _args, _printed) in _OPS.items():
    _scalar_input = _name == "xlogy"       # torch.xlogy(2, t) too
    _op = define_op(_name, [Input("input", scalar_ok=_scalar_input),
                            Input("other", scalar_ok=not _tensor_only)],
                    infer=_infer(_name, infer.binary if _result == "promote"
                                 else infer.binary_float, scalar_other=not _tensor_only,
                                 tensor_input=not _scalar_input),
                    traits=BC + (("no_grad",) if _name in _NO_GRAD else ()), promote="out",
                    doc=f"Elementwise {_formula}, broadcasting and promoting dtypes.")
    generate_function(_op, method=True, out=True, inplace=_name not in _NO_INPLACE,
                      doc=f"{_name}(input, other, *, out=None) -> Tensor\n\nElementwise "
                          f"{_formula}; broadcasts and promotes dtypes"
                          f"{' (integers give the default float)' if _result == 'float' else ''}"
                          f".\n\n>>> minflow.{_name}({_args}).tolist()\n"
                          f"{_printed}")

_heaviside = define_op("heaviside", [Input("input"), Input("values")],
                       infer=_heaviside_infer,
                       traits=BC + ("no_grad",),
                       doc="Elementwise step: 0 where input < 0, values where input == 0, 1 "
                           "where input > 0 (and where it is NaN: 0).")
generate_function(_heaviside, method=True, out=True, inplace=True,
                  doc="heaviside(input, values, *, out=None) -> Tensor\n\nThe Heaviside step "
                      "function: 0 where input < 0, ``values`` where input == 0, 1 where "
                      "input > 0; input and values of one dtype, as torch.\n\n"
                      ">>> x = minflow.tensor([-1.5, 0.0, 2.0])\n"
                      ">>> minflow.heaviside(x, minflow.tensor([0.5])).tolist()\n"
                      "[0.0, 0.5, 1.0]")


@public(method=True)
def float_power(input, exponent, *, out=None):
    """float_power(input, exponent, *, out=None) -> Tensor

    ``input ** exponent`` computed in float64 whatever the dtypes (float_power of int
    tensors too), or in complex128 where either is complex, with pow's gradients.

    >>> minflow.float_power(minflow.tensor([2, 3]), 2)
    tensor([4., 9.], dtype=minflow.float64)
    """
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise TypeError(f"float_power: expected input or exponent to be a Tensor, got "
                        f"{type(input).__name__} and {type(exponent).__name__}")
    double = dtypes.complex128 if _is_complex(input) or _is_complex(exponent) else \
        dtypes.float64
    as_double = (lambda x: F.cast(x, double) if isinstance(x, Tensor) else x)
    result = F.pow(as_double(input), as_double(exponent))
    return result if out is None else write_out(result, out, "float_power")


def _is_complex(x):
    return x.dtype.is_complex if isinstance(x, Tensor) else isinstance(x, complex)


@public(method=True)
def float_power_(self, exponent):
    """In-place version of :func:`float_power`: self must be float64, as torch.

    >>> minflow.tensor([2.0], dtype=minflow.float64).float_power_(0.5).tolist()
    [1.4142135623730951]
    """
    double = dtypes.complex128 if _is_complex(self) or _is_complex(exponent) else \
        dtypes.float64
    if self.dtype is not double:
        raise RuntimeError(f"float_power_: the base given to float_power_ has dtype "
                           f"{self.dtype.name} but the operation's result requires dtype "
                           f"{double.name}")
    return inplace(float_power, "float_power_", self, exponent)



@public(method=True)
def ldexp(input, other, *, out=None):
    """ldexp(input, other, *, out=None) -> Tensor

    input * 2^other, as torch computes it (``mul(input, pow(2.0, other))``): integers give
    the default float.

    >>> minflow.ldexp(minflow.tensor([1.0, 3.0]), minflow.tensor([3, -1])).tolist()
    [8.0, 1.5]
    """
    _tensors("ldexp", input=input, other=other)
    result = F.mul(input, F.pow(2.0, other))
    return result if out is None else write_out(result, out, "ldexp")


make_inplace(ldexp, "ldexp_")

for _alias, _name in (("not_equal", "ne"), ("greater", "gt"), ("greater_equal", "ge"),
                      ("less", "lt"), ("less_equal", "le")):
    public(getattr(F, _name), name=_alias, method=True)
    public(getattr(F, _name + "_"), name=_alias + "_", method=True)
for _alias, _name in (("multiply", "mul"), ("subtract", "sub"), ("divide", "div"),
                      ("true_divide", "div")):
    tensor_method(_alias)(getattr(F, _name))        # the functions exist already
    public(getattr(F, _name + "_"), name=_alias + "_", method=True)

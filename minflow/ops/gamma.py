"""The gamma family and Bessel functions: lgamma, digamma, polygamma, mvlgamma (a
composite of lgamma), the regularized incomplete gamma functions igamma and igammac, i0,
and i1 (i0's derivative, an op of its own).

Kernels: kernels/generic/gamma.py (scipy.special where installed, else the pure-numpy
fallbacks of kernels/generic/gamma_fallback.py; cupyx.scipy.special on cuda); grad
functions: autograd/grads/gamma.py.
"""
import math

from ..core import dtype as dtypes
from ..core.dispatch import apply
from ..core.functional import generate_function, make_inplace, public, tensor_method
from ..core.inplace import write_out
from ..core.namespace import F
from . import infer
from .registry import Attr, Input, define_op

EW = ("elementwise", "no_side_effect")

# name: (formula, example input, the example's result as printed); integer and bool
# inputs give the default float dtype
_OPS = {
    "lgamma": ("ln |Gamma(x)|; +inf at 0 and the negative integers", "[1.0, 3.0, 0.5]",
               "tensor([0.0000, 0.6931, 0.5724])"),
    "digamma": ("psi(x) = d/dx ln Gamma(x); -inf at 0, NaN at the negative integers",
                "[1.0, 2.0]", "tensor([-0.5772,  0.4228])"),
    "i0": ("I_0(x), the modified Bessel function of the first kind, order 0", "[0.0, 1.0]",
           "tensor([1.0000, 1.2661])"),
}
for _name, (_formula, _x, _printed) in _OPS.items():
    _op = define_op(_name, ["input"], infer=infer.unary_float, traits=EW, promote="out",
                    doc=f"Elementwise {_formula}.")
    generate_function(_op, method=True, out=True, inplace=True,
                      doc=f"{_name}(input, *, out=None) -> Tensor\n\nElementwise {_formula}; "
                          f"integer and bool inputs give the default float dtype.\n\n"
                          f">>> minflow.{_name}(minflow.tensor({_x}))\n{_printed}")



def _igamma_infer(input, other):
    shape, dtype = infer.binary(input, other)
    if not dtype.is_floating_point:     # as torch: an int input promotes with a float one
        raise dtypes.DTypeError(f"expected input or other of a floating dtype, got "
                                f"{input.dtype.name} and {other.dtype.name}")
    return shape, dtype


for _name, _formula, _printed in (
        ("igamma", "P(a, x) = 1 / Gamma(a) * integral_0^x t^(a-1) e^-t dt", "tensor([0.6321])"),
        ("igammac", "Q(a, x) = 1 - P(a, x) = 1 / Gamma(a) * integral_x^inf t^(a-1) e^-t dt",
         "tensor([0.3679])")):
    _op = define_op(_name, [Input("input"), Input("other")], infer=_igamma_infer,
                    traits=EW + ("broadcast",), promote="out",
                    doc=f"Elementwise regularized incomplete gamma function {_formula}, "
                        f"a = input, x = other.")
    generate_function(_op, method=True, out=True, inplace=True,
                      doc=f"{_name}(input, other, *, out=None) -> Tensor\n\nThe regularized "
                          f"incomplete gamma function {_formula} of a = input and x = other "
                          f"(broadcast, floating dtypes). As torch, only the gradient "
                          f"w.r.t. other (x) is implemented.\n\n>>> minflow.{_name}("
                          f"minflow.tensor([1.0]), minflow.tensor([1.0]))\n{_printed}")

I1 = define_op("i1", ["input"], infer=infer.unary_float, traits=EW, promote="out",
               doc="Elementwise I_1(x), the modified Bessel function of the first kind, "
                   "order 1 (i0's derivative).")


def _polygamma_infer(input, n):
    return infer.unary_float(input)


POLYGAMMA = define_op("polygamma", ["input"], attrs=[Attr("n", "int", min=0)],
                      infer=_polygamma_infer, traits=EW, promote="out",
                      doc="Elementwise psi^(n)(x), the n-th derivative of digamma.")


@public
def polygamma(n, input, *, out=None):
    """polygamma(n, input, *, out=None) -> Tensor

    The n-th derivative of digamma, psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x) for n >= 1;
    ``polygamma(0, x)`` is ``digamma(x)``. Integer inputs give the default float dtype.

    >>> minflow.polygamma(1, minflow.tensor([1.0, 2.0]))
    tensor([1.6449, 0.6449])
    """
    if n == 0 and not isinstance(n, bool):
        result = F.digamma(input)
    else:
        result = apply(POLYGAMMA, (input,), {"n": n})
    return result if out is None else write_out(result, out, "polygamma")


def _polygamma_method(self, n):
    """``x.polygamma(n)`` is ``polygamma(n, x)``.

    >>> minflow.tensor([1.0]).polygamma(2).tolist()
    [-2.40411376953125]
    """
    return polygamma(n, self)


tensor_method("polygamma")(_polygamma_method)
make_inplace(_polygamma_method, "polygamma_")


@public(method=True)
def mvlgamma(input, p, *, out=None):
    """mvlgamma(input, p, *, out=None) -> Tensor

    The log of the multivariate gamma function of dimension ``p``:
    p (p - 1) / 4 ln(pi) + sum_{j=0}^{p-1} lgamma(x - j / 2).

    >>> minflow.mvlgamma(minflow.tensor([2.5, 3.0]), 3)
    tensor([1.8810, 2.6949])
    """
    if not isinstance(p, int) or isinstance(p, bool):
        raise TypeError(f"mvlgamma: expected p to be an int, got {type(p).__name__}")
    if p < 1:
        raise RuntimeError(f"mvlgamma: p has to be greater than or equal to 1, got {p}")
    if input.dtype is dtypes.bool:
        raise RuntimeError("mvlgamma: The input tensor may not be a boolean tensor.")
    input = F.cast(input, dtypes.to_float(input.dtype))      # ints: the default float
    # as torch: the p terms summed in one reduction (float16 rounds once there)
    terms = F.stack([F.lgamma(F.sub(input, j / 2) if j else input) for j in range(p)], -1)
    result = F.add(F.sum(terms, -1), p * (p - 1) / 4 * math.log(math.pi))
    return result if out is None else write_out(result, out, "mvlgamma")


make_inplace(mvlgamma, "mvlgamma_")

"""The special functions of ``torch.special`` that no other family defines: the scaled
Bessel functions i0e and i1e, the Bessel functions of the first kind j0 and j1, erfcx,
the normal distribution's ndtri and log_ndtr, and entr, elementwise ops (integer inputs
give the default float dtype); and the regularized incomplete gamma functions igamma and
igammac, broadcasting ops of two floating tensors (torch.igamma, Tensor.igamma_...).
``minflow.special`` gives them their torch names, beside the functions other families
define.

Kernels: kernels/generic/special_functions.py; grads: autograd/grads/special_functions.py
(bessel_j0 and bessel_j1 are not differentiable, as in torch; igamma and igammac only
with respect to ``other``).
"""
from ..core import dtype as dtypes
from ..core.dispatch import apply
from ..core.functional import generate_function
from ..core.inplace import write_out
from . import infer
from .registry import Input, define_op

EW = ("elementwise", "no_side_effect")

DOCS = {
    "special_i0e": "exp(-|x|) i0(x), the exponentially scaled modified Bessel function of "
                   "order 0",
    "special_i1e": "exp(-|x|) i1(x), the exponentially scaled modified Bessel function of "
                   "order 1",
    "special_bessel_j0": "J0(x), the Bessel function of the first kind of order 0",
    "special_bessel_j1": "J1(x), the Bessel function of the first kind of order 1",
    "special_erfcx": "exp(x^2) erfc(x), the scaled complementary error function",
    "special_ndtri": "the inverse of the standard normal CDF: ndtr(ndtri(p)) = p",
    "special_log_ndtr": "log of the standard normal CDF, accurate far in the left tail",
    "special_entr": "-x ln(x) for x > 0, 0 at 0, -inf for x < 0 (elementwise entropy)",
}
NOT_DIFFERENTIABLE = {"special_bessel_j0", "special_bessel_j1"}
OPS = {name: define_op(name, ["input"], infer=infer.unary_float, promote="out",
                       traits=EW + (("no_grad",) if name in NOT_DIFFERENTIABLE else ()),
                       doc=f"Elementwise {doc}.")
       for name, doc in DOCS.items()}


def call(name, input, out=None):
    """Run special op ``name`` on ``input``, into ``out`` when given."""
    result = apply(OPS[name], (input,), {})
    return result if out is None else write_out(result, out, name.replace("_", ".", 1))


def _igamma_infer(input, other):
    for name, x in (("input", input), ("other", other)):
        if not isinstance(x, infer.Tensor):
            raise TypeError(f"expected {name} to be a Tensor, got {type(x).__name__}")
        infer.check_dtype(x, dtypes.FLOATS, name)
    return infer.binary(input, other)


for _name, _what, _example in (
        ("igamma", "P(a, x) = gamma(a, x) / Gamma(a), the regularized lower incomplete "
                   "gamma function of a = input at x = other", "0.632"),
        ("igammac", "Q(a, x) = 1 - P(a, x), the regularized upper incomplete gamma "
                    "function of a = input at x = other", "0.368")):
    _op = define_op(_name, [Input("input"), Input("other")], infer=_igamma_infer,
                    traits=EW + ("broadcast",), promote="out", doc=f"Elementwise {_what}.")
    generate_function(_op, method=True, out=True, inplace=True,
                      doc=f"{_name}(input, other, *, out=None) -> Tensor\n\n{_what[0].upper()}"
                          f"{_what[1:]} (floating tensors, broadcast). Differentiable with "
                          f"respect to ``other`` only, as torch.\n\n>>> round(minflow.{_name}("
                          f"minflow.tensor([1.0]), minflow.tensor([1.0])).item(), 3)\n{_example}")

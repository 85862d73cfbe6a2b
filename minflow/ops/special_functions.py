"""The special functions of ``torch.special`` that no other family defines: the scaled
Bessel functions i0e and i1e, the Bessel functions of the first kind j0 and j1, erfcx,
the normal distribution's ndtri and log_ndtr, and entr, elementwise ops (integer inputs
give the default float dtype). ``minflow.special`` gives them their torch names, beside
the functions other families define (the incomplete gamma functions igamma and igammac are
in ops/gamma.py).

Kernels: kernels/generic/special_functions.py; grads: autograd/grads/special_functions.py
(bessel_j0 and bessel_j1 are not differentiable, as in torch).
"""
from ..core.dispatch import apply
from ..core.inplace import write_out
from . import infer
from .registry import define_op

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



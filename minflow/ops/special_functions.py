"""The special functions of ``torch.special`` that no other family defines, elementwise
ops of one input (integer inputs give the default float dtype): the scaled Bessel
functions i0e and i1e, erfcx, the normal distribution's ndtri and log_ndtr, entr; the
Bessel functions j0, j1, y0, y1, the modified Bessel functions i0, i1, k0, k1 (and k0, k1
scaled by e^x), the spherical Bessel function j0 and the Airy function Ai.
``minflow.special`` gives them their torch names, beside the functions other families
define (the incomplete gamma functions igamma and igammac are in ops/gamma.py; zeta and
the orthogonal polynomials, of two inputs, in ops/special_polynomials.py).

Kernels: kernels/generic/special_functions.py and bessel.py (torch's own Cephes ports);
grads: autograd/grads/special_functions.py. The Bessel and Airy functions are not
differentiable, as in torch.
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
    "special_airy_ai": "Ai(x), the Airy function of the first kind",
    "special_bessel_y0": "Y0(x), the Bessel function of the second kind of order 0",
    "special_bessel_y1": "Y1(x), the Bessel function of the second kind of order 1",
    "special_modified_bessel_i0": "I0(x), the modified Bessel function of the first kind of "
                                  "order 0",
    "special_modified_bessel_i1": "I1(x), the modified Bessel function of the first kind of "
                                  "order 1",
    "special_modified_bessel_k0": "K0(x), the modified Bessel function of the second kind of "
                                  "order 0",
    "special_modified_bessel_k1": "K1(x), the modified Bessel function of the second kind of "
                                  "order 1",
    "special_scaled_modified_bessel_k0": "exp(x) K0(x), the exponentially scaled modified "
                                         "Bessel function of the second kind of order 0",
    "special_scaled_modified_bessel_k1": "exp(x) K1(x), the exponentially scaled modified "
                                         "Bessel function of the second kind of order 1",
    "special_spherical_bessel_j0": "sin(x) / x, the spherical Bessel function of the first "
                                   "kind of order 0",
}
# as torch: the Bessel and Airy functions have no derivatives
NOT_DIFFERENTIABLE = {"special_bessel_j0", "special_bessel_j1", "special_airy_ai",
                      "special_bessel_y0", "special_bessel_y1", "special_modified_bessel_i0",
                      "special_modified_bessel_i1", "special_modified_bessel_k0",
                      "special_modified_bessel_k1", "special_scaled_modified_bessel_k0",
                      "special_scaled_modified_bessel_k1", "special_spherical_bessel_j0"}
OPS = {name: define_op(name, ["input"], infer=infer.unary_float, promote="out",
                       traits=EW + (("no_grad",) if name in NOT_DIFFERENTIABLE else ()),
                       doc=f"Elementwise {doc}.")
       for name, doc in DOCS.items()}


def call(name, input, out=None):
    """Run special op ``name`` on ``input``, into ``out`` when given."""
    result = apply(OPS[name], (input,), {})
    return result if out is None else write_out(result, out, name.replace("_", ".", 1))



"""torch.special's functions of two arguments: the Hurwitz zeta function zeta(x, q) and the
orthogonal polynomials of x and degree n (Chebyshev T, U, V, W and their shifted forms,
Hermite H and He, Laguerre L, Legendre P). Elementwise, broadcasting ops; either argument
may be a Python number (not both); integer and bool arguments give the default float
dtype. minflow.special gives them their torch names.

As torch: the polynomials are not differentiable; zeta is, w.r.t. q only. A degree is
truncated toward 0, and n < 0 (NaN and +-inf too) gives 0.

Kernels: kernels/generic/special_polynomials.py (ports of torch's own code); grads:
autograd/grads/special_polynomials.py.
"""
import numbers

from ..core.dispatch import apply
from ..core.inplace import write_out
from ..core.tensor import Tensor
from . import infer
from .registry import Input, define_op

BC = ("elementwise", "broadcast", "no_side_effect")

POLYNOMIALS = {
    "chebyshev_polynomial_t": "T_n(x), the Chebyshev polynomial of the first kind",
    "chebyshev_polynomial_u": "U_n(x), the Chebyshev polynomial of the second kind",
    "chebyshev_polynomial_v": "V_n(x), the Chebyshev polynomial of the third kind",
    "chebyshev_polynomial_w": "W_n(x), the Chebyshev polynomial of the fourth kind",
    "shifted_chebyshev_polynomial_t": "T_n(2x - 1), the shifted Chebyshev polynomial of the "
                                      "first kind",
    "shifted_chebyshev_polynomial_u": "U_n(2x - 1), the shifted Chebyshev polynomial of the "
                                      "second kind",
    "shifted_chebyshev_polynomial_v": "V_n(2x - 1), the shifted Chebyshev polynomial of the "
                                      "third kind",
    "shifted_chebyshev_polynomial_w": "W_n(2x - 1), the shifted Chebyshev polynomial of the "
                                      "fourth kind",
    "hermite_polynomial_h": "H_n(x), the physicists' Hermite polynomial",
    "hermite_polynomial_he": "He_n(x), the probabilists' Hermite polynomial",
    "laguerre_polynomial_l": "L_n(x), the Laguerre polynomial",
    "legendre_polynomial_p": "P_n(x), the Legendre polynomial",
}


def _infer(first, second):
    """Broadcast shapes, promoted dtype made floating; at least one tensor (the
    dispatcher's errors name the op)."""
    def infer_fn(a, b):
        if not isinstance(a, Tensor) and not isinstance(b, Tensor):
            raise TypeError(f"expected {first} or {second} to be a Tensor, got "
                            f"{type(a).__name__} and {type(b).__name__}")
        for name, value in ((first, a), (second, b)):
            if not isinstance(value, (Tensor, numbers.Real)):
                raise TypeError(f"expected {name} to be a Tensor or a number, got "
                                f"{type(value).__name__}")
        return infer.binary_float(a, b)
    return infer_fn


ZETA = define_op("special_zeta", [Input("input", scalar_ok=True), Input("other", scalar_ok=True)],
                 infer=_infer("input", "other"), traits=BC, promote="out",
                 doc="Elementwise Hurwitz zeta function zeta(x, q) = sum_k (k + q)^-x, "
                     "x = input, q = other.")
OPS = {"special_zeta": ZETA}
for _name, _doc in POLYNOMIALS.items():
    OPS[f"special_{_name}"] = define_op(
        f"special_{_name}", [Input("input", scalar_ok=True), Input("n", scalar_ok=True)],
        infer=_infer("input", "n"), traits=BC + ("no_grad",),
        promote="out", doc=f"Elementwise {_doc}, x = input, of degree n.")


def call(name, a, b, out=None):
    """Run special op ``name`` on ``a`` and ``b``, into ``out`` when given."""
    result = apply(OPS[name], (a, b), {})
    return result if out is None else write_out(result, out, name.replace("_", ".", 1))

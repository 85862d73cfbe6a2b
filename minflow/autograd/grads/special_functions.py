"""Grad functions of the special functions (ops/special_functions.py), as torch's
formulas, written with ops so that they differentiate again."""
import math

from ...core.dispatch import apply
from ...core.namespace import F
from ...ops.special_functions import OPS
from ..node import GradFunction, register_grad
from .elementwise import _unary


def _op(name, x):
    return apply(OPS[name], (x,), {})


@_unary("special_i0e")
def _i0e(grad_out, x):
    """d i0e(x) = i1e(x) - sgn(x) i0e(x)."""
    return grad_out * (_op("special_i1e", x) - F.sign(x) * _op("special_i0e", x))


@_unary("special_i1e")
def _i1e(grad_out, x):
    """d i1e(x) = i0e(x) - i1e(x) (sgn(x) + 1/x), 1/2 at 0."""
    safe = F.where(x == 0, 1.0, x)
    slope = _op("special_i0e", x) - _op("special_i1e", x) * (F.sign(x) + 1 / safe)
    return grad_out * F.where(x == 0, 0.5, slope)


@_unary("special_erfcx")
def _erfcx(grad_out, x):
    """d erfcx(x) = 2 x erfcx(x) - 2 / sqrt(pi)."""
    return grad_out * (2 * x * _op("special_erfcx", x) - 2 / math.sqrt(math.pi))


@_unary("special_ndtri", save="output")
def _ndtri(grad_out, y):
    """d ndtri(p) = sqrt(2 pi) exp(ndtri(p)^2 / 2)."""
    return grad_out * F.exp(y * y / 2) * math.sqrt(2 * math.pi)


@_unary("special_log_ndtr")
def _log_ndtr(grad_out, x):
    """d log_ndtr(x) = exp(-x^2 / 2 - log_ndtr(x)) / sqrt(2 pi)."""
    return grad_out * F.exp(-(x * x) / 2 - _op("special_log_ndtr", x)) / math.sqrt(2 * math.pi)


@_unary("special_entr")
def _entr(grad_out, x):
    """d entr(x) = -(1 + ln x)."""
    return grad_out * -(1 + F.log(x))


class _IncompleteGammaGrad(GradFunction):
    """d P(a, x) / dx = x^(a - 1) e^(-x) / Gamma(a) (negated for Q); no gradient for a, as
    torch (an error when one is asked for)."""

    sign = 1.0

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(*inputs)

    def apply(self, ctx, grad_out):
        if ctx.needs_input_grad[0]:
            raise NotImplementedError(f"the derivative for '{self.op_name}: input' is not "
                                      f"implemented.")
        a, x = ctx.saved_tensors
        density = F.exp((a - 1) * F.log(x) - x - F.lgamma(a))
        return None, _sum_to(grad_out * density * self.sign, x)


def _sum_to(grad, like):
    return grad.sum_to_size(tuple(like.shape)) if tuple(grad.shape) != tuple(like.shape) \
        else grad


register_grad("igamma")(type("IgammaGrad", (_IncompleteGammaGrad,), {"op_name": "igamma"}))
register_grad("igammac")(type("IgammacGrad", (_IncompleteGammaGrad,),
                              {"op_name": "igammac", "sign": -1.0}))

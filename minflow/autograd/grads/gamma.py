"""Grad functions of the gamma family and Bessel functions (ops/gamma.py): each the next
function of the family, so every order of derivative exists."""

from ...core.dispatch import apply
from ...core.dtype_info import finfo
from ...core.namespace import F
from ...ops.gamma import I1, POLYGAMMA
from ..node import GradFunction, register_grad
from .elementwise import _unary
from .util import shape_of, sum_to


@_unary("lgamma")
def _lgamma(grad_out, x):
    """d ln Gamma(x) = psi(x)."""
    return grad_out * F.digamma(x)


@_unary("digamma")
def _digamma(grad_out, x):
    """d psi(x) = psi^(1)(x)."""
    return grad_out * apply(POLYGAMMA, (x,), {"n": 1})


@_unary("i0")
def _i0(grad_out, x):
    """d I_0(x) = I_1(x)."""
    return grad_out * apply(I1, (x,), {})


class _IgammaGrad(GradFunction):
    """d/dx P(a, x) = x^(a-1) e^-x / Gamma(a) (negated for Q); as torch, no gradient
    w.r.t. a."""

    sign = 1

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(*inputs)

    def apply(self, ctx, grad_out):
        if ctx.needs_input_grad[0]:
            raise NotImplementedError(f"the derivative for '{self.op.name}: input' is not "
                                      f"implemented.")
        a, x = ctx.saved_tensors
        density = F.exp((a - 1) * F.log(x) - x - F.lgamma(a))
        return None, sum_to(self.sign * grad_out * density, shape_of(x))


register_grad("igamma")(type("IgammaGrad", (_IgammaGrad,), {}))
register_grad("igammac")(type("IgammacGrad", (_IgammaGrad,), {"sign": -1}))


@register_grad("polygamma")
class PolygammaGrad(GradFunction):
    """d psi^(n)(x) = psi^(n+1)(x)."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(inputs[0])
        ctx.n = attrs["n"]

    def apply(self, ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * apply(POLYGAMMA, (x,), {"n": ctx.n + 1})


@register_grad("i1")
class I1Grad(GradFunction):
    """d I_1(x) = I_0(x) - I_1(x) / x, 0.5 at |x| <= eps (torch's guard against 0 / 0)."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(inputs[0], outputs[0])

    def apply(self, ctx, grad_out):
        x, out = ctx.saved_tensors
        eps = finfo(x.dtype).eps
        not_tiny = F.gt(F.abs(x), eps)
        safe = F.where(not_tiny, x, eps)
        return grad_out * F.where(not_tiny, F.i0(safe) - out / safe, 0.5)

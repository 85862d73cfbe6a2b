"""Grad function of zeta (ops/special_polynomials.py), torch's formula, written with ops so
that it differentiates again. The polynomials have none, as in torch."""
from ...core.dispatch import apply
from ...ops.special_polynomials import ZETA
from ..node import register_grad
from .binary_math import SavedOperands


@register_grad("special_zeta")
class ZetaGrad(SavedOperands):
    """d/dq zeta(x, q) = -x zeta(x + 1, q); as torch, the derivative w.r.t. x is not
    implemented: asking for it raises."""

    def grads(self, ctx, grad_out):
        if ctx.needs_input_grad[0]:
            raise NotImplementedError("the derivative for 'special_zeta: input' is not "
                                      "implemented.")
        x, q = self.operands(ctx)
        return None, grad_out * -x * apply(ZETA, (x + 1, q), {})

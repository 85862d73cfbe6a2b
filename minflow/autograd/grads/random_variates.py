"""Grad function of standard_gamma (ops/random_variates.py): implicit reparameterization."""
from ...core.dispatch import apply
from ...ops.random_variates import STANDARD_GAMMA_GRAD
from ..node import GradFunction, register_grad


@register_grad("standard_gamma")
class StandardGammaGrad(GradFunction):
    """dx/da of x ~ Gamma(a, 1) at a fixed quantile, as torch's _standard_gamma backward.

    NOTE: standard_gamma_grad is not differentiable (nor is torch's), so a second
    derivative through a gamma sample misses the term of d(dx/da)/da.
    """

    def capture(self, ctx, inputs, outputs, attrs):
        if ctx.needs_input_grad[0]:
            ctx.save_for_backward(inputs[0], outputs[0])

    def apply(self, ctx, grad_out):
        alpha, sample = ctx.saved_tensors
        return grad_out * apply(STANDARD_GAMMA_GRAD, (alpha, sample), {})

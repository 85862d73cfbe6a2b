"""Grad function of the global median: the gradient is shared evenly among the elements
equal to the median (NaN ones where the median is NaN), as torch's."""
from ...core.namespace import F
from ..node import GradFunction, register_grad


@register_grad("median")
class MedianGrad(GradFunction):
    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(inputs[0], outputs[0])

    def apply(self, ctx, grad_out):
        x, out = ctx.saved_tensors
        hit = F.logical_or(F.eq(x, out), F.logical_and(F.isnan(x), F.isnan(out)))
        return F.where(hit, F.div(grad_out, F.sum(hit)), 0.0)

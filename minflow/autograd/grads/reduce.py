"""Grad functions of the reductions."""
from ...core.namespace import F
from ..node import GradFunction, register_grad


def expand_reduced(grad_out, shape, dims, keepdim):
    """Broadcast a reduced gradient back over ``dims`` to ``shape``."""
    if not keepdim:
        for d in dims:
            grad_out = F.unsqueeze(grad_out, d)
    return F.expand(grad_out, tuple(shape))


@register_grad("sum")
class SumGrad(GradFunction):
    def capture(self, ctx, inputs, outputs, attrs):
        ctx.shape, ctx.dims, ctx.keepdim = inputs[0].shape, attrs["dim"], attrs["keepdim"]

    def apply(self, ctx, grad_out):
        return expand_reduced(grad_out, ctx.shape, ctx.dims, ctx.keepdim)

"""Grad functions of flip and roll: each undoes itself on grad_out."""
from ...core.dispatch import apply
from ...ops.sorting import FLIP, ROLL
from ..node import GradFunction, register_grad


@register_grad("flip")
class FlipGrad(GradFunction):
    def capture(self, ctx, inputs, outputs, attrs):
        ctx.dims = attrs["dims"]

    def apply(self, ctx, grad_out):
        return apply(FLIP, (grad_out,), {"dims": ctx.dims})


@register_grad("roll")
class RollGrad(GradFunction):
    def capture(self, ctx, inputs, outputs, attrs):
        ctx.shifts, ctx.dims = attrs["shifts"], attrs["dims"]

    def apply(self, ctx, grad_out):
        return apply(ROLL, (grad_out,), {"shifts": tuple(-s for s in ctx.shifts),
                                         "dims": ctx.dims})

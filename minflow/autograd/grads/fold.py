"""Grad functions of im2col and col2im: each is linear and the other's adjoint, so each
one's grad is the other op with the same attrs (plus or less the output size)."""
from ...core.dispatch import apply
from ...ops.fold import COL2IM, IM2COL
from ..node import GradFunction, register_grad


@register_grad("im2col")
class Im2colGrad(GradFunction):
    def capture(self, ctx, inputs, outputs, attrs):
        ctx.attrs = dict(attrs, output_size=tuple(inputs[0].shape[2:]))

    def apply(self, ctx, grad_out):
        return apply(COL2IM, (grad_out,), dict(ctx.attrs))


@register_grad("col2im")
class Col2imGrad(GradFunction):
    def capture(self, ctx, inputs, outputs, attrs):
        ctx.attrs = {k: v for k, v in attrs.items() if k != "output_size"}

    def apply(self, ctx, grad_out):
        return apply(IM2COL, (grad_out,), dict(ctx.attrs))

"""Grad functions of unfold and of its backward (linear: each is the other's adjoint)."""
from ...core.dispatch import apply
from ...core.namespace import F
from ...ops.shape_extra import UNFOLD, UNFOLD_GRAD
from ..node import GradFunction, register_grad

_KEYS = ("dimension", "size", "step")


@register_grad("unfold")
class UnfoldGrad(GradFunction):
    """Each window's gradient is added back where the window was read."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.attrs = dict(attrs, input_size=tuple(inputs[0]._data.shape))

    def apply(self, ctx, grad_out):
        return apply(UNFOLD_GRAD, (grad_out,), dict(ctx.attrs))


@register_grad("unfold_grad")
class UnfoldGradGrad(GradFunction):
    """unfold_grad is linear: its backward reads the windows back out."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.attrs = {k: attrs[k] for k in _KEYS}

    def apply(self, ctx, grad_out):
        return F.clone(apply(UNFOLD, (grad_out,), dict(ctx.attrs)))

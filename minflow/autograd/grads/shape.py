"""Grad functions of the shape ops."""
from ...core.namespace import F
from ..node import GradFunction, register_grad
from .util import sum_to


class _KeepShape(GradFunction):
    def capture(self, ctx, inputs, outputs, attrs):
        ctx.shape = tuple(inputs[0].shape)


@register_grad("reshape")
class ReshapeGrad(_KeepShape):
    def apply(self, ctx, grad_out):
        return F.reshape(grad_out, ctx.shape)


register_grad("unsqueeze")(type("UnsqueezeGrad", (ReshapeGrad,), {}))


@register_grad("expand")
class ExpandGrad(_KeepShape):
    def apply(self, ctx, grad_out):
        return sum_to(grad_out, ctx.shape)

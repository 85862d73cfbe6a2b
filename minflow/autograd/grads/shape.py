"""Grad functions of the shape ops: each undoes its op's data movement on the gradient
with shape ops, so double backward works."""
from ...core.dispatch import apply
from ...core.namespace import F
from ...ops.shape import PERMUTE
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


@register_grad("permute")
class PermuteGrad(GradFunction):
    """The inverse permutation: input dim dims[i] is output dim i."""

    def capture(self, ctx, inputs, outputs, attrs):
        dims = attrs["dims"]
        ctx.inverse = tuple(sorted(range(len(dims)), key=dims.__getitem__))

    def apply(self, ctx, grad_out):
        return apply(PERMUTE, (grad_out,), {"dims": ctx.inverse})

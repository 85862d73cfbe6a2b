"""Grad functions of as_strided and of its backward (linear: each is the other's adjoint)."""
from ...core.dispatch import apply
from ...ops.strided import AS_STRIDED_GRAD
from ..node import GradFunction, register_grad

_KEYS = ("input_size", "input_stride", "size", "stride", "offset")


@register_grad("as_strided")
class AsStridedGrad(GradFunction):
    """The view's gradient goes back to the memory it read, then to the input's elements."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.attrs = dict(attrs, input_size=tuple(inputs[0].shape),
                         input_stride=tuple(inputs[0].stride()), transpose=False)

    def apply(self, ctx, grad_out):
        return apply(AS_STRIDED_GRAD, (grad_out,), dict(ctx.attrs))


@register_grad("as_strided_grad")
class AsStridedGradGrad(GradFunction):
    """as_strided_grad is linear: its backward is its adjoint."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.attrs = dict({k: attrs[k] for k in _KEYS}, transpose=not attrs["transpose"])

    def apply(self, ctx, grad_out):
        return apply(AS_STRIDED_GRAD, (grad_out,), dict(ctx.attrs))

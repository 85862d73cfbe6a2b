"""Grad functions of convolution and pooling, written with the conv ops themselves.

Every grad op here is linear in its tensor inputs (conv's two grads are bilinear), so its
own grad is another op of the family: backward is differentiable to any order.
"""
from ...core.dispatch import apply
from ...core.namespace import F
from ...ops.conv import (ADAPTIVE_AVG_POOL2D, ADAPTIVE_AVG_POOL2D_GRAD, AVG_POOL2D,
                         AVG_POOL2D_GRAD, CONV2D, CONV2D_GRAD_INPUT, CONV2D_GRAD_WEIGHT,
                         MAX_POOL2D_GATHER, MAX_POOL2D_GRAD)
from ..node import GradFunction, register_grad

_CONV = ("stride", "padding", "dilation", "groups")


def _conv_attrs(attrs):
    return {name: attrs[name] for name in _CONV}


def _grad_input(grad_out, weight, input_size, attrs):
    return apply(CONV2D_GRAD_INPUT, (grad_out, weight),
                 dict(_conv_attrs(attrs), input_size=tuple(input_size)))


def _grad_weight(grad_out, input, kernel_size, attrs):
    return apply(CONV2D_GRAD_WEIGHT, (grad_out, input),
                 dict(_conv_attrs(attrs), kernel_size=tuple(kernel_size)))


def _conv(input, weight, attrs):
    return apply(CONV2D, (input, weight, None), _conv_attrs(attrs))


@register_grad("conv2d")
class Conv2dGrad(GradFunction):
    """d input = conv2d_grad_input(g, W); d weight = conv2d_grad_weight(g, x);
    d bias = g summed over batch and positions."""

    def capture(self, ctx, inputs, outputs, attrs):
        x, w, _ = inputs
        need = ctx.needs_input_grad
        ctx.save_for_backward(x if need[1] else None, w if need[0] else None)
        ctx.attrs, ctx.x_hw, ctx.k_hw = attrs, tuple(x.shape[2:]), tuple(w.shape[2:])

    def apply(self, ctx, grad_out):
        x, w = ctx.saved_tensors
        need = ctx.needs_input_grad
        grad_x = _grad_input(grad_out, w, ctx.x_hw, ctx.attrs) if need[0] else None
        grad_w = _grad_weight(grad_out, x, ctx.k_hw, ctx.attrs) if need[1] else None
        grad_b = F.sum(grad_out, (0, 2, 3)) if need[2] else None
        return grad_x, grad_w, grad_b


@register_grad("conv2d_grad_input")
class Conv2dGradInputGrad(GradFunction):
    """gi(g, W) = J_x^T g with <gi(g, W), v> = <g, conv2d(v, W)>: so d g = conv2d(v, W)
    and d W = conv2d_grad_weight(g, v)."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(*inputs)
        ctx.attrs = attrs

    def apply(self, ctx, grad):
        g, w = ctx.saved_tensors
        need = ctx.needs_input_grad
        grad_g = _conv(grad, w, ctx.attrs) if need[0] else None
        grad_w = _grad_weight(g, grad, tuple(w.shape[2:]), ctx.attrs) if need[1] else None
        return grad_g, grad_w


@register_grad("conv2d_grad_weight")
class Conv2dGradWeightGrad(GradFunction):
    """gw(g, x) with <gw(g, x), u> = <g, conv2d(x, u)>: so d g = conv2d(x, u) and
    d x = conv2d_grad_input(g, u)."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(*inputs)
        ctx.attrs = attrs

    def apply(self, ctx, grad):
        g, x = ctx.saved_tensors
        need = ctx.needs_input_grad
        grad_g = _conv(x, grad, ctx.attrs) if need[0] else None
        grad_x = _grad_input(g, grad, tuple(x.shape[2:]), ctx.attrs) if need[1] else None
        return grad_g, grad_x


_WINDOW = ("kernel_size", "stride", "padding", "dilation")


@register_grad("max_pool2d")
class MaxPool2dGrad(GradFunction):
    """The whole grad of each output goes to the input position in its index."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(outputs[1])
        ctx.attrs = {name: attrs[name] for name in _WINDOW}
        ctx.attrs["input_size"] = tuple(inputs[0].shape[2:])

    def apply(self, ctx, grad_out, grad_indices=None):
        (indices,) = ctx.saved_tensors
        return apply(MAX_POOL2D_GRAD, (grad_out, indices), dict(ctx.attrs))


class _IndexedGrad(GradFunction):
    """max_pool2d_grad (scatter) and max_pool2d_gather are each other's adjoint; the
    indices get no grad."""

    adjoint = None

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(inputs[1])
        ctx.attrs = attrs

    def apply(self, ctx, grad):
        (indices,) = ctx.saved_tensors
        return apply(self.adjoint, (grad, indices), dict(ctx.attrs)), None


register_grad("max_pool2d_grad")(type("MaxPool2dGradGrad", (_IndexedGrad,),
                                      {"adjoint": MAX_POOL2D_GATHER}))
register_grad("max_pool2d_gather")(type("MaxPool2dGatherGrad", (_IndexedGrad,),
                                        {"adjoint": MAX_POOL2D_GRAD}))


class _LinearPoolGrad(GradFunction):
    """A linear pool's grad is its adjoint op with the same attrs, plus (or less) the
    input size; the adjoint's grad is the pool again."""

    adjoint = None
    to_adjoint = True     # whether apply calls the _grad op (which takes input_size)

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.attrs = dict(attrs)
        if self.to_adjoint:
            ctx.attrs["input_size"] = tuple(inputs[0].shape[2:])
        else:
            del ctx.attrs["input_size"]

    def apply(self, ctx, grad):
        return apply(self.adjoint, (grad,), dict(ctx.attrs))


register_grad("avg_pool2d")(type("AvgPool2dGrad", (_LinearPoolGrad,),
                                 {"adjoint": AVG_POOL2D_GRAD}))
register_grad("avg_pool2d_grad")(type("AvgPool2dGradGrad", (_LinearPoolGrad,),
                                      {"adjoint": AVG_POOL2D, "to_adjoint": False}))


@register_grad("adaptive_avg_pool2d")
class AdaptiveAvgPool2dGrad(GradFunction):
    def capture(self, ctx, inputs, outputs, attrs):
        ctx.input_size = tuple(inputs[0].shape[2:])

    def apply(self, ctx, grad_out):
        return apply(ADAPTIVE_AVG_POOL2D_GRAD, (grad_out,), {"input_size": ctx.input_size})


@register_grad("adaptive_avg_pool2d_grad")
class AdaptiveAvgPool2dGradGrad(GradFunction):
    def capture(self, ctx, inputs, outputs, attrs):
        ctx.output_size = tuple(inputs[0].shape[2:])

    def apply(self, ctx, grad):
        return apply(ADAPTIVE_AVG_POOL2D, (grad,), {"output_size": ctx.output_size})

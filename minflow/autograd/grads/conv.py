"""Grad functions of convolution and pooling, written with the conv ops themselves.

Every grad op here is linear in its tensor inputs (conv's two grads are bilinear), so its
own grad is another op of the family: backward is differentiable to any order. The 2-D
and 3-D families share these classes: ``ops`` names the family's ops by role
(autograd/grads/conv3d.py registers the 3-D subclasses).
"""
from ...core.dispatch import apply
from ...core.namespace import F
from ...ops.conv import (ADAPTIVE_AVG_POOL2D, ADAPTIVE_AVG_POOL2D_GRAD, AVG_POOL2D,
                         AVG_POOL2D_GRAD, CONV2D, CONV2D_GRAD_INPUT, CONV2D_GRAD_WEIGHT,
                         MAX_POOL2D_GATHER, MAX_POOL2D_GRAD)
from ..node import GradFunction, register_grad

OPS_2D = {"conv": CONV2D, "conv_grad_input": CONV2D_GRAD_INPUT,
          "conv_grad_weight": CONV2D_GRAD_WEIGHT, "max_pool_grad": MAX_POOL2D_GRAD,
          "max_pool_gather": MAX_POOL2D_GATHER, "avg_pool": AVG_POOL2D,
          "avg_pool_grad": AVG_POOL2D_GRAD, "adaptive_avg_pool": ADAPTIVE_AVG_POOL2D,
          "adaptive_avg_pool_grad": ADAPTIVE_AVG_POOL2D_GRAD}

_CONV = ("stride", "padding", "dilation", "groups")


class _FamilyGrad(GradFunction):
    """A grad function of the family whose ops ``ops`` holds."""

    ops = OPS_2D

    def call(self, role, inputs, attrs):
        return apply(self.ops[role], inputs, attrs)

    def conv(self, input, weight, attrs):
        return self.call("conv", (input, weight, None), {n: attrs[n] for n in _CONV})

    def grad_input(self, grad_out, weight, input_size, attrs):
        return self.call("conv_grad_input", (grad_out, weight),
                         dict({n: attrs[n] for n in _CONV}, input_size=tuple(input_size)))

    def grad_weight(self, grad_out, input, kernel_size, attrs):
        return self.call("conv_grad_weight", (grad_out, input),
                         dict({n: attrs[n] for n in _CONV}, kernel_size=tuple(kernel_size)))


@register_grad("conv2d")
class Conv2dGrad(_FamilyGrad):
    """d input = conv2d_grad_input(g, W); d weight = conv2d_grad_weight(g, x);
    d bias = g summed over batch and positions."""

    def capture(self, ctx, inputs, outputs, attrs):
        x, w, _ = inputs
        need = ctx.needs_input_grad
        ctx.save_for_backward(x if need[1] else None, w if need[0] else None)
        ctx.attrs, ctx.x_size, ctx.k_size = attrs, tuple(x.shape[2:]), tuple(w.shape[2:])

    def apply(self, ctx, grad_out):
        x, w = ctx.saved_tensors
        need = ctx.needs_input_grad
        grad_x = self.grad_input(grad_out, w, ctx.x_size, ctx.attrs) if need[0] else None
        grad_w = self.grad_weight(grad_out, x, ctx.k_size, ctx.attrs) if need[1] else None
        grad_b = F.sum(grad_out, (0,) + tuple(range(2, grad_out.ndim))) if need[2] else None
        return grad_x, grad_w, grad_b


@register_grad("conv2d_grad_input")
class Conv2dGradInputGrad(_FamilyGrad):
    """gi(g, W) = J_x^T g with <gi(g, W), v> = <g, conv2d(v, W)>: so d g = conv2d(v, W)
    and d W = conv2d_grad_weight(g, v)."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(*inputs)
        ctx.attrs = attrs

    def apply(self, ctx, grad):
        g, w = ctx.saved_tensors
        need = ctx.needs_input_grad
        grad_g = self.conv(grad, w, ctx.attrs) if need[0] else None
        grad_w = self.grad_weight(g, grad, tuple(w.shape[2:]), ctx.attrs) if need[1] else None
        return grad_g, grad_w


@register_grad("conv2d_grad_weight")
class Conv2dGradWeightGrad(_FamilyGrad):
    """gw(g, x) with <gw(g, x), u> = <g, conv2d(x, u)>: so d g = conv2d(x, u) and
    d x = conv2d_grad_input(g, u)."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(*inputs)
        ctx.attrs = attrs

    def apply(self, ctx, grad):
        g, x = ctx.saved_tensors
        need = ctx.needs_input_grad
        grad_g = self.conv(x, grad, ctx.attrs) if need[0] else None
        grad_x = self.grad_input(g, grad, tuple(x.shape[2:]), ctx.attrs) if need[1] else None
        return grad_g, grad_x


_WINDOW = ("kernel_size", "stride", "padding", "dilation")


@register_grad("max_pool2d")
class MaxPool2dGrad(_FamilyGrad):
    """The whole grad of each output goes to the input position in its index."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(outputs[1])
        ctx.attrs = {name: attrs[name] for name in _WINDOW}
        ctx.attrs["input_size"] = tuple(inputs[0].shape[2:])

    def apply(self, ctx, grad_out, grad_indices=None):
        (indices,) = ctx.saved_tensors
        return self.call("max_pool_grad", (grad_out, indices), dict(ctx.attrs))


class _IndexedGrad(_FamilyGrad):
    """max_pool_grad (scatter) and max_pool_gather are each other's adjoint; the indices
    get no grad."""

    adjoint = ""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(inputs[1])
        ctx.attrs = attrs

    def apply(self, ctx, grad):
        (indices,) = ctx.saved_tensors
        return self.call(self.adjoint, (grad, indices), dict(ctx.attrs)), None


class MaxPoolGradGrad(_IndexedGrad):
    adjoint = "max_pool_gather"


class MaxPoolGatherGrad(_IndexedGrad):
    adjoint = "max_pool_grad"


register_grad("max_pool2d_grad")(MaxPoolGradGrad)
register_grad("max_pool2d_gather")(MaxPoolGatherGrad)


class _LinearPoolGrad(_FamilyGrad):
    """A linear pool's grad is its adjoint op with the same attrs, plus (or less) the
    input size; the adjoint's grad is the pool again."""

    adjoint = ""
    to_adjoint = True     # whether apply calls the _grad op (which takes input_size)

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.attrs = dict(attrs)
        if self.to_adjoint:
            ctx.attrs["input_size"] = tuple(inputs[0].shape[2:])
        else:
            del ctx.attrs["input_size"]

    def apply(self, ctx, grad):
        return self.call(self.adjoint, (grad,), dict(ctx.attrs))


class AvgPoolGrad(_LinearPoolGrad):
    adjoint = "avg_pool_grad"


class AvgPoolGradGrad(_LinearPoolGrad):
    adjoint, to_adjoint = "avg_pool", False


register_grad("avg_pool2d")(AvgPoolGrad)
register_grad("avg_pool2d_grad")(AvgPoolGradGrad)


@register_grad("adaptive_avg_pool2d")
class AdaptiveAvgPool2dGrad(_FamilyGrad):
    def capture(self, ctx, inputs, outputs, attrs):
        ctx.input_size = tuple(inputs[0].shape[2:])

    def apply(self, ctx, grad_out):
        return self.call("adaptive_avg_pool_grad", (grad_out,),
                         {"input_size": ctx.input_size})


@register_grad("adaptive_avg_pool2d_grad")
class AdaptiveAvgPool2dGradGrad(_FamilyGrad):
    def capture(self, ctx, inputs, outputs, attrs):
        ctx.output_size = tuple(inputs[0].shape[2:])

    def apply(self, ctx, grad):
        return self.call("adaptive_avg_pool", (grad,), {"output_size": ctx.output_size})

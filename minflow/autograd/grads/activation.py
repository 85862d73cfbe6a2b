"""Grad functions of the activation ops. Each apply uses minflow ops (grad ops included,
which have grad functions of their own), so double backward works."""
import math

from ...core.dispatch import apply, apply_in_backward
from ...core.namespace import F
from ...ops.activation import GELU_GRAD, LEAKY_RELU_GRAD, RELU_GRAD
from ..node import GradFunction, register_grad


@register_grad("leaky_relu")
class LeakyReluGrad(GradFunction):
    def capture(self, ctx, inputs, outputs, attrs):
        ctx.negative_slope = attrs["negative_slope"]
        ctx.save_for_backward(inputs[0])

    def apply(self, ctx, grad_out):
        (x,) = ctx.saved_tensors
        return apply(LEAKY_RELU_GRAD, (grad_out, x), {"negative_slope": ctx.negative_slope})


@register_grad("leaky_relu_grad")
class LeakyReluGradGrad(GradFunction):
    """leaky_relu_grad is linear in grad_out, and piecewise constant in input."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.negative_slope = attrs["negative_slope"]
        ctx.save_for_backward(inputs[1])

    def apply(self, ctx, grad):
        (x,) = ctx.saved_tensors
        grad_grad_out = apply(LEAKY_RELU_GRAD, (grad, x), {"negative_slope": ctx.negative_slope})
        return grad_grad_out, F.zeros_like(x) if ctx.needs_input_grad[1] else None


@register_grad("relu")
class ReluGrad(GradFunction):
    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(outputs[0])

    def apply(self, ctx, grad_out):
        (out,) = ctx.saved_tensors
        return apply_in_backward(RELU_GRAD, (grad_out, out), {})    # 0 at x == 0, as torch


@register_grad("relu_grad")
class ReluGradGrad(GradFunction):
    """relu_grad is linear in grad_out, and piecewise constant in output."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(inputs[1])

    def apply(self, ctx, grad):
        (out,) = ctx.saved_tensors
        grad_grad_out = apply(RELU_GRAD, (grad, out), {})
        return grad_grad_out, F.zeros_like(out) if ctx.needs_input_grad[1] else None


@register_grad("gelu")
class GeluGrad(GradFunction):
    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(inputs[0])

    def apply(self, ctx, grad_out):
        (x,) = ctx.saved_tensors
        return apply(GELU_GRAD, (grad_out, x), {})


@register_grad("gelu_grad")
class GeluGradGrad(GradFunction):
    """d/dg [g (Phi + x phi)] = Phi + x phi; d/dx = g phi (2 - x^2), as phi' = -x phi."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(*inputs)

    def apply(self, ctx, grad):
        g, x = ctx.saved_tensors
        grad_g = apply(GELU_GRAD, (grad, x), {}) if ctx.needs_input_grad[0] else None
        grad_x = None
        if ctx.needs_input_grad[1]:
            pdf = F.mul(F.exp(F.mul(F.mul(x, x), -0.5)), 1 / math.sqrt(2 * math.pi))
            grad_x = F.mul(F.mul(F.mul(grad, g), pdf), F.sub(2, F.mul(x, x)))
        return grad_g, grad_x


@register_grad("softmax")
class SoftmaxGrad(GradFunction):
    """dx = y * (g - sum(g * y)) along dim, y the output."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.dim = attrs["dim"] if outputs[0].ndim else ()
        ctx.save_for_backward(outputs[0])

    def apply(self, ctx, grad_out):
        (y,) = ctx.saved_tensors
        dot = F.sum(F.mul(grad_out, y), ctx.dim, keepdim=True)
        return F.mul(y, F.sub(grad_out, dot))


@register_grad("log_softmax")
class LogSoftmaxGrad(GradFunction):
    """dx = g - exp(y) * sum(g) along dim, y the output."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.dim = attrs["dim"] if outputs[0].ndim else ()
        ctx.save_for_backward(outputs[0])

    def apply(self, ctx, grad_out):
        (y,) = ctx.saved_tensors
        total = F.sum(grad_out, ctx.dim, keepdim=True)
        return F.sub(grad_out, F.mul(F.exp(y), total))

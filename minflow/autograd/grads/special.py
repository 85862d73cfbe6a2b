"""Grad functions of the special-math ops (trunc, erf, erfinv, atan2)."""
import math

from ...core.namespace import F
from ..node import register_grad
from .elementwise import BinaryGrad, UnaryGrad, ZeroGrad

register_grad("trunc")(type("TruncGrad", (ZeroGrad,), {}))


@register_grad("erf")
class ErfGrad(UnaryGrad):
    """d erf(x) = 2 / sqrt(pi) * e^(-x^2)."""

    @staticmethod
    def grad(grad_out, x):
        return grad_out * F.exp(-(x * x)) * (2.0 / math.sqrt(math.pi))


@register_grad("erfinv")
class ErfinvGrad(UnaryGrad):
    """d erfinv(x) = sqrt(pi) / 2 * e^(erfinv(x)^2), from the saved output."""

    save = "output"

    @staticmethod
    def grad(grad_out, y):
        return grad_out * F.exp(y * y) * (math.sqrt(math.pi) / 2.0)


@register_grad("atan2")
class Atan2Grad(BinaryGrad):
    """atan2(y, x): d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2)."""

    def save(self, ctx, inputs, outputs):
        ctx.save_for_backward(*inputs)

    def grads(self, ctx, grad_out):
        y, x = ctx.saved_tensors
        scale = grad_out / (x * x + y * y)
        need_y, need_x = ctx.needs_input_grad
        return (scale * x if need_y else None, -scale * y if need_x else None)

"""Grad functions of the unary math ops (ops/unary_math.py), each torch's formula, so
edges agree too (acosh at 1 is inf, asin outside [-1, 1] NaN, logit clamped by eps 0);
for complex inputs the local derivative is conjugated (see grads/elementwise.py)."""
import math

from ...core.namespace import F
from ..node import GradFunction, register_grad
from .elementwise import _unary
from .util import conj


@_unary("tan", save="output")
def _tan(grad_out, out):
    """d tan x = 1 + tan^2 x."""
    return grad_out * conj(out * out + 1)


@_unary("asin")
def _asin(grad_out, x):
    """d arcsin x = 1 / sqrt(1 - x^2)."""
    return grad_out * conj(F.rsqrt(1 - x * x))


@_unary("acos")
def _acos(grad_out, x):
    """d arccos x = -1 / sqrt(1 - x^2)."""
    return -grad_out * conj(F.rsqrt(1 - x * x))


@_unary("atan")
def _atan(grad_out, x):
    """d arctan x = 1 / (1 + x^2)."""
    return grad_out / conj(x * x + 1)


@_unary("sinh")
def _sinh(grad_out, x):
    return grad_out * conj(F.cosh(x))


@_unary("cosh")
def _cosh(grad_out, x):
    return grad_out * conj(F.sinh(x))


@_unary("asinh")
def _asinh(grad_out, x):
    """d arsinh x = 1 / sqrt(x^2 + 1)."""
    return grad_out * conj(F.rsqrt(x * x + 1))


@_unary("acosh")
def _acosh(grad_out, x):
    """d arcosh x = 1 / sqrt(x^2 - 1)."""
    if x.dtype.is_complex:      # sqrt(x^2 - 1) is not sqrt(x + 1) sqrt(x - 1) off the reals
        return grad_out * conj(F.rsqrt(x + 1) * F.rsqrt(x - 1))
    return grad_out * F.rsqrt(x * x - 1)


@_unary("atanh")
def _atanh(grad_out, x):
    """d artanh x = 1 / (1 - x^2)."""
    return grad_out / conj(1 - x * x)


@_unary("log2")
def _log2(grad_out, x):
    return grad_out / conj(x * math.log(2.0))


@_unary("log10")
def _log10(grad_out, x):
    return grad_out / conj(x * math.log(10.0))


@_unary("exp2", save="output")
def _exp2(grad_out, out):
    return grad_out * conj(out * math.log(2.0))


@_unary("erfc")
def _erfc(grad_out, x):
    """d erfc x = -2 / sqrt(pi) * e^(-x^2)."""
    return grad_out * F.exp(-(x * x)) * (-2.0 / math.sqrt(math.pi))


@_unary("sinc")
def _sinc(grad_out, x):
    """d sinc x = (pi x cos(pi x) - sin(pi x)) / (pi x^2), 0 at x = 0."""
    zero = F.eq(x, 0)
    safe = F.where(zero, 1.0, x)        # NOTE: keeps 0 / 0 out of the double backward
    scaled = safe * math.pi
    slope = (scaled * F.cos(scaled) - F.sin(scaled)) / (scaled * safe)
    return F.where(zero, 0.0, grad_out * conj(slope))


@_unary("deg2rad")
def _deg2rad(grad_out, x):
    return grad_out * (math.pi / 180.0)


@_unary("rad2deg")
def _rad2deg(grad_out, x):
    return grad_out * (180.0 / math.pi)


@register_grad("logit")
class LogitGrad(GradFunction):
    """d logit x = 1 / (x (1 - x)); with eps, 0 where x was clamped, without, NaN outside
    [0, 1] (torch's rules)."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(inputs[0])
        ctx.eps = attrs["eps"]

    def apply(self, ctx, grad_out):
        (x,) = ctx.saved_tensors
        grad = grad_out / (x * (1 - x))
        if ctx.eps is None:
            outside, fill = F.logical_or(F.lt(x, 0), F.gt(x, 1)), math.nan
        else:
            outside, fill = F.logical_or(F.lt(x, ctx.eps), F.gt(x, 1 - ctx.eps)), 0.0
        return F.where(outside, fill, grad)


@register_grad("nan_to_num")
class NanToNumGrad(GradFunction):
    """1 at finite elements, 0 at the replaced NaN and infinities."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(inputs[0])

    def apply(self, ctx, grad_out):
        (x,) = ctx.saved_tensors
        return F.where(F.isfinite(x), grad_out, 0.0)


@register_grad("frexp")
class FrexpGrad(GradFunction):
    """d mantissa / d x = 2^-exponent; as torch, 2^exponent is taken in the default float
    dtype (exp2 of the int32 exponent), so a float64 input below 2^-149 gets an inf grad
    there too."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(outputs[1])

    def apply(self, ctx, grad_mantissa, grad_exponent):
        (exponent,) = ctx.saved_tensors
        return grad_mantissa / F.exp2(exponent)

"""Grad functions of the elementwise ops: each one captures what apply needs, and apply
is written with minflow ops, so it can itself be differentiated.

For complex inputs the local derivatives are conjugated (torch's convention, see
minflow/ops/complex.py); ``conj`` leaves real tensors as they are."""
import cmath
import math

from ...core.dispatch import apply
from ...core.namespace import F
from ...core.tensor import Tensor
from ...ops.elementwise import SIGMOID_GRAD, TANH_GRAD
from ..node import GradFunction, register_grad
from .util import broadcast_shapes_of, conj, is_tensor, shape_of, sum_to


class UnaryGrad(GradFunction):
    """Saves the input (``save="input"``) or the output (``save="output"``)."""

    save = "input"

    def capture(self, ctx, inputs, outputs, attrs):
        if ctx.needs_input_grad[0]:
            ctx.save_for_backward(inputs[0] if self.save == "input" else outputs[0])

    def apply(self, ctx, grad_out):
        (saved,) = ctx.saved_tensors
        return self.grad(grad_out, saved)


def _unary(name, save="input"):
    def decorate(fn):
        cls = type(f"{name.capitalize()}Grad", (UnaryGrad,),
                   {"save": save, "grad": staticmethod(fn), "__doc__": fn.__doc__})
        register_grad(name)(cls)
        return fn
    return decorate


@register_grad("neg")
class NegGrad(GradFunction):
    def capture(self, ctx, inputs, outputs, attrs):
        pass

    def apply(self, ctx, grad_out):
        return -grad_out


@_unary("abs")
def _abs(grad_out, x):
    """d|x| = sign(x) (0 at 0, as PyTorch); for complex x, sgn(x) = x / |x|."""
    if x.dtype.is_complex:
        return grad_out * F.where(F.eq(x, 0), 0.0, x / F.abs(x))
    return grad_out * F.sign(x)


@_unary("exp", save="output")
def _exp(grad_out, out):
    return grad_out * conj(out)


@_unary("expm1", save="output")
def _expm1(grad_out, out):
    return grad_out * conj(out + 1)


@_unary("log")
def _log(grad_out, x):
    return grad_out / conj(x)


@_unary("log1p")
def _log1p(grad_out, x):
    return grad_out / conj(x + 1)


@_unary("sqrt", save="output")
def _sqrt(grad_out, out):
    return grad_out / (conj(out) * 2)


@_unary("rsqrt", save="output")
def _rsqrt(grad_out, out):
    c = conj(out)
    return grad_out * c * c * c * -0.5


@_unary("square")
def _square(grad_out, x):
    return grad_out * conj(x) * 2


@_unary("reciprocal", save="output")
def _reciprocal(grad_out, out):
    c = conj(out)
    return -grad_out * c * c


@_unary("sin")
def _sin(grad_out, x):
    return grad_out * conj(F.cos(x))


@_unary("cos")
def _cos(grad_out, x):
    return -grad_out * conj(F.sin(x))


@_unary("tanh", save="output")
def _tanh(grad_out, out):
    if out.dtype.is_complex:            # the fused grad op is real only
        return grad_out * conj(1 - out * out)
    return apply(TANH_GRAD, (grad_out, out), {})


@_unary("sigmoid", save="output")
def _sigmoid(grad_out, out):
    if out.dtype.is_complex:
        return grad_out * conj(out * (1 - out))
    return apply(SIGMOID_GRAD, (grad_out, out), {})


class FusedGradGrad(GradFunction):
    """Double backward of a fused grad op ``op(grad_out, y) = grad_out * local(y)``:
    grad_out gets ``op(grad, y)`` and y gets ``grad * grad_out * local'(y)``."""

    def capture(self, ctx, inputs, outputs, attrs):
        grad_out, y = inputs
        ctx.save_for_backward(grad_out if ctx.needs_input_grad[1] else None, y)

    def apply(self, ctx, grad):
        grad_out, y = ctx.saved_tensors
        need_grad_out, need_y = ctx.needs_input_grad
        return (apply(self.op, (grad, y), {}) if need_grad_out else None,
                grad * grad_out * self.local_derivative(y) if need_y else None)


@register_grad("tanh_grad")
class TanhGradGrad(FusedGradGrad):
    @staticmethod
    def local_derivative(y):
        """local(y) = 1 - y^2, so local'(y) = -2 y"""
        return y * -2


@register_grad("sigmoid_grad")
class SigmoidGradGrad(FusedGradGrad):
    @staticmethod
    def local_derivative(y):
        """local(y) = y (1 - y), so local'(y) = 1 - 2 y"""
        return 1 - y * 2


class ZeroGrad(GradFunction):
    """Piecewise-constant ops (sign, floor, ...): the gradient is zero almost everywhere."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.is_tensor = tuple(is_tensor(x) for x in inputs)
        ctx.shapes = tuple(shape_of(x) for x in inputs)

    def apply(self, ctx, grad_out):
        return tuple(F.zeros(s, dtype=grad_out.dtype, device=grad_out.device) if t else None
                     for t, s in zip(ctx.is_tensor, ctx.shapes))


for _name in ("sign", "floor", "ceil", "round", "floor_divide"):
    register_grad(_name)(type(f"{_name.capitalize()}Grad", (ZeroGrad,), {}))


class BinaryGrad(GradFunction):
    """Base for broadcasting binary ops: grads are summed back to each input's shape."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.shapes = broadcast_shapes_of(inputs, outputs[0])
        self.save(ctx, inputs, outputs)

    def save(self, ctx, inputs, outputs):
        pass

    def apply(self, ctx, grad_out):
        grads = self.grads(ctx, grad_out)
        if ctx.shapes is None:
            # NOTE: no input was broadcast, so each grad has its input's shape already;
            # a grad for an input that needs none (a scalar, say) is dropped by the
            # engine, whose edge there is None.
            return grads
        return tuple(None if g is None or not need else sum_to(g, s)
                     for g, need, s in zip(grads, ctx.needs_input_grad, ctx.shapes))


@register_grad("add")
class AddGrad(BinaryGrad):
    def grads(self, ctx, grad_out):
        return grad_out, grad_out


@register_grad("sub")
class SubGrad(BinaryGrad):
    def grads(self, ctx, grad_out):
        return grad_out, -grad_out if ctx.needs_input_grad[1] else None


@register_grad("mul")
class MulGrad(BinaryGrad):
    def save(self, ctx, inputs, outputs):
        x, y = inputs
        need_x, need_y = ctx.needs_input_grad
        x_is_tensor, y_is_tensor = isinstance(x, Tensor), isinstance(y, Tensor)
        ctx.scalars = (None if x_is_tensor else x, None if y_is_tensor else y)
        ctx.save_for_backward(x if need_y and x_is_tensor else None,
                              y if need_x and y_is_tensor else None)

    def grads(self, ctx, grad_out):
        x, y = ctx.saved_tensors
        sx, sy = ctx.scalars
        need_x, need_y = ctx.needs_input_grad
        return (grad_out * conj(y if y is not None else sy) if need_x else None,
                grad_out * conj(x if x is not None else sx) if need_y else None)


@register_grad("div")
class DivGrad(BinaryGrad):
    def capture(self, ctx, inputs, outputs, attrs):
        ctx.rounding = attrs["rounding_mode"]
        if ctx.rounding is not None:    # ctx.shapes is None when nothing was broadcast
            ctx.in_shapes = tuple(shape_of(x) for x in inputs)
        super().capture(ctx, inputs, outputs, attrs)

    def save(self, ctx, inputs, outputs):
        y = inputs[1]
        ctx.scalar_y = None if is_tensor(y) else y
        ctx.save_for_backward(y if is_tensor(y) else None,
                              outputs[0] if ctx.needs_input_grad[1] else None)

    def grads(self, ctx, grad_out):
        y, out = ctx.saved_tensors
        y = y if y is not None else ctx.scalar_y
        need_x, need_y = ctx.needs_input_grad
        return (grad_out / conj(y) if need_x else None,
                -grad_out * conj(out) / conj(y) if need_y else None)

    def apply(self, ctx, grad_out):
        if ctx.rounding is not None:       # trunc / floor division: piecewise constant
            return tuple(F.zeros(s, dtype=grad_out.dtype, device=grad_out.device) if need
                         else None for need, s in zip(ctx.needs_input_grad, ctx.in_shapes))
        return super().apply(ctx, grad_out)


@register_grad("remainder")
class RemainderGrad(BinaryGrad):
    def save(self, ctx, inputs, outputs):
        x, y = inputs
        ctx.save_for_backward(x if is_tensor(x) else None, y if is_tensor(y) else None)
        ctx.scalars = inputs

    def grads(self, ctx, grad_out):
        x, y = ctx.saved_tensors
        x = x if x is not None else ctx.scalars[0]
        y = y if y is not None else ctx.scalars[1]
        return grad_out, -grad_out * F.floor_divide(x, y) if ctx.needs_input_grad[1] else None


@register_grad("pow")
class PowGrad(BinaryGrad):
    def save(self, ctx, inputs, outputs):
        x, y = inputs
        ctx.scalars = (None if is_tensor(x) else x, None if is_tensor(y) else y)
        ctx.save_for_backward(x if is_tensor(x) else None, y if is_tensor(y) else None,
                              outputs[0] if ctx.needs_input_grad[1] else None)

    def grads(self, ctx, grad_out):
        x, y, out = ctx.saved_tensors
        x = x if x is not None else ctx.scalars[0]
        y = y if y is not None else ctx.scalars[1]
        need_x, need_y = ctx.needs_input_grad
        grad_x = grad_y = None
        if need_x:
            if is_tensor(y):
                # NOTE: d(x^0)/dx is 0 even at x = 0, where x^(y-1) would be inf.
                grad_x = F.where(F.eq(y, 0), 0.0, grad_out * conj(y * F.pow(x, y - 1)))
            else:
                grad_x = grad_out * 0.0 if y == 0 else grad_out * conj(y * F.pow(x, y - 1))
        if need_y:
            grad_y = grad_out * conj(out * _log_base(x, y))
        return grad_x, grad_y


def _log_base(x, y):
    """log x for the exponent's gradient, with PyTorch's rule at x = 0: 0 where y >= 0
    (not 0 * -inf = nan), log 0 = -inf where y < 0 (so the gradient is +-inf)."""
    y_nonnegative = F.ge(F.real(y), 0) if is_tensor(y) else y.real >= 0
    if is_tensor(x):
        # NOTE: log(1) there rather than where(..., 0, log(x)): log's backward 1/x would
        # give 0 / 0 = nan in double backward
        return F.log(F.where(F.logical_and(F.eq(x, 0), y_nonnegative), 1.0, x))
    if x == 0:
        return F.where(y_nonnegative, 0.0, F.full_like(F.real(y), -math.inf))
    if isinstance(x, complex) or y.dtype.is_complex:
        return cmath.log(x)
    return math.log(x) if x > 0 else math.nan


class MinMaxGrad(BinaryGrad):
    """maximum / minimum: the gradient goes to the chosen input, half each on ties."""

    def save(self, ctx, inputs, outputs):
        x, y = inputs
        ctx.scalars = inputs
        ctx.save_for_backward(x if is_tensor(x) else None, y if is_tensor(y) else None)

    def grads(self, ctx, grad_out):
        x, y = ctx.saved_tensors
        x = x if x is not None else ctx.scalars[0]
        y = y if y is not None else ctx.scalars[1]
        pick_x = F.gt(x, y) if self.op.name == "maximum" else F.lt(x, y)
        tie = F.eq(x, y)
        half = grad_out * 0.5
        grad_x = F.where(pick_x, grad_out, F.where(tie, half, 0.0))
        grad_y = F.where(pick_x, 0.0, F.where(tie, half, grad_out))
        return grad_x, grad_y


register_grad("maximum")(type("MaximumGrad", (MinMaxGrad,), {}))
register_grad("minimum")(type("MinimumGrad", (MinMaxGrad,), {}))


@register_grad("where")
class WhereGrad(BinaryGrad):
    def save(self, ctx, inputs, outputs):
        ctx.save_for_backward(inputs[0])

    def grads(self, ctx, grad_out):
        (condition,) = ctx.saved_tensors
        need = ctx.needs_input_grad
        return (None,
                F.where(condition, grad_out, 0.0) if need[1] else None,
                F.where(condition, 0.0, grad_out) if need[2] else None)


@register_grad("clamp")
class ClampGrad(GradFunction):
    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(inputs[0])
        ctx.min, ctx.max = attrs["min"], attrs["max"]

    def apply(self, ctx, grad_out):
        (x,) = ctx.saved_tensors
        keep = None
        if ctx.min is not None:
            keep = F.ge(x, ctx.min)
        if ctx.max is not None:
            upper = F.le(x, ctx.max)
            keep = upper if keep is None else F.logical_and(keep, upper)
        return F.where(keep, grad_out, 0.0)


@register_grad("masked_fill")
class MaskedFillGrad(GradFunction):
    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(inputs[1])
        ctx.shape = shape_of(inputs[0])

    def apply(self, ctx, grad_out):
        (mask,) = ctx.saved_tensors
        return sum_to(F.masked_fill(grad_out, mask, 0.0), ctx.shape), None


@register_grad("clone")
class CloneGrad(GradFunction):
    def capture(self, ctx, inputs, outputs, attrs):
        pass

    def apply(self, ctx, grad_out):
        return grad_out


register_grad("contiguous")(type("ContiguousGrad", (CloneGrad,), {}))


@register_grad("cast")
class CastGrad(GradFunction):
    def capture(self, ctx, inputs, outputs, attrs):
        ctx.dtype = inputs[0].dtype

    def apply(self, ctx, grad_out):
        if grad_out.dtype.is_complex and not ctx.dtype.is_complex:
            grad_out = F.real(grad_out)     # the input was real: only the real part flows
        return F.cast(grad_out, ctx.dtype)


@register_grad("to_device")
class ToDeviceGrad(GradFunction):
    def capture(self, ctx, inputs, outputs, attrs):
        ctx.device = inputs[0].device

    def apply(self, ctx, grad_out):
        return F.to_device(grad_out, ctx.device)

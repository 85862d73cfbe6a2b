"""Grad functions of the binary math ops (ops/binary_math.py): torch's formulas, so the
edges agree (hypot at (0, 0) is NaN, xlogy's input grad at input 0 is ln(other) where
other > 0 and 0 elsewhere, copysign's and nextafter's other grads are 0, fmax / fmin send
a tie to input whole)."""
from ...core import dtype as dtypes
from ...core.namespace import F
from ..node import register_grad
from .elementwise import BinaryGrad
from .util import is_tensor


class SavedOperands(BinaryGrad):
    """Saves both operands (tensors, or the numbers that stand in for them)."""

    def save(self, ctx, inputs, outputs):
        x, y = inputs
        ctx.save_for_backward(x if is_tensor(x) else None, y if is_tensor(y) else None)
        ctx.numbers = tuple(None if is_tensor(v) else v for v in inputs)

    def operands(self, ctx):
        return tuple(n if t is None else t for t, n in zip(ctx.saved_tensors, ctx.numbers))


@register_grad("fmod")
class FmodGrad(SavedOperands):
    """d/dx = 1, d/dy = -trunc(x / y)."""

    def grads(self, ctx, grad_out):
        x, y = self.operands(ctx)
        need_y = ctx.needs_input_grad[1]
        return grad_out, -grad_out * F.div(x, y, rounding_mode="trunc") if need_y else None


@register_grad("hypot")
class HypotGrad(BinaryGrad):
    """d/dx = x / hypot(x, y), d/dy = y / hypot(x, y) (NaN at (0, 0), as torch)."""

    def save(self, ctx, inputs, outputs):
        ctx.save_for_backward(*inputs, outputs[0])      # hypot takes tensors only

    def grads(self, ctx, grad_out):
        x, y, out = ctx.saved_tensors
        scale = grad_out / out
        need_x, need_y = ctx.needs_input_grad
        return scale * x if need_x else None, scale * y if need_y else None


@register_grad("copysign")
class CopysignGrad(SavedOperands):
    """d/dx = copysign(x, y) / x (+-1, NaN at infinities), 0 at x = 0; d/dy = 0."""

    def grads(self, ctx, grad_out):
        x, y = self.operands(ctx)
        need_x, need_y = ctx.needs_input_grad
        grad_x = None
        if need_x:
            zero = F.eq(x, 0)
            safe = F.where(zero, 1.0, x)       # NOTE: keeps 0 / 0 out of double backward
            grad_x = F.where(zero, 0.0, grad_out * (F.copysign(safe, y) / safe))
        return grad_x, F.zeros_like(grad_out) if need_y else None


@register_grad("nextafter")
class NextafterGrad(SavedOperands):
    """d/dx = 1 where x != y (a step of one ulp counts as the identity), 0 where x == y
    (the result is y there); d/dy = 0. torch's formulas."""

    def grads(self, ctx, grad_out):
        x, y = self.operands(ctx)
        need_x, need_y = ctx.needs_input_grad
        return (F.where(F.eq(x, y), 0.0, grad_out) if need_x else None,
                F.zeros_like(grad_out) if need_y else None)


class LogAddExpGrad(SavedOperands):
    """d/dx = 1 / (1 + base^(y - x)), d/dy = 1 / (1 + base^(x - y))."""

    def grads(self, ctx, grad_out):
        x, y = self.operands(ctx)
        need_x, need_y = ctx.needs_input_grad
        power = F.exp if self.op.name == "logaddexp" else F.exp2
        return (grad_out / (power(y - x) + 1) if need_x else None,
                grad_out / (power(x - y) + 1) if need_y else None)


register_grad("logaddexp")(type("LogaddexpGrad", (LogAddExpGrad,), {}))
register_grad("logaddexp2")(type("Logaddexp2Grad", (LogAddExpGrad,), {}))


@register_grad("xlogy")
class XlogyGrad(SavedOperands):
    """d/dx = ln y where y > 0, else xlogy(x != 0, y) (0 at x = 0, as torch); d/dy = x / y."""

    def grads(self, ctx, grad_out):
        x, y = self.operands(ctx)
        need_x, need_y = ctx.needs_input_grad
        grad_x = grad_y = None
        if need_x:
            positive = F.gt(y, 0) if is_tensor(y) else F.full_like(x, y > 0, dtype=dtypes.bool)
            log_taken = F.logical_or(F.ne(x, 0), positive)
            grad_x = grad_out * F.xlogy(F.cast(log_taken, grad_out.dtype), y)
        if need_y:
            grad_y = grad_out * x / y
        return grad_x, grad_y


class FmaxFminGrad(SavedOperands):
    """The gradient goes whole to the chosen operand: input where it wins, ties or other
    is NaN; other elsewhere (torch's rule; maximum splits ties instead)."""

    def grads(self, ctx, grad_out):
        x, y = self.operands(ctx)
        wins = F.ge(x, y) if self.op.name == "fmax" else F.le(x, y)
        to_x = F.logical_or(wins, F.isnan(y))
        return F.where(to_x, grad_out, 0.0), F.where(to_x, 0.0, grad_out)


register_grad("fmax")(type("FmaxGrad", (FmaxFminGrad,), {}))
register_grad("fmin")(type("FminGrad", (FmaxFminGrad,), {}))

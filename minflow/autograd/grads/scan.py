"""Grad functions of the scans (ops/scan.py), as torch computes them."""

from ...core.dtype_info import finfo
from ...core.namespace import F
from ..node import GradFunction, register_grad


def _reverse_logcumsumexp(x, dim):
    return F.flip(F.logcumsumexp(F.flip(x, (dim,)), dim), (dim,))


@register_grad("logcumsumexp")
class LogcumsumexpGrad(GradFunction):
    """grad_in[j] = sum_{i >= j} grad_out[i] e^(x[j] - out[i]), summed in log space with
    the positive and the negative grads apart, so nothing overflows (torch's formula)."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(inputs[0], outputs[0])
        ctx.dim = attrs["dim"]

    def apply(self, ctx, grad_out):
        x, out = ctx.saved_tensors
        if x.ndim == 0:
            return grad_out
        lowest = finfo(grad_out.dtype).min
        log_abs = F.log(F.abs(grad_out))
        parts = [F.where(keep, log_abs, lowest) - out
                 for keep in (F.gt(grad_out, 0), F.lt(grad_out, 0))]
        positive, negative = (F.exp(_reverse_logcumsumexp(p, ctx.dim) + x) for p in parts)
        return positive - negative


class CumulativeGrad(GradFunction):
    """cummax / cummin: each output's gradient goes to the element it came from."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(outputs[1])
        ctx.dim, ctx.shape = attrs["dim"], tuple(inputs[0].shape)

    def apply(self, ctx, grad_values, grad_indices):
        (indices,) = ctx.saved_tensors
        if not ctx.shape:
            return grad_values
        zeros = F.zeros(ctx.shape, dtype=grad_values.dtype, device=grad_values.device)
        return F.scatter_add(zeros, ctx.dim, indices, grad_values)


register_grad("cummax")(type("CummaxGrad", (CumulativeGrad,), {}))
register_grad("cummin")(type("CumminGrad", (CumulativeGrad,), {}))

"""Grad function of scatter_reduce, as torch's: sum and mean pass the gradient through
(divided by the count for mean), amax / amin share it among the tied extremes, prod
multiplies by the product of the others (computed without dividing by a single zero)."""
from ...core.dispatch import apply
from ...core.namespace import F
from ...ops.index_update import SCATTER_REDUCE
from ...ops.join import pad
from ..node import GradFunction, register_grad


def _scatter_reduce(input, dim, index, src, reduce, include_self):
    return apply(SCATTER_REDUCE, (input, index, src),
                 {"dim": dim, "reduce": reduce, "include_self": include_self})


def _prod_grads(grad, x, dim, index, src, out, include_self):
    masked_self = F.masked_fill(x, F.eq(x, 0), 1)
    grad_self = F.div(F.mul(grad, _scatter_reduce(masked_self, dim, index, src, "prod",
                                                  include_self)), masked_self)
    src_zero = F.eq(src, 0)
    zeros = F.scatter_add(F.zeros_like(x), dim, index, F.cast(src_zero, x.dtype))
    single_zero = F.logical_and(src_zero, F.eq(F.gather(zeros, dim, index), 1))
    others = _scatter_reduce(x, dim, index, F.masked_fill(src, single_zero, 1), "prod",
                             include_self)
    grad_src = F.where(single_zero, F.gather(F.mul(grad, others), dim, index),
                       F.div(F.gather(F.mul(grad, out), dim, index),
                             F.masked_fill(src, src_zero, 1)))
    return grad_self, grad_src


def _extreme_grads(grad, x, dim, index, src, out):
    value = F.gather(out, dim, index)
    self_hit, src_hit = F.eq(x, out), F.eq(src, value)
    count = F.scatter_add(F.cast(self_hit, x.dtype), dim, index, F.cast(src_hit, x.dtype))
    share = F.div(grad, count)
    return F.where(self_hit, share, 0.0), F.where(src_hit, F.gather(share, dim, index), 0.0)


@register_grad("scatter_reduce")
class ScatterReduceGrad(GradFunction):
    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(inputs[0], inputs[1], inputs[2], outputs[0])
        ctx.dim, ctx.reduce, ctx.include_self = attrs["dim"], attrs["reduce"], \
            attrs["include_self"]

    def apply(self, ctx, grad_out):
        x, index, full_src, out = ctx.saved_tensors
        dim, reduce, include_self = ctx.dim, ctx.reduce, ctx.include_self
        src = full_src          # only its index-shaped corner is scattered
        for d, n in enumerate(index.shape):
            src = F.narrow(src, d, 0, n) if src.shape[d] != n else src
        if reduce == "sum":
            grad_self, grad_src = grad_out, F.gather(grad_out, dim, index)
        elif reduce == "mean":
            count = F.scatter_add(F.full_like(x, 1.0 if include_self else 0.0), dim, index,
                                  F.ones_like(src))
            grad_self = F.div(grad_out, F.masked_fill(count, F.eq(count, 0), 1))
            grad_src = F.gather(grad_self, dim, index)
        elif reduce == "prod":
            grad_self, grad_src = _prod_grads(grad_out, x, dim, index, src, out, include_self)
        else:
            grad_self, grad_src = _extreme_grads(grad_out, x, dim, index, src, out)
        if not include_self:
            grad_self = F.scatter(grad_self, dim, index, 0.0)
        if tuple(src.shape) != tuple(full_src.shape):
            widths = [(0, f - n) for f, n in zip(full_src.shape, src.shape)]
            grad_src = pad(grad_src, tuple(w for pair in reversed(widths) for w in pair))
        return grad_self, None, grad_src

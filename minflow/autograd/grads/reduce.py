"""Grad functions of the reductions."""
from ...core.dispatch import apply
from ...core.namespace import F
from ...ops.registry import get_op
from ...ops.shape import EXPAND
from ..node import GradFunction, register_grad


def expand_reduced(grad_out, shape, dims, keepdim):
    """Broadcast a reduced gradient back over ``dims`` to ``shape``."""
    shape = tuple(shape)
    if not keepdim and dims == tuple(range(len(dims))):
        # NOTE: reduced leading dims (a full sum, say) come back by broadcasting alone
        return apply(EXPAND, (grad_out,), {"shape": shape})
    return apply(EXPAND, (_keep(grad_out, dims, keepdim),), {"shape": shape})


@register_grad("sum")
class SumGrad(GradFunction):
    def capture(self, ctx, inputs, outputs, attrs):
        ctx.shape, ctx.dims, ctx.keepdim = inputs[0]._data.shape, attrs["dim"], attrs["keepdim"]

    def apply(self, ctx, grad_out):
        return expand_reduced(grad_out, ctx.shape, ctx.dims, ctx.keepdim)


def _keep(t, dims, keepdim):
    """``t`` with the reduced ``dims`` present as size-1 dims."""
    if keepdim or not dims:
        return t
    shape = list(t._data.shape)
    for d in dims:                  # sorted, so each insert lands at its final place
        shape.insert(d, 1)
    return F.reshape(t, tuple(shape))


@register_grad("prod")
class ProdGrad(GradFunction):
    """d prod / d x_i = product of the others, computed without dividing by zero."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(inputs[0])
        ctx.dims, ctx.keepdim = attrs["dim"], attrs["keepdim"]

    def apply(self, ctx, grad_out):
        x, = ctx.saved_tensors
        dims = ctx.dims
        is_zero = F.eq(x, 0)
        zeros = F.expand(F.sum(is_zero, dims, keepdim=True), tuple(x.shape))
        safe = F.where(is_zero, 1.0, x)
        rest = apply(get_op("prod"), (safe,), {"dim": dims, "keepdim": True})
        others = F.expand(rest, tuple(x.shape))
        # no zero: prod / x_i; one zero: its slot gets the product of the rest; more: 0
        local = F.where(is_zero, F.where(F.eq(zeros, 1), others, 0.0),
                        F.where(F.eq(zeros, 0), F.div(others, safe), 0.0))
        return F.mul(local, expand_reduced(grad_out, x.shape, dims, ctx.keepdim))


class _ExtremeGrad(GradFunction):
    """amax / amin: the gradient is shared evenly among the tied extremes (as torch)."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(inputs[0], outputs[0])
        ctx.dims, ctx.keepdim = attrs["dim"], attrs["keepdim"]

    def apply(self, ctx, grad_out):
        x, out = ctx.saved_tensors
        shape, dims = tuple(x.shape), ctx.dims
        hit = F.eq(x, F.expand(_keep(out, dims, ctx.keepdim), shape))
        count = F.sum(hit, dims, keepdim=True)
        share = F.div(_keep(grad_out, dims, ctx.keepdim), count)
        return F.where(hit, F.expand(share, shape), 0.0)


register_grad("amax")(type("AmaxGrad", (_ExtremeGrad,), {}))
register_grad("amin")(type("AminGrad", (_ExtremeGrad,), {}))


class _ExtremeDimGrad(GradFunction):
    """max / min along a dim: the whole gradient goes to the returned index."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(outputs[1])
        ctx.shape, ctx.dim, ctx.keepdim = tuple(inputs[0].shape), attrs["dim"], attrs["keepdim"]
        ctx.device = inputs[0].device

    def apply(self, ctx, grad_values, grad_indices=None):
        indices, = ctx.saved_tensors
        if not ctx.shape:
            return grad_values
        dims = (ctx.dim,)
        positions = F.arange(ctx.shape[ctx.dim], device=ctx.device)
        view = [1] * len(ctx.shape)
        view[ctx.dim] = ctx.shape[ctx.dim]
        positions = F.expand(F.reshape(positions, tuple(view)), ctx.shape)
        hit = F.eq(positions, F.expand(_keep(indices, dims, ctx.keepdim), ctx.shape))
        spread = F.expand(_keep(grad_values, dims, ctx.keepdim), ctx.shape)
        return F.where(hit, spread, 0.0)


register_grad("max_dim")(type("MaxDimGrad", (_ExtremeDimGrad,), {}))
register_grad("min_dim")(type("MinDimGrad", (_ExtremeDimGrad,), {}))


@register_grad("cumsum")
class CumsumGrad(GradFunction):
    """The gradient of a running sum is the reversed running sum of grad_out:
    total - cumsum(g) + g, which needs no flip."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.dim, ctx.dtype = attrs["dim"], inputs[0].dtype

    def apply(self, ctx, grad_out):
        total = F.sum(grad_out, ctx.dim, keepdim=True)
        grad = F.add(F.sub(total, F.cumsum(grad_out, ctx.dim)), grad_out)
        return F.cast(grad, ctx.dtype)


@register_grad("cumprod")
class CumprodGrad(GradFunction):
    """Exact with zeros, as torch: before a slice's first zero, g_k = rev_cumsum(g * out)_k
    / x_k; at the first zero, the same sum over the cumprod with that zero replaced by
    1; after it, 0 (every product there has the zero in it twice over or not at all)."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(inputs[0], outputs[0])
        ctx.dim = attrs["dim"]

    def apply(self, ctx, grad_out):
        x, out = ctx.saved_tensors
        if x.ndim == 0:
            return grad_out
        dim = ctx.dim
        zeros_so_far = F.cumsum(F.eq(x, 0), dim)
        before = F.eq(zeros_so_far, 0)
        first = F.logical_and(F.eq(x, 0), F.eq(zeros_so_far, 1))
        grad_before = F.div(_reverse_cumsum(F.mul(grad_out, out), dim), F.where(before, x, 1))
        skip_first = F.cumprod(F.where(first, 1, x), dim)
        grad_first = _reverse_cumsum(F.mul(grad_out, skip_first), dim)
        return F.where(before, grad_before, F.where(first, grad_first, 0))


def _reverse_cumsum(t, dim):
    """out_k = sum of t_i for i >= k along dim."""
    return F.add(F.sub(F.sum(t, dim, keepdim=True), F.cumsum(t, dim)), t)

"""Grad functions of the reductions."""
from ...core.dispatch import apply
from ...core import dtype as dtypes
from ...core.grad_mode import is_grad_enabled
from ...core.namespace import F
from ...ops.registry import get_op
from ...ops.shape import EXPAND
from ..node import GradFunction, register_grad
from .util import conj


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
    """d prod / d x_i = product of the others, computed without dividing by zero; for
    complex x, its conjugate times grad_out (torch's convention), from the products of
    conj(x)."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(inputs[0])
        ctx.dims, ctx.keepdim = attrs["dim"], attrs["keepdim"]

    def apply(self, ctx, grad_out):
        x = conj(ctx.saved_tensors[0])
        dims = ctx.dims
        grad_out = expand_reduced(grad_out, x.shape, dims, ctx.keepdim)
        if _recording_at_zero(x):
            return F.mul(_product_of_others(x, dims), grad_out)
        is_zero = F.eq(x, 0)
        zeros = F.expand(F.sum(is_zero, dims, keepdim=True), tuple(x.shape))
        safe = F.where(is_zero, 1.0, x)
        rest = apply(get_op("prod"), (safe,), {"dim": dims, "keepdim": True})
        others = F.expand(rest, tuple(x.shape))
        # no zero: prod / x_i; one zero: its slot gets the product of the rest; more: 0
        local = F.where(is_zero, F.where(F.eq(zeros, 1), others, 0.0),
                        F.where(F.eq(zeros, 0), F.div(others, safe), 0.0))
        return F.mul(local, grad_out)


def _recording_at_zero(x):
    """Whether backward is itself being recorded (create_graph) with a zero in ``x``.

    NOTE: the O(n) formulas of prod's and cumprod's gradients are exact in value at zeros
    but constant there, so their own derivative is wrong; as torch, the exact (slower)
    formulas take over only when a second derivative can be asked for and a zero is there.
    """
    if not is_grad_enabled() or x.device.type == "meta" or getattr(x._data, "is_lazy", False):
        return False
    return bool(F.any(F.eq(x, 0)))


def _product_of_others(x, dims):
    """out_i = product of the x_j other than x_i over ``dims``, as the products before i
    times the products after i: no division, so differentiable at zeros."""
    kept = [d for d in range(x.ndim) if d not in dims]
    moved = F.permute(x, tuple(kept + list(dims)))
    flat = F.reshape(moved, tuple(moved.shape[:len(kept)]) + (-1,))
    before = _exclusive_cumprod(flat)
    after = F.flip(_exclusive_cumprod(F.flip(flat, (-1,))), (-1,))
    others = F.reshape(F.mul(before, after), tuple(moved.shape))
    order = kept + list(dims)
    return F.permute(others, tuple(order.index(d) for d in range(x.ndim)))


def _exclusive_cumprod(t):
    """out_k = product of t_i for i < k along the last dim (1 at k = 0)."""
    ones = F.ones(tuple(t.shape[:-1]) + (1,), dtype=t.dtype, device=t.device)
    return F.cumprod(F.cat([ones, F.narrow(t, -1, 0, t.shape[-1] - 1)], -1), -1)


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
    1; after it, 0 (every product there has the zero in it twice over or not at all).
    Where a second derivative can be asked for and a zero is there, the O(n^2) sum of
    products instead (``_cumprod_grad_at_zeros``)."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(inputs[0], outputs[0])
        ctx.dim = attrs["dim"]

    def apply(self, ctx, grad_out):
        x, out = ctx.saved_tensors
        if x.ndim == 0:
            return grad_out
        x, out = conj(x), conj(out)     # for complex x, the same formulas: torch's convention
        dim = ctx.dim
        if _recording_at_zero(x):
            return _cumprod_grad_at_zeros(x, grad_out, dim)
        zeros_so_far = F.cumsum(F.eq(x, 0), dim)
        before = F.eq(zeros_so_far, 0)
        first = F.logical_and(F.eq(x, 0), F.eq(zeros_so_far, 1))
        grad_before = F.div(_reverse_cumsum(F.mul(grad_out, out), dim), F.where(before, x, 1))
        skip_first = F.cumprod(F.where(first, 1, x), dim)
        grad_first = _reverse_cumsum(F.mul(grad_out, skip_first), dim)
        return F.where(before, grad_before, F.where(first, grad_first, 0))


def _cumprod_grad_at_zeros(x, grad_out, dim):
    """g_k = sum over i >= k of grad_out_i * prod_{j <= i, j != k} x_j, from an n x n
    table of running products with x_k left out of row k: no division and no constant
    branch, so its derivative is the second derivative of cumprod (torch's O(n^2) path)."""
    x, grad_out = F.movedim(x, dim, -1), F.movedim(grad_out, dim, -1)
    n = x.shape[-1]
    diagonal = F.eye(n, dtype=dtypes.bool, device=x.device)
    left_out = F.cumprod(F.where(diagonal, 1, F.unsqueeze(x, -2)), -1)    # [..., k, i]
    later = F.triu(F.ones((n, n), dtype=dtypes.bool, device=x.device))       # i >= k
    terms = F.where(later, F.mul(left_out, F.unsqueeze(grad_out, -2)), 0)
    return F.movedim(F.sum(terms, -1), -1, dim)


def _reverse_cumsum(t, dim):
    """out_k = sum of t_i for i >= k along dim."""
    return F.add(F.sub(F.sum(t, dim, keepdim=True), F.cumsum(t, dim)), t)

"""Grad functions of the indexing ops. Each pair is linear and transposed: reading an
index (getitem, index, gather) has a write-into-zeros as its grad (getitem_scatter,
index_put with accumulate, scatter_add) and back, so double backward works."""
from ...core.dispatch import apply
from ...core.namespace import F
from ...ops.indexing import (GATHER, GETITEM, GETITEM_SCATTER, INDEX, INDEX_PUT, SCATTER,
                             SCATTER_ADD)
from ..node import GradFunction, register_grad
from .util import sum_to


def _like(x):
    return tuple(x.shape), x.dtype, x.device


def _zeros(like):
    shape, dtype, device = like
    return F.zeros(shape, dtype=dtype, device=device)


@register_grad("getitem")
class GetitemGrad(GradFunction):
    """A view's grad is zeros with grad_out written into the viewed region."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.index, ctx.like = attrs["index"], _like(inputs[0])

    def apply(self, ctx, grad_out):
        return apply(GETITEM_SCATTER, (_zeros(ctx.like), grad_out), {"index": ctx.index})


@register_grad("getitem_scatter")
class GetitemScatterGrad(GradFunction):
    """input: grad_out with the written region zeroed; src: the region, summed to src's
    shape where src was broadcast."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.index, ctx.src_shape = attrs["index"], tuple(inputs[1].shape)

    def apply(self, ctx, grad_out):
        grad_input = grad_src = None
        if ctx.needs_input_grad[0]:
            zero = F.zeros((), dtype=grad_out.dtype, device=grad_out.device)
            grad_input = apply(GETITEM_SCATTER, (grad_out, zero), {"index": ctx.index})
        if ctx.needs_input_grad[1]:
            grad_src = sum_to(apply(GETITEM, (grad_out,), {"index": ctx.index}), ctx.src_shape)
        return grad_input, grad_src


@register_grad("index")
class IndexGrad(GradFunction):
    """Each output element adds its grad back where it was read: duplicates accumulate."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.dims, ctx.like = attrs["dims"], _like(inputs[0])
        ctx.save_for_backward(*inputs[1])

    def apply(self, ctx, grad_out):
        indices = list(ctx.saved_tensors)
        grad_input = apply(INDEX_PUT, (_zeros(ctx.like), indices, grad_out),
                           {"dims": ctx.dims, "accumulate": True})
        return grad_input, [None] * len(indices)


@register_grad("index_put")
class IndexPutGrad(GradFunction):
    """input: grad_out, zeroed where overwritten (kept as is with accumulate);
    values: grad_out read at the indices, summed to values' shape."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.dims, ctx.accumulate = attrs["dims"], attrs["accumulate"]
        ctx.values_shape = tuple(inputs[2].shape)
        ctx.save_for_backward(*inputs[1])

    def apply(self, ctx, grad_out):
        indices = list(ctx.saved_tensors)
        grad_input = grad_values = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_out
            if not ctx.accumulate:
                zero = F.zeros((), dtype=grad_out.dtype, device=grad_out.device)
                grad_input = apply(INDEX_PUT, (grad_out, indices, zero),
                                   {"dims": ctx.dims, "accumulate": False})
        if ctx.needs_input_grad[2]:
            read = apply(INDEX, (grad_out, indices), {"dims": ctx.dims})
            grad_values = sum_to(read, ctx.values_shape)
        return grad_input, [None] * len(indices), grad_values


def _src_grad(grad_out, index, dim, src_shape):
    """gather(grad_out) at index, placed in zeros of src's shape when src is larger."""
    read = apply(GATHER, (grad_out, index), {"dim": dim})
    if tuple(read.shape) == src_shape:
        return read
    region = tuple(slice(0, n, 1) for n in read.shape)
    zeros = F.zeros(src_shape, dtype=read.dtype, device=read.device)
    return apply(GETITEM_SCATTER, (zeros, read), {"index": region})


@register_grad("gather")
class GatherGrad(GradFunction):
    def capture(self, ctx, inputs, outputs, attrs):
        ctx.dim, ctx.like = attrs["dim"], _like(inputs[0])
        ctx.save_for_backward(inputs[1])

    def apply(self, ctx, grad_out):
        (index,) = ctx.saved_tensors
        return apply(SCATTER_ADD, (_zeros(ctx.like), index, grad_out), {"dim": ctx.dim}), None


class _ScatterGrad(GradFunction):
    def capture(self, ctx, inputs, outputs, attrs):
        ctx.dim, ctx.src_shape = attrs["dim"], tuple(inputs[2].shape)
        ctx.save_for_backward(inputs[1])

    def apply(self, ctx, grad_out):
        (index,) = ctx.saved_tensors
        grad_input = grad_src = None
        if ctx.needs_input_grad[0]:
            grad_input = self.input_grad(ctx, grad_out, index)
        if ctx.needs_input_grad[2]:
            grad_src = _src_grad(grad_out, index, ctx.dim, ctx.src_shape)
        return grad_input, None, grad_src


@register_grad("scatter_add")
class ScatterAddGrad(_ScatterGrad):
    """input: grad_out; src: grad_out gathered at index."""

    def input_grad(self, ctx, grad_out, index):
        return grad_out


@register_grad("scatter")
class ScatterGrad(_ScatterGrad):
    """input: grad_out zeroed where overwritten; src: grad_out gathered at index."""

    def input_grad(self, ctx, grad_out, index):
        zeros = F.zeros(tuple(index.shape), dtype=grad_out.dtype, device=grad_out.device)
        return apply(SCATTER, (grad_out, index, zeros), {"dim": ctx.dim})

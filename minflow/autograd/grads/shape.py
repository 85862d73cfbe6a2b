"""Grad functions of the shape ops: each undoes its op's data movement on the gradient
with shape ops, so double backward works."""
from ...core.dispatch import apply
from ...core.namespace import F
from ...ops.shape import NARROW, PAD, PERMUTE, TRIL, TRIU
from ..node import GradFunction, register_grad
from .util import sum_to


class _KeepShape(GradFunction):
    def capture(self, ctx, inputs, outputs, attrs):
        ctx.shape = tuple(inputs[0].shape)


@register_grad("reshape")
class ReshapeGrad(_KeepShape):
    def apply(self, ctx, grad_out):
        return F.reshape(grad_out, ctx.shape)


register_grad("unsqueeze")(type("UnsqueezeGrad", (ReshapeGrad,), {}))


@register_grad("expand")
class ExpandGrad(_KeepShape):
    def apply(self, ctx, grad_out):
        return sum_to(grad_out, ctx.shape)


@register_grad("permute")
class PermuteGrad(GradFunction):
    """The inverse permutation: input dim dims[i] is output dim i."""

    def capture(self, ctx, inputs, outputs, attrs):
        dims = attrs["dims"]
        ctx.inverse = tuple(sorted(range(len(dims)), key=dims.__getitem__))

    def apply(self, ctx, grad_out):
        return apply(PERMUTE, (grad_out,), {"dims": ctx.inverse})


@register_grad("narrow")
class NarrowGrad(GradFunction):
    """Zero-pad the gradient back to the input's size along dim."""

    def capture(self, ctx, inputs, outputs, attrs):
        x, dim = inputs[0], attrs["dim"]
        after = x.shape[dim] - attrs["start"] - attrs["length"]
        ctx.pad = (0, 0) * (x.ndim - 1 - dim) + (attrs["start"], after)

    def apply(self, ctx, grad_out):
        return apply(PAD, (grad_out,), {"pad": ctx.pad, "value": 0})


@register_grad("pad")
class PadGrad(GradFunction):
    """Pad by the negated pads: crops what was padded and zero-fills what was cropped."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.pad = tuple(-p for p in attrs["pad"])

    def apply(self, ctx, grad_out):
        return apply(PAD, (grad_out,), {"pad": ctx.pad, "value": 0})


@register_grad("cat")
class CatGrad(GradFunction):
    """Each input's gradient is its slice of grad_out along dim (a list: one per tensor)."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.shapes = [tuple(t.shape) for t in inputs[0]]
        ctx.dim = attrs["dim"]

    def apply(self, ctx, grad_out):
        grads, start = [], 0
        for shape, needed in zip(ctx.shapes, ctx.needs_input_grad[0]):
            if shape == (0,):     # skipped by cat (see ops/shape.py)
                grads.append(F.zeros(0, dtype=grad_out.dtype, device=grad_out.device)
                             if needed else None)
                continue
            length = shape[ctx.dim]
            grads.append(apply(NARROW, (grad_out,), {"dim": ctx.dim, "start": start,
                                                     "length": length}) if needed else None)
            start += length
        return grads


@register_grad("tril")
class TrilGrad(GradFunction):
    def capture(self, ctx, inputs, outputs, attrs):
        ctx.diagonal = attrs["diagonal"]

    def apply(self, ctx, grad_out):
        return apply(TRIL, (grad_out,), {"diagonal": ctx.diagonal})


@register_grad("triu")
class TriuGrad(TrilGrad):
    def apply(self, ctx, grad_out):
        return apply(TRIU, (grad_out,), {"diagonal": ctx.diagonal})

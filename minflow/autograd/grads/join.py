"""Grad functions of the join ops: cat slices the gradient with narrow, narrow and pad
zero-pad or crop it with pad, tril and triu mask it with themselves; all are
differentiable ops, so double backward works."""
from ...core.dispatch import apply
from ...core.namespace import F
from ...ops.join import NARROW, PAD
from ..node import GradFunction, register_grad


class _ZeroPad(GradFunction):
    """grad_in is grad_out padded with zeros by ``ctx.pad`` (negative pads crop)."""

    def apply(self, ctx, grad_out):
        return apply(PAD, (grad_out,), {"pad": ctx.pad, "value": 0})


@register_grad("narrow")
class NarrowGrad(_ZeroPad):
    """Zero-pad the gradient back to the input's size along dim."""

    def capture(self, ctx, inputs, outputs, attrs):
        x, dim = inputs[0], attrs["dim"]
        after = x.shape[dim] - attrs["start"] - attrs["length"]
        ctx.pad = (0, 0) * (x.ndim - 1 - dim) + (attrs["start"], after)


@register_grad("pad")
class PadGrad(_ZeroPad):
    """Pad by the negated pads: crops what was padded and zero-fills what was cropped."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.pad = tuple(-p for p in attrs["pad"])


@register_grad("cat")
class CatGrad(GradFunction):
    """Each input's gradient is its slice of grad_out along dim (a list: one per tensor)."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.shapes = [tuple(t.shape) for t in inputs[0]]
        ctx.dim = attrs["dim"]

    def apply(self, ctx, grad_out):
        grads, start = [], 0
        for shape, needed in zip(ctx.shapes, ctx.needs_input_grad[0]):
            if shape == (0,):     # skipped by cat (see ops/join.py)
                grads.append(F.zeros(0, dtype=grad_out.dtype, device=grad_out.device)
                             if needed else None)
                continue
            length = shape[ctx.dim]
            grads.append(apply(NARROW, (grad_out,), {"dim": ctx.dim, "start": start,
                                                     "length": length}) if needed else None)
            start += length
        return grads


class TriangleGrad(GradFunction):
    """tril and triu zero a fixed set of entries: grad_in is the same op on grad_out."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.diagonal = attrs["diagonal"]

    def apply(self, ctx, grad_out):
        return apply(self.op, (grad_out,), {"diagonal": ctx.diagonal})


register_grad("tril")(TriangleGrad)
register_grad("triu")(TriangleGrad)

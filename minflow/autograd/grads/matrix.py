"""Grad functions of the matrix ops, written with minflow ops (differentiable again)."""
from ...core.dispatch import apply
from ...core.namespace import F
from ...ops.linalg import MATMUL
from ...ops.matrix import DIAGONAL, DIAGONAL_GRAD
from ..node import GradFunction, register_grad
from .util import conj


@register_grad("diagonal")
class DiagonalGrad(GradFunction):
    """grad_out goes back onto the diagonal it was read from; zeros elsewhere."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.attrs = dict(attrs, input_size=tuple(inputs[0]._data.shape))

    def apply(self, ctx, grad_out):
        return apply(DIAGONAL_GRAD, (grad_out,), dict(ctx.attrs))


@register_grad("diagonal_grad")
class DiagonalGradGrad(GradFunction):
    """diagonal_grad is linear: its backward reads the diagonal back out."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.attrs = {k: attrs[k] for k in ("offset", "dim1", "dim2")}

    def apply(self, ctx, grad_out):
        return F.clone(apply(DIAGONAL, (grad_out,), dict(ctx.attrs)))


def _mm(a, b, ta=False, tb=False):
    return apply(MATMUL, (a, b), {"transpose_input": ta, "transpose_other": tb})


@register_grad("inverse")
class InverseGrad(GradFunction):
    """Y = A^-1: dA = -Y^H g Y^H (^H the conjugate transpose: ^T for real Y)."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(outputs[0])

    def apply(self, ctx, grad_out):
        y, = ctx.saved_tensors
        y = conj(y)
        return -_mm(y, _mm(grad_out, y, tb=True), ta=True)


@register_grad("det")
class DetGrad(GradFunction):
    """d det(A) = g * conj(det(A)) * A^-H (A must be invertible; for real A, det A^-T)."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(inputs[0], outputs[0])

    def apply(self, ctx, grad_out):
        a, d = ctx.saved_tensors
        scale = F.unsqueeze(F.unsqueeze(grad_out * conj(d), -1), -1)
        return scale * F.transpose(conj(F.inverse(a)), -1, -2)

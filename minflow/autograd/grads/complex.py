"""Grad functions of the complex-number ops (torch's convention: the gradient of a real
loss with respect to z = x + iy is dL/dx + i dL/dy)."""
from ...core.namespace import F
from ..node import GradFunction, register_grad
from .util import conj, sum_to


class _NoSave(GradFunction):
    def capture(self, ctx, inputs, outputs, attrs):
        pass


@register_grad("real")
class RealGrad(_NoSave):
    def apply(self, ctx, grad_out):
        """y = x: the gradient is real, with no imaginary part."""
        return F.complex(grad_out, F.zeros_like(grad_out))


@register_grad("imag")
class ImagGrad(_NoSave):
    def apply(self, ctx, grad_out):
        """y = Im z: dL/dy reaches z as i dL/dy."""
        return F.complex(F.zeros_like(grad_out), grad_out)


@register_grad("view_as_real")
class ViewAsRealGrad(_NoSave):
    def apply(self, ctx, grad_out):
        return F.view_as_complex(grad_out.contiguous())


@register_grad("view_as_complex")
class ViewAsComplexGrad(_NoSave):
    def apply(self, ctx, grad_out):
        return F.view_as_real(grad_out)


@register_grad("conj_physical")
class ConjGrad(_NoSave):
    def apply(self, ctx, grad_out):
        return conj(grad_out)


@register_grad("complex")
class ComplexGrad(GradFunction):
    """z = x + iy: x gets Re(grad), y gets Im(grad), each summed to its shape."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.shapes = tuple(tuple(x.shape) for x in inputs)

    def apply(self, ctx, grad_out):
        need_real, need_imag = ctx.needs_input_grad
        return (sum_to(F.real(grad_out), ctx.shapes[0]) if need_real else None,
                sum_to(F.imag(grad_out), ctx.shapes[1]) if need_imag else None)


@register_grad("angle")
class AngleGrad(GradFunction):
    """angle(z) = atan2(y, x): the gradient is grad * i z / |z|^2 (0 at z = 0), as torch's
    angle_backward; a real input's angle is piecewise constant (gradient 0)."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(inputs[0])

    def apply(self, ctx, grad_out):
        (z,) = ctx.saved_tensors
        if not z.dtype.is_complex:
            return F.zeros_like(z) if z.dtype.is_differentiable else None
        local = z / F.square(F.abs(z)) * 1j
        return F.where(F.eq(z, 0), 0.0, grad_out * local)

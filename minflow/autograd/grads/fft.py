"""Grad functions of the Fourier transforms, as torch's fft_*_backward: each transform is
linear, so its gradient is the adjoint transform of the output gradient, with the one-sided
spectra of rfft / irfft zero-padded or doubled to stand for the half they leave out."""
import numpy as np

from ...core.dispatch import apply
from ...core.namespace import F
from ...ops.fft import FFT_C2C, FFT_R2C, swapped
from ...ops.join import PAD
from ..node import GradFunction, register_grad


@register_grad("fft_c2c")
class FftC2CGrad(GradFunction):
    def capture(self, ctx, inputs, outputs, attrs):
        ctx.attrs = attrs

    def apply(self, ctx, grad_out):
        attrs = ctx.attrs
        return apply(FFT_C2C, (grad_out,), {"dim": attrs["dim"], "norm": swapped(attrs["norm"]),
                                            "forward": not attrs["forward"]})


@register_grad("fft_r2c")
class FftR2CGrad(GradFunction):
    """The one-sided gradient zero-padded to the full length, inverse-transformed; the
    real part reaches the real input."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.attrs, ctx.full = attrs, inputs[0].shape[attrs["dim"][-1]]

    def apply(self, ctx, grad_out):
        dim, norm = ctx.attrs["dim"], ctx.attrs["norm"]
        last = dim[-1]
        missing = ctx.full - grad_out.shape[last]
        if missing > 0:
            pad = (0, 0) * (grad_out.ndim - 1 - last) + (0, missing)
            grad_out = apply(PAD, (grad_out,), {"pad": pad, "value": 0})
        full = apply(FFT_C2C, (grad_out,), {"dim": dim, "norm": swapped(norm), "forward": False})
        return F.real(full)


@register_grad("fft_c2r")
class FftC2RGrad(GradFunction):
    """The forward one-sided transform of the gradient, its entries that stand for two
    (a frequency and its mirror image) doubled."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.attrs = attrs

    def apply(self, ctx, grad_out):
        dim, norm, n = ctx.attrs["dim"], ctx.attrs["norm"], ctx.attrs["last_dim_size"]
        grad_in = apply(FFT_R2C, (grad_out,), {"dim": dim, "norm": swapped(norm)})
        half = grad_in.shape[dim[-1]]
        weights = np.ones(half)
        weights[1:1 + n - half] = 2.0
        shape = [1] * grad_in.ndim
        shape[dim[-1]] = half
        scale = F.tensor(weights.reshape(shape), dtype=grad_out.dtype, device=grad_out.device)
        return grad_in * scale

"""CUDA activation kernels. cupy is imported lazily, on a kernel's first call, so this
module imports on machines without cupy.

leaky_relu and its grad are hand-written ElementwiseKernels: one pass over memory each.
"""
import functools
import math

from ...core.device import array_module
from ...core.dtype import FLOATS
from ..registry import register_kernel


@functools.lru_cache(maxsize=None)
def _elementwise(params, out, body, name):
    """The ``cupy.ElementwiseKernel``, compiled once per process on first use."""
    return array_module("cuda").ElementwiseKernel(params, out, body, name)


@register_kernel("leaky_relu", "cuda", FLOATS)
def leaky_relu(input, negative_slope):
    kernel = _elementwise("T x, T slope", "T y", "y = x > 0 ? x : (T)(x * slope)",
                          "minflow_leaky_relu")
    return kernel(input, input.dtype.type(negative_slope))


@register_kernel("leaky_relu_grad", "cuda", FLOATS)
def leaky_relu_grad(grad_out, input, negative_slope):
    kernel = _elementwise("T g, T x, T slope", "T dx", "dx = x > 0 ? g : (T)(g * slope)",
                          "minflow_leaky_relu_grad")
    return kernel(grad_out, input, input.dtype.type(negative_slope))


@register_kernel("gelu", "cuda", FLOATS)
def gelu(input):
    x = _opmath(input)      # float16 as torch's kernel: in float32, rounded once
    return (x * 0.5 * (1.0 + _erf(x * math.sqrt(0.5)))).astype(input.dtype, copy=False)


@register_kernel("gelu_grad", "cuda", FLOATS)
def gelu_grad(grad_out, input):
    cp = array_module("cuda")
    x, grad = _opmath(input), _opmath(grad_out)
    pdf = cp.exp(-0.5 * x * x) * (1.0 / math.sqrt(2.0 * math.pi))
    cdf = 0.5 * (1.0 + _erf(x * math.sqrt(0.5)))
    return (grad * (cdf + x * pdf)).astype(input.dtype, copy=False)


def _opmath(x):
    return x.astype("float32") if x.dtype.itemsize == 2 else x


def _erf(x):
    from cupyx.scipy.special import erf
    return erf(x)

"""Numpy-only activation kernels: gelu needs erf, which numpy lacks."""
import math

import numpy as np

from ...core.dtype import FLOATS
from ..registry import register_kernel

try:
    from scipy.special import erf as _erf
except ImportError:     # scipy is optional: math.erf per element is exact, only slower
    _erf = np.vectorize(math.erf, otypes=[np.float64])

_SQRT_HALF = math.sqrt(0.5)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def _cdf(x):
    return 0.5 * (1.0 + _erf(x * _SQRT_HALF))


@register_kernel("gelu", "cpu", FLOATS)
def gelu(input):
    return input * _cdf(input)


@register_kernel("gelu_grad", "cpu", FLOATS)
def gelu_grad(grad_out, input):
    pdf = np.exp(-0.5 * input * input) * _INV_SQRT_2PI
    return grad_out * (_cdf(input) + input * pdf)

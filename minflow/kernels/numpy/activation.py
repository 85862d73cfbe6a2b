"""Numpy-only activation kernels: relu in a form that is fast on numpy, and gelu, which
needs erf (numpy lacks it)."""
import math

import numpy as np

from ...core.dtype import FLOATS, NUMERIC
from ..registry import register_kernel

# ---- relu: 0 where x < 0, else x (NaN and -0.0 pass through, as torch) -------------------
# NOTE: np.maximum(x, 0) runs numpy's scalar loop when an operand is a scalar (4x a multiply
# on float32); against a row of zeros it runs the SIMD loop. Which zero max(-0.0, 0.0) gives
# depends on that loop, so inputs holding -0.0 take an exact select instead.

_ROW = 16384
_ZERO_ROWS = {}
_BITS = {2: np.int16, 4: np.int32, 8: np.int64}     # float itemsize -> same-size int
_NEGATIVE_ZERO = {n: np.iinfo(t).min for n, t in _BITS.items()}    # -0.0's bits, as that int


@register_kernel("relu", "cpu", NUMERIC, out=True)
def relu(input, out=None):
    if input.dtype.kind == "f" and input.size and _has_negative_zero(input):
        result = _select_nonnegative(input)
        if out is None:
            return result
        np.copyto(out, result)
        return out
    if input.ndim and input.shape[-1] <= _ROW:     # against zeros of the last dim's size
        return np.maximum(input, _zero_row(input.dtype)[:input.shape[-1]], out=out)
    return _maximum_zero_rows(input, out)


def _zero_row(dtype):
    zeros = _ZERO_ROWS.get(dtype)
    if zeros is None:
        zeros = _ZERO_ROWS[dtype] = np.zeros(_ROW, dtype)
    return zeros


def _has_negative_zero(x):
    # -0.0 is the smallest bit pattern read as a signed int
    return x.view(_BITS[x.itemsize]).min() == _NEGATIVE_ZERO[x.itemsize]


def _select_nonnegative(x):
    """where(x < 0, 0, x) bit for bit, without np.where's branches (slow on mixed signs)."""
    bits = x.view(_BITS[x.itemsize])
    mask = np.less(x, 0).view(np.uint8).astype(bits.dtype)     # 1 where x < 0
    mask -= 1                                                   # 0 there, all ones elsewhere
    mask &= bits
    return mask.view(x.dtype)


def _maximum_zero_rows(x, out=None):
    """np.maximum(x, 0) as rows of _ROW against one row of zeros (the SIMD loop), into
    ``out`` (contiguous, x's shape) or a new array."""
    zeros = _zero_row(x.dtype)
    flat = x.reshape(-1)
    result = np.empty_like(flat) if out is None else out.reshape(-1)
    whole = flat.size - flat.size % _ROW
    np.maximum(flat[:whole].reshape(-1, _ROW), zeros, out=result[:whole].reshape(-1, _ROW))
    np.maximum(flat[whole:], zeros[:flat.size - whole], out=result[whole:])
    return result.reshape(x.shape)


# ---- gelu ----------------------------------------------------------------------------------

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
    if input.dtype == np.float16:       # as torch's kernel: in float32, rounded once
        x = input.astype(np.float32)
        half_x = x * np.float32(0.5)
        return (half_x * (1 + _torch_erf(x * np.float32(_SQRT_HALF)))).astype(np.float16)
    return input * _cdf(input)


@register_kernel("gelu_grad", "cpu", FLOATS)
def gelu_grad(grad_out, input):
    if input.dtype == np.float16:       # as torch's kernel: in float32, rounded once
        x = input.astype(np.float32)
        cdf = np.float32(0.5) * (1 + _torch_erf(x * np.float32(_SQRT_HALF)))
        pdf = np.float32(_INV_SQRT_2PI) * _exp32(x * x * np.float32(-0.5))
        return (grad_out.astype(np.float32) * (cdf + x * pdf)).astype(np.float16)
    pdf = np.exp(-0.5 * input * input) * _INV_SQRT_2PI
    return grad_out * (_cdf(input) + input * pdf)


# NOTE: torch's cpu gelu computes float16 in float32 with its vectorized erf, the
# Abramowitz-Stegun formula 7.1.26 (absolute error 1.5e-7) in fused multiply-adds and
# Sleef's exp; emulated here step by step (a float64 product of two float32 is exact, so
# rounding a * b + c from float64 is the fused operation), to give torch's float16 bits.
_ERF_P = np.float32(0.3275911)
_ERF_A = [np.float32(a) for a in (1.061405429, -1.453152027, 1.421413741, -0.284496736,
                                  0.254829592)]


def _fma32(a, b, c):
    return (a.astype(np.float64) * b + c).astype(np.float32)


def _exp32(x):
    return np.exp(x.astype(np.float64)).astype(np.float32)


def _torch_erf(x):
    """erf of a float32 array as torch's vectorized float32 kernels compute it:
    sign(x) (1 - t P(t) exp(-x^2)), t = 1 / (1 + p |x|)."""
    t = np.float32(1) / _fma32(_ERF_P, np.abs(x), np.float32(1))
    poly = _ERF_A[0]
    for a in _ERF_A[1:]:
        poly = _fma32(poly, t, a)
    tail = -_exp32(-(x * x)) * t
    return np.copysign(_fma32(tail, poly, np.float32(1)), x)

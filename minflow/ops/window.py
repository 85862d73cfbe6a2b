"""Window functions for signal processing, as torch's: hann, hamming, blackman, bartlett
and kaiser. Each is a composite of arange and elementwise ops, computed in float64 on the
target device and cast to ``dtype`` (the default float).

``periodic=True`` (the default) gives the window for spectral analysis: the symmetric
window of length ``window_length + 1`` without its last sample.
"""
import math
import numbers

from ..core import dtype as dtypes
from ..core.device import default_device
from ..core.functional import public
from ..core.namespace import F
from ..core.tensor_options import tensor_options

__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
           "kaiser_window"]


def _window(name, window_length, periodic, dtype, device, requires_grad, formula):
    """Check the arguments, then ``formula(n, N)`` over n = 0..N-1 (float64), N the
    symmetric length, cut to ``window_length`` and cast."""
    if not isinstance(window_length, numbers.Integral) or isinstance(window_length, bool):
        raise TypeError(f"{name}: expected window_length to be an int, got "
                        f"{type(window_length).__name__}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={window_length}")
    if not isinstance(periodic, bool):
        raise TypeError(f"{name}: expected periodic to be a bool, got {type(periodic).__name__}")
    dtype = dtypes.get_default_dtype() if dtype is None else dtypes.as_dtype(dtype)
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype.name}")
    device = default_device(device)
    if window_length <= 1:
        out = F.ones(window_length, dtype=dtype, device=device)
    else:
        n_sym = window_length + 1 if periodic else window_length
        n = F.arange(window_length, dtype=dtypes.float64, device=device)
        out = F.cast(formula(n, n_sym), dtype)
    return out.requires_grad_() if requires_grad else out


def _cosine_sum(coefficients):
    """sum_k (-1)^k a_k cos(2 pi k n / (N - 1)): the family of hann, hamming, blackman."""
    def formula(n, n_sym):
        phase = F.mul(n, 2 * math.pi / (n_sym - 1))
        out = F.full(tuple(n.shape), coefficients[0], dtype=n.dtype, device=n.device)
        for k, a in enumerate(coefficients[1:], 1):
            out = F.add(out, F.mul(F.cos(F.mul(phase, k)), -a if k % 2 else a))
        return out
    return formula


@public
@tensor_options
def hann_window(window_length, periodic=True, *, dtype=None, device=None,
                requires_grad=False):
    """hann_window(window_length, periodic=True, *, dtype=None, device=None,
    requires_grad=False) -> Tensor

    w[n] = 1/2 (1 - cos(2 pi n / (N - 1))), N = window_length (+ 1 when periodic).

    >>> minflow.hann_window(5, periodic=False).tolist()
    [0.0, 0.5, 1.0, 0.5, 0.0]
    """
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad,
                   _cosine_sum((0.5, 0.5)))


@public
@tensor_options
def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                   device=None, requires_grad=False):
    """hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
    device=None, requires_grad=False) -> Tensor

    w[n] = alpha - beta cos(2 pi n / (N - 1)), N = window_length (+ 1 when periodic).

    >>> [round(v, 4) for v in minflow.hamming_window(3, periodic=False).tolist()]
    [0.08, 1.0, 0.08]
    """
    for name, value in (("alpha", alpha), ("beta", beta)):
        if not isinstance(value, numbers.Real):
            raise TypeError(f"hamming_window: expected {name} to be a number, got "
                            f"{type(value).__name__}")
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad,
                   _cosine_sum((alpha, beta)))


@public
@tensor_options
def blackman_window(window_length, periodic=True, *, dtype=None, device=None,
                    requires_grad=False):
    """blackman_window(window_length, periodic=True, *, dtype=None, device=None,
    requires_grad=False) -> Tensor

    w[n] = 0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1)).

    >>> [round(v, 4) for v in minflow.blackman_window(5, periodic=False)[1:4].tolist()]
    [0.34, 1.0, 0.34]
    """
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad,
                   _cosine_sum((0.42, 0.5, 0.08)))


def _bartlett(n, n_sym):
    half = (n_sym - 1) / 2
    return F.sub(1.0, F.abs(F.div(F.sub(n, half), half)))


@public
@tensor_options
def bartlett_window(window_length, periodic=True, *, dtype=None, device=None,
                    requires_grad=False):
    """bartlett_window(window_length, periodic=True, *, dtype=None, device=None,
    requires_grad=False) -> Tensor

    The triangular window w[n] = 1 - |2n / (N - 1) - 1|.

    >>> minflow.bartlett_window(5, periodic=False).tolist()
    [0.0, 0.5, 1.0, 0.5, 0.0]
    """
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad,
                   _bartlett)


@public
@tensor_options
def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, device=None,
                  requires_grad=False):
    """kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, device=None,
    requires_grad=False) -> Tensor

    w[n] = I0(beta sqrt(1 - ((n - a) / a)^2)) / I0(beta), a = (N - 1) / 2, I0 the
    modified Bessel function of order 0.

    >>> [round(v, 4) for v in minflow.kaiser_window(3, periodic=False, beta=5.0).tolist()]
    [0.0367, 1.0, 0.0367]
    """
    if not isinstance(beta, numbers.Real):
        raise TypeError(f"kaiser_window: expected beta to be a number, got "
                        f"{type(beta).__name__}")

    def formula(n, n_sym):
        half = (n_sym - 1) / 2
        ratio = F.div(F.sub(n, half), half)
        arg = F.mul(F.sqrt(F.clamp_min(F.sub(1.0, F.mul(ratio, ratio)), 0.0)), beta)
        return F.div(F.i0(arg), F.i0(F.full((), float(beta), dtype=n.dtype, device=n.device)))
    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad,
                   formula)

"""More activations with PyTorch's signatures: selu, celu, softmin, the shrinks, threshold,
rrelu and gumbel_softmax. All are composites of differentiable ops (no kernels or grad code of their
own); inplace=True and the ``<name>_`` variants write the result into the input.
"""
import warnings

import numpy as np

from ..core import dtype as dtypes
from ..core.dispatch import apply
from ..core.functional import public
from ..core.inplace import inplace as _inplace
from ..core.namespace import F
from .activation import _expm1_as_torch, leaky_relu, softmax
from .opmath import in_float32
from .infer import check_number
from .sampling import EXPONENTIAL

__all__ = ["selu", "selu_", "celu", "celu_", "softmin", "softshrink", "hardshrink",
           "tanhshrink", "threshold", "threshold_", "rrelu", "rrelu_", "gumbel_softmax"]

# torch's constants (Klambauer et al., Self-Normalizing Neural Networks)
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _check_float(input, name):
    if not input.dtype.is_floating_point:
        raise dtypes.DTypeError(f"{name}: expected input with dtype in [float16, float32, float64], "
                                f"got {input.dtype.name}")


@public
def selu(input, inplace=False):
    """selu(input, inplace=False) -> Tensor

    out = scale * (x if x > 0 else alpha * (exp(x) - 1)), alpha = 1.6732632...,
    scale = 1.0507009...

    >>> [round(v, 4) for v in minflow.nn.functional.selu(minflow.tensor([-1.0, 1.0])).tolist()]
    [-1.1113, 1.0507]
    """
    _check_float(input, "selu")
    if inplace:
        return _inplace(selu, "selu", input)
    return _exp_below_zero(input, SELU_ALPHA, SELU_SCALE, 1.0)


@public
def celu(input, alpha=1.0, inplace=False):
    """celu(input, alpha=1.0, inplace=False) -> Tensor

    out = max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).

    >>> round(minflow.nn.functional.celu(minflow.tensor([-1.0]), alpha=2.0).item(), 4)
    -0.7869
    """
    _check_float(input, "celu")
    if check_number("celu", "alpha", alpha) == 0:
        raise RuntimeError("celu: alpha cannot be 0 (it divides x), got alpha=0")
    if inplace:
        return _inplace(celu, "celu", input, alpha)
    return _exp_below_zero(input, alpha, 1.0, 1.0 / alpha)


def _exp_below_zero(input, alpha, scale, input_scale, expm1=F.expm1):
    """x * scale if x > 0 else expm1(x * input_scale) * (alpha * scale): torch's elu
    kernel, behind selu and celu. As there, the coefficients are float32 numbers below
    float64, and float16 is computed in float32 and rounded once."""
    if input.dtype is dtypes.float16:
        return in_float32(_exp_below_zero, input, alpha, scale, input_scale, _expm1_as_torch)
    if input.dtype is dtypes.float64:
        negcoef = alpha * scale
    else:
        alpha, scale, input_scale = (float(np.float32(c)) for c in (alpha, scale, input_scale))
        negcoef = float(np.float32(alpha) * np.float32(scale))
    # NOTE: expm1 sees min(x, 0), so the discarded branch stays finite; the test is x <= 0
    # so that NaN takes the x branch, whose gradient (1) torch gives NaN
    neg = F.mul(expm1(F.mul(F.clamp(input, max=0), input_scale)), negcoef)
    return F.where(F.le(input, 0), neg, F.mul(input, scale))


@public
def selu_(input):
    """In-place version of :func:`selu`: selu_(input)."""
    return selu(input, inplace=True)


@public
def celu_(input, alpha=1.0):
    """In-place version of :func:`celu`: celu_(input, alpha=1.0)."""
    return celu(input, alpha, inplace=True)


@public
def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmin(input, dim=None, dtype=None) -> Tensor

    out_i = exp(-x_i) / sum_j exp(-x_j) along ``dim``: softmax of -x; ``dtype`` casts -x
    (as torch: uint8 input is negated modulo 256 first).

    >>> minflow.nn.functional.softmin(minflow.tensor([1.0, 1.0]), dim=0).tolist()
    [0.5, 0.5]
    """
    # NOTE: _stacklevel holds torch's third positional slot (a warning level there), so
    # that dtype stays the fourth; it has no use here
    negated = F.neg(input)
    if dtype is not None:
        negated = negated.to(dtype=dtypes.as_dtype(dtype))
    return softmax(negated, dim)


@public
def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1) -> Tensor

    A sample of the Gumbel-softmax distribution: softmax((logits + g) / tau) along ``dim``,
    g Gumbel(0, 1) noise from the default generator (``minflow.manual_seed`` makes it
    repeatable). ``hard=True`` returns the one-hot of the largest entry, with the soft
    sample's gradient (straight-through). ``eps`` is deprecated and unused, as in torch.

    >>> _ = minflow.manual_seed(0)
    >>> y = minflow.nn.functional.gumbel_softmax(minflow.zeros(2, 3), hard=True)
    >>> y.sum(-1).tolist(), sorted(set(y.flatten().tolist()))
    ([1.0, 1.0], [0.0, 1.0])
    """
    if eps != 1e-10:
        warnings.warn("gumbel_softmax: `eps` parameter is deprecated and has no effect.",
                      UserWarning, stacklevel=2)
    if not logits.dtype.is_floating_point:
        raise dtypes.DTypeError(f"gumbel_softmax: expected logits with dtype in [float16, "
                                f"float32, float64], got {logits.dtype.name}")
    draws = apply(EXPONENTIAL, (), {"lambd": 1.0, "shape": tuple(logits.shape),
                                    "dtype": logits.dtype, "device": logits.device,
                                    "generator": None})
    noise = F.neg(F.log(draws))
    soft = softmax(F.div(F.add(logits, noise), tau), dim)
    if not hard:
        return soft
    index = F.argmax(soft, dim, keepdim=True)
    one_hot = F.scatter(F.zeros_like(logits), dim, index, 1.0)
    return F.add(F.sub(one_hot, soft.detach()), soft)     # the value of one_hot, soft's grad


def _check_lambd(lambd, name):
    if lambd < 0:
        raise RuntimeError(f"{name}: lambd must be >= 0, got {lambd}")


@public
def softshrink(input, lambd=0.5):
    """softshrink(input, lambd=0.5) -> Tensor

    out = x - lambd if x > lambd, x + lambd if x < -lambd, else 0.

    >>> minflow.nn.functional.softshrink(minflow.tensor([-2.0, 0.3, 1.5]), 1.0).tolist()
    [-1.0, 0.0, 0.5]
    """
    _check_float(input, "softshrink")
    _check_lambd(lambd, "softshrink")
    # NOTE: the band test comes first so that NaN falls through to x + lambd (NaN), as torch
    inside = F.logical_and(F.ge(input, -lambd), F.le(input, lambd))
    shrunk = F.where(F.gt(input, lambd), F.sub(input, lambd), F.add(input, lambd))
    return F.where(inside, 0.0, shrunk)


@public(method=True)
def hardshrink(input, lambd=0.5):
    """hardshrink(input, lambd=0.5) -> Tensor

    out = 0 if -lambd <= x <= lambd, else x.

    >>> minflow.nn.functional.hardshrink(minflow.tensor([-2.0, 0.3, 1.5]), 1.0).tolist()
    [-2.0, 0.0, 1.5]
    """
    _check_float(input, "hardshrink")
    inside = F.logical_and(F.ge(input, -lambd), F.le(input, lambd))
    return F.where(inside, 0.0, input)


@public
def tanhshrink(input):
    """tanhshrink(input) -> Tensor

    out = x - tanh(x); integer inputs give the default float dtype, as torch.

    >>> round(minflow.nn.functional.tanhshrink(minflow.tensor([1.0])).item(), 4)
    0.2384
    """
    return F.sub(input, F.tanh(input))


@public
def threshold(input, threshold, value, inplace=False):
    """threshold(input, threshold, value, inplace=False) -> Tensor

    out = x if x > threshold else value (NaN stays NaN); integer inputs take value
    truncated to an integer, as torch.

    >>> minflow.nn.functional.threshold(minflow.tensor([0.5, 2.0]), 1.0, -1.0).tolist()
    [-1.0, 2.0]
    """
    if inplace:
        return _inplace(_threshold, "threshold", input, threshold, value)
    return _threshold(input, threshold, value)


def _threshold(input, threshold, value):
    if input.dtype is dtypes.bool:
        raise dtypes.DTypeError("threshold: expected a numeric input, got bool")
    if not input.dtype.is_floating_point:
        value = int(value)
    filled = F.full_like(input, value)
    return F.where(F.le(input, threshold), filled, input)


@public
def threshold_(input, threshold, value):
    """In-place version of :func:`threshold`: threshold_(input, threshold, value)."""
    return _inplace(_threshold, "threshold", input, threshold, value)


@public
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """rrelu(input, lower=1/8, upper=1/3, training=False, inplace=False) -> Tensor

    Randomized leaky relu: out = x if x > 0 else a * x. Training, each element draws its
    own slope a ~ U(lower, upper) from the default generator (``minflow.manual_seed``
    makes it reproducible); otherwise a = (lower + upper) / 2.

    >>> minflow.nn.functional.rrelu(minflow.tensor([-3.0, 1.0]), 0.1, 0.3).tolist()
    [-0.6..., 1.0]
    """
    _check_float(input, "rrelu")
    if check_number("rrelu", "lower", lower) > check_number("rrelu", "upper", upper):
        raise RuntimeError(f"rrelu: lower bound should be less than or equal to the upper "
                           f"bound, got lower={lower}, upper={upper}")
    if inplace:
        return _inplace(rrelu, "rrelu", input, lower, upper, training)
    if not training:
        return leaky_relu(input, (lower + upper) / 2)
    slopes = F.add(F.mul(F.rand(*input.shape, dtype=input.dtype, device=input.device),
                         upper - lower), lower)
    return F.where(F.gt(input, 0), input, F.mul(input, slopes))


@public
def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """In-place version of :func:`rrelu`: rrelu_(input, lower=1/8, upper=1/3,
    training=False)."""
    return rrelu(input, lower, upper, training, inplace=True)

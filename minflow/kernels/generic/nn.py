"""nn kernels, written once against the array module (numpy or cupy).

embedding_grad's scatter-add differs per library: kernels/numpy/nn.py, kernels/cupy/nn.py
(they share ``finish_embedding_grad`` from here). float16 statistics are accumulated in
float32; the dispatcher casts outputs back to the op's dtype.
"""
import math

import numpy as np

from ...core.device import Device
from ...core.dtype import ALL, FLOATS, int64
from ...core.random import generator_for
from ..registry import register_kernel


def _compute(x):
    return x.astype(np.float32) if x.dtype == np.float16 else x


def _channel(t, ndim):
    """A (C,) array shaped to broadcast along dim 1 of an ndim-d input."""
    return t.reshape((1, -1) + (1,) * (ndim - 2))


def _channel_axes(ndim):
    return (0,) + tuple(range(2, ndim))


# ---- batch_norm -------------------------------------------------------------------------

@register_kernel("batch_norm", ("cpu", "cuda"), FLOATS)
def batch_norm(xp, input, running_mean, running_var, weight, bias, training, eps):
    x = _compute(input)
    if training and not x.size:     # an empty batch has no statistics
        mean = var = xp.full(x.shape[1], xp.nan, x.dtype)
    elif training:
        axes = _channel_axes(x.ndim)
        mean, var = x.mean(axis=axes), x.var(axis=axes)    # var: biased, two-pass
    else:
        mean, var = running_mean.astype(x.dtype), running_var.astype(x.dtype)   # copies
    if training and input.dtype == xp.float16:
        return _half_batch_norm(xp, x, mean, var, weight, bias, eps), mean, var
    scale = 1.0 / xp.sqrt(var + eps)
    if weight is not None:
        scale = scale * weight
    shift = -mean * scale
    if bias is not None:
        shift = shift + bias
    # y = x * scale + shift: one pass over x, as torch's cpu kernel
    return x * _channel(scale, x.ndim) + _channel(shift, x.ndim), mean, var


def _half_batch_norm(xp, x, mean, var, weight, bias, eps):
    """torch's cpu kernel on float16 batch stats: the mean and 1 / sqrt(var + eps) rounded
    to float16 (its saved stats); per channel, alpha = invstd * weight and beta = bias -
    mean * alpha in float32; then y = x * alpha + beta as one fused multiply-add."""
    mean, alpha = (_compute(t.astype(xp.float16)) for t in (mean, 1.0 / xp.sqrt(var + eps)))
    if weight is not None:
        alpha = alpha * _compute(weight)
    beta = -(mean * alpha) if bias is None else _compute(bias) - mean * alpha
    return _fma32(xp, x, _channel(alpha, x.ndim), _channel(beta, x.ndim))


def _fma32(xp, a, b, c):
    """a * b + c of float32 arrays, rounded once (a product of two float32 is exact in
    float64).

    NOTE: torch's cpu build contracts its float16 kernels' ``x * scale + shift`` into fused
    multiply-adds, and one rounding instead of two decides the last float16 bit of about
    one value in 1,000 (batch_norm, layer_norm)."""
    return (a.astype(xp.float64) * b + c).astype(xp.float32)


@register_kernel("batch_norm_grad", ("cpu", "cuda"), FLOATS)
def batch_norm_grad(xp, grad_out, input, weight, mean, var, training, eps):
    """dx = w * rstd * (g - mean(g) - xhat * mean(g * xhat)) with batch stats, else
    w * rstd * g; dweight = sum(g * xhat), dbias = sum(g) over all dims but the channel."""
    g, x = _compute(grad_out), _compute(input)
    axes = _channel_axes(x.ndim)
    rstd = 1.0 / xp.sqrt(_compute(var) + eps)
    xhat = (x - _channel(_compute(mean), x.ndim)) * _channel(rstd, x.ndim)
    grad_bias = g.sum(axis=axes)
    grad_weight = (g * xhat).sum(axis=axes)
    scale = rstd if weight is None else rstd * weight
    if training:
        n = max(x.size // max(x.shape[1], 1), 1)
        xhat *= _channel(grad_weight / n, x.ndim)
        g = g - _channel(grad_bias / n, x.ndim) - xhat
    return g * _channel(scale, x.ndim), grad_weight, grad_bias


# ---- layer_norm -------------------------------------------------------------------------

def _trailing(ndim, normalized_shape):
    return tuple(range(ndim - len(normalized_shape), ndim))


@register_kernel("layer_norm", ("cpu", "cuda"), FLOATS)
def layer_norm(xp, input, weight, bias, normalized_shape, eps):
    x = _compute(input)
    axes = _trailing(x.ndim, normalized_shape)
    mean = x.mean(axis=axes, keepdims=True)
    out = x - mean
    rstd = 1.0 / xp.sqrt((out * out).mean(axis=axes, keepdims=True) + eps)
    if input.dtype == xp.float16:
        return _half_layer_norm(xp, x, weight, bias, mean, rstd), mean, rstd
    out *= rstd
    if weight is not None:
        out *= weight
    if bias is not None:
        out += bias
    return out, mean, rstd


def _half_layer_norm(xp, x, weight, bias, mean, rstd):
    """torch's cpu kernel for float16: (x * rstd + (-rstd * mean)) * weight + bias in
    float32, both steps fused multiply-adds, rounded once to float16."""
    out = _fma32(xp, x, rstd, -rstd * mean)
    if weight is None and bias is None:
        return out
    weight = xp.ones((), xp.float32) if weight is None else _compute(weight)
    bias = xp.zeros((), xp.float32) if bias is None else _compute(bias)
    return _fma32(xp, out, weight, bias)


@register_kernel("layer_norm_grad", ("cpu", "cuda"), FLOATS)
def layer_norm_grad(xp, grad_out, input, weight, mean, rstd, normalized_shape):
    """dx = rstd * (g' - mean(g') - xhat * mean(g' * xhat)), g' = g * w, over the normalised
    dims; dweight = sum(g * xhat), dbias = sum(g) over the leading dims."""
    g, x, rstd = _compute(grad_out), _compute(input), _compute(rstd)
    axes = _trailing(x.ndim, normalized_shape)
    lead = tuple(range(x.ndim - len(normalized_shape)))
    xhat = (x - _compute(mean)) * rstd
    grad_weight, grad_bias = (g * xhat).sum(axis=lead), g.sum(axis=lead)
    gw = g if weight is None else g * weight
    centered = gw - gw.mean(axis=axes, keepdims=True)
    xhat *= (gw * xhat).mean(axis=axes, keepdims=True)
    centered -= xhat
    centered *= rstd
    return centered, grad_weight, grad_bias


# ---- dropout ----------------------------------------------------------------------------

def _rng(xp, generator):
    device = Device("cpu" if xp is np else "cuda")
    return generator_for(generator, device).rng(device.type)


@register_kernel("dropout", ("cpu", "cuda"), FLOATS)
def dropout(xp, input, p, generator):
    keep = _rng(xp, generator).random(input.shape, dtype=np.float32) >= p
    if p == 1.0:
        return input * 0, keep      # as torch: input * 0, so an inf or nan gives nan
    # where, not a product: a dropped inf gives 0, not nan
    return xp.where(keep, input * (1.0 / (1.0 - p)), 0), keep


@register_kernel("dropout_grad", ("cpu", "cuda"), FLOATS)
def dropout_grad(xp, grad_out, mask, scale):
    return xp.where(mask, grad_out * scale, 0)


# ---- embedding, one_hot -----------------------------------------------------------------

def _check_range(input, bound, name):
    if input.size and (int(input.min()) < 0 or int(input.max()) >= bound):
        bad = int(input[(input < 0) | (input >= bound)].ravel()[0])
        raise IndexError(f"{name}: index {bad} is out of range: expected indices in "
                         f"[0, {bound}) (weight has {bound} rows)")


@register_kernel("embedding", ("cpu", "cuda"), ALL)
def embedding(xp, input, weight, padding_idx, scale_grad_by_freq):
    _check_range(input, weight.shape[0], "embedding")
    return xp.take(weight, input, axis=0)


def finish_embedding_grad(xp, grad_weight, indices, padding_idx, scale_grad_by_freq):
    """Divide each row by its index count if asked, and zero the padding row."""
    if scale_grad_by_freq:
        counts = xp.bincount(indices, minlength=grad_weight.shape[0])
        grad_weight /= xp.maximum(counts, 1).reshape(-1, 1)
    if padding_idx is not None:
        grad_weight[padding_idx] = 0
    return grad_weight


@register_kernel("embedding_renorm", ("cpu", "cuda"), FLOATS)
def embedding_renorm(xp, weight, input, max_norm, norm_type):
    """As torch's embedding_renorm_: rows with norm > max_norm scaled by max_norm/(norm+1e-7)."""
    _check_range(input, weight.shape[0], "embedding")
    rows = xp.unique(input)
    picked = _compute(weight[rows])
    if math.isinf(norm_type):
        norms = xp.abs(picked).max(axis=1)
    else:
        norms = (xp.abs(picked) ** norm_type).sum(axis=1) ** (1.0 / norm_type)
    scale = xp.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
    out = weight.copy()
    out[rows] = picked * scale.reshape(-1, 1)
    return out


@register_kernel("one_hot", ("cpu", "cuda"), [int64])
def one_hot(xp, input, num_classes):
    if input.size:
        low, high = int(input.min()), int(input.max())
        if low < 0:
            raise RuntimeError(f"one_hot: Class values must be non-negative, got {low}")
        if high >= num_classes:
            raise RuntimeError(f"one_hot: Class values must be smaller than num_classes "
                               f"({num_classes}), got {high}")
    return (input[..., None] == xp.arange(num_classes)).astype(np.int64)

"""Activation kernels, written once against the array module (numpy or cupy).

leaky_relu's pair is registered for cpu only: cuda runs the hand-written
ElementwiseKernels of kernels/cupy/activation.py instead. relu is registered for cuda only:
cpu runs the faster numpy form of kernels/numpy/activation.py.
"""
from ...core.dtype import FLOATS, NUMERIC
from ..registry import register_kernel


@register_kernel("leaky_relu", ("cpu",), FLOATS)
def leaky_relu(xp, input, negative_slope):
    return xp.where(input > 0, input, input * negative_slope)


@register_kernel("leaky_relu_grad", ("cpu",), FLOATS)
def leaky_relu_grad(xp, grad_out, input, negative_slope):
    return xp.where(input > 0, grad_out, grad_out * negative_slope)


@register_kernel("relu", ("cuda",), NUMERIC)
def relu(xp, input):
    # 0 where x < 0, else x itself: NaN stays NaN and -0.0 stays -0.0, as torch
    return xp.where(input < 0, input.dtype.type(0), input)


@register_kernel("relu_grad", ("cpu", "cuda"), FLOATS, out=True)
def relu_grad(xp, grad_out, output, out=None):
    # NOTE: a product, not where(): several times faster on numpy (a NaN grad_out stays NaN)
    return xp.multiply(grad_out, output > 0, out=out)


def _axis(x, dim):
    return dim if x.ndim else None


def _max(xp, x, axis):
    """x's max along axis (kept), 0 where the reduced dim is empty (numpy raises there)."""
    if x.size == 0:
        return xp.zeros(tuple(1 if d == axis % x.ndim else n for d, n in enumerate(x.shape)),
                        x.dtype)
    return x.max(axis=axis, keepdims=True)


def _wide(xp, x):
    """float16 computed in float32, as torch's kernels (the dispatcher rounds the result)."""
    return x.astype(xp.float32) if x.dtype == xp.float16 else x


@register_kernel("softmax", ("cpu", "cuda"), FLOATS)
def softmax(xp, input, dim):
    if input.size == 0:             # numpy's max has no identity for an empty axis
        return xp.empty_like(input)
    axis = _axis(input, dim)
    input = _wide(xp, input)
    out = xp.exp(input - _max(xp, input, axis))     # max 0: exp can't overflow
    out /= out.sum(axis=axis, keepdims=True)
    return out


@register_kernel("log_softmax", ("cpu", "cuda"), FLOATS)
def log_softmax(xp, input, dim):
    if input.size == 0:             # numpy's max has no identity for an empty axis
        return xp.empty_like(input)
    axis = _axis(input, dim)
    if input.dtype == xp.float16:
        return half_log_softmax(xp, input, axis)
    shifted = input - _max(xp, input, axis)
    shifted -= xp.log(xp.exp(shifted).sum(axis=axis, keepdims=True))
    return shifted


def half_log_softmax(xp, input, axis):
    """float16 log_softmax as torch's cpu kernel: in float32, rounded once; along the last
    dim its kernel also rounds the sum of exponentials and its log to float16."""
    x = input.astype(xp.float32)
    shifted = x - _max(xp, x, axis)
    total = xp.exp(shifted).sum(axis=axis, keepdims=True)
    if axis is None or axis in (-1, x.ndim - 1):
        log_total = xp.log(total.astype(xp.float16).astype(xp.float32))
        shifted -= log_total.astype(xp.float16).astype(xp.float32)
    else:
        shifted -= xp.log(total)
    return shifted

"""Fold an eval-mode BatchNorm into the conv or linear layer before it (inference only):
y = bn(conv(x)) becomes y = conv'(x) with w' = w * gamma / sqrt(var + eps) per output
channel and b' = (b - mean) * gamma / sqrt(var + eps) + beta."""
import copy

from ...core.namespace import F
from ..parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights"]


def _check_eval(layer, bn, where):
    # NOTE: AssertionError, as torch's (raised explicitly, with a message)
    if layer.training or bn.training:
        raise AssertionError(f"{where}: Fusion only for eval! (call .eval() on both modules)")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError(f"{where}: bn.running_mean and bn.running_var must not be None "
                           f"(track_running_stats=True)")


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A copy of ``conv`` whose output equals ``bn(conv(x))`` in eval mode.

    >>> conv, bn = minflow.nn.Conv2d(3, 4, 3).eval(), minflow.nn.BatchNorm2d(4).eval()
    >>> fused = minflow.nn.utils.fuse_conv_bn_eval(conv, bn)
    >>> x = minflow.randn(1, 3, 5, 5)
    >>> bool(((fused(x) - bn(conv(x))).abs() < 1e-5).all())
    True
    """
    _check_eval(conv, bn, "fuse_conv_bn_eval")
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight,
        bn.bias, transpose)
    return fused


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """The fused (weight, bias) Parameters of a conv followed by an eval-mode BatchNorm;
    ``transpose`` for a ConvTranspose weight (out channels on dim 1).

    >>> w, b = minflow.nn.utils.fuse_conv_bn_weights(
    ...     minflow.ones(2, 1, 1, 1), None, minflow.zeros(2), minflow.full((2,), 3.0), 1.0,
    ...     minflow.ones(2), minflow.tensor([0.5, -0.5]))
    >>> w.reshape(-1).tolist(), b.tolist()
    ([0.5, 0.5], [0.5, -0.5])
    """
    weight_dtype = conv_w.dtype
    bias_dtype = conv_b.dtype if conv_b is not None else weight_dtype
    conv_b = F.zeros_like(bn_rm) if conv_b is None else conv_b
    bn_w = F.ones_like(bn_rm) if bn_w is None else bn_w
    bn_b = F.zeros_like(bn_rm) if bn_b is None else bn_b
    var_rsqrt = F.rsqrt(bn_rv + bn_eps)
    shape = ([1, -1] if transpose else [-1, 1]) + [1] * (conv_w.ndim - 2)
    fused_w = (conv_w * (bn_w * var_rsqrt).reshape(shape)).to(weight_dtype)
    fused_b = ((conv_b - bn_rm) * var_rsqrt * bn_w + bn_b).to(bias_dtype)
    return (Parameter(fused_w.detach(), conv_w.requires_grad),
            Parameter(fused_b.detach(), conv_b.requires_grad))


def fuse_linear_bn_eval(linear, bn):
    """A copy of ``linear`` whose output equals ``bn(linear(x))`` in eval mode.

    >>> lin, bn = minflow.nn.Linear(3, 4).eval(), minflow.nn.BatchNorm1d(4).eval()
    >>> fused = minflow.nn.utils.fuse_linear_bn_eval(lin, bn)
    >>> x = minflow.randn(2, 3)
    >>> bool(((fused(x) - bn(lin(x))).abs() < 1e-5).all())
    True
    """
    _check_eval(linear, bn, "fuse_linear_bn_eval")
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(f"fuse_linear_bn_eval: To fuse, linear.out_features == "
                           f"bn.num_features or bn.num_features == 1, got "
                           f"linear.out_features={linear.out_features} and "
                           f"bn.num_features={bn.num_features}")
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias)
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """The fused (weight, bias) Parameters of a linear layer followed by an eval-mode
    BatchNorm.

    >>> w, b = minflow.nn.utils.fuse_linear_bn_weights(
    ...     minflow.ones(2, 1), None, minflow.zeros(2), minflow.full((2,), 3.0), 1.0,
    ...     minflow.ones(2), minflow.zeros(2))
    >>> w.reshape(-1).tolist(), b.tolist()
    ([0.5, 0.5], [0.0, 0.0])
    """
    weight_dtype = linear_w.dtype
    bias_dtype = linear_b.dtype if linear_b is not None else weight_dtype
    linear_b = F.zeros_like(bn_rm) if linear_b is None else linear_b
    scale = bn_w * F.rsqrt(bn_rv + bn_eps)
    fused_w = linear_w * scale.unsqueeze(-1).to(weight_dtype)
    fused_b = ((linear_b - bn_rm) * scale + bn_b).to(bias_dtype)
    return (Parameter(fused_w.detach(), linear_w.requires_grad),
            Parameter(fused_b.detach(), linear_b.requires_grad))

"""Group, instance, RMS and local response normalisation, with PyTorch's signatures
(minflow.nn.functional takes ``__all__``).

Group and instance norm are the fused layer_norm op (ops/nn.py) over the input reshaped
to (N, groups, -1) or (N, C, -1), then a per-channel affine: exact, and one kernel each
way for the normalisation itself. rms_norm and local_response_norm are composites.
"""
import math

from ..core import dtype as dtypes
from ..core.dtype_info import finfo
from ..core.functional import public
from ..core.grad_mode import no_grad
from ..core.namespace import F
from ..core.tensor import Tensor
from .conv import avg_pool2d
from .infer import check_int, check_shape, check_tensor
from .join import pad
from .nn import batch_norm, layer_norm

__all__ = ["group_norm", "instance_norm", "rms_norm", "local_response_norm"]


def _check_floating(fn, input):
    if not input.dtype.is_floating_point:
        raise dtypes.DTypeError(f"{fn}: expected a floating point input, got "
                                f"{input.dtype.name}")


def _check_affine(fn, input, weight, bias):
    """weight and bias: one per channel, of the input's dtype (float32 also for a
    half-precision input, as torch's mixed-dtype kernels)."""
    channels = input.shape[1]
    for name, t in (("weight", weight), ("bias", bias)):
        if t is None:
            continue
        if tuple(t.shape) != (channels,):
            raise RuntimeError(f"{fn}: expected {name} of shape [{channels}] (one per channel), "
                               f"got {list(t.shape)}")
        if t.dtype is not input.dtype and not (t.dtype is dtypes.float32 and
                                               input.dtype in (dtypes.float16, dtypes.bfloat16)):
            raise RuntimeError(f"{fn}: expected {name} of the input's dtype "
                               f"{input.dtype.name}, got {t.dtype.name}")


def _all_half(*tensors):
    """Every tensor given is float16 (the float16 paths below; mixed dtypes go the general
    way)."""
    return all(t is None or t.dtype is dtypes.float16 for t in tensors)


def _as_float32(t):
    return None if t is None else F.cast(t, dtypes.float32)


def _per_channel(fn, out, input, weight, bias):
    """out * weight + bias with (C,) weight and bias along dim 1 of input's shape."""
    channels = input.shape[1]
    view = (1, channels) + (1,) * (input.ndim - 2)
    _check_affine(fn, input, weight, bias)
    # float32 weight and bias on a float16 input: the affine step in float32, the result
    # in float16 (mixed precision, as torch)
    dtype = out.dtype
    if weight is not None:
        out = F.mul(out, F.reshape(weight, view))
    if bias is not None:
        out = F.add(out, F.reshape(bias, view))
    return out if out.dtype is dtype else out.to(dtype)


def _normalize_last(x, shape, eps):
    return F.reshape(layer_norm(x, (x.shape[-1],), eps=eps), shape)


@public
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """group_norm(input, num_groups, weight=None, bias=None, eps=1e-05) -> Tensor

    y = (x - E[x]) / sqrt(Var[x] + eps) * weight + bias, with mean and biased variance over
    each group of C / num_groups channels (and all positions) of an (N, C, *) input.

    >>> x = minflow.tensor([[[1.0], [3.0], [0.0], [4.0]]])
    >>> minflow.nn.functional.group_norm(x, 2, eps=0.0).flatten().tolist()
    [-1.0, 1.0, -1.0, 1.0]
    """
    check_tensor("group_norm", "input", input)
    check_int("group_norm", "num_groups", num_groups)
    if input.ndim < 2:
        raise RuntimeError(f"group_norm: expected input of shape (N, C, *), got "
                           f"{getattr(input, 'shape', input)!r}")
    _check_floating("group_norm", input)
    shape = tuple(input.shape)
    if isinstance(num_groups, bool) or not isinstance(num_groups, int) or num_groups <= 0 \
            or shape[1] % num_groups:
        raise RuntimeError(f"group_norm: Expected number of channels in input to be divisible "
                           f"by num_groups, but got input of shape {list(shape)} and "
                           f"num_groups={num_groups}")
    if _all_half(input, weight, bias):     # torch's kernel: in float32, rounded once
        _check_affine("group_norm", input, weight, bias)
        return F.cast(group_norm(F.cast(input, dtypes.float32), num_groups, _as_float32(weight),
                                 _as_float32(bias), eps), dtypes.float16)
    group_size = math.prod(shape[1:]) // num_groups      # not -1: the batch may be empty
    out = _normalize_last(F.reshape(input, (shape[0], num_groups, group_size)), shape, eps)
    return _per_channel("group_norm", out, input, weight, bias)


@public
def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
    use_input_stats=True, momentum=0.1, eps=1e-05) -> Tensor

    y = (x - E[x]) / sqrt(Var[x] + eps) * weight + bias per sample and channel, over the
    positions of an (N, C, *) input; running stats, if given, blend in the batch's mean of
    the per-instance mean and unbiased variance. use_input_stats=False normalises with the
    running stats instead.

    >>> x = minflow.tensor([[[1.0, 3.0], [0.0, 4.0]]])
    >>> minflow.nn.functional.instance_norm(x, eps=0.0).tolist()
    [[[-1.0, 1.0], [-1.0, 1.0]]]
    """
    check_tensor("instance_norm", "input", input)
    if input.ndim < 3:
        raise RuntimeError(f"instance_norm: expected input of shape (N, C, L) or (N, C, H, W), "
                           f"got {getattr(input, 'shape', input)!r}")
    _check_floating("instance_norm", input)
    if not use_input_stats:
        return batch_norm(input, running_mean, running_var, weight, bias, False, momentum, eps)
    shape = tuple(input.shape)
    positions = input.numel() // max(shape[0] * shape[1], 1)
    if positions <= 1:
        raise ValueError(f"instance_norm: Expected more than 1 spatial element when training, "
                         f"got input size {list(shape)}")
    _check_affine("instance_norm", input, weight, bias)
    flat = F.reshape(input, shape[:2] + (-1,))
    if _all_half(input, weight, bias):
        out = _instance_as_batch_norm(input, weight, bias, eps)
    else:
        out = _per_channel("instance_norm", _normalize_last(flat, shape, eps), input, weight,
                           bias)
    if (running_mean is None) != (running_var is None):
        raise ValueError("instance_norm: running_mean and running_var must either both be None "
                         "or neither be None")
    if running_mean is not None:
        with no_grad():
            stats = flat.detach()
            for running, stat in ((running_mean, F.mean(stats, -1)),
                                  (running_var, F.var(stats, -1))):
                if running is not None:
                    running.copy_(F.add(F.mul(running, 1.0 - momentum),
                                        F.mul(F.mean(stat, 0), momentum)))
    return out


def _instance_as_batch_norm(input, weight, bias, eps):
    """instance_norm as torch's kernel computes it: batch_norm in training mode over the
    (1, N * C, *) view, weight and bias repeated per sample; for float16 that rounds the
    statistics as torch's batch_norm does (see kernels/generic/nn.py)."""
    n, c = input.shape[:2]

    def repeated(t):
        return None if t is None else F.reshape(F.expand(F.unsqueeze(t, 0), (n, c)), (n * c,))
    shape = tuple(input.shape)
    out = batch_norm(F.reshape(input, (1, n * c) + shape[2:]), None, None, repeated(weight),
                     repeated(bias), True, 0.0, eps)
    return F.reshape(out, shape)


@public
def rms_norm(input, normalized_shape, weight=None, eps=None):
    """rms_norm(input, normalized_shape, weight=None, eps=None) -> Tensor

    y = x / sqrt(mean(x^2) + eps) * weight, the mean over the trailing dims given by
    ``normalized_shape``; eps=None takes the machine epsilon of the computing dtype
    (float16 inputs compute in float32, as torch). y has the input's dtype.

    >>> x = minflow.tensor([[3.0, -4.0]])
    >>> [round(v, 4) for v in minflow.nn.functional.rms_norm(x, (2,)).flatten().tolist()]
    [0.8485, -1.1314]
    """
    _check_floating("rms_norm", input)
    shape = check_shape("rms_norm", "normalized_shape", normalized_shape)
    _check_normalized_shape("rms_norm", input, shape, weight)
    x = F.cast(input, dtypes.float32) if input.dtype is dtypes.float16 else input
    if eps is None:
        eps = finfo(x.dtype).eps
    dims = tuple(range(-len(shape), 0))
    out = F.mul(x, F.rsqrt(F.add(F.mean(F.mul(x, x), dims, keepdim=True), eps)))
    out = F.cast(out, input.dtype)
    return out if weight is None else F.cast(F.mul(out, weight), input.dtype)


def _check_normalized_shape(fn, input, shape, weight):
    if not shape:
        raise RuntimeError(f"{fn}: Expected normalized_shape to be at least 1-dimensional, "
                           f"i.e., containing at least one element, but got "
                           f"normalized_shape = []")
    if tuple(input.shape[input.ndim - len(shape):]) != shape or input.ndim < len(shape):
        raise RuntimeError(f"{fn}: Given normalized_shape={list(shape)}, expected input with "
                           f"shape [*, {str(list(shape))[1:-1]}], but got input of size "
                           f"{list(input.shape)}")
    if weight is not None and tuple(weight.shape) != shape:
        raise RuntimeError(f"{fn}: Expected weight to be of same shape as normalized_shape, "
                           f"but got weight of shape {list(weight.shape)} and "
                           f"normalized_shape = {list(shape)}")


@public
def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """local_response_norm(input, size, alpha=0.0001, beta=0.75, k=1.0) -> Tensor

    Normalise each element by its neighbours across channels (dim 1) of an (N, C, *)
    input: out = x / (k + alpha / size * sum of x^2 over the ``size`` channels around
    c)^beta, the window running from c - size // 2 to c + (size - 1) // 2 (zeros outside).

    >>> x = minflow.tensor([[[2.0], [0.0]]])
    >>> minflow.nn.functional.local_response_norm(x, 2, alpha=0.5, beta=1.0).flatten().tolist()
    [1.0, 0.0]
    """
    if input.ndim < 3:
        raise ValueError(f"local_response_norm: Expected 3D or higher dimensionality input "
                         f"(got {input.ndim} dimensions)")
    _check_floating("local_response_norm", input)
    size = check_int("local_response_norm", "size", size)
    if input.numel() == 0:
        return input
    shape = tuple(input.shape)
    squares = F.reshape(F.mul(input, input), (shape[0], 1, shape[1], -1))
    padded = pad(squares, (0, 0, size // 2, (size - 1) // 2))
    div = F.reshape(avg_pool2d(padded, (size, 1), stride=1), shape)
    return F.div(input, F.pow(F.add(F.mul(div, alpha), k), beta))

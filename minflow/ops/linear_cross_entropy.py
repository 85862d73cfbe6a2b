"""linear_cross_entropy: cross_entropy of a linear projection, as torch 2.13's
nn.functional.linear_cross_entropy, and the LinearCrossEntropyOptions it takes.

torch's ``options`` select a chunked computation that never holds all the logits at once
(less memory, the same values up to rounding). minflow accepts them, with torch's checks and
its warning where they would be ignored, and always computes the reference form
cross_entropy(linear(input, linear_weight, linear_bias), target).
"""
import dataclasses
import math
import warnings

from ..core import dtype as dtypes
from ..core.functional import public
from ..core.namespace import F

__all__ = ["linear_cross_entropy", "LinearCrossEntropyOptions"]


@dataclasses.dataclass(frozen=True)
class LinearCrossEntropyOptions:
    """torch's chunking options of linear_cross_entropy (accepted; minflow computes the
    loss unchunked whatever they say).

    >>> minflow.nn.LinearCrossEntropyOptions(batch_chunk_size=64).batch_chunk_size
    64
    """

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: str = "auto"
    acc_dtype: object = None


def _check(input, linear_weight, linear_bias):
    """torch's shape checks; (batch dims, classes, out_features)."""
    if input.ndim < 1 or input.ndim > 2:
        raise RuntimeError(f"linear_cross_entropy: expected input with dimensionality 1 or 2, got {input.ndim}")
    if linear_weight.ndim < 2:
        raise RuntimeError(f"linear_cross_entropy: expected linear_weight with dimensionality at least 2, got "
                           f"{linear_weight.ndim}")
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError(f"linear_cross_entropy: expected equal input and linear_weight last dimensions "
                           f"(in_features), got {in_features} and {linear_weight.shape[-1]}, "
                           f"respectively")
    classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (classes, *out_features):
        raise RuntimeError(f"linear_cross_entropy: expected linear_bias shape {(classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if out_features and input.ndim == 1:
        raise RuntimeError(f"linear_cross_entropy: K-dimensional loss defined by linear_weight shape "
                           f"{tuple(linear_weight.shape)} requires batched input, (N, "
                           f"{in_features}), got unbatched input with shape "
                           f"{tuple(input.shape)}")
    return tuple(input.shape[:-1]), classes, out_features


@public
def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction="mean", ignore_index=None, label_smoothing=0.0,
                         options=None):
    """linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
    reduction='mean', ignore_index=None, label_smoothing=0.0, options=None) -> Tensor

    cross_entropy(linear(input, linear_weight, linear_bias), target, ...): ``input`` (N,
    in_features) or (in_features,); ``linear_weight`` (C, in_features), or (C, d_1, ...,
    d_K, in_features) for a K-dimensional loss whose logits are (N, C, d_1, ..., d_K).
    ``ignore_index`` None means -100 (and must be None for class-probability targets).
    ``options`` (LinearCrossEntropyOptions) is accepted and checked as torch's, but the
    loss is always computed unchunked, all logits at once.

    >>> x, w = minflow.ones(2, 3), minflow.zeros(4, 3)
    >>> round(minflow.nn.functional.linear_cross_entropy(x, w, minflow.tensor([0, 2])).item(), 4)
    1.3863
    """
    batch, classes, out_features = _check(input, linear_weight, linear_bias)
    logits_shape = (*batch, classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains "
                           "probabilities")
    ignore_index = -100 if ignore_index is None else ignore_index
    if options is not None and (out_features or reduction not in ("mean", "sum", "none")
                                or label_smoothing != 0.0 or target.dtype is not dtypes.int64):
        shape = None if linear_bias is None else tuple(linear_bias.shape)
        warnings.warn(f"linear_cross_entropy: ``options`` ignored; chunked path needs "
                      f"reduction in {{'mean','sum','none'}}, label_smoothing == 0, "
                      f"target.dtype == int64, out_features == (). Got "
                      f"reduction={reduction!r}, label_smoothing={label_smoothing}, "
                      f"target.dtype={target.dtype}, out_features={out_features}, "
                      f"tracing=False, linear_bias.shape={shape}.", stacklevel=2)
    if out_features:
        flat = math.prod(out_features, start=classes)
        linear_weight = F.reshape(linear_weight, (flat, input.shape[-1]))
        if linear_bias is not None:
            linear_bias = F.reshape(linear_bias, (flat,))
    logits = F.reshape(F.linear(input, linear_weight, linear_bias), logits_shape)
    return F.cross_entropy(logits, target, weight=weight, reduction=reduction,
                           ignore_index=ignore_index, label_smoothing=label_smoothing)

"""LinearCrossEntropyLoss, as torch 2.13's: a Linear layer and cross_entropy in one module
(nn.functional.linear_cross_entropy)."""
import math

from ...core.namespace import F
from ...ops.infer import check_number
from ...ops.linear_cross_entropy import LinearCrossEntropyOptions
from .linear import Linear
from .loss import _WeightedLoss

__all__ = ["LinearCrossEntropyLoss", "LinearCrossEntropyOptions"]


class LinearCrossEntropyLoss(_WeightedLoss):
    """LinearCrossEntropyLoss(in_features, num_classes, *, out_features=(), bias=False,
    device=None, dtype=None, reduction='mean', weight=None, ignore_index=None,
    label_smoothing=0.0, options=None)

    The cross entropy of ``linear(input)`` against ``target``: the weight is kept as one
    Linear(in_features, num_classes * prod(out_features)) (``self.linear``), reshaped to
    (num_classes, *out_features, in_features) for linear_cross_entropy. ``options`` is
    accepted; the loss is computed unchunked.

    >>> loss = minflow.nn.LinearCrossEntropyLoss(3, 4)
    >>> _ = loss.linear.weight.data.zero_()
    >>> round(loss(minflow.ones(2, 3), minflow.tensor([0, 2])).item(), 4)
    1.3863
    """

    def __init__(self, in_features, num_classes, *, out_features=(), bias=False, device=None,
                 dtype=None, reduction="mean", weight=None, ignore_index=None,
                 label_smoothing=0.0, options=None):
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got "
                               f"{tuple(weight.shape)}")
        check_number("LinearCrossEntropyLoss", "label_smoothing", label_smoothing)
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError(f"expected label_smoothing to be in range [0, 1], got "
                               f"{label_smoothing}")
        super().__init__(weight=weight, reduction=reduction)
        self.num_classes, self.out_features = num_classes, tuple(out_features)
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing
        self.linear = Linear(in_features, math.prod(self.out_features, start=num_classes),
                             bias=bias, device=device, dtype=dtype)
        self.options = options

    def forward(self, input, target):
        weight = F.reshape(self.linear.weight, (self.num_classes, *self.out_features,
                                                self.linear.in_features))
        bias = None if self.linear.bias is None else \
            F.reshape(self.linear.bias, (self.num_classes, *self.out_features))
        return F.linear_cross_entropy(input, weight, target, linear_bias=bias,
                                      weight=self.weight, reduction=self.reduction,
                                      ignore_index=self.ignore_index,
                                      label_smoothing=self.label_smoothing,
                                      options=self.options)

    def extra_repr(self):
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
                f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
                f"label_smoothing={self.label_smoothing}, options={self.options}")

"""Loss kernels, written once against the array module (numpy or cupy)."""
import numpy as np

from ...core.dtype import FLOATS
from ..registry import register_kernel


def _check_targets(xp, target, kept, classes, ignore_index):
    bad = kept & ((target < 0) | (target >= classes))
    if bool(bad.any()):
        value = int(target[bad].ravel()[0])
        raise IndexError(f"nll_loss: target {value} is out of bounds: expected a class index "
                         f"in [0, {classes}) with C = {classes}, or ignore_index "
                         f"({ignore_index})")


@register_kernel("nll_loss", ("cpu", "cuda"), FLOATS)
def nll_loss(xp, input, target, weight, ignore_index, reduction):
    axis = 1 if input.ndim >= 2 else 0
    classes = input.shape[axis]
    kept = target != ignore_index
    _check_targets(xp, target, kept, classes, ignore_index)
    safe = xp.where(kept, target, 0)
    picked = xp.take_along_axis(input, xp.expand_dims(safe, axis), axis).squeeze(axis)
    w = xp.ones(safe.shape, input.dtype) if weight is None else weight[safe]
    w = xp.where(kept, w, 0)
    # where, not a product: an ignored slot may hold -inf and must still give 0
    with _quiet(xp):
        loss = xp.where(kept, -picked * w, 0)
    if reduction == "none":
        return loss.astype(input.dtype, copy=False)
    total = loss.sum()
    if reduction == "sum":
        return total
    with _quiet(xp):
        return xp.true_divide(total, w.sum())   # 0 / 0 = nan when every target is ignored


def _quiet(xp):
    # numpy warns on log(0) and 0 / 0 (both meant here); cupy never warns
    return np.errstate(divide="ignore", invalid="ignore")


@register_kernel("binary_cross_entropy", ("cpu", "cuda"), FLOATS)
def binary_cross_entropy(xp, input, target):
    if not bool(((input >= 0) & (input <= 1)).all()):     # NaN fails too, as torch
        raise RuntimeError("binary_cross_entropy: all elements of input should be between "
                           "0 and 1")
    with _quiet(xp):
        log_x = xp.maximum(xp.log(input), -100)
        log_1mx = xp.maximum(xp.log1p(-input), -100)
    return -(target * log_x + (1 - target) * log_1mx)


@register_kernel("binary_cross_entropy_with_logits", ("cpu", "cuda"), FLOATS)
def binary_cross_entropy_with_logits(xp, input, target, pos_weight):
    # softplus(-x) = log(1 + e^-x) = max(-x, 0) + log1p(e^-|x|): no exp overflows
    softplus_neg = xp.maximum(-input, 0) + xp.log1p(xp.exp(-xp.abs(input)))
    if pos_weight is None:
        return (1 - target) * input + softplus_neg
    return (1 - target) * input + (1 + (pos_weight - 1) * target) * softplus_neg

"""Loss kernels, written once against the array module (numpy or cupy)."""
import numpy as np

from ...core.dtype import FLOATS
from ..registry import register_kernel
from .activation import half_log_softmax


def _check_targets(xp, target, kept, classes, ignore_index):
    bad = kept & ((target < 0) | (target >= classes))
    if bool(bad.any()):
        value = int(target[bad].ravel()[0])
        raise IndexError(f"nll_loss: target {value} is out of bounds: expected a class index "
                         f"in [0, {classes}) with C = {classes}, or ignore_index "
                         f"({ignore_index})")


def _kept_targets(xp, input, target, weight, ignore_index):
    """(kept mask, targets with ignored ones set to class 0, weight per target, 0 where
    ignored); (None, target, None) where every target is kept and there is no weight."""
    classes = input.shape[1 if input.ndim >= 2 else 0]
    # NOTE: the common case in one reduction, with no mask arithmetic: every target is a
    # class index, and ignore_index (-100 by default) none of them. Read as unsigned, a
    # negative target is huge, so `max < classes` checks both bounds at once.
    if (weight is None and target.size and not 0 <= ignore_index < classes
            and int(_as_unsigned(target).max()) < classes):
        return None, target, None
    kept = target != ignore_index
    _check_targets(xp, target, kept, classes, ignore_index)
    safe = xp.where(kept, target, 0)
    w = kept.astype(input.dtype) if weight is None else xp.where(kept, weight[safe], 0)
    return kept, safe, w


def _as_unsigned(target):
    """The integer array ``target`` viewed as unsigned (same bits); bools stay as they are."""
    return target.view(f"u{target.itemsize}") if target.dtype.kind == "i" else target


def _at_targets(xp, input, safe):
    """input[n, safe[n], ...]: the class dim (1, or 0 for a 1-D input) indexed by ``safe``.

    NOTE: (N, C) by plain fancy indexing, a few times faster than take_along_axis."""
    if input.ndim == 2:
        return (xp.arange(input.shape[0]), safe)
    if input.ndim == 1:
        return (safe,)
    # an open grid, as np.indices(sparse=True), which cupy lacks
    grid = [xp.arange(size).reshape([size if j == i else 1 for j in range(safe.ndim)])
            for i, size in enumerate(safe.shape)]
    return tuple(grid[:1] + [safe] + grid[1:])


def _row_max(xp, x, axis):
    """x.max(axis, keepdims=True).

    NOTE: numpy reduces a short last axis row by row (256 x 10 float32: 11 us); over a
    transposed copy the same max runs across rows (2 us). The max is exact either way."""
    if x.ndim == 2 and axis == 1 and x.shape[1] <= 32 and x.shape[0] > 1:
        return xp.ascontiguousarray(x.T).max(axis=0)[:, None]
    return x.max(axis=axis, keepdims=True)


def _row_sum(xp, x, axis):
    """x.sum(axis, keepdims=True).

    NOTE: for the same reason as _row_max, short rows sum as a matrix-vector product with
    ones (256 x 10 float32: 1.3 us instead of 6); BLAS adds in another order than numpy's
    pairwise sum, a difference of a few ulps in the total."""
    if x.ndim == 2 and axis == 1 and x.shape[1] <= 32 and x.shape[0] > 1:
        return (x @ xp.ones(x.shape[1], x.dtype))[:, None]
    return x.sum(axis=axis, keepdims=True)


@register_kernel("nll_loss", ("cpu", "cuda"), FLOATS)
def nll_loss(xp, input, target, weight, ignore_index, reduction):
    kept, safe, w = _kept_targets(xp, input, target, weight, ignore_index)
    picked = input[_at_targets(xp, input, safe)]
    if w is None:
        loss = xp.negative(picked)
    else:
        # where, not a product: an ignored slot may hold -inf and must still give 0
        with _quiet(xp):
            loss = xp.where(kept, -picked * w, 0)
    if reduction == "none":
        return loss.astype(input.dtype, copy=False)
    if input.dtype == xp.float16:
        return _half_reduce(xp, loss, kept, None if weight is None else w, reduction)
    total = loss.sum()
    if reduction == "sum":
        return total
    if w is None:       # every target kept, and at least one
        return xp.true_divide(total, input.dtype.type(target.size))
    with _quiet(xp):    # 0 / 0 = nan when every target is ignored
        return xp.true_divide(total, w.sum())


# ---- float16 sums as torch's cpu kernel: in float16, 16 terms at a time --------------------
# NOTE: torch's cpu nll_loss keeps float16 running sums in a cascade of 8 levels: each kept
# target adds its term to level 0, and at a kept target whose flat index is a multiple of
# 16**(j+1), level j is added into level j+1 and cleared; the result adds up the levels in
# order. Every addition rounds to float16, so the same additions are made here, in order.

def _half_reduce(xp, loss, kept, w, reduction):
    flat_kept = None if kept is None else kept.reshape(-1)
    total = _cascade_sum(xp, loss.reshape(-1), flat_kept)
    if reduction == "sum":
        return total
    if w is None:       # the count of kept targets, rounded to float16 as torch's
        weights = xp.float16(loss.size if kept is None else int(kept.sum()))
    else:
        weights = _cascade_sum(xp, w.reshape(-1), flat_kept)
    with _quiet(xp):    # 0 / 0 = nan when every target is ignored
        return xp.true_divide(total, weights)


def _cascade_sum(xp, terms, kept, levels=8, step=16):
    """The float16 sum of ``terms`` (0 where not ``kept``) by torch's cascade."""
    index = xp.arange(terms.size)
    flush = index % step == 0 if kept is None else kept & (index % step == 0)
    total = xp.zeros((), xp.float16)
    for level in range(1, levels):
        terms, rest = _segment_sums(xp, terms, flush)
        total += rest                       # level j's leftover, added in level order
        index = index[flush]
        flush = index % step ** (level + 1) == 0
    _, rest = _segment_sums(xp, terms, xp.zeros(terms.size, bool))
    return total + rest


def _segment_sums(xp, terms, ends):
    """(the sums of the runs of ``terms`` that end where ``ends`` is set, the sum of the
    terms after the last end), each added left to right in float16."""
    bounds = xp.concatenate([xp.zeros(1, xp.int64), xp.flatnonzero(ends) + 1,
                             xp.full(1, terms.size, xp.int64)])
    starts, lengths = bounds[:-1], bounds[1:] - bounds[:-1]
    sums = xp.zeros(lengths.size, xp.float16)
    for offset in range(int(lengths.max())):
        live = lengths > offset
        sums[live] += terms[starts[live] + offset]
    return sums[:-1], sums[-1]


@register_kernel("cross_entropy", ("cpu", "cuda"), FLOATS)
def cross_entropy(xp, input, target, weight, ignore_index, reduction):
    """nll_loss of log_softmax along the class dim; the log-probabilities are an output too,
    for backward."""
    axis = 1 if input.ndim >= 2 else 0
    if input.dtype == xp.float16:       # torch's float16 log_softmax, then its nll_loss
        log_prob = half_log_softmax(xp, input, axis).astype(xp.float16)
    else:
        log_prob = input - _row_max(xp, input, axis)     # max 0: exp can't overflow
        log_prob -= xp.log(_row_sum(xp, xp.exp(log_prob), axis))
    return nll_loss(xp, log_prob, target, weight, ignore_index, reduction), log_prob


@register_kernel("cross_entropy_grad", ("cpu", "cuda"), FLOATS)
def cross_entropy_grad(xp, grad_out, log_prob, target, weight, ignore_index, reduction):
    """(softmax - onehot(target)) * weight[target] * grad_out, divided by the summed kept
    weights for 'mean'."""
    axis = 1 if log_prob.ndim >= 2 else 0
    kept, safe, w = _kept_targets(xp, log_prob, target, weight, ignore_index)
    scale = grad_out if w is None else w * grad_out
    if reduction == "mean" and w is None:       # every target kept, and at least one
        scale = xp.true_divide(scale, log_prob.dtype.type(target.size))
    elif reduction == "mean":
        with _quiet(xp):
            scale = xp.true_divide(scale, w.sum())      # 0 / 0 = nan when all are ignored
        scale = xp.where(kept, scale, 0).astype(log_prob.dtype, copy=False)  # as torch: 0
    grad = xp.exp(log_prob)
    grad *= scale if scale.ndim == 0 else xp.expand_dims(scale, axis)
    if grad.ndim == 2 and grad.size:
        # NOTE: one flat index per row (row * C + target) is ~1.6x faster than grad[rows,
        # target] for the gather and scatter of `-=`; grad is a fresh contiguous array
        rows, classes = grad.shape
        flat = grad.reshape(-1)
        flat[xp.arange(0, rows * classes, classes) + safe] -= scale
    else:
        grad[_at_targets(xp, grad, safe)] -= scale
    return grad


def _quiet(xp):
    # numpy warns on log(0) and 0 / 0 (both meant here); cupy never warns
    return np.errstate(divide="ignore", invalid="ignore")


@register_kernel("binary_cross_entropy", ("cpu", "cuda"), FLOATS)
def binary_cross_entropy(xp, input, target):
    if not bool(((input >= 0) & (input <= 1)).all()):     # NaN fails too, as torch
        raise RuntimeError("binary_cross_entropy: all elements of input should be between "
                           "0 and 1")
    if not bool(((target >= 0) & (target <= 1)).all()):
        raise RuntimeError("binary_cross_entropy: all elements of target should be between "
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

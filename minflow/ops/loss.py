"""Losses, with PyTorch's signatures (minflow.nn.functional takes ``__all__``).

Ops where stability or torch's exact gradient needs them:
  nll_loss                          the gather of -input[target] and its reduction
  binary_cross_entropy              unreduced, logs clamped to >= -100
  binary_cross_entropy_with_logits  unreduced, stable softplus form
Kernels live in kernels/generic/loss.py, grad functions in autograd/grads/loss.py.
The rest are composites of differentiable ops (log_softmax, where, sum, ...).
scaled_dot_product_attention lives in ops/nn.py.
"""
import warnings

import numpy as np

from ..core import dtype as dtypes
from ..core.dispatch import apply
from ..core.functional import public
from ..core.namespace import F
from ..core.tensor import Tensor
from . import infer
from .opmath import in_float32
from .registry import Attr, Input, define_op

__all__ = ["cross_entropy", "nll_loss", "mse_loss", "l1_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "smooth_l1_loss", "huber_loss", "kl_div",
           "soft_margin_loss", "margin_ranking_loss"]

_REDUCTIONS = ("none", "mean", "sum")


def _reduction(name, size_average, reduce, reduction):
    """The reduction string; the deprecated size_average/reduce flags win when given."""
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        return ("mean" if size_average else "sum") if reduce else "none"
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{name}: reduction must be one of {list(_REDUCTIONS)}, "
                         f"got {reduction!r}")
    return reduction


def _reduce(loss, reduction):
    if reduction == "mean":
        return F.mean(loss)
    return F.sum(loss) if reduction == "sum" else loss


# ---- nll_loss: out = -weight[t] * input[n, t, ...], ignore_index skipped ----------------

def _class_dim(input):
    return 1 if input.ndim >= 2 else 0


def _check_weight(name, input, weight, classes):
    if weight is None:
        return
    if weight._data.shape != (classes,):
        raise RuntimeError(f"{name}: expected weight of shape [{classes}] (one per class), "
                           f"got {list(weight._data.shape)}")
    if weight.dtype is not input.dtype:
        raise RuntimeError(f"{name}: expected weight of dtype {input.dtype.name} (as input), "
                           f"got {weight.dtype.name}")


def _nll_infer(input, target, weight, ignore_index, reduction):
    infer.check_dtype(input, dtypes.FLOATS)
    # NOTE: torch's (N, C) kernel also takes uint8 targets; its (N, C, d1, ...) one does not
    if target.dtype is not dtypes.int64 and not (target.dtype is dtypes.uint8
                                                 and input.ndim <= 2):
        also = " (or uint8 for (N, C) input)" if input.ndim <= 2 else ""
        raise RuntimeError(f"expected target of dtype int64{also} (class indices), got "
                           f"{target.dtype.name}")
    shape, tshape = tuple(input._data.shape), tuple(target._data.shape)
    _check_target_shape(shape, tshape)
    _check_weight("nll_loss", input, weight, shape[_class_dim(input)])
    return (tshape if reduction == "none" else ()), input.dtype


def _check_target_shape(shape, tshape):
    """torch's checks (and error classes) of class-index targets against input's shape."""
    if not shape:
        raise ValueError("Expected 1 or more dimensions (got 0)")
    if len(shape) == 1:
        if len(tshape) > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if tshape:      # the public functions pass a 0-d target for a 1-D input
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target "
                             f"size: {tshape[0]}")
        return
    batch = tshape[0] if tshape else 0
    if shape[0] != batch:
        raise ValueError(f"Expected input batch_size ({shape[0]}) to match target batch_size "
                         f"({batch}).")
    if len(shape) == 2 and len(tshape) != 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    expected = shape[:1] + shape[2:]
    if tshape != expected:
        raise RuntimeError(f"Expected target size {list(expected)}, got {list(tshape)}")


def _one_target(input, target):
    """A 1-D input's target as torch takes it: 0-d, or 1-D of one element (made 0-d)."""
    if input.ndim == 1 and target.ndim == 1 and target.shape[0] == 1:
        return F.reshape(target, ())
    return target


NLL_LOSS = define_op(
    "nll_loss", [Input("input"), Input("target"), Input("weight", optional=True)],
    infer=_nll_infer, attrs=[Attr("ignore_index", "int", -100),
                             Attr("reduction", "str", "mean", choices=_REDUCTIONS)],
    traits=("opaque", "no_side_effect"),
    doc="-weight[t] * input[n, t, ...] per target t (class dim 1); targets equal to "
        "ignore_index give 0; 'mean' divides by the summed weights of the kept targets.")


@public
def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """nll_loss(input, target, weight=None, size_average=None, ignore_index=-100,
    reduce=None, reduction='mean') -> Tensor

    Negative log likelihood of log-probabilities ``input`` (C), (N, C) or (N, C, d1, ...)
    at the int64 class indices ``target``: loss_n = -weight[t_n] * input[n, t_n].
    'mean' divides the sum by sum_n weight[t_n] over targets not equal to ``ignore_index``.

    >>> logp = minflow.tensor([[-0.5, -1.0], [-2.0, -0.1]])
    >>> round(minflow.nn.functional.nll_loss(logp, minflow.tensor([0, 1])).item(), 4)
    0.3
    """
    reduction = _reduction("nll_loss", size_average, reduce, reduction)
    return apply(NLL_LOSS, (input, _one_target(input, target), weight),
                 {"ignore_index": ignore_index, "reduction": reduction})


# ---- cross_entropy: nll_loss of log_softmax, or soft (probability) targets ---------------

def _cross_entropy_infer(input, target, weight, ignore_index, reduction):
    try:
        shape, dtype = _nll_infer(input, target, weight, ignore_index, reduction)
    except (RuntimeError, TypeError) as err:    # the checks are nll_loss's: say so
        raise type(err)(f"nll_loss: {err}") from None
    return [(shape, dtype), (input._data.shape, dtype)]


def _cross_entropy_grad_infer(grad_out, log_prob, target, weight, ignore_index, reduction):
    return log_prob._data.shape, log_prob.dtype


# NOTE: class-index targets without label smoothing (the common case) take this fused op
# for speed: one kernel each way, where log_softmax + nll_loss backward runs ~17 ops.
_CE_ATTRS = [Attr("ignore_index", "int", -100),
             Attr("reduction", "str", "mean", choices=_REDUCTIONS)]
CROSS_ENTROPY = define_op(
    "cross_entropy", [Input("input"), Input("target"), Input("weight", optional=True)],
    outputs=("out", "log_prob"), infer=_cross_entropy_infer, attrs=_CE_ATTRS,
    traits=("opaque", "no_side_effect"),
    doc="nll_loss(log_softmax(input, class dim), target, weight) for class indices; "
        "log_prob (the log_softmax) is an output too, kept for backward.")
CROSS_ENTROPY_GRAD = define_op(
    "cross_entropy_grad", [Input("grad_out"), Input("log_prob"), Input("target"),
                           Input("weight", optional=True)],
    infer=_cross_entropy_grad_infer, attrs=_CE_ATTRS, traits=("opaque", "no_side_effect"),
    doc="cross_entropy's input grad: (softmax - onehot(target)) * weight[target] * grad_out, "
        "divided by the summed kept weights for 'mean'.")


@public
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    """cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
    reduce=None, reduction='mean', label_smoothing=0.0) -> Tensor

    Cross entropy of logits ``input`` (C), (N, C) or (N, C, d1, ...) against int64 class
    indices or class probabilities of input's shape:
    loss_n = -sum_c weight_c * q_nc * log_softmax(input)_nc, where q is the one-hot (or given)
    target mixed with the uniform distribution: q = (1 - label_smoothing) q + label_smoothing/C.

    >>> x = minflow.tensor([[0.0, 0.0]])
    >>> round(minflow.nn.functional.cross_entropy(x, minflow.tensor([1])).item(), 4)
    0.6931
    """
    reduction = _reduction("cross_entropy", size_average, reduce, reduction)
    if label_smoothing > 1.0:
        raise RuntimeError(f"cross_entropy: label_smoothing must be between 0.0 and 1.0. "
                           f"Got: {label_smoothing}")
    if not label_smoothing > 0.0:       # as torch: a negative (or nan) smoothing is none
        label_smoothing = 0.0
    if input.ndim == 0:
        raise RuntimeError("cross_entropy: expected input of shape (C,), (N, C) or "
                           "(N, C, d1, ...), got []")
    if target.dtype.is_floating_point and ignore_index != -100:
        raise RuntimeError("cross_entropy: ignore_index is not supported for floating point "
                           "target")
    target = _one_target(input, target)
    if label_smoothing == 0.0 and not target.dtype.is_floating_point:
        out, _ = apply(CROSS_ENTROPY, (input, target, weight),
                       {"ignore_index": ignore_index, "reduction": reduction})
        return out
    cdim = _class_dim(input)
    logp = F.log_softmax(input, cdim)
    if target.dtype.is_floating_point:
        return _soft_cross_entropy(logp, target, weight, reduction, label_smoothing, cdim)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing == 0.0:
        return nll
    smooth = _smoothing_term(logp, target, weight, ignore_index, reduction, cdim)
    return F.add(F.mul(nll, 1.0 - label_smoothing),
                 F.mul(smooth, label_smoothing / input.shape[cdim]))


def _class_view(weight, ndim, cdim):
    """weight (C,) shaped to broadcast along the class dim of an ndim-d input."""
    shape = [1] * ndim
    shape[cdim] = weight.shape[0]
    return F.reshape(weight, tuple(shape))


def _smoothing_term(logp, target, weight, ignore_index, reduction, cdim):
    """-sum_c weight_c logp_c per sample (0 where ignored), reduced as torch does."""
    kept = F.ne(target, ignore_index)
    per_class = logp if weight is None else F.mul(logp, _class_view(weight, logp.ndim, cdim))
    smooth = F.where(kept, F.neg(F.sum(per_class, cdim)), 0.0)
    if reduction == "none":
        return smooth
    total = F.sum(smooth)
    if reduction == "sum":
        return total
    if weight is None:
        return F.div(total, F.sum(kept))
    # the kept targets' weights, as nll_loss's 'mean' divides by them
    safe = F.where(kept, target, 0)
    hits = F.eq(F.unsqueeze(safe, cdim),
                _class_view(F.arange(weight.shape[0], device=target.device), logp.ndim, cdim))
    picked = F.sum(F.where(hits, _class_view(weight, logp.ndim, cdim), 0.0), cdim)
    return F.div(total, F.sum(F.where(kept, picked, 0.0)))


def _soft_cross_entropy(logp, target, weight, reduction, label_smoothing, cdim):
    if tuple(target.shape) != tuple(logp.shape):
        # NOTE: torch takes a target of another shape for class indices, whose first
        # check is the batch size
        if logp.ndim > 1 and target.ndim and target.shape[0] != logp.shape[0]:
            raise ValueError(f"cross_entropy: Expected input batch_size ({logp.shape[0]}) to "
                             f"match target batch_size ({target.shape[0]}).")
        raise RuntimeError(f"cross_entropy: probability targets must have the shape of "
                           f"input {list(logp.shape)}, got {list(target.shape)}")
    if weight is not None:
        _check_weight("cross_entropy", logp, weight, logp.shape[cdim])
    classes = logp.shape[cdim]
    if label_smoothing > 0.0:
        target = F.add(F.mul(target, 1.0 - label_smoothing), label_smoothing / classes)
    terms = F.mul(logp, target)
    if weight is not None:
        terms = F.mul(terms, _class_view(weight, logp.ndim, cdim))
    if reduction == "none":
        return F.neg(F.sum(terms, cdim))
    total = F.neg(F.sum(terms))
    if reduction == "sum":
        return total
    samples = logp.numel() // classes if classes else 0
    return F.div(total, samples) if samples else F.mul(total, float("nan"))


# ---- binary cross entropy on probabilities and on logits ----------------------------------

def _same_shape(name, input, target):
    if tuple(target._data.shape) != tuple(input._data.shape):
        raise ValueError(f"{name}: expected target of the input's size {list(input.shape)}, "
                         f"got target size {list(target.shape)}")


def _bce_infer(input, target):
    infer.check_dtype(input, dtypes.FLOATS)
    infer.check_dtype(target, dtypes.FLOATS, "target")
    _same_shape("binary_cross_entropy", input, target)
    return input._data.shape, dtypes.result_type(input, target)


BCE = define_op("binary_cross_entropy", ["input", "target"], infer=_bce_infer,
                traits=("elementwise", "no_side_effect"), promote="out",
                doc="Unreduced -(t * max(log x, -100) + (1 - t) * max(log(1 - x), -100)); "
                    "x must lie in [0, 1].")


def _bce_logits_infer(input, target, pos_weight):
    infer.check_dtype(input, dtypes.FLOATS)
    infer.check_dtype(target, dtypes.FLOATS, "target")
    _same_shape("binary_cross_entropy_with_logits", input, target)
    if pos_weight is not None:
        shape = infer.broadcast_shapes(input._data.shape, pos_weight._data.shape)
        if shape != tuple(input._data.shape):
            raise RuntimeError(f"pos_weight of shape {list(pos_weight.shape)} must broadcast "
                               f"to the input's shape {list(input.shape)}")
    dtype = dtypes.result_type(*(x for x in (input, target, pos_weight) if x is not None))
    return input._data.shape, dtype


BCE_LOGITS = define_op(
    "binary_cross_entropy_with_logits", ["input", "target", Input("pos_weight", optional=True)],
    infer=_bce_logits_infer, traits=("elementwise", "broadcast", "no_side_effect"),
    promote="out", doc="Unreduced (1 - t) x + (1 + (pos_weight - 1) t) softplus(-x), "
                       "computed without overflow.")


@public
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
    reduction='mean') -> Tensor

    loss = -weight * (t log x + (1 - t) log(1 - x)) for probabilities x in [0, 1], each log
    clamped to >= -100 (as PyTorch, so x = 0 or 1 gives a finite loss).

    >>> x = minflow.tensor([0.5, 0.5])
    >>> round(minflow.nn.functional.binary_cross_entropy(x, minflow.tensor([1.0, 0.0])).item(), 4)
    0.6931
    """
    reduction = _reduction("binary_cross_entropy", size_average, reduce, reduction)
    loss = apply(BCE, (input, target), {})
    if weight is not None:
        loss = F.mul(loss, weight)
    return _reduce(loss, reduction)


@public
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction="mean", pos_weight=None):
    """binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
    reduce=None, reduction='mean', pos_weight=None) -> Tensor

    loss = -weight * (pos_weight * t log sigmoid(x) + (1 - t) log(1 - sigmoid(x))), computed
    stably from the logits x; ``pos_weight`` broadcasts along the last dims (per class).

    >>> x = minflow.tensor([0.0, 100.0])
    >>> f = minflow.nn.functional.binary_cross_entropy_with_logits
    >>> round(f(x, minflow.tensor([1.0, 1.0]), reduction='sum').item(), 4)
    0.6931
    """
    for name, x in (("input", input), ("target", target)):
        if not isinstance(x, Tensor):
            raise TypeError(f"binary_cross_entropy_with_logits: expected {name} to be a "
                            f"Tensor, got {type(x).__name__}")
    reduction = _reduction("binary_cross_entropy_with_logits", size_average, reduce, reduction)
    loss = apply(BCE_LOGITS, (input, target, pos_weight), {})
    if weight is not None:
        loss = F.mul(loss, weight)
    return _reduce(loss, reduction)


# ---- regression losses (composites) ----------------------------------------------------

def _check_floating(name, input, target):
    """Integer input and target would give an integer loss: refused, as torch does."""
    if not (input.dtype.is_floating_point or target.dtype.is_floating_point):
        raise RuntimeError(f"{name}: expected a floating point input or target, got "
                           f"{input.dtype.name} and {target.dtype.name}")


def _pointwise(name, diff_fn, input, target, size_average, reduce, reduction, weight,
               opmath=False):
    """diff_fn(input - target), weighted and reduced; with ``opmath``, float16 computes
    the elementwise loss in float32, rounded once, as torch's kernel."""
    reduction = _reduction(name, size_average, reduce, reduction)
    _check_floating(name, input, target)
    if tuple(target.shape) != tuple(input.shape):
        try:
            infer.broadcast_shapes(tuple(input.shape), tuple(target.shape))
        except RuntimeError:
            raise RuntimeError(f"{name}: target size {list(target.shape)} cannot be broadcast "
                               f"to input size {list(input.shape)}") from None
        warnings.warn(f"{name}: using a target size ({list(target.shape)}) that is different "
                      f"to the input size ({list(input.shape)}); this will likely lead to "
                      f"incorrect results due to broadcasting", stacklevel=3)
    if opmath:
        loss = in_float32(lambda a, b: diff_fn(F.sub(a, b)), input, target)
    else:
        loss = diff_fn(F.sub(input, target))
    if weight is None:
        return _reduce(loss, reduction)
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError(f"{name}: expected weight of the input's size {list(input.shape)}, "
                         f"got {list(weight.shape)}")
    loss = F.mul(loss, weight)
    if reduction == "mean":
        return F.div(F.sum(loss), F.sum(weight))
    return _reduce(loss, reduction)


@public
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """mse_loss(input, target, size_average=None, reduce=None, reduction='mean',
    weight=None) -> Tensor

    loss = (input - target)^2 elementwise, times ``weight`` if given ('mean' then divides
    by sum(weight)).

    >>> x, zero = minflow.tensor([1.0, 3.0]), minflow.zeros(2)
    >>> minflow.nn.functional.mse_loss(x, zero).item()
    5.0
    """
    return _pointwise("mse_loss", F.square, input, target, size_average, reduce, reduction,
                      weight)


@public
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """l1_loss(input, target, size_average=None, reduce=None, reduction='mean',
    weight=None) -> Tensor

    loss = |input - target| elementwise, times ``weight`` if given ('mean' then divides
    by sum(weight)).

    >>> x, zero = minflow.tensor([1.0, -3.0]), minflow.zeros(2)
    >>> minflow.nn.functional.l1_loss(x, zero).item()
    2.0
    """
    return _pointwise("l1_loss", F.abs, input, target, size_average, reduce, reduction, weight)


@public
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """smooth_l1_loss(input, target, size_average=None, reduce=None, reduction='mean',
    beta=1.0) -> Tensor

    loss = 0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta, d = input - target
    (beta = 0: l1_loss).

    >>> x, zero = minflow.tensor([0.5, 3.0]), minflow.zeros(2)
    >>> minflow.nn.functional.smooth_l1_loss(x, zero, reduction='sum').item()
    2.625
    """
    if beta < 0:
        raise RuntimeError(f"smooth_l1_loss: beta must be non-negative, got {beta}")
    if beta == 0:
        return _pointwise("smooth_l1_loss", F.abs, input, target, size_average, reduce,
                          reduction, None)
    return _pointwise("smooth_l1_loss", lambda d: _smooth_l1(d, beta), input, target,
                      size_average, reduce, reduction, None)


@public
def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """huber_loss(input, target, reduction='mean', delta=1.0, weight=None) -> Tensor

    loss = 0.5 d^2 where |d| <= delta, else delta (|d| - 0.5 delta), d = input - target;
    times ``weight`` if given ('mean' then divides by sum(weight)).

    >>> x, zero = minflow.tensor([0.5, 3.0]), minflow.zeros(2)
    >>> minflow.nn.functional.huber_loss(x, zero, reduction='sum').item()
    2.625
    """
    if delta <= 0:
        raise RuntimeError(f"huber_loss: delta must be positive, got {delta}")
    return _pointwise("huber_loss", lambda d: _huber(d, delta), input, target, None, None,
                      reduction, weight, opmath=True)


def _huber(diff, delta):
    """0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta), in torch's order."""
    size = F.abs(diff)
    return F.where(F.lt(size, delta), F.mul(F.mul(diff, 0.5), diff),
                   F.mul(F.sub(size, 0.5 * delta), delta))


def _smooth_l1(diff, beta):
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta, in the order of torch's
    kernel, which rounds each step in float16, beta too."""
    if diff.dtype is dtypes.float16:
        beta = float(np.float16(beta))
    size = F.abs(diff)
    return F.where(F.lt(size, beta), F.div(F.mul(F.mul(diff, 0.5), diff), beta),
                   F.sub(size, 0.5 * beta))


@public
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """kl_div(input, target, size_average=None, reduce=None, reduction='mean',
    log_target=False) -> Tensor

    loss = t * (log t - x) for log-probabilities x and probabilities t (0 where t = 0), or
    exp(t) * (t - x) with log_target. 'batchmean' divides the sum by the batch size
    (input.size(0)): the KL divergence proper; 'mean' divides by the element count.

    >>> logp, q = minflow.tensor([[0.0, 0.0]]).log_softmax(1), minflow.tensor([[0.5, 0.5]])
    >>> minflow.nn.functional.kl_div(logp, q, reduction='batchmean').item()
    0.0
    """
    if size_average is not None or reduce is not None:
        reduction = _reduction("kl_div", size_average, reduce, "mean")
    elif reduction not in _REDUCTIONS + ("batchmean",):
        raise ValueError(f"kl_div: reduction must be one of {list(_REDUCTIONS)} or "
                         f"'batchmean', got {reduction!r}")
    infer.check_broadcast("kl_div", input=input, target=target)
    if not (input.dtype.is_floating_point and target.dtype.is_floating_point):
        raise RuntimeError(f"kl_div: Integral inputs not supported: expected floating point "
                           f"input and target, got {input.dtype.name} and {target.dtype.name}")
    if reduction == "mean":
        warnings.warn("kl_div: reduction='mean' divides the total loss by both the batch size "
                      "and the support size; 'batchmean' divides only by the batch size, and "
                      "matches the math definition of KL divergence", stacklevel=2)
    if log_target:
        loss = F.mul(F.exp(target), F.sub(target, input))
    else:
        # as torch: xlogy(t, t) is 0 at t = 0 and nan for t < 0 (so are its grads there)
        loss = F.sub(F.xlogy(target, target), F.mul(target, input))
    if reduction == "batchmean":
        total = F.sum(loss)
        return F.div(total, input.shape[0]) if input.ndim else total
    return _reduce(loss, reduction)


@public
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """soft_margin_loss(input, target, size_average=None, reduce=None, reduction='mean')
    -> Tensor

    loss = log(1 + exp(-y x)) for labels y in {1, -1}, computed as written (as torch does:
    exp overflows to inf for -y x above ~11 in float16, ~88 in float32).

    >>> x, y = minflow.tensor([0.0]), minflow.tensor([1.0])
    >>> round(minflow.nn.functional.soft_margin_loss(x, y).item(), 4)
    0.6931
    """
    reduction = _reduction("soft_margin_loss", size_average, reduce, reduction)
    # NOTE: target broadcasts against input, as torch's (mul raises on a mismatch). Not the
    # stable softplus: torch's kernel rounds each of these steps, and its loss is inf where
    # exp overflows
    return _reduce(F.log1p(F.exp(F.mul(F.neg(input), target))), reduction)


@public
def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction="mean"):
    """margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
    reduction='mean') -> Tensor

    loss = max(0, -y (x1 - x2) + margin) for labels y in {1, -1}.

    >>> x1, x2, y = minflow.tensor([1.0, 1.0]), minflow.tensor([2.0, 0.0]), minflow.ones(2)
    >>> minflow.nn.functional.margin_ranking_loss(x1, x2, y, reduction='none').tolist()
    [1.0, 0.0]
    """
    reduction = _reduction("margin_ranking_loss", size_average, reduce, reduction)
    if not input1.ndim == input2.ndim == target.ndim:
        raise RuntimeError(f"margin_ranking_loss: All input tensors should have same dimension "
                           f"but got sizes: input1: {list(input1.shape)}, input2: "
                           f"{list(input2.shape)}, target: {list(target.shape)}")
    # NOTE: margin is a float, as torch's double: integer inputs give a float loss
    loss = F.clamp(F.add(F.neg(F.mul(target, F.sub(input1, input2))), float(margin)), min=0)
    return _reduce(loss, reduction)

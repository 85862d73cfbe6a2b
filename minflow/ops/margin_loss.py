"""Embedding and margin losses, with PyTorch's signatures and formulas (composites of
differentiable ops): hinge_embedding_loss, cosine_embedding_loss, triplet_margin_loss,
multilabel_soft_margin_loss, multi_margin_loss, multilabel_margin_loss,
triplet_margin_with_distance_loss.
minflow.nn.functional takes ``__all__``."""
from ..core import dtype as dtypes
from ..core.functional import public
from ..core.namespace import F
from ..core.tensor import Tensor
from .activation import logsigmoid
from .distance import pairwise_distance
from .loss import _reduce, _reduction

__all__ = ["hinge_embedding_loss", "cosine_embedding_loss", "triplet_margin_loss",
           "multilabel_soft_margin_loss", "multi_margin_loss", "multilabel_margin_loss",
           "triplet_margin_with_distance_loss"]


def _tensors(fn, **tensors):
    for name, t in tensors.items():
        if not isinstance(t, Tensor):
            raise TypeError(f"{fn}: expected {name} to be a Tensor, got {type(t).__name__}")


@public
def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
    reduction='mean') -> Tensor

    loss = x where y = 1, max(0, margin - x) where y = -1 (x a distance, y in {1, -1}).

    >>> x, y = minflow.tensor([0.3, 0.2]), minflow.tensor([1.0, -1.0])
    >>> minflow.nn.functional.hinge_embedding_loss(x, y, reduction='none').tolist()
    [0.30000001192092896, 0.800000011920929]
    """
    reduction = _reduction("hinge_embedding_loss", size_average, reduce, reduction)
    _tensors("hinge_embedding_loss", input=input, target=target)
    zeros = F.zeros_like(input)
    margin_term = F.where(F.ne(target, 1), F.clamp(F.sub(margin, input), min=0), zeros)
    return _reduce(F.add(margin_term, F.where(F.ne(target, -1), input, zeros)), reduction)


@public
def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):
    """cosine_embedding_loss(input1, input2, target, margin=0, size_average=None,
    reduce=None, reduction='mean') -> Tensor

    loss = 1 - cos(x1, x2) where y = 1, max(0, cos(x1, x2) - margin) where y = -1; cos over
    the last dim of (N, D) or (D,) inputs, with 1e-12 added to each squared norm (torch's).

    >>> a, b = minflow.tensor([[1.0, 0.0]]), minflow.tensor([[0.0, 1.0]])
    >>> minflow.nn.functional.cosine_embedding_loss(a, b, minflow.tensor([1.0])).item()
    1.0
    """
    reduction = _reduction("cosine_embedding_loss", size_average, reduce, reduction)
    _tensors("cosine_embedding_loss", input1=input1, input2=input2, target=target)
    if input1.ndim not in (1, 2) or tuple(input1.shape) != tuple(input2.shape) \
            or tuple(target.shape) != tuple(input1.shape)[:-1]:
        raise RuntimeError(f"cosine_embedding_loss: expected input1 and input2 of one shape "
                           f"(N, D) or (D,) and target of shape (N,) or (), got "
                           f"{list(input1.shape)}, {list(input2.shape)} and "
                           f"{list(target.shape)}")
    dim = input1.ndim - 1
    products = F.sum(F.mul(input1, input2), dim)
    squares1 = F.add(F.sum(F.mul(input1, input1), dim), 1e-12)
    squares2 = F.add(F.sum(F.mul(input2, input2), dim), 1e-12)
    cos = F.div(products, F.sqrt(F.mul(squares1, squares2)))
    zeros = F.zeros_like(cos)
    positive = F.where(F.eq(target, 1), F.sub(1, cos), zeros)
    negative = F.where(F.eq(target, -1), F.clamp(F.sub(cos, margin), min=0), zeros)
    return _reduce(F.add(positive, negative), reduction)


@public
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06,
    swap=False, size_average=None, reduce=None, reduction='mean') -> Tensor

    loss = max(0, margin + d(a, p) - d(a, n)), d the pairwise p-norm distance (with
    ``swap``, d(a, n) is replaced by min(d(a, n), d(p, n))).

    >>> a, p, n = minflow.zeros(1, 2), minflow.zeros(1, 2), minflow.tensor([[3.0, 4.0]])
    >>> minflow.nn.functional.triplet_margin_loss(a, p, n, margin=6.0, eps=0.0).item()
    1.0
    """
    reduction = _reduction("triplet_margin_loss", size_average, reduce, reduction)
    _tensors("triplet_margin_loss", anchor=anchor, positive=positive, negative=negative)
    if margin <= 0:
        raise ValueError(f"triplet_margin_loss: margin must be greater than 0, got {margin}")
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(f"triplet_margin_loss: The anchor, positive, and negative tensors "
                           f"are expected to have the same number of dimensions, but got: "
                           f"anchor {anchor.ndim}D, positive {positive.ndim}D, and negative "
                           f"{negative.ndim}D inputs")
    to_positive = pairwise_distance(anchor, positive, p, eps)
    to_negative = pairwise_distance(anchor, negative, p, eps)
    if swap:
        to_negative = F.minimum(to_negative, pairwise_distance(positive, negative, p, eps))
    return _reduce(F.clamp(F.sub(F.add(to_positive, margin), to_negative), min=0), reduction)


@public
def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """triplet_margin_with_distance_loss(anchor, positive, negative, *,
    distance_function=None, margin=1.0, swap=False, reduction='mean') -> Tensor

    loss = max(0, margin + d(a, p) - d(a, n)) with any distance function ``d`` of two
    tensors (default: pairwise_distance); ``swap`` uses min(d(a, n), d(p, n)).

    >>> a, p, n = minflow.zeros(1, 2), minflow.ones(1, 2), minflow.ones(1, 2) * 3
    >>> l1 = lambda x, y: (x - y).abs().sum(-1)
    >>> minflow.nn.functional.triplet_margin_with_distance_loss(
    ...     a, p, n, distance_function=l1, margin=5.0).item()
    1.0
    """
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"triplet_margin_with_distance_loss: {reduction} is not a valid value "
                         f"for reduction")
    if margin <= 0:
        raise ValueError(f"triplet_margin_with_distance_loss: margin must be greater than 0, "
                         f"got {margin}")
    _tensors("triplet_margin_with_distance_loss", anchor=anchor, positive=positive,
             negative=negative)
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(f"triplet_margin_with_distance_loss: The anchor, positive, and "
                           f"negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.ndim}D, positive "
                           f"{positive.ndim}D, and negative {negative.ndim}D inputs")
    distance = pairwise_distance if distance_function is None else distance_function
    to_positive, to_negative = distance(anchor, positive), distance(anchor, negative)
    if swap:
        to_negative = F.minimum(to_negative, distance(positive, negative))
    return _reduce(F.clamp(F.sub(F.add(to_positive, margin), to_negative), min=0), reduction)


@public
def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """multilabel_soft_margin_loss(input, target, weight=None, size_average=None,
    reduce=None, reduction='mean') -> Tensor

    Per sample, the mean over the C classes of -(y log sigmoid(x) + (1 - y) log
    sigmoid(-x)) (times ``weight`` per class), for targets y in {0, 1}.

    >>> x, y = minflow.zeros(1, 2), minflow.tensor([[1.0, 0.0]])
    >>> round(minflow.nn.functional.multilabel_soft_margin_loss(x, y).item(), 4)
    0.6931
    """
    reduction = _reduction("multilabel_soft_margin_loss", size_average, reduce, reduction)
    _tensors("multilabel_soft_margin_loss", input=input, target=target)
    if tuple(input.shape) != tuple(target.shape):
        raise RuntimeError(f"multilabel_soft_margin_loss: expected target of input's shape "
                           f"{list(input.shape)}, got {list(target.shape)}")
    loss = F.neg(F.add(F.mul(target, logsigmoid(input)),
                       F.mul(F.sub(1, target), logsigmoid(F.neg(input)))))
    if weight is not None:
        loss = F.mul(loss, weight)
    dim = input.ndim - 1
    return _reduce(F.div(F.sum(loss, dim), input.shape[dim]), reduction)


def _class_scores(fn, input, target):
    """input as (N, C) and target as (N, ...) with torch's checks; whether input was 0-D or
    1-D."""
    _tensors(fn, input=input, target=target)
    if not input.dtype.is_floating_point:
        raise dtypes.DTypeError(f"{fn}: expected a floating point input, got {input.dtype.name}")
    if target.dtype is not dtypes.int64:
        raise RuntimeError(f"{fn}: expected target of scalar type Long (int64), but found "
                           f"{target.dtype.name}")
    if input.ndim > 2 or input.numel() == 0:
        raise RuntimeError(f"{fn}: Expected non-empty vector or matrix with optional 0-dim "
                           f"batch size, but got: {list(input.shape)}")
    if input.ndim < 2:                  # a 0-d input is one score of one class, as torch
        return F.reshape(input, (1, -1)), True
    return input, False


def _check_range(fn, target, low, classes):
    """target's values in [low, classes), where it has values to read (not a graph tensor,
    not on the meta device)."""
    data = target._data
    if target.device.type == "meta" or getattr(data, "is_lazy", False) or not data.size:
        return
    if int(data.min()) < low or int(data.max()) >= classes:
        raise RuntimeError(f"{fn}: target out of range: expected values in [{low}, "
                           f"{classes - 1}], got {target.tolist()}")


@public
def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
    reduce=None, reduction='mean') -> Tensor

    Multi-class hinge loss of (N, C) or (C,) scores x and class indices y: per sample,
    sum over i != y of weight[y] * max(0, margin - x[y] + x[i])^p, divided by C; p is 1
    or 2.

    >>> x = minflow.tensor([[0.1, 0.2, 0.4, 0.8]])
    >>> round(minflow.nn.functional.multi_margin_loss(x, minflow.tensor([3])).item(), 4)
    0.325
    """
    reduction = _reduction("multi_margin_loss", size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError(f"multi_margin_loss: only p == 1 and p == 2 supported, got p={p}")
    if weight is not None and weight.ndim != 1:
        raise ValueError(f"multi_margin_loss: weight must be one-dimensional, got shape "
                         f"{list(weight.shape)}")
    scores, unbatched = _class_scores("multi_margin_loss", input, target)
    n, classes = scores.shape
    if target.ndim > 1 or target.numel() != n:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal "
                           f"to the number of input samples (batch size). Expected target "
                           f"size [{n}], but got {list(target.shape)}. Input has shape "
                           f"{list(input.shape)}.")
    if weight is not None and weight.numel() != classes:
        raise RuntimeError(f"multi_margin_loss: inconsistent weight size, expected {classes} "
                           f"but got {list(weight.shape)}")
    _check_range("multi_margin_loss", target, 0, classes)
    column = F.reshape(target, (n, 1))
    hinge = F.clamp(F.add(F.sub(margin, F.gather(scores, 1, column)), scores), min=0)
    if p == 2:
        hinge = F.mul(hinge, hinge)
    if weight is not None:
        hinge = F.mul(hinge, F.reshape(F.index_select(weight, 0, F.reshape(target, (n,))),
                                       (n, 1)))
    others = F.ne(F.arange(classes, device=input.device), column)
    loss = F.div(F.sum(F.where(others, hinge, F.zeros_like(hinge)), 1), classes)
    return _reduce(F.reshape(loss, ()) if unbatched else loss, reduction)


@public
def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """multilabel_margin_loss(input, target, size_average=None, reduce=None,
    reduction='mean') -> Tensor

    Multi-label hinge loss of (N, C) or (C,) scores x: each row of ``target`` lists a
    sample's classes, ended by the first -1; per sample, sum over its classes j and the
    classes i not among them of max(0, 1 - (x[j] - x[i])), divided by C.

    >>> x = minflow.tensor([[0.1, 0.2, 0.4, 0.8]])
    >>> y = minflow.tensor([[3, 0, -1, 1]])
    >>> round(minflow.nn.functional.multilabel_margin_loss(x, y).item(), 4)
    0.85
    """
    reduction = _reduction("multilabel_margin_loss", size_average, reduce, reduction)
    scores, unbatched = _class_scores("multilabel_margin_loss", input, target)
    n, classes = scores.shape
    if tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"multilabel_margin_loss: inconsistent target size: "
                           f"{list(target.shape)} for input of size: {list(input.shape)}")
    _check_range("multilabel_margin_loss", target, -1, classes)
    labels = F.reshape(target, (n, classes))
    listed = F.cumprod(F.cast(F.ne(labels, -1), dtypes.int64), 1)        # before the first -1
    index = F.clamp(labels, min=0)
    chosen = F.mul(F.one_hot(index, classes), F.unsqueeze(listed, 2))  # (N, j, i)
    is_target = F.gt(F.sum(chosen, 1), 0)                                # (N, i)
    label_scores = F.unsqueeze(F.gather(scores, 1, index), 2)            # (N, j, 1)
    hinge = F.clamp(F.add(F.sub(1.0, label_scores), F.unsqueeze(scores, 1)), min=0)
    counted = F.logical_and(F.unsqueeze(F.gt(listed, 0), 2),
                            F.logical_not(F.unsqueeze(is_target, 1)))
    loss = F.div(F.sum(F.where(counted, hinge, F.zeros_like(hinge)), (1, 2)), classes)
    return _reduce(F.reshape(loss, ()) if unbatched else loss, reduction)

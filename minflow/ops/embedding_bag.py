"""embedding_bag, with PyTorch's signature: sums, means or maxima of bags of embedding
rows without materialising each bag's rows separately. A composite (minflow.nn.functional
takes ``__all__``): the rows are looked up once with ``embedding`` (which gives the grads,
max_norm and scale_grad_by_freq), each index is assigned its bag by comparing its position
with the offsets, and ``scatter_add`` sums the rows into their bags. No step reads index
values, so it traces into graphs as well.
"""
from ..core import dtype as dtypes
from ..core.functional import public
from ..core.namespace import F
from ..core.tensor import Tensor
from .nn import embedding

__all__ = ["embedding_bag"]

_MODES = ("sum", "mean", "max")


def _check(input, weight, offsets, mode, scale_grad_by_freq, per_sample_weights):
    for name, t in (("input", input), ("weight", weight)):
        if not isinstance(t, Tensor):
            raise TypeError(f"embedding_bag: expected {name} to be a Tensor, got "
                            f"{type(t).__name__}")
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({list(per_sample_weights.shape)}"
                         f") is not None, then it must have the same shape as the input "
                         f"({list(input.shape)})")
    if weight.ndim != 2:
        raise ValueError(f"embedding_bag: weight has to be a 2D Tensor, but got Tensor of "
                         f"dimension {weight.ndim}")
    if input.ndim == 2 and offsets is not None:
        raise ValueError(f"embedding_bag: if input is 2D, then offsets has to be None, as input "
                         f"is treated is a mini-batch of fixed length sequences. However, "
                         f"found offsets of type {type(offsets).__name__}")
    if input.ndim == 1 and (offsets is None or offsets.ndim != 1):
        got = "None" if offsets is None else f"a {offsets.ndim}D Tensor"
        raise ValueError(f"embedding_bag: offsets has to be a 1D Tensor but got {got}")
    if input.ndim not in (1, 2):
        raise ValueError(f"embedding_bag: input has to be 1D or 2D Tensor, but got Tensor of "
                         f"dimension {input.ndim}")
    if mode not in _MODES:
        raise ValueError(f"embedding_bag: mode has to be one of sum, mean or max, got {mode!r}")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("embedding_bag: max mode does not support scaling the gradient by the "
                         "frequency")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. "
                                  f"per_sample_weights is only supported for mode='sum' "
                                  f"(got mode='{mode}')")


def _bags(input, offsets, include_last_offset):
    """(flat indices (N,), the bag of each (N,), the number of bags)."""
    if input.ndim == 2:
        bags, length = input.shape
        positions = F.arange(bags * length, device=input.device)
        return F.reshape(input, (-1,)), F.floor_divide(positions, max(length, 1)), bags
    positions = F.arange(input.shape[0], device=input.device)
    # NOTE: with include_last_offset the last bag still runs to the end of input, as
    # torch's CPU kernel (offsets[-1] is meant to be len(input))
    starts = offsets[:-1] if include_last_offset else offsets
    bag_of = F.sub(F.sum(F.le(F.unsqueeze(starts, 0), F.unsqueeze(positions, 1)), 1), 1)
    return input, F.clamp(bag_of, min=0), starts.shape[0]


def _has_values(t):
    """False where there are no values to check (graph mode, meta device, empty)."""
    return not (t.device.type == "meta" or getattr(t._data, "is_lazy", False)
                or not t._data.size)


def _check_indices(input, rows):
    """RuntimeError, as torch's embedding_bag (embedding's own is an IndexError)."""
    if not _has_values(input):
        return
    low, high = int(input._data.min()), int(input._data.max())
    if low < 0 or high >= rows:
        raise RuntimeError(f"embedding_bag: input takes value {high if high >= rows else low} "
                           f"which is not in the valid range [0, {rows})")


def _check_first_offset(offsets):
    data = offsets._data
    if not _has_values(offsets):
        return
    if int(data[0]) != 0:
        raise RuntimeError(f"embedding_bag: offsets[0] has to be 0, i.e., the first sequence "
                           f"in the mini-batch has to start from position 0. However, got "
                           f"{int(data[0])}")


@public
def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
    scale_grad_by_freq=False, mode='mean', sparse=False, per_sample_weights=None,
    include_last_offset=False, padding_idx=None) -> Tensor

    out[b] = sum (mode 'sum', each row times its per_sample_weights entry), mean or
    elementwise max of weight[i] over the indices i of bag b. Bags: the rows of a 2-D
    input, or the slices input[offsets[b]:offsets[b + 1]] of a 1-D input (the last one to
    the end; with ``include_last_offset`` offsets has one more entry, len(input)). Indices
    equal to ``padding_idx`` are left out (and not counted by the mean); an empty bag gives
    zeros. ``scale_grad_by_freq`` divides each row's grad by its index's count in input,
    as ``embedding`` does (and torch documents; torch 2.13's CPU kernel divides some rows by
    another index's count).

    >>> w = minflow.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    >>> x, offsets = minflow.tensor([0, 1, 2, 2]), minflow.tensor([0, 3])
    >>> minflow.nn.functional.embedding_bag(x, w, offsets, mode="sum").tolist()
    [[9.0, 12.0], [5.0, 6.0]]
    """
    _check(input, weight, offsets, mode, scale_grad_by_freq, per_sample_weights)
    _check_indices(input, weight.shape[0])
    if input.ndim == 1:
        _check_first_offset(offsets)
    if padding_idx is not None:
        rows = weight.shape[0]
        if not -rows <= padding_idx < rows:
            raise RuntimeError(f"embedding_bag: padding_idx must be within num_embeddings "
                               f"[{-rows}, {rows}), got {padding_idx}")
        padding_idx %= rows
    flat, bag_of, bags = _bags(input, offsets, include_last_offset)
    looked_up = embedding(flat, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq,
                          sparse)
    used = F.ones(flat.shape[0], dtype=dtypes.bool, device=flat.device)
    if padding_idx is not None:
        used = F.ne(flat, padding_idx)
    if mode == "max":
        return _bag_max(looked_up, bag_of, used, bags, _counts(used, bag_of, bags, weight.dtype))
    if weight.dtype is dtypes.float16:
        # NOTE: torch sums float16 bags in float32 and rounds the sum, then the mean divides
        wide = None if per_sample_weights is None else F.cast(per_sample_weights,
                                                               dtypes.float32)
        total = F.cast(_bag_sum(F.cast(looked_up, dtypes.float32), bag_of, used, bags, "sum",
                                wide), dtypes.float16)
        return total if mode == "sum" else _mean(total, used, bag_of, bags)
    return _bag_sum(looked_up, bag_of, used, bags, mode, per_sample_weights)


def _counts(used, bag_of, bags, dtype):
    """The number of used indices in each bag, in ``dtype``."""
    return F.scatter_add(F.zeros(bags, dtype=dtype, device=used.device), 0, bag_of,
                         F.cast(used, dtype))


def _bag_sum(looked_up, bag_of, used, bags, mode, per_sample_weights):
    """The sum ('sum') or mean ('mean') of the used rows of each bag."""
    scale = F.cast(used, looked_up.dtype)
    if per_sample_weights is not None:
        scale = F.mul(scale, F.reshape(per_sample_weights, (-1,)))
    dim = looked_up.shape[1]
    index = F.expand(F.unsqueeze(bag_of, 1), (looked_up.shape[0], dim))
    out = F.scatter_add(F.zeros(bags, dim, dtype=looked_up.dtype, device=looked_up.device), 0,
                        index, F.mul(looked_up, F.unsqueeze(scale, 1)))
    return _mean(out, used, bag_of, bags) if mode == "mean" else out


def _mean(total, used, bag_of, bags):
    """Each bag's ``total`` divided by its count of used indices (an empty bag stays 0)."""
    count = _counts(used, bag_of, bags, total.dtype)
    return F.div(total, F.unsqueeze(F.clamp(count, min=1), 1))


def _bag_max(looked_up, bag_of, used, bags, count):
    """The elementwise max over each bag's rows (zeros for an empty bag).

    NOTE: builds a (bags, N, D) tensor of candidates: simple, and as exact as torch (the
    grad goes to the row holding the max), but memory grows with bags * N."""
    members = F.logical_and(F.eq(F.unsqueeze(bag_of, 0), F.unsqueeze(
        F.arange(bags, device=bag_of.device), 1)), F.unsqueeze(used, 0))
    candidates = F.where(F.unsqueeze(members, 2), F.unsqueeze(looked_up, 0), float("-inf"))
    best = F.max(candidates, 1).values
    return F.where(F.unsqueeze(F.gt(count, 0), 1), best, F.zeros_like(best))

"""Searching sorted tensors and membership, with PyTorch's semantics: searchsorted,
bucketize and isin. Not differentiable (their outputs are indices and masks).

Inputs promote to a common dtype before comparing, as torch's. Kernels:
kernels/generic/search.py.
"""
import numbers

from ..core import dtype as dtypes
from ..core.dispatch import apply
from ..core.functional import public
from ..core.namespace import F
from ..core.tensor import Tensor
from .registry import Attr, Input, define_op

__all__ = ["searchsorted", "bucketize", "isin"]

OPAQUE = ("opaque", "no_side_effect", "no_grad")


def _searchsorted_infer(sorted_sequence, input, sorter, right, out_int32):
    seq, values = sorted_sequence._data.shape, input._data.shape
    if not seq:
        raise RuntimeError("boundaries tensor should have positive dimension, but got 0 "
                           "dimension")
    if len(seq) > 1 and tuple(seq[:-1]) != tuple(values[:-1]):
        raise RuntimeError(f"boundaries tensor should be 1 dimension or the first N-1 "
                           f"dimensions of boundaries tensor and input value tensor must "
                           f"match, but we got boundaries tensor {list(seq)} and input value "
                           f"tensor {list(values)}")
    if sorter is not None:
        if sorter.dtype is not dtypes.int64:
            raise RuntimeError(f"sorter must be a tensor of long dtype but got dtype "
                               f"{sorter.dtype.name}")
        if tuple(sorter._data.shape) != tuple(seq):
            raise RuntimeError(f"boundary and sorter must have the same size, but got boundary "
                               f"tensor {list(seq)} and got sorter tensor "
                               f"{list(sorter._data.shape)}")
    return values, dtypes.int32 if out_int32 else dtypes.int64


SEARCHSORTED = define_op(
    "searchsorted", ["sorted_sequence", "input", Input("sorter", optional=True, promote=False)],
    attrs=[Attr("right", "bool", False), Attr("out_int32", "bool", False)],
    infer=_searchsorted_infer, promote="common", traits=OPAQUE,
    doc="For each value, the index in the sorted last dim where it would be inserted.")
def _isin_infer(elements, test_elements, invert):
    for name, x in (("elements", elements), ("test_elements", test_elements)):
        if x.dtype is dtypes.bool:      # as torch, which has no bool isin kernel
            raise RuntimeError(f"expected {name} of a numeric dtype, got bool")
    return elements._data.shape, dtypes.bool


ISIN = define_op("isin", ["elements", "test_elements"], attrs=[Attr("invert", "bool", False)],
                 infer=_isin_infer,
                 promote="common", traits=OPAQUE,
                 doc="Whether each element equals some element of test_elements.")


def _as_tensor(fn, name, value, like):
    if isinstance(value, Tensor):
        return value
    if isinstance(value, numbers.Number):
        return F.tensor(value, device=like.device)
    raise TypeError(f"{fn}: expected {name} to be a Tensor or a number, got "
                    f"{type(value).__name__}")


def _out_of_range(index, size):
    """Whether an index tensor that has values (not meta, not traced) leaves [0, size)."""
    data = index._data
    if index.device.type == "meta" or getattr(data, "is_lazy", False) or not data.size:
        return False
    return bool((data < 0).any() or (data >= size).any())


def _side(right, side):
    if side is None:
        return right
    if side not in ("left", "right"):
        raise RuntimeError(f"searchsorted: side can only be 'left' or 'right' but got {side}")
    if right and side == "left":
        raise RuntimeError("searchsorted: side and right can't be set to opposites, got side "
                           "of left while right was True")
    return side == "right"


@public
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None):
    """searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
    sorter=None) -> Tensor (int64, or int32)

    For each value v of ``input``, the index i into the last dim of ``sorted_sequence``
    (1-D, or with the leading dims of ``input``) where v would go to keep it sorted: the
    first i with seq[i] >= v, or seq[i] > v with ``right=True`` / ``side="right"``.
    ``sorter`` holds the indices that sort an unsorted sequence. The search is torch's
    binary search, so NaN compares as torch's does.

    >>> seq = minflow.tensor([1, 3, 5, 7])
    >>> minflow.searchsorted(seq, minflow.tensor([3, 6, 9])).tolist()
    [1, 3, 4]
    >>> minflow.searchsorted(seq, minflow.tensor([3, 6, 9]), side="right").tolist()
    [2, 3, 4]
    """
    if not isinstance(sorted_sequence, Tensor):
        raise TypeError(f"searchsorted: expected sorted_sequence to be a Tensor, got "
                        f"{type(sorted_sequence).__name__}")
    input = _as_tensor("searchsorted", "input", input, sorted_sequence)
    if sorter is not None and not isinstance(sorter, Tensor):
        raise TypeError(f"searchsorted: expected sorter to be a Tensor, got "
                        f"{type(sorter).__name__}")
    if sorter is not None and _out_of_range(sorter, sorted_sequence.shape[-1]):
        raise RuntimeError(f"searchsorted: sorter index out of range: expected indices in "
                           f"[0, {sorted_sequence.shape[-1]})")
    return apply(SEARCHSORTED, (sorted_sequence, input, sorter),
                 {"right": _side(right, side), "out_int32": out_int32})


@public
def bucketize(input, boundaries, *, out_int32=False, right=False):
    """bucketize(input, boundaries, *, out_int32=False, right=False) -> Tensor (int64)

    The bucket of each value of ``input`` for the 1-D sorted ``boundaries``: i with
    boundaries[i-1] < v <= boundaries[i] (``right=True``: boundaries[i-1] <= v <
    boundaries[i]); ``searchsorted(boundaries, input, right=right)``.

    >>> minflow.bucketize(minflow.tensor([1, 4, 9]), minflow.tensor([1, 3, 5, 7])).tolist()
    [0, 2, 4]
    """
    if not isinstance(boundaries, Tensor):
        raise TypeError(f"bucketize: expected boundaries to be a Tensor, got "
                        f"{type(boundaries).__name__}")
    if boundaries.ndim != 1:
        raise RuntimeError(f"bucketize: boundaries tensor must be 1 dimension, but got "
                           f"dim({boundaries.ndim})")
    input = _as_tensor("bucketize", "input", input, boundaries)
    return apply(SEARCHSORTED, (boundaries, input, None),
                 {"right": right, "out_int32": out_int32})


@public
def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """isin(elements, test_elements, *, assume_unique=False, invert=False) -> Tensor (bool)

    Whether each element of ``elements`` is in ``test_elements`` (not in, with
    ``invert``); either may be a number. NaN is in nothing. ``assume_unique`` is accepted
    for torch's signature; the result does not depend on it.

    >>> minflow.isin(minflow.tensor([1, 2, 3, 4]), minflow.tensor([2, 4])).tolist()
    [False, True, False, True]
    """
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError(f"isin: expected elements or test_elements to be a Tensor, got "
                        f"{type(elements).__name__} and {type(test_elements).__name__}")
    like = elements if isinstance(elements, Tensor) else test_elements
    elements = _as_tensor("isin", "elements", elements, like)
    test_elements = _as_tensor("isin", "test_elements", test_elements, like)
    return apply(ISIN, (elements, test_elements), {"invert": invert})

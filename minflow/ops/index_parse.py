"""Parsing ``x[index]``: a Python index (ints, slices, None, ``...``, integer or bool
tensors, lists, numpy arrays) into a basic part and an advanced part, as PyTorch does.

``parse_index`` returns (basic, tensors, dims): ``basic`` is a normalized tuple of ints,
slices (with explicit start, stop, step) and None for the ``getitem`` view; ``tensors`` are
integer index tensors (bool masks, and the uint8 masks torch still takes with a deprecation
warning, already turned into one per dim they cover, via nonzero) and ``dims`` the dims of
that view they index. The ops that consume it live in
ops/indexing.py; this module defines no ops.
"""
import operator
import sys
import warnings

import numpy as np

from ..core import dtype as dtypes
from ..core.namespace import F
from ..core.tensor import Tensor

__all__ = ["parse_index", "INDEX_DTYPES"]

INDEX_DTYPES = (dtypes.int32, dtypes.int64)


def _caller_level():
    """The ``stacklevel`` of the first frame outside minflow, for a warning raised by the
    function that calls this one."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__", "").startswith("minflow."):
        frame, level = frame.f_back, level + 1
    return level


def _check_slice(s, where):
    try:
        start, stop, step = (None if v is None else operator.index(v)
                             for v in (s.start, s.stop, s.step))
    except TypeError:
        raise TypeError(f"{where}: slice indices must be integers or None or have an "
                        f"__index__ method, got {s}") from None
    if step is not None and step <= 0:
        raise ValueError(f"{where}: step must be greater than zero, got {step}" if step
                         else f"{where}: slice step cannot be zero")
    return slice(start, stop, step)


def _sequence_tensor(seq, where):
    try:
        arr = np.asarray(seq)
    except ValueError as err:
        raise IndexError(f"{where}: cannot index with the sequence {seq!r} ({err})") from None
    if arr.size == 0:
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "biu":
        raise IndexError(f"{where}: tensors used as indices must be long, int, byte or bool "
                         f"tensors, got a sequence of {arr.dtype}")
    return F.tensor(arr if arr.dtype.kind == "b" else arr.astype(np.int64), device="cpu")


def _convert(item, input, where):
    """One index item as None, Ellipsis, int, slice, or an int / bool Tensor on input's device."""
    if item is None or item is Ellipsis:
        return item
    if isinstance(item, slice):
        return _check_slice(item, where)
    if isinstance(item, (bool, np.bool_)):
        return F.tensor(bool(item), device=input.device)
    if isinstance(item, (int, np.integer)):
        return int(item)
    if isinstance(item, Tensor):
        if item.dtype is dtypes.uint8:
            warnings.warn(f"{where}: indexing with dtype minflow.uint8 is deprecated, please "
                          f"use a dtype minflow.bool instead", UserWarning,
                          stacklevel=_caller_level())
            item = F.ne(item, 0)        # a uint8 index is a mask, as in torch
        if item.dtype is not dtypes.bool and item.dtype not in INDEX_DTYPES:
            raise IndexError(f"{where}: tensors used as indices must be long, int, byte or "
                             f"bool tensors, got {item.dtype.name}")
        if item.ndim == 0 and item.dtype is not dtypes.bool and item.device.type != "meta":
            return int(item)        # a 0-d integer tensor indexes like an int, as in torch
        return F.to_device(item, input.device)
    if isinstance(item, (list, tuple, np.ndarray)):
        return _convert(_sequence_tensor(item, where), input, where)
    # NOTE: torch reads a string index as data for a tensor, which it refuses (TypeError)
    raise (TypeError if isinstance(item, str) else IndexError)(
        f"{where}: only integers, slices (`:`), ellipsis (`...`), None and long or byte "
        f"Variables are valid indices (got {type(item).__name__})")


def _dims_used(item):
    if isinstance(item, Tensor):
        return item.ndim if item.dtype is dtypes.bool else 1
    return 0 if item is None or item is Ellipsis else 1


def _mask_indices(mask, shape, dim, where):
    """A bool mask as integer index tensors, one per dim it covers (a 0-d mask covers a new
    size-1 dim)."""
    for j, n in enumerate(mask.shape):
        if n != shape[dim + j]:
            raise IndexError(f"{where}: The shape of the mask {list(mask.shape)} at index {j} "
                             f"does not match the shape of the indexed tensor {list(shape)} "
                             f"at index {dim + j}")
    coords = F.nonzero(mask.reshape(1) if mask.ndim == 0 else mask)
    return [coords[:, j] for j in range(coords.shape[1])]


def parse_index(input, index, where):
    """``index`` as (basic, tensors, dims): a normalized basic index for the ``getitem``
    view, then integer index tensors and the dims of that view they index."""
    items = [_convert(i, input, where) for i in (index if isinstance(index, tuple) else (index,))]
    shape = input.shape
    fill = input.ndim - sum(_dims_used(i) for i in items)
    if fill < 0:
        raise IndexError(f"{where}: too many indices for tensor of dimension {input.ndim}")
    if sum(i is Ellipsis for i in items) > 1:
        raise IndexError(f"{where}: an index can only have a single ellipsis ('...')")
    basic, tensors, dims, dim = [], [], [], 0
    for item in items:
        if item is Ellipsis:
            basic += [slice(0, n, 1) for n in shape[dim:dim + fill]]
            dim += fill
        elif item is None:
            basic.append(None)
        elif isinstance(item, slice):
            basic.append(slice(*item.indices(shape[dim])))
            dim += 1
        elif isinstance(item, int):
            if not -shape[dim] <= item < shape[dim]:
                raise IndexError(f"{where}: index {item} is out of bounds for dimension {dim} "
                                 f"with size {shape[dim]}")
            basic.append(item % shape[dim])
            dim += 1
        else:
            columns = [item] if item.dtype is not dtypes.bool else \
                _mask_indices(item, shape, dim, where)
            first = sum(not isinstance(b, int) for b in basic)    # the view dim it indexes
            dims += range(first, first + len(columns))
            tensors += columns
            basic += _covering(item, shape, dim)
            dim += _dims_used(item)
    return tuple(basic), tensors, tuple(dims)


def _covering(item, shape, dim):
    """The basic-index entries under an index tensor: whole slices (a 0-d mask: None)."""
    if item.dtype is dtypes.bool and item.ndim == 0:
        return [None]
    return [slice(0, n, 1) for n in shape[dim:dim + _dims_used(item)]]

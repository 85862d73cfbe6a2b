"""as_strided (a view at any sizes and strides over a tensor's storage), as_strided_ and
as_strided_scatter, as torch.

The op's ``offset`` is counted from the input's first element, so its kernel
(kernels/generic/strided.py) needs only the input's array; the public function turns
torch's ``storage_offset`` (counted from the start of the storage, the memory of the
view's base) into it. The backward ``as_strided_grad`` adds the view's gradient into
that memory and reads the input's elements out of it (autograd/grads/strided.py).
"""
import numbers

import numpy as np

from ..core.dispatch import apply
from ..core.functional import public, tensor_method
from ..core.grad_mode import state as grad_state
from ..core.namespace import F
from ..core.tensor import Tensor
from .infer import check_int
from .registry import Attr, define_op

__all__ = ["as_strided", "as_strided_", "as_strided_scatter"]

_VIEW_ATTRS = [Attr("size", "ints"), Attr("stride", "ints"), Attr("offset", "int", 0)]


def _as_strided_infer(input, size, stride, offset):
    return tuple(size), input.dtype


def _as_strided_grad_infer(grad, input_size, input_stride, size, stride, offset, transpose):
    expected, result = (input_size, size) if transpose else (size, input_size)
    if tuple(grad._data.shape) != tuple(expected):
        raise RuntimeError(f"as_strided_grad: expected grad of shape {list(expected)}, got "
                           f"{list(grad._data.shape)}")
    return tuple(result), grad.dtype


AS_STRIDED = define_op("as_strided", ["input"], attrs=_VIEW_ATTRS, infer=_as_strided_infer,
                       traits=("view", "no_side_effect"),
                       doc="The input's memory viewed with size and stride (in elements), "
                           "from ``offset`` elements after its first element.")
AS_STRIDED_GRAD = define_op(
    "as_strided_grad", ["grad"],
    attrs=[Attr("input_size", "ints"), Attr("input_stride", "ints")] + _VIEW_ATTRS
    + [Attr("transpose", "bool", False)],
    infer=_as_strided_grad_infer, traits=("opaque", "no_side_effect"),
    doc="as_strided's backward: the view's gradient added into memory, read out at the "
        "input's elements (shared ones divided by their count); ``transpose``: its adjoint.")


def _is_lazy(t):
    return getattr(t._data, "is_lazy", False)


def _storage(input):
    """(elements in input's storage, input's storage offset). Graph mode has no storage:
    there the input's own elements are taken as one."""
    if _is_lazy(input):
        return input.numel(), 0
    base = input if input._base is None else input._base
    shape, strides = base.shape, base.stride()
    extent = 1 + sum((n - 1) * s for n, s in zip(shape, strides)) if all(shape) else 0
    return extent, input.storage_offset()


def _check_geometry(size, stride, storage_offset, input):
    """torch's checks of as_strided's arguments; the storage offset to use."""
    size, stride = tuple(size), tuple(stride)
    for name, values in (("size", size), ("stride", stride)):
        if not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in values):
            raise TypeError(f"as_strided(): argument '{name}' must be a sequence of ints, got "
                            f"{list(values)}")
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(n < 0 for n in size):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and "
                           f"strides={list(stride)}")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got "
                           f"strides: {list(stride)}")
    numel, input_offset = _storage(input)
    offset = input_offset if storage_offset is None else check_int(
        "as_strided", "storage_offset", storage_offset)
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    needed = offset + 1 + sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else 0
    if needed > numel:
        itemsize = input.dtype.itemsize
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage "
                           f"offset {offset}, and itemsize {itemsize} requiring a storage size "
                           f"of {needed * itemsize} are out of bounds for storage of size "
                           f"{numel * itemsize}")
    return size, stride, offset - input_offset


@public(method=True)
def as_strided(input, size, stride, storage_offset=None):
    """as_strided(input, size, stride, storage_offset=None) -> Tensor

    A view of ``input``'s storage (the memory of its base) with ``size`` and ``stride``
    (in elements), its first element ``storage_offset`` elements into the storage (default:
    input's own storage offset). Elements may overlap; the gradient of an overlapping
    element adds up, and input elements sharing memory split theirs, as torch's
    AsStridedBackward. In graph mode the input's own elements (row-major) are the storage.

    >>> x = minflow.arange(6.0)
    >>> minflow.as_strided(x, (2, 2), (1, 2), 1).tolist()
    [[1.0, 3.0], [2.0, 4.0]]
    >>> x[2:].as_strided((2,), (1,)).tolist(), x[2:].as_strided((2,), (1,), 0).tolist()
    ([2.0, 3.0], [0.0, 1.0])
    """
    size, stride, offset = _check_geometry(size, stride, storage_offset, input)
    return apply(AS_STRIDED, (input,), {"size": size, "stride": stride, "offset": offset})


@public(method=True)
def as_strided_(input, size, stride, storage_offset=None):
    """as_strided_(input, size, stride, storage_offset=None) -> Tensor

    In place: ``input`` becomes ``input.as_strided(size, stride, storage_offset)`` (its
    shape and strides change; its storage is the same).

    >>> x = minflow.arange(6.0)
    >>> x.as_strided_((2, 2), (1, 2), 1).tolist(), x.storage_offset()
    ([[1.0, 3.0], [2.0, 4.0]], 1)
    """
    if input._requires_grad and input._grad_fn is None and grad_state.grad_enabled:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    view = as_strided(input, size, stride, storage_offset)
    if input._base is None:         # keep the old layout as the storage's owner
        owner = Tensor._make(input._data, input.dtype, input.device)
        owner._version = input._share_version()
        input._base = owner
        input._view_version = input._version[0] if grad_state.grad_enabled else None
    input._data = view._data
    if view._requires_grad:
        input._grad_fn, input._output_nr = view._grad_fn, view._output_nr
    input._version[0] += 1
    return input


@public(method=True)
def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """as_strided_scatter(input, src, size, stride, storage_offset=None) -> Tensor

    A copy of ``input`` with ``src`` written where ``input.as_strided(size, stride,
    storage_offset)`` would view it (the copy's storage: input's elements, row-major).
    Differentiable in both: ``src`` gets those elements' gradient, ``input`` the rest.

    >>> minflow.as_strided_scatter(minflow.zeros(6), minflow.ones(2), (2,), (2,), 1).tolist()
    [0.0, 1.0, 0.0, 1.0, 0.0, 0.0]
    """
    if not isinstance(src, Tensor):
        raise TypeError(f"as_strided_scatter(): argument 'src' must be Tensor, not "
                        f"{type(src).__name__}")
    offset = 0 if storage_offset is None else storage_offset
    size, stride, offset = _check_geometry(size, stride, offset,
                                           F.empty(input.numel(), dtype=input.dtype, device="meta"))
    if tuple(src.shape) != size:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size "
                           f"= {list(src.shape)}, slice size = {list(size)}")
    positions = np.full((), offset, dtype=np.int64)
    for n, s in zip(size, stride):
        positions = positions[..., None] + np.arange(n, dtype=np.int64) * s
    positions = positions.ravel()
    if len(np.unique(positions)) != positions.size:
        raise RuntimeError("as_strided_scatter: unsupported operation: more than one element "
                           "of the written-to tensor refers to a single memory location.")
    flat = F.reshape(F.clone(input), (-1,))
    out = F.index_put(flat, (F.as_tensor(positions, device=input.device),),
                      F.reshape(F.cast(src, input.dtype), (-1,)))
    return F.reshape(out, tuple(input.shape))


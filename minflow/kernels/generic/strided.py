"""Kernels of as_strided (a view at any sizes, strides and offset over the input's memory)
and of its backward, written once against the array module."""
import numpy as np

from ...core.dtype import ALL, COMPLEX, FLOATS
from ..registry import register_kernel
from .indexing import add_at


class _Interface:
    """An object exposing ``__array_interface__``: numpy makes an array of it without a
    copy, whose ``base`` (this object) keeps ``base`` (the memory's owner) alive."""

    def __init__(self, interface, base):
        self.__array_interface__ = interface
        self.base = base


def _root(xp, x):
    """(address, size in bytes) of the allocation ``x`` lives in."""
    if xp is np:
        while True:
            owner = x.base.base if isinstance(x.base, _Interface) else x.base
            if not isinstance(owner, np.ndarray):
                break
            x = owner
        return x.__array_interface__["data"][0], x.nbytes
    return x.data.mem.ptr, x.data.mem.size


def as_strided_view(xp, x, size, stride, offset):
    """``x``'s memory viewed with ``size``, ``stride`` (elements) from ``offset`` elements
    after x's first one (negative: before it, in x's base)."""
    itemsize = x.dtype.itemsize
    start = (x.__array_interface__["data"][0] if xp is np else x.data.ptr) + offset * itemsize
    last = start + sum((n - 1) * s for n, s in zip(size, stride)) * itemsize if all(size) \
        else start
    low, nbytes = _root(xp, x)
    # NOTE: the public function checks bounds against the tensor's storage; this guards
    # the memory itself (graph buffers, cupy pools), so a bad view fails instead of
    # reading past its allocation
    if all(size) and not (low <= start and last + itemsize <= low + nbytes):
        raise RuntimeError(f"as_strided: sizes {list(size)}, strides {list(stride)} and "
                           f"offset {offset} reach outside the input's memory")
    strides = tuple(s * itemsize for s in stride)
    if xp is not np:
        return xp.ndarray(tuple(size), x.dtype, memptr=x.data + offset * itemsize,
                          strides=strides)
    interface = {"version": 3, "typestr": x.dtype.str, "shape": tuple(size),
                 "strides": strides, "data": (start, not x.flags.writeable)}
    view = np.asarray(_Interface(interface, x))
    return view if view.dtype == x.dtype else view.view(x.dtype)   # bfloat16's typestr is V2


register_kernel("as_strided", ("cpu", "cuda"), ALL + COMPLEX)(as_strided_view)


def _positions(xp, size, stride, offset):
    """The memory position (elements from the first input element) of each element."""
    pos = xp.full((), offset, dtype=xp.int64)
    for n, s in zip(size, stride):
        pos = pos[..., None] + xp.arange(n, dtype=xp.int64) * s
    return pos


@register_kernel("as_strided_grad", ("cpu", "cuda"), FLOATS + COMPLEX)
def as_strided_grad(xp, grad, input_size, input_stride, size, stride, offset, transpose):
    """as_strided's backward: grad_out added into the memory where the view read it, then
    read out at the input's positions (divided by how many input elements share one, as
    torch). ``transpose``: the adjoint (input-shaped grad to the view's shape)."""
    inputs = _positions(xp, input_size, input_stride, 0)
    views = _positions(xp, size, stride, offset)
    if not inputs.size or not views.size:
        return xp.zeros(tuple(size if transpose else input_size), grad.dtype)
    low = min(int(inputs.min()), int(views.min()))
    extent = max(int(inputs.max()), int(views.max())) - low + 1
    count = xp.bincount((inputs - low).ravel(), minlength=extent)
    source, target = (inputs, views) if transpose else (views, inputs)
    memory = xp.zeros(extent, grad.dtype)
    add_at(xp, memory, (source - low,), grad)
    memory /= xp.maximum(count, 1).astype(grad.dtype)
    return memory[target - low]

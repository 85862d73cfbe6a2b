"""Ops that copy or convert a tensor: clone, contiguous, cast (dtype), to_device."""
import math

import numpy as np

from ..core import dtype as dtypes
from ..core.device import Device, array_module
from ..core.functional import generate_function, public, tensor_method
from ..core.inplace import inplace
from ..core.memory_format import (check_memory_format, contiguous_format, layout_like,
                                  preserve_format, to_memory_format)
from ..core.namespace import F
from ..core.tensor import Tensor
from .registry import Attr, define_op

_clone = define_op("clone", ["input"], infer=lambda input: (input._data.shape, input.dtype),
                   traits=("elementwise", "no_side_effect"), doc="A copy with its own storage.")
_clone_fn = generate_function(_clone, name="_clone")


@public(method=True)
def clone(input, *, memory_format=preserve_format):
    """clone(input, *, memory_format=minflow.preserve_format) -> Tensor

    A copy of ``input`` with its own storage; gradients flow back to ``input``. Laid out
    in ``memory_format``: preserve_format keeps a channels-last input channels-last.

    >>> minflow.tensor([1.0]).clone().tolist()
    [1.0]
    >>> x = minflow.zeros(1, 3, 2, 2).to(memory_format=minflow.channels_last)
    >>> x.clone().stride(), x.clone(memory_format=minflow.contiguous_format).stride()
    ((12, 1, 6, 3), (12, 4, 2, 1))
    """
    out = _clone_fn(input)
    if memory_format is preserve_format and input.ndim < 4:
        return out                      # the common case, with nothing to look up
    return layout_like(out, input, memory_format, "clone")

_contig = define_op("contiguous", ["input"],
                    infer=lambda input: (input._data.shape, input.dtype),
                    traits=("elementwise", "no_side_effect"),
                    doc="The data in C-contiguous (row-major) order.")
_contiguous_fn = generate_function(_contig, name="_contiguous")


@tensor_method("contiguous")
def contiguous(self, memory_format=contiguous_format):
    """``self`` if already laid out in ``memory_format`` (default row-major), else a copy
    that is, with the same values (as ``Tensor.contiguous``).

    >>> t = minflow.zeros(2, 3).T
    >>> t.is_contiguous(), t.contiguous().is_contiguous()
    (False, True)
    >>> minflow.zeros(1, 3, 2, 2).contiguous(memory_format=minflow.channels_last).stride()
    (12, 1, 6, 3)
    """
    check_memory_format(memory_format, "contiguous")
    if memory_format.ndim is not None:
        return to_memory_format(self, memory_format, "contiguous")
    if self.is_contiguous():
        return self
    if memory_format is preserve_format:
        raise RuntimeError("contiguous: preserve memory format is unsupported by the "
                           "contiguous operator")
    return _contiguous_fn(self)


_cast = define_op("cast", ["input"], attrs=[Attr("dtype", "dtype")],
                  infer=lambda input, dtype: (input._data.shape, dtype),
                  traits=("elementwise", "no_side_effect"),
                  doc="The input converted to another dtype.")
_cast_fn = generate_function(_cast, name="_cast")


@public
def cast(input, dtype):
    """cast(input, dtype) -> Tensor: ``input`` as ``dtype``; ``input`` itself if it already is.

    >>> x = minflow.tensor([1.7, -2.5])
    >>> minflow.cast(x, minflow.int64).tolist(), minflow.cast(x, minflow.float32) is x
    ([1, -2], True)
    """
    return input if input.dtype is dtype else _cast_fn(input, dtype)


_to_device = define_op("to_device", ["input"], attrs=[Attr("device", "device")],
                       infer=lambda input, device: (input._data.shape, input.dtype),
                       traits=("opaque", "no_side_effect"),
                       doc="The input copied to another device.")
_to_device_fn = generate_function(_to_device, name="_to_device")


@public
def to_device(input, device):
    """to_device(input, device) -> Tensor: ``input`` on ``device`` (a copy), or ``input``
    itself if it is there already.

    >>> x = minflow.tensor([1.0, 2.0])
    >>> minflow.to_device(x, "cpu") is x, minflow.to_device(x, "meta").device
    (True, device(type='meta'))
    """
    device = Device(device)
    return input if input.device is device else _to_device_fn(input, device)


@tensor_method("fill_")
def fill_(self, value):
    """Fill ``self`` with ``value`` in place.

    >>> minflow.zeros(2).fill_(3).tolist()
    [3.0, 3.0]
    """
    if isinstance(value, Tensor):
        value = value.item()
    return inplace(lambda src, v: F.full_like(src, v), "fill_", self, value)


@tensor_method("zero_")
def zero_(self):
    """Fill ``self`` with zeros in place.

    >>> minflow.ones(2).zero_().tolist()
    [0.0, 0.0]
    """
    return fill_(self, 0)


@public
def fill(input, value):
    """fill(input, value) -> Tensor, a new tensor like ``input`` filled with ``value``; in
    autograd it depends on input (with zero gradient) and on a tensor ``value`` (the
    summed gradient), as torch's.

    >>> minflow.fill(minflow.zeros(2), 3.0).tolist()
    [3.0, 3.0]
    """
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(f"fill: only supports 0-dimension value tensor but got tensor "
                               f"with {value.ndim} dimensions")
        full = F.expand(F.cast(value, input.dtype), tuple(input.shape))
    else:
        full = F.full_like(input, value)
    if not (input.requires_grad or full.requires_grad):
        return full
    # input's gradient is zero, as torch's FillBackward: a mask that keeps nothing of it
    return F.where(F.ones_like(input, dtype=dtypes.bool), full, input)


public(fill_, name="fill_")             # minflow.fill_(t, v), as torch.fill_
public(zero_, name="zero_")


@public
def detach(input):
    """detach(input) -> Tensor, ``input.detach()``: the same data, outside autograd.

    >>> minflow.detach(minflow.ones(1, requires_grad=True)).requires_grad
    False
    """
    return input.detach()


@public
def detach_(input):
    """detach_(input) -> Tensor, ``input.detach_()``: input itself, made a leaf.

    >>> minflow.detach_(minflow.ones(1, requires_grad=True) * 2).is_leaf
    True
    """
    return input.detach_()


@tensor_method("apply_")
def apply_(self, callable):
    """Replace each element ``x`` of this cpu tensor by ``callable(x)`` (a Python number
    function, called once per element: slow, for small tensors), in place.

    >>> minflow.arange(3).apply_(lambda v: v * 2.7)
    tensor([0, 2, 5])
    """
    return _map_elements("apply_", self, (), callable)


@tensor_method("map_")
def map_(self, tensor, callable):
    """``self[i] = callable(self[i], tensor[i])`` for each element, ``tensor`` broadcast to
    self's shape; cpu only, in place.

    >>> minflow.zeros(2).map_(minflow.tensor([1.0, 2.0]), lambda a, b: a + 2 * b)
    tensor([2., 4.])
    """
    return _map_elements("map_", self, (tensor,), callable)


@tensor_method("map2_")
def map2_(self, x, y, callable):
    """``self[i] = callable(self[i], x[i], y[i])``, x and y broadcast to self's shape.

    >>> minflow.ones(2).map2_(minflow.tensor([1.0, 2.0]), minflow.tensor(3.0), max)
    tensor([3., 3.])
    """
    return _map_elements("map2_", self, (x, y), callable)


def _map_elements(name, self, others, fn):
    if self.device.type != "cpu":
        raise RuntimeError(f"{name}: only cpu tensors are supported, got {self.device}")
    if self.requires_grad:
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use "
                           f"var.detach().{name}() instead.")
    if not callable(fn):
        raise TypeError(f"{name}: expected a callable, got {type(fn).__name__}")
    arrays = [F.expand(t, tuple(self.shape))._data for t in others]
    values = [fn(*(a.item() for a in items))
              for items in zip(self._data.reshape(-1), *(a.reshape(-1) for a in arrays))]
    self._data[...] = np.array(values).astype(self.dtype.np).reshape(self._data.shape)
    if self._version is not None:
        self._version[0] += 1
    return self


@tensor_method("dim_order")
def dim_order(self, *, ambiguity_check=False):
    """The dims from outermost to innermost in memory (by stride), as torch's: (0, 1, ...)
    for a contiguous tensor, (0, 2, 3, 1) for a channels-last image batch.

    >>> minflow.ones(2, 3).t().dim_order()
    (1, 0)
    """
    strides = self.stride()
    return tuple(sorted(range(self.ndim), key=lambda d: -strides[d]))


@tensor_method("resize_")
def resize_(self, *sizes, memory_format=None):
    """Give ``self`` the shape ``sizes`` in place, keeping its elements in row-major order
    as far as they go: the ones beyond the old number are uninitialised (zero here), as
    torch's. Returns self.

    >>> minflow.arange(6.0).resize_(2, 2).tolist()
    [[0.0, 1.0], [2.0, 3.0]]
    """
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in sizes):
        raise RuntimeError(f"resize_: expected non-negative int sizes, got {list(sizes)}")
    if self.requires_grad:
        raise RuntimeError("resize_: cannot resize variables that require grad")
    if memory_format is not None:
        check_memory_format(memory_format, "resize_")
        if memory_format not in (contiguous_format, preserve_format):
            raise RuntimeError(f"resize_: memory_format {memory_format} is not supported; "
                               f"resize to the contiguous layout, then convert with .to()")
    old, count = self._data, math.prod(sizes)
    if count == old.size:
        new = old.reshape(sizes)
    else:
        xp = array_module(self.device.type)
        new = xp.zeros(sizes, old.dtype)
        kept = min(count, old.size)
        new.reshape(-1)[:kept] = old.reshape(-1)[:kept]
    self._data = new
    if self._version is not None:
        self._version[0] += 1
    return self


@tensor_method("resize_as_")
def resize_as_(self, other, memory_format=None):
    """``self.resize_(other.shape)``.

    >>> minflow.zeros(3).resize_as_(minflow.ones(2, 2)).shape
    minflow.Size([2, 2])
    """
    return resize_(self, tuple(other.shape), memory_format=memory_format)


@tensor_method("copy_")
def copy_(self, src):
    """Copy ``src`` (broadcast, cast to ``self``'s dtype and device) into ``self`` in place;
    gradients flow to ``src``.

    >>> minflow.zeros(2).copy_(minflow.tensor([1, 2])).tolist()
    [1.0, 2.0]
    """
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_: expected src to be a Tensor, got {type(src).__name__}")

    def copied(target, source):
        out = to_device(cast(source, target.dtype), target.device)
        out = F.expand(out, tuple(target.shape))
        return _clone_fn(out) if out._base is not None or out is source else out
    return inplace(copied, "copy_", self, src)


# -- queries as functions, as torch has them -----------------------------------------------
@public
def numel(input):
    """numel(input) -> int: the number of elements.

    >>> minflow.numel(minflow.zeros(2, 3))
    6
    """
    return input.numel()


@public
def is_floating_point(input):
    """is_floating_point(input) -> bool: whether input's dtype is float16/32/64.

    >>> minflow.is_floating_point(minflow.tensor([1])), minflow.tensor([1.0]).is_floating_point()
    (False, True)
    """
    return input.dtype.is_floating_point


public(dtypes.can_cast, name="can_cast")

"""Tensor: an array (numpy, cupy or meta) plus dtype, device and autograd state.

Operators and methods call public functions through ``F``, so every one of them goes
through the dispatcher like a direct call would.
"""
import numpy as np

from . import dtype as dtypes
from .device import MetaArray, to_numpy
from .namespace import F
from .grad_mode import state as _grad_state

__all__ = ["Tensor", "Size"]


class Size(tuple):
    """A tensor's shape: a tuple that prints like ``minflow.Size([2, 3])``.

    >>> size = minflow.zeros(2, 3, 4).shape
    >>> size, size[1:], size.numel()
    (minflow.Size([2, 3, 4]), minflow.Size([3, 4]), 24)
    """

    __slots__ = ()

    def __repr__(self):
        return f"minflow.Size({list(self)})"

    def numel(self):
        """The number of elements of a tensor of this shape.

        >>> minflow.Size([2, 3]).numel()
        6
        """
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, index):
        item = tuple.__getitem__(self, index)
        return Size(item) if isinstance(index, slice) else item

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self))


def _op(name, reflected=False):
    """A Tensor operator calling ``F.<name>(self, other)``, or ``(other, self)`` if reflected.

    A numpy array operand is taken as a tensor (of its own dtype), as torch does.
    """
    if reflected:
        def method(self, other):
            if other.__class__ is np.ndarray:
                other = F.as_tensor(other, device=self.device)
            return getattr(F, name)(other, self)
    else:
        def method(self, other):
            if other.__class__ is np.ndarray:
                other = F.as_tensor(other, device=self.device)
            return getattr(F, name)(self, other)
    method.__doc__ = f"``minflow.{name}``{' with the operands swapped' if reflected else ''}."
    return method


class Tensor:
    """An n-dimensional array on a device, with optional gradient tracking.

    >>> x = minflow.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    >>> x.shape, x.dtype, x.device
    (minflow.Size([2, 2]), minflow.float32, device(type='cpu'))
    """

    __slots__ = ("_data", "dtype", "device", "_requires_grad", "_grad", "_grad_fn",
                 "_output_nr", "_version", "_base", "_view_version", "_grad_acc",
                 "__weakref__")
    # numpy scalars and arrays defer to Tensor's reflected operators (np.float64(2) * t)
    __array_priority__ = 1000

    def __new__(cls, *args, device=None):
        """Tensor(*sizes) or Tensor(data): torch's legacy constructor, default dtype.

        >>> minflow.Tensor(2, 3).shape, minflow.Tensor([1, 2]).dtype
        (minflow.Size([2, 3]), minflow.float32)
        """
        from .legacy import legacy_new
        return legacy_new("Tensor", dtypes.get_default_dtype(), args, device)

    def __init__(self, *args, **kwargs):
        pass      # everything happens in __new__ (and internally in _make)

    # -- construction (internal) -------------------------------------------------------
    @staticmethod
    def _make(data, dtype, device, cls=None):
        """Wrap an array; the one place Tensor objects are built."""
        t = object.__new__(cls or Tensor)
        t._data = data
        t.dtype = dtype
        t.device = device
        t._requires_grad = False
        t._grad = None
        t._grad_fn = None
        t._output_nr = 0
        t._version = None
        # NOTE: no _view_version here (one store less per tensor): dispatch._share_storage
        # sets it along with _base, and it is read only where _base is set
        t._base = None
        t._grad_acc = None
        return t

    # -- metadata ----------------------------------------------------------------------
    @property
    def shape(self):
        """The shape, a ``minflow.Size``.

        >>> minflow.zeros(2, 3).shape
        minflow.Size([2, 3])
        """
        return Size(self._data.shape)

    @property
    def ndim(self):
        """The number of dimensions.

        >>> minflow.zeros(2, 3).ndim
        2
        """
        return self._data.ndim

    def dim(self):
        """The number of dimensions (``ndim``).

        >>> minflow.tensor(1.0).dim()
        0
        """
        return self._data.ndim

    def numel(self):
        """The number of elements.

        >>> minflow.zeros(2, 3).numel()
        6
        """
        return self._data.size

    nelement = numel

    @property
    def itemsize(self):
        """Bytes per element.

        >>> minflow.zeros(2, dtype=minflow.float16).itemsize
        2
        """
        return self.dtype.itemsize

    @property
    def nbytes(self):
        """Bytes of the elements (``numel() * itemsize``).

        >>> minflow.zeros(2, 3).nbytes
        24
        """
        return self._data.size * self.dtype.itemsize

    def size(self, dim=None):
        """The shape, or its length along ``dim``.

        >>> x = minflow.zeros(2, 3)
        >>> x.size(), x.size(-1)
        (minflow.Size([2, 3]), 3)
        """
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self._data.ndim, "size")]

    def element_size(self):
        """Bytes per element (``itemsize``).

        >>> minflow.zeros(2, dtype=minflow.int64).element_size()
        8
        """
        return self.dtype.itemsize

    def stride(self, dim=None):
        """Strides in elements (the array's byte strides / itemsize; row-major on meta).

        >>> x = minflow.zeros(2, 3)
        >>> x.stride(), x.T.stride(), x.stride(0)
        ((3, 1), (1, 3), 3)
        """
        data = self._data
        if hasattr(data, "strides") and not getattr(data, "is_lazy", False):
            strides = tuple(s // self.dtype.itemsize for s in data.strides)
        else:
            strides = tuple(int(np.prod(data.shape[i + 1:])) for i in range(data.ndim))
        return strides if dim is None else strides[_wrap_dim(dim, data.ndim, "stride")]

    def storage_offset(self):
        """Elements from the start of the base's memory to a view's first element.

        >>> minflow.arange(6).view(2, 3)[1, 1:].storage_offset()
        4
        """
        base = self if self._base is None else self._base
        return (self.data_ptr() - base.data_ptr()) // self.dtype.itemsize

    def data_ptr(self):
        """The address of the first element: the numpy / cupy array's data pointer (0 on

        meta, as torch); valid while the tensor lives.

        >>> x = minflow.zeros(4)
        >>> x[1:].data_ptr() - x.data_ptr()
        4
        """
        _refuse_lazy(self, "data_ptr")
        data = self._data
        if isinstance(data, MetaArray):
            return 0
        if isinstance(data, np.ndarray):
            return data.__array_interface__["data"][0]
        return data.data.ptr                    # cupy

    def type_as(self, other):
        """``self.to(other.dtype, other.device)``: a no-op when both already match.

        >>> minflow.tensor([1.5, 2.5]).type_as(minflow.tensor([1]))
        tensor([1, 2])
        """
        return self.to(dtype=other.dtype, device=other.device)

    @property
    def is_cuda(self):
        """Whether the tensor is on a cuda device.

        >>> minflow.zeros(1).is_cuda
        False
        """
        return self.device.type == "cuda"

    @property
    def is_meta(self):
        """Whether the tensor is on the meta device (shape and dtype, no data).

        >>> minflow.zeros(1, device="meta").is_meta
        True
        """
        return self.device.type == "meta"

    def is_floating_point(self):
        """Whether the dtype is a floating point one.

        >>> minflow.tensor([1]).is_floating_point(), minflow.tensor([1.0]).is_floating_point()
        (False, True)
        """
        return self.dtype.is_floating_point

    @property
    def T(self):
        """The dimensions reversed (the transpose of a matrix), a view.

        >>> minflow.tensor([[1, 2, 3]]).T
        tensor([[1],
                [2],
                [3]])
        """
        return F.permute(self, tuple(range(self.ndim - 1, -1, -1)))

    @property
    def data(self):
        """A tensor sharing this one's storage, detached from autograd.

        >>> w = minflow.tensor([1.0], requires_grad=True)
        >>> w.data.requires_grad, w.data.data_ptr() == w.data_ptr()
        (False, True)
        """
        return self.detach()

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"Tensor.data: expected a Tensor, got {type(value).__name__}")
        self._data, self.dtype, self.device = value._data, value.dtype, value.device

    # -- autograd ----------------------------------------------------------------------
    @property
    def requires_grad(self):
        """Whether autograd records ops on this tensor; settable on leaves.

        >>> x = minflow.zeros(2)
        >>> x.requires_grad = True
        >>> (x * 2).requires_grad
        True
        """
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad=True):
        """Set whether autograd records ops on this leaf tensor (in place).

        >>> minflow.tensor([1.0, 2.0]).requires_grad_()
        tensor([1., 2.], requires_grad=True)
        """
        if self.grad_fn is not None and not requires_grad:
            raise RuntimeError("requires_grad_: you can only change requires_grad flags of "
                               "leaf tensors; use detach() to get a tensor without grad")
        if requires_grad and not self.dtype.is_floating_point:
            raise RuntimeError(f"requires_grad_: only floating point tensors can require "
                               f"gradients, got dtype {self.dtype.name}")
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad(self):
        """The accumulated gradient of this leaf (None until a backward reaches it).

        >>> w = minflow.tensor([1.0, 2.0], requires_grad=True)
        >>> (w * w).sum().backward()
        >>> w.grad
        tensor([2., 4.])
        """
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"grad: assigned grad expected to be a Tensor or None but got "
                                f"grad of type {type(value).__name__}")
            if value._data.shape != self._data.shape:
                raise RuntimeError(f"grad: attempting to assign a gradient of size "
                                   f"{list(value.shape)} to a tensor of size {list(self.shape)}")
        self._grad = value

    @property
    def grad_fn(self):
        """The node that made this tensor (None for a leaf). A view whose storage was

        changed in place since gets a fresh one, as in torch (see core/inplace.py).

        >>> w = minflow.tensor([1.0], requires_grad=True)
        >>> (w * 2).grad_fn, w.grad_fn
        (<MulBackward0>, None)
        """
        if self._base is not None and self._view_version is not None \
                and self._view_version != self._version[0]:
            from .inplace import refresh_view
            refresh_view(self)
        return self._grad_fn

    @property
    def is_leaf(self):
        """Whether no recorded op made this tensor (``grad_fn is None``).

        >>> w = minflow.tensor([1.0], requires_grad=True)
        >>> w.is_leaf, (w * 2).is_leaf
        (True, False)
        """
        return self.grad_fn is None

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate d(self)/d(leaf) into each leaf's ``.grad`` (see autograd.backward).

        >>> w = minflow.tensor([3.0], requires_grad=True)
        >>> (w ** 2).sum().backward()
        >>> w.grad
        tensor([6.])
        """
        if getattr(self._data, "is_lazy", False):       # graph mode: backward adds grad ops
            from ..graph.autodiff import graph_backward
            return graph_backward(self, gradient, retain_graph, create_graph, inputs)
        from ..autograd.engine import backward
        backward(self, gradient, retain_graph, create_graph, inputs)

    def detach(self):
        """A tensor sharing this storage, outside the autograd graph.

        >>> w = minflow.tensor([1.0], requires_grad=True)
        >>> (w * 2).detach()
        tensor([2.])
        """
        out = Tensor._make(self._data, self.dtype, self.device)
        out._version = self._share_version()
        return out

    def detach_(self):
        """Detach this tensor from the autograd graph in place: it becomes a leaf.

        >>> y = minflow.tensor([1.0], requires_grad=True) * 2
        >>> y.detach_().is_leaf, y.requires_grad
        (True, False)
        """
        if self._base is not None and self._base.requires_grad:
            raise RuntimeError("detach_: cannot detach a view of a tensor that requires grad "
                               "in place; use detach()")
        self._grad_fn = self._view_version = None
        self._requires_grad = False
        return self

    def retain_grad(self):
        """Keep ``.grad`` for this non-leaf tensor after backward.

        >>> w = minflow.tensor([1.0, 2.0], requires_grad=True)
        >>> h = w * 2
        >>> h.retain_grad()
        >>> h.sum().backward()
        >>> h.grad
        tensor([1., 1.])
        """
        if not self._requires_grad:
            raise RuntimeError("retain_grad: can't retain_grad on a tensor that has "
                               "requires_grad=False")
        if self.grad_fn is not None:
            self.grad_fn.retain_grad(self)

    @property
    def retains_grad(self):
        """Whether ``retain_grad()`` was called on this non-leaf tensor.

        >>> h = minflow.tensor([1.0], requires_grad=True) * 2
        >>> h.retain_grad()
        >>> h.retains_grad
        True
        """
        return self.grad_fn is not None and self.grad_fn.retains(self)

    def register_hook(self, hook):
        """Call ``hook(grad)`` when the gradient of this tensor is computed.

        The hook may return a new gradient to use instead. Returns a handle whose
        ``remove()`` unregisters the hook.

        >>> w = minflow.tensor([1.0, 2.0], requires_grad=True)
        >>> handle = w.register_hook(lambda grad: grad * 10)
        >>> w.sum().backward()
        >>> w.grad
        tensor([10., 10.])
        >>> handle.remove()
        """
        if not self._requires_grad:
            raise RuntimeError("register_hook: cannot register a hook on a tensor that "
                               "doesn't require gradient")
        if self.grad_fn is not None:
            return self.grad_fn.register_hook(self._output_nr, hook)
        from ..autograd.node import grad_accumulator
        return grad_accumulator(self).register_hook(0, hook)

    def _share_version(self):
        """This tensor's version counter, created on first need (views share it)."""
        if self._version is None:
            self._version = [0]
        return self._version

    @property
    def _version_value(self):
        return 0 if self._version is None else self._version[0]

    # -- data access -------------------------------------------------------------------
    def numpy(self):
        """The data as a numpy array (shares memory for cpu tensors).

        >>> minflow.tensor([1, 2]).numpy()
        array([1, 2])
        """
        _refuse_lazy(self, "numpy")
        if self._requires_grad:
            raise RuntimeError("numpy: can't call numpy() on a tensor that requires grad; "
                               "use tensor.detach().numpy()")
        if self.device.type != "cpu":
            raise TypeError(f"numpy: can't convert a {self.device} tensor to numpy; "
                            f"use tensor.cpu() first")
        return self._data

    def item(self):
        """The value of a one-element tensor as a Python number.

        >>> minflow.tensor([2.5]).item()
        2.5
        """
        _refuse_lazy(self, "item")
        if self.device.type == "meta":
            raise RuntimeError("item: a meta tensor has no data")
        if self._data.size != 1:
            raise RuntimeError(f"item: a Tensor with {self._data.size} elements cannot be "
                               f"converted to a Python scalar")
        return to_numpy(self._data).reshape(()).item()

    def tolist(self):
        """The data as nested Python lists (a number for a 0-dim tensor).

        >>> minflow.tensor([[1, 2], [3, 4]]).tolist()
        [[1, 2], [3, 4]]
        """
        _refuse_lazy(self, "tolist")
        if self.device.type == "meta":
            raise RuntimeError("tolist: a meta tensor has no data")
        return to_numpy(self._data).tolist()

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def __bool__(self):
        _refuse_lazy(self, "bool")
        if self._data.size != 1:
            raise RuntimeError(f"Boolean value of Tensor with {self._data.size} elements is "
                               f"ambiguous")
        return bool(self.item())

    def __float__(self):
        _refuse_lazy(self, "float")
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self.dtype.category == 2 or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to "
                            "an index")
        return int(self.item())

    def __format__(self, spec):
        if self._data.ndim == 0 and self.device.type != "meta":
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __array__(self, dtype=None, copy=None):
        arr = self.detach().cpu().numpy()
        return arr if dtype is None else arr.astype(dtype)

    __hash__ = object.__hash__

    def __repr__(self):
        from .printing import tensor_repr
        return tensor_repr(self)

    # -- conversion --------------------------------------------------------------------
    def to(self, *args, dtype=None, device=None, copy=False):
        """``to(device)``, ``to(dtype)``, ``to(device, dtype)`` or ``to(other_tensor)``.

        >>> x = minflow.tensor([1.5, -2.0])
        >>> x.to(minflow.float64)
        tensor([ 1.5000, -2.0000], dtype=minflow.float64)
        >>> x.to("cpu", minflow.int64)
        tensor([ 1, -2])
        """
        for arg in args:
            if isinstance(arg, Tensor):
                dtype, device = arg.dtype, arg.device
            elif isinstance(arg, dtypes.DType) or arg in (float, int, bool):
                dtype = arg
            else:
                device = arg
        out = self
        if device is not None:
            out = F.to_device(out, device)
        if dtype is not None:
            out = F.cast(out, dtypes.as_dtype(dtype))
        if copy and out is self:
            out = F.clone(self)
        return out

    def cpu(self):
        """This tensor on the cpu (itself if it is there already).

        >>> x = minflow.tensor([1.0])
        >>> x.cpu() is x
        True
        """
        return self.to("cpu")

    def cuda(self, device=None):
        """This tensor on a cuda device: the current one, or ``device`` (an index or a name).

        >>> minflow.ones(2).cuda().device.type
        'cuda'
        """
        return self.to("cuda" if device is None else
                       f"cuda:{device}" if isinstance(device, int) else device)

    def type(self, dtype=None):
        """``type()``: the legacy type name, e.g. "minflow.FloatTensor"; ``type(dtype)``: cast.

        >>> x = minflow.tensor([1.5])
        >>> x.type()
        'minflow.FloatTensor'
        >>> x.type(minflow.int64)
        tensor([1])
        """
        if dtype is None:
            return f"minflow.{_TYPE_NAMES[self.dtype.name]}"
        if isinstance(dtype, str) and dtype.endswith("Tensor"):
            names = {f"{p}.{v}": k for k, v in _TYPE_NAMES.items() for p in ("minflow", "torch")}
            if dtype not in names:
                raise TypeError(f"type: unknown tensor type {dtype!r}")
            dtype = names[dtype]
        return self.to(dtypes.as_dtype(dtype))

    def float(self):
        """``self.to(minflow.float32)``.

        >>> minflow.tensor([1, 2]).float()
        tensor([1., 2.])
        """
        return self.to(dtypes.float32)

    def double(self):
        """``self.to(minflow.float64)``.

        >>> minflow.tensor([1, 2]).double()
        tensor([1., 2.], dtype=minflow.float64)
        """
        return self.to(dtypes.float64)

    def half(self):
        """``self.to(minflow.float16)``.

        >>> minflow.tensor([1, 2]).half()
        tensor([1., 2.], dtype=minflow.float16)
        """
        return self.to(dtypes.float16)

    def long(self):
        """``self.to(minflow.int64)`` (floats truncate toward zero).

        >>> minflow.tensor([1.7, -1.7]).long()
        tensor([ 1, -1])
        """
        return self.to(dtypes.int64)

    def int(self):
        """``self.to(minflow.int32)`` (floats truncate toward zero).

        >>> minflow.tensor([2.9]).int()
        tensor([2], dtype=minflow.int32)
        """
        return self.to(dtypes.int32)

    def bool(self):
        """``self.to(minflow.bool)``: nonzero is True.

        >>> minflow.tensor([0.0, 0.5]).bool()
        tensor([False,  True])
        """
        return self.to(dtypes.bool)

    def is_contiguous(self):
        """Whether the elements lie in memory in row-major order, without gaps.

        >>> x = minflow.zeros(2, 3)
        >>> x.is_contiguous(), x.T.is_contiguous()
        (True, False)
        """
        data = self._data
        return isinstance(data, MetaArray) or data.flags.c_contiguous

    # -- operators: each calls the public function, so it dispatches like a direct call ---
    __add__, __radd__, __iadd__ = _op("add"), _op("add", True), _op("add_")
    __sub__, __rsub__, __isub__ = _op("sub"), _op("sub", True), _op("sub_")
    __mul__, __rmul__, __imul__ = _op("mul"), _op("mul", True), _op("mul_")
    __truediv__, __rtruediv__, __itruediv__ = _op("div"), _op("div", True), _op("div_")
    __floordiv__, __rfloordiv__ = _op("floor_divide"), _op("floor_divide", True)
    __mod__, __rmod__ = _op("remainder"), _op("remainder", True)
    __pow__, __rpow__ = _op("pow"), _op("pow", True)
    __matmul__, __rmatmul__ = _op("matmul"), _op("matmul", True)
    __and__, __rand__ = _op("bitwise_and"), _op("bitwise_and", True)
    __or__, __ror__ = _op("bitwise_or"), _op("bitwise_or", True)
    __xor__, __rxor__ = _op("bitwise_xor"), _op("bitwise_xor", True)
    __lt__, __le__, __gt__, __ge__ = _op("lt"), _op("le"), _op("gt"), _op("ge")

    def __neg__(self):
        return F.neg(self)

    def __pos__(self):
        return F.positive(self)

    def __abs__(self):
        return F.abs(self)

    def __invert__(self):
        return F.bitwise_not(self)

    def __eq__(self, other):
        if other.__class__ is np.ndarray:
            other = F.as_tensor(other, device=self.device)
        elif not isinstance(other, _OPERANDS):
            return NotImplemented           # x == None is False, as in torch
        return F.eq(self, other)

    def __ne__(self, other):
        if other.__class__ is np.ndarray:
            other = F.as_tensor(other, device=self.device)
        elif not isinstance(other, _OPERANDS):
            return NotImplemented
        return F.ne(self, other)

    def __getitem__(self, index):
        return F.getitem(self, index)

    def __setitem__(self, index, value):
        F.setitem_(self, index, value)


_OPERANDS = (Tensor, int, float, np.number, np.bool_)
_TYPE_NAMES = {"bool": "BoolTensor", "int32": "IntTensor", "int64": "LongTensor",
               "float16": "HalfTensor", "float32": "FloatTensor", "float64": "DoubleTensor"}


class _HookHandle:
    """Returned by ``register_hook``; ``remove()`` takes the hook out again."""

    __slots__ = ("_hooks", "_hook")

    def __init__(self, hooks, hook):
        self._hooks, self._hook = hooks, hook
        hooks.append(hook)

    def remove(self):
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


def _refuse_lazy(t, where):
    """Graph-mode tensors (data a minflow.graph LazyArray) have no values while their graph
    is built: raise the graph module's error saying what to do instead."""
    if getattr(t._data, "is_lazy", False):
        raise t._data.error(where)


def _wrap_dim(dim, ndim, where):
    """Turn a possibly negative ``dim`` into an index, or raise an IndexError naming ``where``."""
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(f"{where}: expected dim to be an int, got {type(dim).__name__}")
    top = max(ndim, 1)
    if not -top <= dim < top:
        raise IndexError(f"{where}: Dimension out of range (expected to be in range of "
                         f"[{-top}, {top - 1}], but got {dim})")
    return dim + top if dim < 0 else dim


def wrap_dim(dim, ndim, where):
    return _wrap_dim(dim, ndim, where)



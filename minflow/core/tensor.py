"""Tensor: an array (numpy, cupy or meta) plus dtype, device and autograd state.

Operators and methods call public functions through ``F``, so every one of them goes
through the dispatcher like a direct call would. The autograd surface (grad, backward,
hooks...) lives in tensor_autograd.py, the ways out (item, numpy, to...) in
tensor_convert.py: base classes of Tensor, over its slots.
"""
import numpy as np

from . import dtype as dtypes
from .device import MetaArray
from .grad_mode import state as _grad_state
from .memory_format import contiguous_format, is_contiguous_in
from .namespace import F
from .tensor_options import strided
from .tensor_autograd import TensorAutograd
from .tensor_convert import TensorConversion, _refuse_lazy

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


class Tensor(TensorAutograd, TensorConversion):
    """An n-dimensional array on a device, with optional gradient tracking.

    >>> x = minflow.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    >>> x.shape, x.dtype, x.device
    (minflow.Size([2, 2]), minflow.float32, device(type='cpu'))
    """

    __slots__ = ("_data", "dtype", "device", "_requires_grad", "_grad", "_grad_fn",
                 "_output_nr", "_version", "_base", "_view_version", "_grad_acc",
                 "_inference", "__weakref__")
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
        if _grad_state.inference:     # NOTE: set only here; read with a default (is_inference)
            t._inference = True
        return t

    def _is_inference(self):
        return getattr(self, "_inference", False)

    # -- metadata ----------------------------------------------------------------------
    @property
    def shape(self):
        """The shape, a ``minflow.Size``.

        >>> minflow.zeros(2, 3).shape
        minflow.Size([2, 3])
        """
        return Size(self._data.shape)

    @property
    def layout(self):
        """``minflow.strided``: a tensor is a dense array with strides (see tensor_options).

        >>> minflow.zeros(2).layout
        minflow.strided
        """
        return strided

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

    __hash__ = object.__hash__

    def __repr__(self):
        from .printing import tensor_repr
        return tensor_repr(self)

    def is_contiguous(self, memory_format=contiguous_format):
        """Whether the elements lie in memory in ``memory_format``'s order (default
        row-major), without gaps.

        >>> x = minflow.zeros(2, 3)
        >>> x.is_contiguous(), x.T.is_contiguous()
        (True, False)
        >>> y = minflow.zeros(2, 3, 4, 4).to(memory_format=minflow.channels_last)
        >>> y.is_contiguous(), y.is_contiguous(memory_format=minflow.channels_last)
        (False, True)
        """
        if memory_format is not contiguous_format:
            return is_contiguous_in(self, memory_format)
        data = self._data
        return isinstance(data, MetaArray) or data.flags.c_contiguous

    # -- operators: each calls the public function, so it dispatches like a direct call ---
    __add__, __radd__, __iadd__ = _op("add"), _op("add", True), _op("add_")
    __sub__, __rsub__, __isub__ = _op("sub"), _op("sub", True), _op("sub_")
    __mul__, __rmul__, __imul__ = _op("mul"), _op("mul", True), _op("mul_")
    __truediv__, __rtruediv__, __itruediv__ = _op("div"), _op("div", True), _op("div_")
    __floordiv__, __rfloordiv__, __ifloordiv__ = (_op("floor_divide"),
                                                  _op("floor_divide", True),
                                                  _op("floor_divide_"))
    __mod__, __rmod__, __imod__ = _op("remainder"), _op("remainder", True), _op("remainder_")
    __pow__, __rpow__, __ipow__ = _op("pow"), _op("pow", True), _op("pow_")
    __matmul__, __rmatmul__ = _op("matmul"), _op("matmul", True)
    __and__, __rand__, __iand__ = (_op("bitwise_and"), _op("bitwise_and", True),
                                   _op("bitwise_and_"))
    __or__, __ror__, __ior__ = _op("bitwise_or"), _op("bitwise_or", True), _op("bitwise_or_")
    __xor__, __rxor__, __ixor__ = (_op("bitwise_xor"), _op("bitwise_xor", True),
                                   _op("bitwise_xor_"))
    __lshift__, __rlshift__, __ilshift__ = (_op("bitwise_left_shift"),
                                            _op("bitwise_left_shift", True),
                                            _op("bitwise_left_shift_"))
    __rshift__, __rrshift__, __irshift__ = (_op("bitwise_right_shift"),
                                            _op("bitwise_right_shift", True),
                                            _op("bitwise_right_shift_"))
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



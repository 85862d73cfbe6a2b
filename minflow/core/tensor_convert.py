"""Tensor's ways out: to Python numbers and lists, numpy, other devices and dtypes.

A base class of Tensor (which holds the slots these methods read).
"""
import mmap
import sys

import numpy as np

from . import dtype as dtypes
from .device import cuda_is_available, is_pinned_array, pinned_copy, to_numpy
from .memory_format import preserve_format, to_memory_format
from .namespace import F

__all__ = ["TensorConversion"]


class TensorConversion:
    """Tensor's data access and conversion methods (see Tensor)."""

    __slots__ = ()

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
        if self.dtype is dtypes.bfloat16:       # as torch: numpy has no bfloat16
            raise TypeError("numpy: Got unsupported ScalarType BFloat16; convert with "
                            ".float() first")
        return self._data

    def __dlpack__(self, stream=None, **kwargs):
        """The DLPack capsule of this tensor's data (torch.from_dlpack, numpy.from_dlpack
        and cupy.from_dlpack take minflow tensors through it, sharing memory)."""
        _refuse_lazy(self, "__dlpack__")
        if self._requires_grad:
            raise RuntimeError("__dlpack__: can't export a tensor that requires grad; use "
                               "tensor.detach()")
        if stream is None and not kwargs:
            return self._data.__dlpack__()
        return self._data.__dlpack__(stream=stream, **kwargs)

    def __dlpack_device__(self):
        return self._data.__dlpack_device__()

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
        return float(self._real_scalar("double"))

    def __int__(self):
        return int(self._real_scalar("int64_t"))

    def __complex__(self):
        return complex(self._python_scalar())

    def _real_scalar(self, c_type):
        value = self._python_scalar()
        if isinstance(value, complex):      # torch refuses float() / int() of a complex tensor
            raise RuntimeError(f"value cannot be converted to type {c_type} without overflow")
        return value

    def _python_scalar(self):
        # NOTE: a ValueError here, as torch (item() raises a RuntimeError)
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self.item()

    def __contains__(self, element):
        """``element in tensor``: whether any element equals it (a number or a tensor that
        broadcasts against this one)."""
        if not isinstance(element, (TensorConversion, int, float, bool)):   # Tensor or number
            raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you "
                               f"passed in a {type(element)}.")
        return bool((self == element).any())

    def __index__(self):
        if self.dtype.category >= 2 or self._data.size != 1:
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


    def to(self, *args, dtype=None, device=None, non_blocking=False, copy=False,
           memory_format=preserve_format):
        """``to(device)``, ``to(dtype)``, ``to(device, dtype)`` or ``to(other_tensor)``;
        ``memory_format`` lays the result out as ``minflow.channels_last`` etc. (the values
        are the same).

        ``non_blocking`` is accepted for torch's scripts; copies are made synchronously.

        >>> x = minflow.tensor([1.5, -2.0])
        >>> x.to(minflow.float64)
        tensor([ 1.5000, -2.0000], dtype=minflow.float64)
        >>> x.to("cpu", minflow.int64)
        tensor([ 1, -2])
        >>> minflow.zeros(1, 3, 2, 2).to(memory_format=minflow.channels_last).stride()
        (12, 1, 6, 3)
        """
        for arg in args:
            if isinstance(arg, TensorConversion):     # a Tensor
                dtype, device = arg.dtype, arg.device
            elif isinstance(arg, dtypes.DType) or arg in (float, int, bool, complex):
                dtype = arg
            else:
                device = arg
        out = self
        if device is not None:
            out = F.to_device(out, device)
        if dtype is not None:
            out = F.cast(out, dtypes.as_dtype(dtype))
        out = to_memory_format(out, memory_format, "to", exact=True)
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

    def cuda(self, device=None, non_blocking=False):
        """This tensor on a cuda device: the current one, or ``device`` (an index or a name).

        >>> minflow.ones(2).cuda().device.type
        'cuda'
        """
        return self.to("cuda" if device is None else
                       f"cuda:{device}" if isinstance(device, int) else device)

    def pin_memory(self):
        """A copy of this cpu tensor in pinned (page-locked) host memory, or itself if it is
        pinned already. As torch, an error without an accelerator (a GPU with cupy).

        >>> x = minflow.ones(2)
        >>> x.pin_memory().is_pinned() if minflow.accelerator.is_available() else True
        True
        """
        _refuse_lazy(self, "pin_memory")
        if self.device.type != "cpu":
            raise RuntimeError(f"pin_memory: cannot pin '{self.type()}' only dense CPU "
                               f"tensors can be pinned")
        if not cuda_is_available():
            raise RuntimeError("pin_memory: Cannot access accelerator device when none is "
                               "available.")
        if is_pinned_array(self._data):
            return self
        # NOTE: a clone records the autograd node (grads pass through, as torch's
        # _pin_memory); only where its data lives changes
        out = F.clone(self)
        out._data = pinned_copy(out._data)
        return out

    def is_pinned(self):
        """Whether this tensor lies in pinned host memory (always False without a GPU).

        >>> minflow.ones(2).is_pinned()
        False
        """
        return self.device.type == "cpu" and is_pinned_array(self._data)

    def share_memory_(self):
        """Move this cpu tensor's data to shared memory, so that processes forked later
        (``multiprocessing``) see each other's in-place changes; returns itself. cuda
        tensors are shared already.

        >>> x = minflow.ones(2)
        >>> x.share_memory_() is x, x.is_shared(), x.tolist()
        (True, True, [1.0, 1.0])
        """
        _refuse_lazy(self, "share_memory_")
        if self.device.type != "cpu" or self.is_shared():
            return self
        # NOTE: 2 = the slot + getrefcount's argument: a view, a numpy() result or a saved
        # array would keep the old memory and silently stop sharing data with this tensor
        if self._base is not None or sys.getrefcount(self._data) > 2:
            raise RuntimeError("share_memory_: the tensor's data is also held elsewhere (a "
                               "view of it, or a view it is of, or a numpy() array), which "
                               "would no longer see its values; call share_memory_() "
                               "before making views")
        array = self._data
        buffer = mmap.mmap(-1, max(array.nbytes, 1))    # anonymous and MAP_SHARED
        shared = np.ndarray(array.shape, array.dtype, buffer=buffer)
        shared[...] = array
        self._data = shared
        return self

    def is_shared(self):
        """Whether this tensor's data is in shared memory (``share_memory_``); cuda tensors
        always are.

        >>> minflow.ones(2).is_shared()
        False
        """
        if self.device.type == "cuda":
            return True
        base = self._data
        while isinstance(base, np.ndarray):
            base = base.base
        return isinstance(base, mmap.mmap)

    def type(self, dtype=None, non_blocking=False):
        """``type()``: the legacy type name, e.g. "minflow.FloatTensor"; ``type(dtype)``:
        cast; ``type(minflow.LongTensor)`` or ``type("torch.cuda.FloatTensor")``: cast and
        move to the device of that legacy type (cpu, or cuda for the ``.cuda.`` names).
        ``non_blocking`` is accepted for torch's scripts; copies are made synchronously.

        >>> x = minflow.tensor([1.5])
        >>> x.type()
        'minflow.FloatTensor'
        >>> x.type(minflow.int64)
        tensor([1])
        >>> x.type(minflow.DoubleTensor)
        tensor([1.5000], dtype=minflow.float64)
        """
        if dtype is None:
            return f"minflow.{_TYPE_NAMES[self.dtype.name]}"
        if isinstance(dtype, type) and isinstance(getattr(dtype, "dtype", None), dtypes.DType):
            return self.to("cpu", dtype.dtype)      # a legacy class: a cpu type, as in torch
        if isinstance(dtype, str) and dtype.endswith("Tensor"):
            if dtype not in _LEGACY_TYPES:
                raise ValueError(f"type: invalid type {dtype!r}; expected a name such as "
                                 f"'torch.LongTensor' or 'torch.cuda.FloatTensor'")
            dtype, device_type = _LEGACY_TYPES[dtype]
            device = self.device if self.device.type == device_type else device_type
            return self.to(device, dtypes.as_dtype(dtype))
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

    def bfloat16(self):
        """``self.to(minflow.bfloat16)`` (rounded to nearest even).

        >>> minflow.tensor([1.0, 3.14159]).bfloat16()
        tensor([1.0000, 3.1406], dtype=minflow.bfloat16)
        """
        return self.to(dtypes.bfloat16)

    def cfloat(self):
        """``self.to(minflow.complex64)`` (a real tensor gets imaginary parts 0).

        >>> minflow.tensor([1.5, -2.0]).cfloat()
        tensor([ 1.5000+0.j, -2.0000+0.j])
        """
        return self.to(dtypes.complex64)

    def cdouble(self):
        """``self.to(minflow.complex128)``.

        >>> minflow.tensor([1j]).cdouble().dtype
        minflow.complex128
        """
        return self.to(dtypes.complex128)

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

    def short(self):
        """``self.to(minflow.int16)`` (floats truncate toward zero).

        >>> minflow.tensor([300.5]).short()
        tensor([300], dtype=minflow.int16)
        """
        return self.to(dtypes.int16)

    def char(self):
        """``self.to(minflow.int8)`` (floats truncate toward zero).

        >>> minflow.tensor([-3.5]).char()
        tensor([-3], dtype=minflow.int8)
        """
        return self.to(dtypes.int8)

    def byte(self):
        """``self.to(minflow.uint8)``: image data as bytes. Integers wrap modulo 256 as in
        torch; floats outside [0, 255] have no defined result.

        >>> minflow.tensor([0.0, 127.9, 255.0]).byte()
        tensor([  0, 127, 255], dtype=minflow.uint8)
        """
        return self.to(dtypes.uint8)

    def bool(self):
        """``self.to(minflow.bool)``: nonzero is True.

        >>> minflow.tensor([0.0, 0.5]).bool()
        tensor([False,  True])
        """
        return self.to(dtypes.bool)


def _refuse_lazy(t, where):
    """Graph-mode tensors (data a minflow.graph LazyArray) have no values while their graph
    is built: raise the graph module's error saying what to do instead."""
    if getattr(t._data, "is_lazy", False):
        raise t._data.error(where)


_TYPE_NAMES = {"bool": "BoolTensor", "uint8": "ByteTensor", "int8": "CharTensor",
               "int16": "ShortTensor", "int32": "IntTensor", "int64": "LongTensor",
               "float16": "HalfTensor", "float32": "FloatTensor", "float64": "DoubleTensor",
               "complex64": "ComplexFloatTensor", "complex128": "ComplexDoubleTensor"}
# "torch.cuda.LongTensor" -> ("int64", "cuda"), and the cpu and minflow names alike
_LEGACY_TYPES = {f"{lib}.{cuda}{type_name}": (dtype_name, "cuda" if cuda else "cpu")
                 for dtype_name, type_name in _TYPE_NAMES.items()
                 for lib in ("minflow", "torch") for cuda in ("", "cuda.")}

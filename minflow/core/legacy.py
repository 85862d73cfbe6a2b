"""PyTorch's legacy tensor constructors: ``Tensor(2, 3)``, ``Tensor([1, 2])``,
``LongTensor(data)``, ``FloatTensor(n)`` and the other typed ones.

``<Type>Tensor(*sizes)`` makes an uninitialised tensor of that dtype (here: zero-filled),
``<Type>Tensor(sequence or ndarray)`` copies the data into that dtype, and ``Tensor(t)``
returns ``t`` detached, sharing its storage. ``isinstance(t, minflow.LongTensor)`` is true
for a cpu tensor of dtype int64, as in torch.
"""
import numbers

from . import dtype as dtypes
from .tensor import Size, Tensor

__all__ = ["set_default_tensor_type", "legacy_new", "FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor",
           "IntTensor", "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor"]


def legacy_new(name, dtype, args, device=None):
    """The tensor that ``<name>(*args, device=device)`` makes, of ``dtype``."""
    from .namespace import F
    if not args:
        return F.empty(0, dtype=dtype, device=device)
    if len(args) == 1 and isinstance(args[0], Tensor):
        source = args[0]
        if source.dtype is not dtype and name != "Tensor":
            raise TypeError(f"{name}(): expected a tensor of dtype {dtype.name}, got "
                            f"{source.dtype.name}")
        return source.detach()
    if len(args) == 1 and isinstance(args[0], Size):
        args = tuple(args[0])
    if all(isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in args):
        return F.zeros(*args, dtype=dtype, device=device)
    if len(args) > 1:
        got = ", ".join(type(a).__name__ for a in args)
        raise TypeError(f"{name}(): expected sizes (ints) or one sequence of data, got ({got})")
    data = args[0]
    if isinstance(data, (str, bytes)) or not hasattr(data, "__len__"):
        raise TypeError(f"{name}(): data must be a sequence, got {type(data).__name__}")
    return F.tensor(data, dtype=dtype, device=device)


class _TypedTensorMeta(type):
    """isinstance(t, <Type>Tensor): t is a cpu Tensor of that dtype."""

    def __instancecheck__(cls, obj):
        return (isinstance(obj, Tensor) and obj.dtype is cls.dtype
                and obj.device.type == "cpu")


def _typed(name, dtype):
    def __new__(cls, *args, device=None):
        return legacy_new(name, cls.dtype, args, device)
    doc = (f"{name}(*sizes) or {name}(data): a cpu tensor of dtype {dtype.name} (legacy "
           f"constructor, as torch.{name}).\n\n"
           f">>> t = minflow.{name}([1, 0])\n>>> t.dtype, isinstance(t, minflow.{name})\n"
           f"(minflow.{dtype.name}, True)\n")
    return _TypedTensorMeta(name, (), {"dtype": dtype, "__new__": __new__, "__doc__": doc,
                                       "__module__": "minflow"})


FloatTensor = _typed("FloatTensor", dtypes.float32)
DoubleTensor = _typed("DoubleTensor", dtypes.float64)
HalfTensor = _typed("HalfTensor", dtypes.float16)
LongTensor = _typed("LongTensor", dtypes.int64)
IntTensor = _typed("IntTensor", dtypes.int32)
ShortTensor = _typed("ShortTensor", dtypes.int16)
CharTensor = _typed("CharTensor", dtypes.int8)
ByteTensor = _typed("ByteTensor", dtypes.uint8)
BoolTensor = _typed("BoolTensor", dtypes.bool)


def set_default_tensor_type(t):
    """torch's older way to set the default dtype (and, with a cuda type, the default
    device): ``set_default_tensor_type(minflow.DoubleTensor)`` or a name such as
    "torch.cuda.FloatTensor". Only floating types are allowed, as torch.

    >>> minflow.set_default_tensor_type("torch.DoubleTensor")
    >>> minflow.tensor([1.0]).dtype
    minflow.float64
    >>> minflow.set_default_tensor_type(minflow.FloatTensor)
    """
    import warnings
    from .device import set_default_device
    name = t if isinstance(t, str) else getattr(t, "__name__", None)
    if not isinstance(name, str):
        raise TypeError(f"set_default_tensor_type: expected a tensor type or its name, got "
                        f"{type(t).__name__}")
    cuda = ".cuda." in name
    kind = name.rsplit(".", 1)[-1]
    dtype = {"FloatTensor": dtypes.float32, "DoubleTensor": dtypes.float64,
             "HalfTensor": dtypes.float16, "BFloat16Tensor": dtypes.bfloat16}.get(kind)
    if dtype is None:
        raise TypeError(f"set_default_tensor_type: only floating-point types are supported as "
                        f"the default type, got {name}")
    warnings.warn("set_default_tensor_type() is deprecated (as in torch); use "
                  "minflow.set_default_dtype() and minflow.set_default_device() instead",
                  UserWarning, stacklevel=2)
    dtypes.set_default_dtype(dtype)
    set_default_device("cuda" if cuda else None)

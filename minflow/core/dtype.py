"""Data types and PyTorch's type promotion rules.

A ``DType`` wraps a numpy dtype (cupy uses the same dtype objects); bfloat16's comes from
ml_dtypes, as numpy has none. Promotion follows
PyTorch: tensors with dimensions outrank zero-dim tensors, which outrank Python
scalars, and a lower tier only matters when it belongs to a higher category
(bool < integer < floating < complex). So ``int32_tensor + 2.5`` is float32 (the default
float), while ``float16_tensor + 2.5`` stays float16, and ``float64_tensor * 1j`` is
complex128 (a complex scalar keeps a floating tensor's precision).
"""
import ml_dtypes
import numpy as np

__all__ = [
    "DType", "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
    "float32", "float64", "complex64", "complex128",
    "get_default_dtype", "set_default_dtype", "promote_types", "result_type", "as_dtype",
    "can_cast", "DTypeError",
]

_builtin_bool = bool


class DTypeError(TypeError, NotImplementedError):
    """An op or function has no kernel for an input's dtype.

    A TypeError, and also a NotImplementedError (so a RuntimeError) as torch raises for a
    dtype a kernel is not implemented for: ``except`` clauses written for either catch it.

    >>> try:
    ...     minflow.softmax(minflow.tensor([1, 2]), 0)
    ... except NotImplementedError as err:
    ...     print(err)
    softmax: expected input with dtype in [float16, float32, float64], got int64
    """


class DType:
    """A minflow dtype: ``minflow.float32`` etc. Compares by identity; one object per dtype.

    >>> minflow.float16, minflow.float16.itemsize, minflow.float16.is_floating_point
    (minflow.float16, 2, True)
    >>> minflow.tensor([1]).dtype is minflow.int64
    True
    """

    __slots__ = ("name", "np", "itemsize", "is_floating_point", "is_complex",
                 "is_differentiable", "is_signed", "category", "rank")

    def __init__(self, name, np_dtype, category, rank):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.itemsize = self.np.itemsize
        self.category = category            # 0 bool, 1 integer, 2 floating, 3 complex
        self.rank = rank                    # position in the promotion lattice
        self.is_floating_point = category == 2
        self.is_complex = category == 3
        self.is_differentiable = category >= 2      # floating or complex: may require grad
        self.is_signed = self.np.kind in "ifc" or category == 2

    def __repr__(self):
        return f"minflow.{self.name}"

    def __reduce__(self):
        return (as_dtype, (self.name,))


bool = DType("bool", np.bool_, 0, 0)
uint8 = DType("uint8", np.uint8, 1, 1)
int8 = DType("int8", np.int8, 1, 2)
int16 = DType("int16", np.int16, 1, 3)
int32 = DType("int32", np.int32, 1, 4)
int64 = DType("int64", np.int64, 1, 5)
float16 = DType("float16", np.float16, 2, 6)
bfloat16 = DType("bfloat16", ml_dtypes.bfloat16, 2, 6)
float32 = DType("float32", np.float32, 2, 7)
float64 = DType("float64", np.float64, 2, 8)
complex64 = DType("complex64", np.complex64, 3, 9)
complex128 = DType("complex128", np.complex128, 3, 10)

# NOTE: kernels are registered for these (ALL, FLOATS...), not for bfloat16: a bfloat16 op
# runs its float32 kernel on the inputs widened to float32 and rounds the results to
# bfloat16 once (the dispatcher's _run_kernel), as torch's cpu kernels compute bfloat16 in
# float; numpy has no bfloat16 arithmetic of its own.
ALL = (bool, uint8, int8, int16, int32, int64, float16, float32, float64)
FLOATS = (float16, float32, float64)
INTS = (uint8, int8, int16, int32, int64)
NUMERIC = INTS + FLOATS
COMPLEX = (complex64, complex128)
ALL_AND_COMPLEX = ALL + COMPLEX         # data-movement kernels (copies, views, indexing)
EVERY = ALL + (bfloat16,) + COMPLEX     # every dtype a tensor can have

_by_np = {d.np: d for d in EVERY}
_by_name = {d.name: d for d in EVERY}
_by_name.update({"float": float32, "double": float64, "half": float16, "long": int64,
                 "int": int32, "short": int16, "bool_": bool, "cfloat": complex64,
                 "cdouble": complex128})
_REAL = {complex64: float32, complex128: float64}
_COMPLEX = {float32: complex64, float64: complex128, bfloat16: complex64}
_default_float = [float32]


def get_default_dtype():
    """The dtype of float factories and of ``int / int`` (float32 unless changed).

    >>> minflow.get_default_dtype(), minflow.tensor([1, 2]).div(2).dtype
    (minflow.float32, minflow.float32)
    """
    return _default_float[0]


def set_default_dtype(d):
    """Set the default floating dtype (float16, float32 or float64).

    >>> minflow.set_default_dtype(minflow.float64)
    >>> minflow.tensor([1.0]).dtype
    minflow.float64
    >>> minflow.set_default_dtype(minflow.float32)
    """
    dtype = as_dtype(d)
    if not dtype.is_floating_point:
        raise TypeError(f"set_default_dtype: expected a floating dtype, got {dtype}")
    _default_float[0] = dtype


def as_dtype(value):
    """Turn a minflow dtype, numpy dtype, name or Python type into a ``DType``.

    As in PyTorch, the Python type ``float`` means float64 (not the default dtype).
    """
    if isinstance(value, DType):
        return value
    if value is float:
        return float64
    if value is int:
        return int64
    if value is _builtin_bool:
        return bool
    if value is complex:
        return complex128
    if isinstance(value, str) and value in _by_name:
        return _by_name[value]
    if isinstance(value, str) and value in ("complex32", "chalf"):
        raise TypeError(f"unsupported dtype {value!r}: minflow has no complex32 (chalf); "
                        f"use complex64")
    try:
        found = _by_np.get(np.dtype(value))
    except TypeError:
        found = None
    if found is None:
        names = ", ".join(d.name for d in EVERY)
        raise TypeError(f"unsupported dtype {value!r}; expected one of {names}")
    return found


def from_numpy_dtype(np_dtype):
    """The ``DType`` of a numpy dtype, or a TypeError naming it."""
    found = _by_np.get(np_dtype)
    if found is None:
        raise TypeError(f"numpy dtype {np_dtype} has no minflow dtype; "
                        f"expected one of {', '.join(d.name for d in EVERY)}")
    return found


def promote_types(a, b):
    """The smallest dtype both ``a`` and ``b`` convert to (PyTorch's lattice).

    The lattice is a chain bool < uint8 < int8 < int16 < int32 < int64 < float16 < float32
    < float64, except that uint8 and int8 hold each other's values only in int16, and
    float16 and bfloat16 (beside it in the chain) only in float32.

    >>> minflow.promote_types(minflow.int64, minflow.float16)
    minflow.float16
    >>> minflow.promote_types(minflow.uint8, minflow.int8)
    minflow.int16
    >>> minflow.promote_types(minflow.bfloat16, minflow.float16)
    minflow.float32

    A complex dtype takes the precision of the promoted real parts:

    >>> minflow.promote_types(minflow.complex64, minflow.float64)
    minflow.complex128
    """
    if a.category == 3 or b.category == 3:
        return to_complex(promote_types(to_real(a), to_real(b)))
    if (a is uint8 and b is int8) or (a is int8 and b is uint8):
        return int16
    if (a is float16 and b is bfloat16) or (a is bfloat16 and b is float16):
        return float32
    return a if a.rank >= b.rank else b


def to_real(dtype):
    """The real counterpart of a complex dtype (complex64 -> float32); others as they are.

    >>> minflow.core.dtype.to_real(minflow.complex128)
    minflow.float64
    """
    return _REAL.get(dtype, dtype)


def to_complex(dtype):
    """The complex dtype of a floating dtype's precision (float64 -> complex128); complex
    dtypes as they are. float16 would give complex32, which minflow lacks.

    >>> minflow.core.dtype.to_complex(minflow.float32)
    minflow.complex64
    """
    if dtype.category == 3:
        return dtype
    found = _COMPLEX.get(dtype)
    if found is None:
        raise DTypeError(f"expected a float32 or float64 dtype to make complex, got "
                         f"{dtype.name}" + (" (complex32 is not supported)"
                                            if dtype is float16 else ""))
    return found


def default_complex_dtype():
    """The complex dtype of the default float's precision, as torch: complex64 for float32,
    complex128 for float64.

    >>> minflow.core.dtype.default_complex_dtype()
    minflow.complex64
    """
    return to_complex(_default_float[0])


def scalar_dtype(value):
    """The dtype PyTorch gives a Python scalar: bool, int64, the default float or complex.

    numpy scalars (``np.float64(1.5)``) count as Python scalars of their kind, as in torch.
    """
    if isinstance(value, (_builtin_bool, np.bool_)):
        return bool
    if isinstance(value, (int, np.integer)):
        return int64
    if isinstance(value, (float, np.floating)):
        return _default_float[0]
    if isinstance(value, (complex, np.complexfloating)):
        return default_complex_dtype()
    raise TypeError(f"expected a Tensor or a Python number, got {type(value).__name__}")


def _combine(higher, lower):
    # PyTorch's combine_categories: a lower tier counts only if it is of a higher category;
    # a complex lower tier keeps a floating higher tier's precision.
    if higher is None:
        return lower
    if lower is None or higher.category == 3:
        return higher
    if lower.category == 3:
        return to_complex(higher) if higher.category == 2 else lower
    if higher.category == 2:
        return higher
    if higher.category == 0 or lower.category == 2:
        return promote_types(higher, lower)
    return higher


def result_type(*operands):
    """Promoted dtype of tensors and Python scalars, as ``torch.result_type``.

    Python scalars do not upcast a tensor of their own kind:

    >>> x = minflow.tensor([1], dtype=minflow.int32)
    >>> minflow.result_type(x, 2), minflow.result_type(x, 2.5)
    (minflow.int32, minflow.float32)
    """
    dim = zero = wrapped = None
    for x in operands:
        dtype = getattr(x, "dtype", None)
        if isinstance(dtype, DType):
            if x.ndim:
                dim = dtype if dim is None else promote_types(dim, dtype)
            else:
                zero = dtype if zero is None else promote_types(zero, dtype)
        elif x is not None:
            s = scalar_dtype(x)
            wrapped = s if wrapped is None else promote_types(wrapped, s)
    return _combine(dim, _combine(zero, wrapped))


def can_cast(from_, to):
    """Whether ``from_`` may be written into ``to`` under PyTorch's casting rule: never to a
    lower category (float -> integer, integer -> bool).

    >>> minflow.can_cast(minflow.float32, minflow.int32)
    False
    """
    return as_dtype(from_).category <= as_dtype(to).category


def wrap_int(value, dtype):
    """A Python int as the integer ``dtype`` holds it, wrapped modulo 2**bits as C casts
    (torch's ``uint8_tensor + 1000`` adds 1000 % 256); kernels on numpy arrays refuse an
    out-of-range Python int.

    >>> wrap_int = minflow.core.dtype.wrap_int
    >>> wrap_int(1000, minflow.uint8), wrap_int(-1, minflow.uint8)
    (232, 255)
    """
    info = np.iinfo(dtype.np)
    if info.min <= value <= info.max:
        return value
    return (value - info.min) % (1 << info.bits) + info.min


def checked_scalar(value, dtype, where):
    """A Python number to be written into a tensor of ``dtype`` (a fill value, a bound), as
    torch converts it: an integer dtype takes an int in its range, or for unsigned dtypes
    down to -max (wrapped: -1 is 255 in uint8), and a float in its range; anything else is
    a RuntimeError.

    >>> minflow.core.dtype.checked_scalar(-1, minflow.uint8, "full")
    255
    >>> minflow.core.dtype.checked_scalar(300, minflow.uint8, "full")
    Traceback (most recent call last):
    RuntimeError: full: value 300 cannot be converted to type uint8 without overflow
    """
    if isinstance(value, (complex, np.complexfloating)) and dtype.category != 3:
        if value.imag:
            raise RuntimeError(f"{where}: value {value!r} cannot be converted to type "
                               f"{dtype.name} without overflow")
        value = value.real
    if dtype.category != 1 or isinstance(value, (_builtin_bool, np.bool_)):
        return value
    info = np.iinfo(dtype.np)
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, int):
        low = -int(info.max) if info.min == 0 else int(info.min)
        if low <= value <= info.max:
            return wrap_int(int(value), dtype)
    elif not isinstance(value, float) or info.min <= value <= info.max:
        return value
    raise RuntimeError(f"{where}: value {value!r} cannot be converted to type {dtype.name} "
                       f"without overflow")


def to_float(dtype):
    """``dtype`` if floating or complex, else the default float (``int / int`` gives
    float32)."""
    return dtype if dtype.category >= 2 else _default_float[0]

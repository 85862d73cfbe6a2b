"""``finfo`` / ``iinfo``: the numeric limits of minflow's dtypes, as ``torch.finfo`` /
``torch.iinfo``."""
import ml_dtypes
import numpy as np

from . import dtype as dtypes

__all__ = ["finfo", "iinfo"]


def _dtype_arg(dtype, where):
    if dtype is None:
        return dtypes.get_default_dtype()
    try:
        return dtypes.as_dtype(dtype)
    except TypeError:
        raise TypeError(f"{where}: expected a minflow dtype, got {dtype!r}") from None


class finfo:  # noqa: N801  (torch's name)
    """Machine limits of a floating dtype (default: the default dtype), as ``torch.finfo``;
    a complex dtype gives those of its real counterpart.

    Fields: ``bits``, ``eps`` (1.0's distance to the next float), ``max``, ``min`` (the
    most negative finite value), ``tiny`` and ``smallest_normal`` (the smallest positive
    normal number), ``resolution`` (10 ** -digits) and ``dtype`` (its name).

    >>> minflow.finfo(minflow.float16)
    finfo(resolution=0.001, min=-65504, max=65504, eps=0.000976562, smallest_normal=6.10352e-05, tiny=6.10352e-05, dtype=float16)
    >>> minflow.finfo().eps == 2.0 ** -23, minflow.finfo(minflow.complex128).dtype
    (True, 'float64')
    """

    def __init__(self, type=None):  # noqa: A002  (torch's argument name)
        dtype = dtypes.to_real(_dtype_arg(type, "finfo"))   # complex: its real parts', as torch
        if not dtype.is_floating_point:
            raise TypeError(f"finfo: expected a floating point dtype, got {dtype.name}; "
                            f"use minflow.iinfo for integer dtypes")
        info = (ml_dtypes.finfo if dtype is dtypes.bfloat16 else np.finfo)(dtype.np)
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -int(info.precision)
        self.dtype = dtype.name

    def __eq__(self, other):
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("finfo", self.dtype))

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:  # noqa: N801  (torch's name)
    """Machine limits of an integer dtype, as ``torch.iinfo``: ``bits``, ``max``, ``min``
    (Python ints) and ``dtype`` (its name).

    >>> minflow.iinfo(minflow.int32)
    iinfo(min=-2.14748e+09, max=2.14748e+09, dtype=int32)
    >>> minflow.iinfo(minflow.int64).max == 2 ** 63 - 1
    True
    """

    def __init__(self, type):  # noqa: A002  (torch's argument name)
        dtype = _dtype_arg(type, "iinfo")
        if dtype is dtypes.bool:
            raise TypeError("iinfo: minflow.bool is not supported by minflow.iinfo")
        if dtype.is_differentiable:
            raise TypeError(f"iinfo: expected an integer dtype, got {dtype.name}; "
                            f"use minflow.finfo for floating point dtypes")
        info = np.iinfo(dtype.np)
        self.bits, self.max, self.min = int(info.bits), int(info.max), int(info.min)
        self.dtype = dtype.name

    def __eq__(self, other):
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("iinfo", self.dtype))

    def __repr__(self):
        return f"iinfo(min={float(self.min):g}, max={float(self.max):g}, dtype={self.dtype})"

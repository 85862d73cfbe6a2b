"""Kernels of the special-math ops, written once against the array module.

numpy has no erf / erfinv: they come from scipy.special where installed (cupyx.scipy.special
on cuda), else from the standard library's math.erf, elementwise, with Newton steps for erfinv.
"""
import importlib
import math

import numpy as np

from ...core.dtype import FLOATS, INTS
from ..registry import register_array_function, register_kernel

register_array_function("trunc", "trunc", FLOATS)
register_kernel("trunc", ("cpu", "cuda"), INTS)(lambda xp, x: x.copy())
register_array_function("atan2", "arctan2", FLOATS)


def _special(xp):
    """scipy.special for numpy (None when scipy is missing), cupyx.scipy.special for cupy."""
    name = "scipy.special" if xp is np else "cupyx.scipy.special"
    try:
        return importlib.import_module(name)
    except ImportError:
        if xp is not np:
            raise
        return None


_math_erf = np.vectorize(math.erf, otypes=[np.float64])


def _erf_numpy(x):
    special = _special(np)
    return special.erf(x) if special is not None else _math_erf(x).astype(x.dtype)


@register_kernel("erf", ("cpu", "cuda"), FLOATS)
def erf(xp, x):
    if xp is np:
        return _erf_numpy(x)
    return _special(xp).erf(x)


@register_kernel("erfinv", ("cpu", "cuda"), FLOATS)
def erfinv(xp, x):
    special = _special(xp)
    if special is not None:
        return special.erfinv(x)
    return _erfinv_newton(x.astype(np.float64)).astype(x.dtype)


def _erfinv_newton(y):
    """erfinv from Giles' single-precision approximation polished by three Newton steps
    on erf(x) = y (each doubles the correct digits); +-1 give +-inf, |y| > 1 NaN."""
    w = -np.log((1.0 - y) * (1.0 + y))
    small = w < 5.0
    ws, wl = w - 2.5, np.sqrt(np.where(small, 5.0, w)) - 3.0
    ps, pl = 2.81022636e-08, -0.000200214257
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
              -0.00125372503, -0.00417768164, 0.246640727, 1.50140941):
        ps = c + ps * ws
    for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
              -0.0076224613, 0.00943887047, 1.00167406, 2.83297682):
        pl = c + pl * wl
    x = np.where(small, ps, pl) * y
    for _ in range(3):
        x = x - (_math_erf(x) - y) / (2.0 / math.sqrt(math.pi) * np.exp(-x * x))
    x = np.where(np.abs(y) == 1.0, np.copysign(np.inf, y), x)
    return np.where(np.abs(y) > 1.0, np.nan, x)

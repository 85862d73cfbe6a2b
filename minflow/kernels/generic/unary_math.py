"""Kernels of the unary math ops (ops/unary_math.py), written once against the array module.

Most are ufuncs numpy and cupy both have, registered as they are. erfc comes from
scipy.special (cupyx.scipy.special on cuda), else from the standard library's math.erfc,
elementwise (see special.py).
"""
import math

import numpy as np

from ...core.dtype import COMPLEX, FLOATS, INTS, bool as bool_
from ..registry import register_array_function, register_kernel
from .special import _special

for _op, _fn in (("tan", "tan"), ("asin", "arcsin"), ("acos", "arccos"), ("atan", "arctan"),
                 ("sinh", "sinh"), ("cosh", "cosh"), ("asinh", "arcsinh"),
                 ("acosh", "arccosh"), ("atanh", "arctanh"), ("log2", "log2"),
                 ("log10", "log10"), ("exp2", "exp2"), ("deg2rad", "deg2rad"),
                 ("rad2deg", "rad2deg")):
    register_array_function(_op, _fn, FLOATS)
    if not _op.endswith(("2deg", "2rad")):       # torch has no complex deg2rad / rad2deg
        register_array_function(_op, _fn, COMPLEX)

_math_erfc = np.vectorize(math.erfc, otypes=[np.float64])


@register_kernel("erfc", ("cpu", "cuda"), FLOATS)
def erfc(xp, x):
    special = _special(xp)
    if special is not None:
        return special.erfc(x)
    return _math_erfc(x).astype(x.dtype)


@register_kernel("sinc", ("cpu", "cuda"), FLOATS + COMPLEX)
def sinc(xp, x):
    # NOTE: not numpy.sinc, which divides by 1e-20 in place of 0: that is 0 in float16,
    # so sinc(0) would be NaN there. Half precision computes in float32, as torch does.
    wide = x.astype(xp.float32) if x.dtype == xp.float16 else x
    scaled = wide * math.pi
    safe = xp.where(scaled == 0, 1, scaled)
    return xp.where(scaled == 0, 1, xp.sin(safe) / safe).astype(x.dtype)


@register_kernel("logit", ("cpu", "cuda"), FLOATS)
def logit(xp, x, eps):
    if eps is not None:
        x = xp.clip(x, eps, 1 - eps)
    return xp.log(x / (1 - x))


@register_kernel("nan_to_num", ("cpu", "cuda"), FLOATS)
def nan_to_num(xp, x, nan, posinf, neginf):
    info = xp.finfo(x.dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    return xp.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)


register_kernel("nan_to_num", ("cpu", "cuda"), INTS + (bool_,))(
    lambda xp, x, nan, posinf, neginf: x.copy())
register_array_function("signbit", "signbit", FLOATS)
register_kernel("signbit", ("cpu", "cuda"), INTS)(lambda xp, x: x < 0)
register_kernel("isposinf", ("cpu", "cuda"), FLOATS)(lambda xp, x: xp.isinf(x) & (x > 0))
register_kernel("isneginf", ("cpu", "cuda"), FLOATS)(lambda xp, x: xp.isinf(x) & (x < 0))
for _op in ("signbit", "isposinf", "isneginf"):
    register_kernel(_op, ("cpu", "cuda"), (bool_,))(lambda xp, x: xp.zeros(x.shape, bool))
for _op in ("isposinf", "isneginf"):
    register_kernel(_op, ("cpu", "cuda"), INTS)(lambda xp, x: xp.zeros(x.shape, bool))


@register_kernel("frexp", ("cpu", "cuda"), FLOATS)
def frexp(xp, x):
    mantissa, exponent = xp.frexp(x)
    return mantissa, exponent.astype(xp.int32, copy=False)

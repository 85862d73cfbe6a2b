"""Grad functions of the special functions (ops/special_functions.py), as torch's
formulas, written with ops so that they differentiate again."""
import math

from ...core.dispatch import apply
from ...core.namespace import F
from ...ops.special_functions import OPS
from .elementwise import _unary


def _op(name, x):
    return apply(OPS[name], (x,), {})


@_unary("special_i0e")
def _i0e(grad_out, x):
    """d i0e(x) = i1e(x) - sgn(x) i0e(x)."""
    return grad_out * (_op("special_i1e", x) - F.sign(x) * _op("special_i0e", x))


@_unary("special_i1e")
def _i1e(grad_out, x):
    """d i1e(x) = i0e(x) - i1e(x) (sgn(x) + 1/x), 1/2 at 0."""
    safe = F.where(x == 0, 1.0, x)
    slope = _op("special_i0e", x) - _op("special_i1e", x) * (F.sign(x) + 1 / safe)
    return grad_out * F.where(x == 0, 0.5, slope)


@_unary("special_erfcx")
def _erfcx(grad_out, x):
    """d erfcx(x) = 2 x erfcx(x) - 2 / sqrt(pi)."""
    return grad_out * (2 * x * _op("special_erfcx", x) - 2 / math.sqrt(math.pi))


@_unary("special_ndtri", save="output")
def _ndtri(grad_out, y):
    """d ndtri(p) = sqrt(2 pi) exp(ndtri(p)^2 / 2)."""
    return grad_out * F.exp(y * y / 2) * math.sqrt(2 * math.pi)


@_unary("special_log_ndtr")
def _log_ndtr(grad_out, x):
    """d log_ndtr(x) = exp(-x^2 / 2 - log_ndtr(x)) / sqrt(2 pi)."""
    return grad_out * F.exp(-(x * x) / 2 - _op("special_log_ndtr", x)) / math.sqrt(2 * math.pi)


@_unary("special_entr")
def _entr(grad_out, x):
    """d entr(x) = -(1 + ln x)."""
    return grad_out * -(1 + F.log(x))

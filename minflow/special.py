"""``minflow.special``: torch.special's names for minflow's special functions.

Most are the functions of other op families under torch.special's names (``expit`` is
``sigmoid``, ``gammaln`` ``lgamma``, ``psi`` ``digamma``, ``multigammaln`` ``mvlgamma``);
``gammainc`` / ``gammaincc`` are ``igamma`` / ``igammac``; i0e, i1e, bessel_j0, bessel_j1,
erfcx, ndtri, log_ndtr and entr are ops of their own (ops/special_functions.py); ndtr and
xlog1py are composites.

>>> round(minflow.special.ndtr(minflow.tensor([1.0])).item(), 4)
0.8413
"""
import math
import numbers

from .core import dtype as dtypes
from .core.dispatch import apply
from .core.inplace import write_out
from .core.namespace import F
from .core.tensor import Tensor
from .ops.registry import get_op
from .ops.special_functions import call

__all__ = ["bessel_j0", "bessel_j1", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv",
           "exp2", "expit", "gammainc", "gammaincc", "expm1", "gammaln", "i0", "i0e", "i1", "i1e", "log1p", "log_ndtr",
           "log_softmax", "logit", "logsumexp", "multigammaln", "ndtr", "ndtri", "polygamma",
           "psi", "round", "sinc", "softmax", "xlog1py", "xlogy"]

erf, erfc, erfinv, exp2, expm1, log1p = F.erf, F.erfc, F.erfinv, F.exp2, F.expm1, F.log1p
digamma = psi = F.digamma
gammaln = F.lgamma
multigammaln = F.mvlgamma
polygamma, logit, sinc, i0, xlogy = F.polygamma, F.logit, F.sinc, F.i0, F.xlogy
softmax, log_softmax, logsumexp, round = F.softmax, F.log_softmax, F.logsumexp, F.round  # noqa: A001
expit = F.sigmoid
gammainc, gammaincc = F.igamma, F.igammac


def i0e(input, *, out=None):
    """i0e(input, *, out=None) -> Tensor: exp(-|x|) I0(x), the exponentially scaled
    modified Bessel function of the first kind of order 0.

    >>> round(minflow.special.i0e(minflow.tensor([1.0])).item(), 4)
    0.4658
    """
    return call("special_i0e", input, out)


def i1(input, *, out=None):
    """i1(input, *, out=None) -> Tensor: I1(x), the modified Bessel function of the first
    kind of order 1.

    >>> round(minflow.special.i1(minflow.tensor([1.0])).item(), 4)
    0.5652
    """
    result = apply(get_op("i1"), (input,), {})
    return result if out is None else write_out(result, out, "special.i1")


def i1e(input, *, out=None):
    """i1e(input, *, out=None) -> Tensor: exp(-|x|) I1(x), the exponentially scaled
    modified Bessel function of the first kind of order 1.

    >>> round(minflow.special.i1e(minflow.tensor([1.0])).item(), 4)
    0.2079
    """
    return call("special_i1e", input, out)


def bessel_j0(input, *, out=None):
    """bessel_j0(input, *, out=None) -> Tensor: J0(x), the Bessel function of the first kind
    of order 0. Not differentiable, as in torch.

    >>> round(minflow.special.bessel_j0(minflow.tensor([1.0])).item(), 4)
    0.7652
    """
    return call("special_bessel_j0", input, out)


def bessel_j1(input, *, out=None):
    """bessel_j1(input, *, out=None) -> Tensor: J1(x), the Bessel function of the first kind
    of order 1. Not differentiable, as in torch.

    >>> round(minflow.special.bessel_j1(minflow.tensor([1.0])).item(), 4)
    0.4401
    """
    return call("special_bessel_j1", input, out)


def erfcx(input, *, out=None):
    """erfcx(input, *, out=None) -> Tensor: exp(x^2) erfc(x), finite where erfc underflows.

    >>> round(minflow.special.erfcx(minflow.tensor([30.0])).item(), 5)
    0.0188
    """
    return call("special_erfcx", input, out)


def ndtr(input, *, out=None):
    """ndtr(input, *, out=None) -> Tensor: the standard normal CDF,
    1/2 erfc(-x / sqrt(2)).

    >>> minflow.special.ndtr(minflow.tensor([0.0])).tolist()
    [0.5]
    """
    x = input if input.dtype.is_floating_point else F.cast(input, dtypes.get_default_dtype())
    result = F.mul(F.erfc(F.mul(x, -1 / math.sqrt(2))), 0.5)
    return result if out is None else write_out(result, out, "special.ndtr")


def ndtri(input, *, out=None):
    """ndtri(input, *, out=None) -> Tensor: the inverse of the standard normal CDF
    (-inf at 0, inf at 1, NaN outside [0, 1]).

    >>> round(minflow.special.ndtri(minflow.tensor([0.975])).item(), 4)
    1.96
    """
    return call("special_ndtri", input, out)


def log_ndtr(input, *, out=None):
    """log_ndtr(input, *, out=None) -> Tensor: log of the standard normal CDF, accurate
    where the CDF underflows.

    >>> round(minflow.special.log_ndtr(minflow.tensor([-40.0], dtype=minflow.float64)).item(), 2)
    -804.61
    """
    return call("special_log_ndtr", input, out)


def entr(input, *, out=None):
    """entr(input, *, out=None) -> Tensor: -x ln(x) for x > 0, 0 at 0, -inf for x < 0.

    >>> minflow.special.entr(minflow.tensor([0.0, 1.0, -1.0])).tolist()
    [0.0, -0.0, -inf]
    """
    return call("special_entr", input, out)


def _as_tensor(value, like, where, name):
    if isinstance(value, Tensor):
        return value
    if not isinstance(value, numbers.Number):
        raise TypeError(f"{where}: expected {name} to be a Tensor or a number, got "
                        f"{type(value).__name__}")
    return F.full((), value, dtype=dtypes.result_type(value), device=like.device)


def xlog1py(input, other, *, out=None):
    """xlog1py(input, other, *, out=None) -> Tensor: input * log1p(other), 0 where input is
    0 (unless other is NaN). Either argument may be a number.

    >>> minflow.special.xlog1py(minflow.tensor([0.0, 2.0]), minflow.tensor([-1.0, 0.0])).tolist()
    [0.0, 0.0]
    """
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError(f"special.xlog1py: expected input or other to be a Tensor, got "
                        f"{type(input).__name__} and {type(other).__name__}")
    x = _as_tensor(input, other, "special.xlog1py", "input")
    y = _as_tensor(other, x, "special.xlog1py", "other")
    dtype = dtypes.to_float(dtypes.result_type(input, other))
    x, y = F.cast(x, dtype), F.cast(y, dtype)
    # torch's rule: 0 where input is 0 and log1p(other) is not finite (other <= -1 or
    # +inf); there the gradient is 0 too. NOTE: other is replaced by 0 at those places,
    # so that log1p's gradient (inf at -1) never meets the masked branch's zero
    masked = F.logical_and(F.eq(x, 0), F.logical_or(F.le(y, -1), F.isposinf(y)))
    result = F.mul(x, F.where(masked, 0.0, F.log1p(F.where(masked, 0.0, y))))
    return result if out is None else write_out(result, out, "special.xlog1py")

"""``minflow.special``: torch.special's names for minflow's special functions.

Most are the functions of other op families under torch.special's names (``expit`` is
``sigmoid``, ``gammaln`` ``lgamma``, ``psi`` ``digamma``, ``multigammaln`` ``mvlgamma``);
``gammainc`` / ``gammaincc`` are ``igamma`` / ``igammac``; i0e, i1e, erfcx, ndtri, log_ndtr,
entr and the Bessel and Airy functions are ops of their own (ops/special_functions.py), as
are zeta and the orthogonal polynomials (ops/special_polynomials.py); ndtr and xlog1py are
composites.

>>> round(minflow.special.ndtr(minflow.tensor([1.0])).item(), 4)
0.8413
"""
import math as _math
import numbers as _numbers

from .core import dtype as _dtypes
from .core.dispatch import apply as _apply
from .core.functional import checking_tensor_args as _checking_tensor_args
from .core.inplace import write_out as _write_out
from .core.namespace import F as _F
from .core.tensor import Tensor as _Tensor
from .ops.registry import get_op as _get_op
from .ops.special_functions import DOCS as _DOCS, call as _call
from .ops.special_polynomials import POLYNOMIALS as _POLYNOMIALS, call as _call2

__all__ = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1",
           "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
           "chebyshev_polynomial_w", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2",
           "expit", "expm1", "gammainc", "gammaincc", "gammaln", "hermite_polynomial_h",
           "hermite_polynomial_he", "i0", "i0e", "i1", "i1e", "laguerre_polynomial_l",
           "legendre_polynomial_p", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp",
           "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
           "modified_bessel_k1", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round",
           "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
           "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
           "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "sinc",
           "softmax", "spherical_bessel_j0", "xlog1py", "xlogy", "zeta"]

erf, erfc, erfinv, exp2, expm1, log1p = _F.erf, _F.erfc, _F.erfinv, _F.exp2, _F.expm1, _F.log1p
digamma = psi = _F.digamma
gammaln = _F.lgamma
multigammaln = _F.mvlgamma
polygamma, logit, sinc, i0, xlogy = _F.polygamma, _F.logit, _F.sinc, _F.i0, _F.xlogy
softmax, log_softmax, logsumexp = _F.softmax, _F.log_softmax, _F.logsumexp
round = _F.round  # noqa: A001
expit = _F.sigmoid
gammainc, gammaincc = _F.igamma, _F.igammac


def i0e(input, *, out=None):
    """i0e(input, *, out=None) -> Tensor: exp(-|x|) I0(x), the exponentially scaled
    modified Bessel function of the first kind of order 0.

    >>> round(minflow.special.i0e(minflow.tensor([1.0])).item(), 4)
    0.4658
    """
    return _call("special_i0e", input, out)


def i1(input, *, out=None):
    """i1(input, *, out=None) -> Tensor: I1(x), the modified Bessel function of the first
    kind of order 1.

    >>> round(minflow.special.i1(minflow.tensor([1.0])).item(), 4)
    0.5652
    """
    result = _apply(_get_op("i1"), (input,), {})
    return result if out is None else _write_out(result, out, "special.i1")


def i1e(input, *, out=None):
    """i1e(input, *, out=None) -> Tensor: exp(-|x|) I1(x), the exponentially scaled
    modified Bessel function of the first kind of order 1.

    >>> round(minflow.special.i1e(minflow.tensor([1.0])).item(), 4)
    0.2079
    """
    return _call("special_i1e", input, out)


def bessel_j0(input, *, out=None):
    """bessel_j0(input, *, out=None) -> Tensor: J0(x), the Bessel function of the first kind
    of order 0. Not differentiable, as in torch.

    >>> round(minflow.special.bessel_j0(minflow.tensor([1.0])).item(), 4)
    0.7652
    """
    return _call("special_bessel_j0", input, out)


def bessel_j1(input, *, out=None):
    """bessel_j1(input, *, out=None) -> Tensor: J1(x), the Bessel function of the first kind
    of order 1. Not differentiable, as in torch.

    >>> round(minflow.special.bessel_j1(minflow.tensor([1.0])).item(), 4)
    0.4401
    """
    return _call("special_bessel_j1", input, out)


def erfcx(input, *, out=None):
    """erfcx(input, *, out=None) -> Tensor: exp(x^2) erfc(x), finite where erfc underflows.

    >>> round(minflow.special.erfcx(minflow.tensor([30.0])).item(), 5)
    0.0188
    """
    return _call("special_erfcx", input, out)


def ndtr(input, *, out=None):
    """ndtr(input, *, out=None) -> Tensor: the standard normal CDF,
    1/2 erfc(-x / sqrt(2)).

    >>> minflow.special.ndtr(minflow.tensor([0.0])).tolist()
    [0.5]
    """
    x = input if input.dtype.is_floating_point else _F.cast(input, _dtypes.get_default_dtype())
    result = _F.mul(_F.erfc(_F.mul(x, -1 / _math.sqrt(2))), 0.5)
    return result if out is None else _write_out(result, out, "special.ndtr")


def ndtri(input, *, out=None):
    """ndtri(input, *, out=None) -> Tensor: the inverse of the standard normal CDF
    (-inf at 0, inf at 1, NaN outside [0, 1]).

    >>> round(minflow.special.ndtri(minflow.tensor([0.975])).item(), 4)
    1.96
    """
    return _call("special_ndtri", input, out)


def log_ndtr(input, *, out=None):
    """log_ndtr(input, *, out=None) -> Tensor: log of the standard normal CDF, accurate
    where the CDF underflows.

    >>> round(minflow.special.log_ndtr(minflow.tensor([-40.0], dtype=minflow.float64)).item(), 2)
    -804.61
    """
    return _call("special_log_ndtr", input, out)


def entr(input, *, out=None):
    """entr(input, *, out=None) -> Tensor: -x ln(x) for x > 0, 0 at 0, -inf for x < 0.

    >>> minflow.special.entr(minflow.tensor([0.0, 1.0, -1.0])).tolist()
    [0.0, -0.0, -inf]
    """
    return _call("special_entr", input, out)


def _as_tensor(value, like, where, name):
    if isinstance(value, _Tensor):
        return value
    if not isinstance(value, _numbers.Number):
        raise TypeError(f"{where}: expected {name} to be a Tensor or a number, got "
                        f"{type(value).__name__}")
    return _F.full((), value, dtype=_dtypes.result_type(value), device=like.device)


def xlog1py(input, other, *, out=None):
    """xlog1py(input, other, *, out=None) -> Tensor: input * log1p(other), 0 where input is
    0 (unless other is NaN). Either argument may be a number.

    >>> minflow.special.xlog1py(minflow.tensor([0.0, 2.0]), minflow.tensor([-1.0, 0.0])).tolist()
    [0.0, 0.0]
    """
    if not isinstance(input, _Tensor) and not isinstance(other, _Tensor):
        raise TypeError(f"special.xlog1py: expected input or other to be a Tensor, got "
                        f"{type(input).__name__} and {type(other).__name__}")
    x = _as_tensor(input, other, "special.xlog1py", "input")
    y = _as_tensor(other, x, "special.xlog1py", "other")
    dtype = _dtypes.to_float(_dtypes.result_type(input, other))
    x, y = _F.cast(x, dtype), _F.cast(y, dtype)
    # torch's rule: 0 where input is 0 and log1p(other) is not finite (other <= -1 or
    # +inf); there the gradient is 0 too. NOTE: other is replaced by 0 at those places,
    # so that log1p's gradient (inf at -1) never meets the masked branch's zero
    masked = _F.logical_and(_F.eq(x, 0), _F.logical_or(_F.le(y, -1), _F.isposinf(y)))
    result = _F.mul(x, _F.where(masked, 0.0, _F.log1p(_F.where(masked, 0.0, y))))
    return result if out is None else _write_out(result, out, "special.xlog1py")


def zeta(input, other, *, out=None):
    """zeta(input, other, *, out=None) -> Tensor: the Hurwitz zeta function
    zeta(x, q) = sum_{k >= 0} (k + q)^-x of x = input and q = other (broadcast; either may
    be a number). inf at x = 1 and at q = 0, -1, -2 ...; NaN for x < 1. As torch, only the
    gradient w.r.t. other (q) is implemented: d/dq zeta(x, q) = -x zeta(x + 1, q).

    >>> minflow.special.zeta(minflow.tensor([2.0, 4.0]), 1)
    tensor([1.6449, 1.0823])
    >>> minflow.special.zeta(2, minflow.tensor([1.0, 2.0]))
    tensor([1.6449, 0.6449])
    """
    return _call2("special_zeta", input, other, out)


def _bessel(name, printed):
    """The public function of the one-input op ``special_<name>``, documented from the op."""
    def function(input, *, out=None):
        return _call(f"special_{name}", input, out)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = (
        f"{name}(input, *, out=None) -> Tensor: {_DOCS['special_' + name]}.\n\n"
        f"    Elementwise; integer inputs give the default float dtype. As torch: no float16\n"
        f"    kernel, and not differentiable.\n\n"
        f"    >>> minflow.special.{name}(minflow.tensor([0.5, 1.0, 2.0]))\n    {printed}\n    ")
    return function


airy_ai = _bessel("airy_ai", "tensor([0.2317, 0.1353, 0.0349])")
bessel_y0 = _bessel("bessel_y0", "tensor([-0.4445,  0.0883,  0.5104])")
bessel_y1 = _bessel("bessel_y1", "tensor([-1.4715, -0.7812, -0.1070])")
modified_bessel_i0 = _bessel("modified_bessel_i0", "tensor([1.0635, 1.2661, 2.2796])")
modified_bessel_i1 = _bessel("modified_bessel_i1", "tensor([0.2579, 0.5652, 1.5906])")
modified_bessel_k0 = _bessel("modified_bessel_k0", "tensor([0.9244, 0.4210, 0.1139])")
modified_bessel_k1 = _bessel("modified_bessel_k1", "tensor([1.6564, 0.6019, 0.1399])")
scaled_modified_bessel_k0 = _bessel("scaled_modified_bessel_k0",
                                    "tensor([1.5241, 1.1445, 0.8416])")
scaled_modified_bessel_k1 = _bessel("scaled_modified_bessel_k1",
                                    "tensor([2.7310, 1.6362, 1.0335])")
spherical_bessel_j0 = _bessel("spherical_bessel_j0", "tensor([0.9589, 0.8415, 0.4546])")


def _polynomial(name, printed):
    """The public function of the op ``special_<name>`` of x and degree n."""
    def function(input, n, *, out=None):
        return _call2(f"special_{name}", input, n, out)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = (
        f"{name}(input, n, *, out=None) -> Tensor: {_POLYNOMIALS[name]} of\n"
        f"    x = input, of degree n.\n\n"
        f"    Elementwise; input and n broadcast, either may be a number; integer inputs give\n"
        f"    the default float dtype. n is truncated toward 0; n < 0 gives 0. As torch: no\n"
        f"    float16 kernel, and not differentiable.\n\n"
        f"    >>> minflow.special.{name}(minflow.tensor([0.5, 1.0, 2.0]), 3)\n"
        f"    {printed}\n    ")
    return function


chebyshev_polynomial_t = _polynomial("chebyshev_polynomial_t", "tensor([-1.,  1., 26.])")
chebyshev_polynomial_u = _polynomial("chebyshev_polynomial_u", "tensor([-1.,  4., 56.])")
chebyshev_polynomial_v = _polynomial("chebyshev_polynomial_v", "tensor([-1.,  1., 41.])")
chebyshev_polynomial_w = _polynomial("chebyshev_polynomial_w", "tensor([-1.,  7., 71.])")
shifted_chebyshev_polynomial_t = _polynomial("shifted_chebyshev_polynomial_t",
                                             "tensor([-0.,  1., 99.])")
shifted_chebyshev_polynomial_u = _polynomial("shifted_chebyshev_polynomial_u",
                                             "tensor([ -0.,   4., 204.])")
shifted_chebyshev_polynomial_v = _polynomial("shifted_chebyshev_polynomial_v",
                                             "tensor([  1.,   1., 169.])")
shifted_chebyshev_polynomial_w = _polynomial("shifted_chebyshev_polynomial_w",
                                             "tensor([ -1.,   7., 239.])")
hermite_polynomial_h = _polynomial("hermite_polynomial_h", "tensor([-5., -4., 40.])")
hermite_polynomial_he = _polynomial("hermite_polynomial_he", "tensor([-1.3750, -2.0000,  2.0000])")
laguerre_polynomial_l = _polynomial("laguerre_polynomial_l",
                                    "tensor([-0.1458, -0.6667, -0.3333])")
legendre_polynomial_p = _polynomial("legendre_polynomial_p", "tensor([-0.4375,  1.0000, 17.0000])")

# a string, list or None where a tensor goes: torch's TypeError naming the function and the
# argument, not an AttributeError from inside
for _name in __all__:
    globals()[_name] = _checking_tensor_args(globals()[_name], f"special.{_name}")
del _name

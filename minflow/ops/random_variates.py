"""Samplers with tensor parameters, for minflow.distributions: standard_gamma (with its
implicit reparameterization gradient, standard_gamma_grad), poisson and binomial.

Every draw comes from a minflow Generator (``generator=`` or the device's default).
Kernels: kernels/generic/random_variates.py; grads: autograd/grads/random_variates.py.
"""
from ..core import dtype as dtypes
from ..core.dispatch import apply
from ..core.functional import public
from . import infer
from .registry import Attr, define_op

__all__ = ["poisson", "binomial"]

_GENERATOR = Attr("generator", "any", None, optional=True)


def _float_input(input, generator=None):
    infer.check_dtype(input, dtypes.FLOATS, "input")
    return input._data.shape, input.dtype


def _gamma_grad_infer(input, output):
    infer.check_dtype(input, dtypes.FLOATS, "input")
    if output.dtype is not input.dtype or tuple(output.shape) != tuple(input.shape):
        raise ValueError(f"standard_gamma_grad: expected output of input's shape "
                         f"{tuple(input.shape)} and dtype {input.dtype.name}, got "
                         f"{tuple(output.shape)} {output.dtype.name}")
    return input._data.shape, input.dtype


def _binomial_infer(count, prob, generator):
    infer.check_dtype(count, dtypes.FLOATS, "count")
    if prob.dtype is not count.dtype:
        raise dtypes.DTypeError(f"binomial: expected prob of count's dtype "
                                f"{count.dtype.name}, got {prob.dtype.name}")
    return infer.broadcast_shapes(count._data.shape, prob._data.shape), count.dtype


# NOTE: "random" without "no_side_effect": graph passes must not merge two draws
STANDARD_GAMMA = define_op(
    "standard_gamma", ["input"], attrs=[_GENERATOR], infer=_float_input,
    traits=("random", "elementwise"),
    doc="Samples of Gamma(input, 1); differentiable by implicit reparameterization.")
STANDARD_GAMMA_GRAD = define_op(
    "standard_gamma_grad", ["input", "output"], infer=_gamma_grad_infer,
    traits=("no_grad", "elementwise", "no_side_effect"),
    doc="d output / d input of standard_gamma: -(dP(a, x)/da) / p(x; a) at a=input, x=output.")
POISSON = define_op("poisson", ["input"], attrs=[_GENERATOR], infer=_float_input,
                    traits=("no_grad", "random", "elementwise"),
                    doc="Samples of Poisson(input), in input's dtype.")
BINOMIAL = define_op("binomial", ["count", "prob"], attrs=[_GENERATOR], infer=_binomial_infer,
                     traits=("no_grad", "random", "elementwise"),
                     doc="Samples of Binomial(count, prob), in count's dtype.")


@public(name="_standard_gamma")
def standard_gamma(input, *, generator=None):
    """_standard_gamma(input, *, generator=None) -> Tensor

    Samples of Gamma(concentration=input, rate=1), clamped below at the smallest normal
    number of the dtype (as torch). Gradients flow to ``input`` by implicit
    reparameterization: dx/da = -(dP(a, x)/da) / p(x; a), with P the regularized lower
    incomplete gamma function (see ``_standard_gamma_grad``).

    >>> x = minflow._standard_gamma(minflow.full((1000,), 2.0))
    >>> bool((x > 0).all()), 1.8 < x.mean().item() < 2.2
    (True, True)
    """
    return apply(STANDARD_GAMMA, (input,), {"generator": generator})


@public(name="_standard_gamma_grad")
def standard_gamma_grad(input, output):
    """_standard_gamma_grad(input, output) -> Tensor

    dx/da of a sample x = ``output`` of Gamma(a = ``input``, 1), holding the sample's
    quantile fixed: -(dP(a, x)/da) / p(x; a), from the series
    P(a, x) = sum_n x^(a+n) e^-x / Gamma(a+n+1).

    >>> minflow._standard_gamma_grad(minflow.tensor([1.0]), minflow.tensor([1.0]))
    tensor([1.1736])
    """
    return apply(STANDARD_GAMMA_GRAD, (input, output), {})


@public
def poisson(input, generator=None):
    """poisson(input, generator=None) -> Tensor

    Samples of Poisson(rate = ``input``), elementwise, in input's (float) dtype; the
    rates must be non-negative.

    >>> minflow.poisson(minflow.tensor([0.0, 0.0])).tolist()
    [0.0, 0.0]
    """
    return apply(POISSON, (input,), {"generator": generator})


@public
def binomial(count, prob, generator=None):
    """binomial(count, prob, generator=None) -> Tensor

    Samples of Binomial(total_count = ``count``, probs = ``prob``), broadcast together,
    in count's (float) dtype; prob must have count's dtype and lie in [0, 1].

    >>> minflow.binomial(minflow.tensor([5.0, 3.0]), minflow.tensor([1.0, 0.0])).tolist()
    [5.0, 0.0]
    """
    return apply(BINOMIAL, (count, prob), {"generator": generator})

"""Location-scale and rate families: Normal, Laplace, Uniform, Exponential."""
import math
import numbers

from ..core.namespace import F
from ..core.tensor import Size
from . import constraints
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .utils import broadcast_all, eps_of, standard_normal, standard_uniform

__all__ = ["Normal", "Laplace", "Uniform", "Exponential"]


def _batch_shape(tensor, *given):
    """Size() when every parameter was given as a number, else the broadcast shape."""
    if all(isinstance(v, numbers.Number) for v in given):
        return Size(())
    return tensor.size()


class _LocationScale(Distribution):
    """A real distribution of parameters loc and scale > 0, centred (mean and mode) at loc."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(_batch_shape(self.loc, loc, scale), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(type(self), batch_shape, _instance, {"loc": (), "scale": ()})

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc


class Normal(_LocationScale, ExponentialFamily):
    """Normal(loc, scale): the Gaussian of mean loc and standard deviation scale.

    log p(x) = -(x - loc)^2 / (2 scale^2) - log scale - log sqrt(2 pi)

    >>> d = minflow.distributions.Normal(0.0, 1.0)
    >>> x = minflow.tensor(0.0)
    >>> round(d.log_prob(x).item(), 4), round(d.cdf(x).item(), 4)
    (-0.9189, 0.5)
    """

    _mean_carrier_measure = 0

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.scale.pow(2)

    def rsample(self, sample_shape=Size(())):
        shape = self._extended_shape(sample_shape)
        return self.loc.expand(shape) + standard_normal(shape, self.loc) * self.scale.expand(shape)

    def log_prob(self, value):
        self._check_value(value)
        return (-((value - self.loc) ** 2) / (2 * self.scale.pow(2)) - self.scale.log()
                - math.log(math.sqrt(2 * math.pi)))

    def cdf(self, value):
        self._check_value(value)
        return 0.5 * (1 + F.erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def icdf(self, value):
        return self.loc + self.scale * F.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + F.log(self.scale)

    @property
    def _natural_params(self):
        return self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal()

    def _log_normalizer(self, x, y):
        return -0.25 * x.pow(2) / y + 0.5 * F.log(-math.pi / y)


class Laplace(_LocationScale):
    """Laplace(loc, scale): density exp(-|x - loc| / scale) / (2 scale).

    >>> d = minflow.distributions.Laplace(0.0, 1.0)
    >>> round(d.log_prob(minflow.tensor(1.0)).item(), 4), d.variance.item()
    (-1.6931, 2.0)
    """

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return math.sqrt(2) * self.scale

    def rsample(self, sample_shape=Size(())):
        shape = self._extended_shape(sample_shape)
        # u in [eps - 1, 1): log1p(-|u|) stays finite
        u = standard_uniform(shape, self.loc, low=eps_of(self.loc.dtype) - 1)
        return self.loc - self.scale * u.sign() * F.log1p(-u.abs())

    def log_prob(self, value):
        self._check_value(value)
        return -F.log(2 * self.scale) - F.abs(value - self.loc) / self.scale

    def cdf(self, value):
        self._check_value(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * F.expm1(-(value - self.loc).abs()
                                                               / self.scale)

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * F.log1p(-2 * term.abs())

    def entropy(self):
        return 1 + F.log(2 * self.scale)


class Uniform(Distribution):
    """Uniform(low, high): constant density 1 / (high - low) on [low, high).

    >>> d = minflow.distributions.Uniform(0.0, 4.0)
    >>> d.log_prob(minflow.tensor(1.0)).exp().item(), d.cdf(minflow.tensor(1.0)).item()
    (0.25, 0.25)
    """

    has_rsample = True

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        super().__init__(_batch_shape(self.low, low, high), validate_args=validate_args)

    @property
    def arg_constraints(self):
        return {"low": constraints.less_than(self.high),
                "high": constraints.greater_than(self.low)}

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Uniform, batch_shape, _instance, {"low": (), "high": ()})

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return math.nan * self.high

    @property
    def stddev(self):
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape=Size(())):
        shape = self._extended_shape(sample_shape)
        return self.low + standard_uniform(shape, self.low) * (self.high - self.low)

    def log_prob(self, value):
        self._check_value(value)
        dtype = self.low.dtype
        inside = F.le(self.low, value).to(dtype) * F.gt(self.high, value).to(dtype)
        return F.log(inside) - F.log(self.high - self.low)

    def cdf(self, value):
        self._check_value(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        return F.log(self.high - self.low)


class Exponential(ExponentialFamily):
    """Exponential(rate): density rate * exp(-rate x) on x >= 0.

    >>> d = minflow.distributions.Exponential(minflow.tensor([2.0]))
    >>> d.mean.tolist(), round(d.log_prob(minflow.tensor([1.0])).item(), 4)
    ([0.5], -1.3069)
    """

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch_shape = Size(()) if isinstance(rate, numbers.Number) else self.rate.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Exponential, batch_shape, _instance, {"rate": ()})

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return F.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=Size(())):
        shape = self._extended_shape(sample_shape)
        noise = F.empty(tuple(shape), dtype=self.rate.dtype, device=self.rate.device)
        return noise.exponential_() / self.rate

    def log_prob(self, value):
        self._check_value(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        self._check_value(value)
        return 1 - F.exp(-self.rate * value)

    def icdf(self, value):
        return -F.log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - F.log(self.rate)

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -F.log(-x)

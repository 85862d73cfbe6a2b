"""Families made by pushing a simple base distribution through transforms, as torch
builds them: Gumbel, HalfNormal, HalfCauchy, Weibull, Pareto, Kumaraswamy, InverseGamma
and LogisticNormal. Sampling, log_prob and cdf come from TransformedDistribution unless
a closed form is shorter or steadier; the moments and entropy are closed forms."""
import math
import numbers

from ..core.namespace import F
from ..core.tensor import Tensor
from . import constraints
from .continuous import Exponential, Normal, Uniform
from .gamma import Gamma
from .heavy_tailed import Cauchy
from .transformed import TransformedDistribution
from .transforms import (AbsTransform, AffineTransform, ExpTransform, PowerTransform,
                         StickBreakingTransform)
from .utils import broadcast_all, eps_of, euler_constant, tiny_of

__all__ = ["Gumbel", "HalfNormal", "HalfCauchy", "Weibull", "Pareto", "Kumaraswamy",
           "InverseGamma", "LogisticNormal"]


class Gumbel(TransformedDistribution):
    """Gumbel(loc, scale): the law of maxima, loc - scale log(-log U) for U ~ U(0, 1).

    log p(x) = z - exp(z) - log scale, z = (loc - x) / scale

    >>> d = minflow.distributions.Gumbel(0.0, 1.0)
    >>> round(d.log_prob(minflow.tensor(0.0)).item(), 4), round(d.mean.item(), 4)
    (-1.0, 0.5772)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        tiny, eps = tiny_of(self.loc.dtype), eps_of(self.loc.dtype)
        if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number):
            base_dist = Uniform(tiny, 1 - eps, validate_args=validate_args)
        else:
            base_dist = Uniform(F.full_like(self.loc, tiny), F.full_like(self.loc, 1 - eps),
                                validate_args=validate_args)
        transforms = [ExpTransform().inv, AffineTransform(0, -F.ones_like(self.scale)),
                      ExpTransform().inv, AffineTransform(loc, -self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gumbel, _instance)
        new.loc, new.scale = self.loc.expand(batch_shape), self.scale.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    def log_prob(self, value):
        self._check_value(value)
        z = (self.loc - value) / self.scale
        return (z - z.exp()) - self.scale.log()

    @property
    def mean(self):
        return self.loc + self.scale * euler_constant

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def entropy(self):
        return self.scale.log() + (1 + euler_constant)


class _Folded(TransformedDistribution):
    """|X| for X of a base centred at 0 (HalfNormal, HalfCauchy): the density doubles
    on x >= 0 and the cdf is 2 F(x) - 1."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(type(self), _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mode(self):
        return F.zeros_like(self.scale)

    def log_prob(self, value):
        self._check_value(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return F.where(value >= 0, log_prob, -math.inf)

    def cdf(self, value):
        self._check_value(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)


class HalfNormal(_Folded):
    """HalfNormal(scale): |X| for X ~ Normal(0, scale).

    >>> d = minflow.distributions.HalfNormal(1.0)
    >>> round(d.log_prob(minflow.tensor(0.0)).item(), 4), round(d.mean.item(), 4)
    (-0.2258, 0.7979)
    """

    def __init__(self, scale, validate_args=None):
        super().__init__(Normal(0, scale, validate_args=False), AbsTransform(),
                         validate_args=validate_args)

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)


class HalfCauchy(_Folded):
    """HalfCauchy(scale): |X| for X ~ Cauchy(0, scale); infinite mean and variance.

    >>> d = minflow.distributions.HalfCauchy(1.0)
    >>> round(d.log_prob(minflow.tensor(1.0)).item(), 4), d.cdf(minflow.tensor(1.0)).item()
    (-1.1447, 0.5)
    """

    def __init__(self, scale, validate_args=None):
        super().__init__(Cauchy(0, scale, validate_args=False), AbsTransform(),
                         validate_args=validate_args)

    @property
    def mean(self):
        return F.full(tuple(self._extended_shape()), math.inf, dtype=self.scale.dtype,
                      device=self.scale.device)

    @property
    def variance(self):
        return self.base_dist.variance

    def log_prob(self, value):
        if not isinstance(value, Tensor) and not self._validate_args:   # as torch.as_tensor
            value = F.tensor(value, dtype=self.scale.dtype, device=self.scale.device)
        return super().log_prob(value)


class Weibull(TransformedDistribution):
    """Weibull(scale, concentration): scale * E^(1 / concentration) for E ~ Exponential(1).

    >>> d = minflow.distributions.Weibull(1.0, 1.0)           # Exponential(1)
    >>> round(d.log_prob(minflow.tensor(2.0)).item(), 4), round(d.mean.item(), 4)
    (-2.0, 1.0)
    """

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base_dist = Exponential(F.ones_like(self.scale), validate_args=validate_args)
        super().__init__(base_dist, self._transforms(), validate_args=validate_args)

    def _transforms(self):
        return [PowerTransform(exponent=self.concentration_reciprocal),
                AffineTransform(loc=0, scale=self.scale)]

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Weibull, _instance)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.concentration_reciprocal = new.concentration.reciprocal()
        base_dist = self.base_dist.expand(batch_shape)
        TransformedDistribution.__init__(new, base_dist, new._transforms(), validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.scale * F.exp(F.lgamma(1 + self.concentration_reciprocal))

    @property
    def mode(self):
        k = self.concentration
        return self.scale * ((k - 1) / k) ** k.reciprocal()

    @property
    def variance(self):
        k_inv = self.concentration_reciprocal
        return self.scale.pow(2) * (F.exp(F.lgamma(1 + 2 * k_inv))
                                    - F.exp(2 * F.lgamma(1 + k_inv)))

    def entropy(self):
        k_inv = self.concentration_reciprocal
        return euler_constant * (1 - k_inv) + F.log(self.scale * k_inv) + 1


class Pareto(TransformedDistribution):
    """Pareto(scale, alpha): density alpha scale^alpha / x^(alpha + 1) on x >= scale,
    scale * exp(E) for E ~ Exponential(alpha).

    >>> d = minflow.distributions.Pareto(1.0, 3.0)
    >>> round(d.log_prob(minflow.tensor(2.0)).item(), 4), d.mean.item()
    (-1.674, 1.5)
    """

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale, alpha, validate_args=None):
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base_dist = Exponential(self.alpha, validate_args=validate_args)
        transforms = [ExpTransform(), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Pareto, _instance)
        new.scale, new.alpha = self.scale.expand(batch_shape), self.alpha.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        a = self.alpha.clamp(min=1)       # inf for alpha <= 1
        return a * self.scale / (a - 1)

    @property
    def mode(self):
        return self.scale

    @property
    def variance(self):
        a = self.alpha.clamp(min=2)       # inf for alpha <= 2
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.greater_than_eq(self.scale)

    def entropy(self):
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())


def _kumaraswamy_moment(a, b, n):
    """E[X^n] = b B(1 + n / a, b)."""
    arg1 = 1 + n / a
    return b * F.exp(F.lgamma(arg1) + F.lgamma(b) - F.lgamma(arg1 + b))


class Kumaraswamy(TransformedDistribution):
    """Kumaraswamy(concentration1, concentration0): density a b x^(a-1) (1 - x^a)^(b-1)
    on (0, 1), (1 - U^(1/b))^(1/a) for U ~ U(0, 1); a Beta look-alike with a closed cdf.

    >>> d = minflow.distributions.Kumaraswamy(2.0, 2.0)
    >>> round(d.log_prob(minflow.tensor(0.5)).item(), 4), round(d.mean.item(), 4)
    (0.4055, 0.5333)
    """

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1,
                                                                 concentration0)
        base_dist = Uniform(F.full_like(self.concentration0, 0),
                            F.full_like(self.concentration0, 1), validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration0.reciprocal()),
                      AffineTransform(loc=1.0, scale=-1.0),
                      PowerTransform(exponent=self.concentration1.reciprocal())]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        return _kumaraswamy_moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        a, b = self.concentration1, self.concentration0
        log_mode = b.reciprocal() * (-b).log1p() - (-b * a).log1p()
        return F.where((b < 1) | (a < 1), math.nan, log_mode).exp()

    @property
    def variance(self):
        return (_kumaraswamy_moment(self.concentration1, self.concentration0, 2)
                - self.mean.pow(2))

    def entropy(self):
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        harmonic = F.digamma(self.concentration0 + 1) + euler_constant
        return t0 + t1 * harmonic - F.log(self.concentration1) - F.log(self.concentration0)


class InverseGamma(TransformedDistribution):
    """InverseGamma(concentration, rate): 1 / X for X ~ Gamma(concentration, rate).

    >>> d = minflow.distributions.InverseGamma(3.0, 2.0)
    >>> d.mean.item(), round(d.log_prob(minflow.tensor(1.0)).item(), 4)
    (1.0, -0.6137)
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base_dist = Gamma(concentration, rate, validate_args=validate_args)
        neg_one = -base_dist.rate.new_ones(())
        super().__init__(base_dist, PowerTransform(neg_one), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(InverseGamma, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def concentration(self):
        return self.base_dist.concentration

    @property
    def rate(self):
        return self.base_dist.rate

    @property
    def mean(self):
        a = self.concentration
        return F.where(a > 1, self.rate / (a - 1), math.inf)

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        a = self.concentration
        return F.where(a > 2, self.rate.square() / ((a - 1).square() * (a - 2)), math.inf)

    def entropy(self):
        a = self.concentration
        return a + self.rate.log() + a.lgamma() - (1 + a) * a.digamma()


class LogisticNormal(TransformedDistribution):
    """LogisticNormal(loc, scale): the stick-breaking image on the simplex of
    Normal(loc, scale) vectors (one more category than loc has).

    >>> d = minflow.distributions.LogisticNormal(minflow.zeros(2), minflow.ones(2))
    >>> d.event_shape, d.sample((4,)).shape
    (minflow.Size([3]), minflow.Size([4, 3]))
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base_dist = Normal(loc, scale, validate_args=validate_args)
        if not base_dist.batch_shape:
            base_dist = base_dist.expand([1])
        super().__init__(base_dist, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogisticNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def loc(self):
        return self.base_dist.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.base_dist.scale

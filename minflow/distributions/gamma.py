"""The gamma family: Gamma, Chi2 (a Gamma of rate 1/2), Dirichlet (normalized gammas)
and Beta (a two-category Dirichlet). Reparameterized samples differentiate through ``minflow._standard_gamma``,
whose gradient is the implicit one: dx/da = -(dP(a, x)/da) / p(x; a).

NOTE: Dirichlet.rsample differentiates the normalization of independent gamma draws;
torch differentiates its Dirichlet sampler with its own implicit rule. Both are unbiased
pathwise gradients, so the expected gradients agree while single-sample ones differ.
"""
import numbers

from ..core.namespace import F
from ..core.tensor import Size, Tensor
from . import constraints
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .utils import as_size, broadcast_all, tiny_of

__all__ = ["Gamma", "Chi2", "Dirichlet", "Beta"]


def _clamp_tiny(value):
    """Raise samples to at least the dtype's smallest normal number without changing
    their gradient (torch clamps a detached view in place; here a constant is added)."""
    plain = value.detach()
    return value + (plain.clamp(min=tiny_of(value.dtype)) - plain)


class Gamma(ExponentialFamily):
    """Gamma(concentration, rate): density rate^a x^(a-1) e^(-rate x) / Gamma(a).

    >>> d = minflow.distributions.Gamma(minflow.tensor([2.0]), minflow.tensor([1.0]))
    >>> d.mean.tolist(), round(d.log_prob(minflow.tensor([1.0])).item(), 4)
    ([2.0], -1.0)
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        scalar = isinstance(concentration, numbers.Number) and isinstance(rate, numbers.Number)
        super().__init__(Size(()) if scalar else self.concentration.size(),
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Gamma, batch_shape, _instance, {"concentration": (), "rate": ()})

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=Size(())):
        shape = tuple(self._extended_shape(sample_shape))
        draws = F._standard_gamma(self.concentration.expand(shape))
        return _clamp_tiny(draws / self.rate.expand(shape))

    def log_prob(self, value):
        if not isinstance(value, Tensor):       # numbers are taken, as torch.as_tensor
            value = F.tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        self._check_value(value)
        a = self.concentration
        return (F.xlogy(a, self.rate) + F.xlogy(a - 1, value) - self.rate * value
                - F.lgamma(a))

    def cdf(self, value):
        self._check_value(value)
        return F.igamma(self.concentration, self.rate * value)

    def entropy(self):
        a = self.concentration
        return a - F.log(self.rate) + F.lgamma(a) + (1.0 - a) * F.digamma(a)

    @property
    def _natural_params(self):
        return self.concentration - 1, -self.rate

    def _log_normalizer(self, x, y):
        return F.lgamma(x + 1) + (x + 1) * F.log(-y.reciprocal())


class Chi2(Gamma):
    """Chi2(df): the sum of squares of df standard normals, Gamma(df / 2, 1 / 2).

    >>> d = minflow.distributions.Chi2(minflow.tensor([4.0]))
    >>> d.mean.tolist(), d.variance.tolist(), round(d.log_prob(minflow.tensor([2.0])).item(), 4)
    ([4.0], [8.0], -1.6931)
    """

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Chi2, _instance)
        return super().expand(batch_shape, new)

    @property
    def df(self):
        return self.concentration * 2


class Dirichlet(ExponentialFamily):
    """Dirichlet(concentration): distributions over the simplex of the last dim.

    >>> d = minflow.distributions.Dirichlet(minflow.tensor([1.0, 3.0]))
    >>> d.mean.tolist(), round(d.log_prob(minflow.tensor([0.5, 0.5])).item(), 4)
    ([0.25, 0.75], -0.2877)
    """

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Dirichlet, batch_shape, _instance,
                              {"concentration": tuple(self._event_shape)})

    def rsample(self, sample_shape=Size(())):
        shape = tuple(self._extended_shape(sample_shape))
        draws = F._standard_gamma(self.concentration.expand(shape))
        return _clamp_tiny(draws / draws.sum(-1, keepdim=True))

    def log_prob(self, value):
        self._check_value(value)
        a = self.concentration
        return (F.xlogy(a - 1.0, value).sum(-1) + F.lgamma(a.sum(-1))
                - F.lgamma(a).sum(-1))

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        shifted = (self.concentration - 1).clamp(min=0.0)
        mode = shifted / shifted.sum(-1, True)
        # every concentration below 1: the density peaks at a vertex (the largest one)
        vertex = F.one_hot(mode.argmax(dim=-1), shifted.shape[-1]).to(mode.dtype)
        all_below = (self.concentration < 1).all(dim=-1, keepdim=True)
        return F.where(all_below, vertex, mode)

    @property
    def variance(self):
        total = self.concentration.sum(-1, True)
        return (self.concentration * (total - self.concentration)
                / (total.pow(2) * (total + 1)))

    def entropy(self):
        a = self.concentration
        k, a0 = a.size(-1), a.sum(-1)
        return (F.lgamma(a).sum(-1) - F.lgamma(a0) - (k - a0) * F.digamma(a0)
                - ((a - 1.0) * F.digamma(a)).sum(-1))

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - F.lgamma(x.sum(-1))


class Beta(ExponentialFamily):
    """Beta(concentration1, concentration0): density x^(c1-1) (1-x)^(c0-1) / B(c1, c0).

    >>> d = minflow.distributions.Beta(minflow.tensor([2.0]), minflow.tensor([2.0]))
    >>> d.mean.tolist(), round(d.log_prob(minflow.tensor([0.5])).item(), 4)
    ([0.5], 0.4055)
    """

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        if isinstance(concentration1, numbers.Number) and \
                isinstance(concentration0, numbers.Number):
            both = F.tensor([float(concentration1), float(concentration0)])
        else:
            c1, c0 = broadcast_all(concentration1, concentration0)
            both = F.stack([c1, c0], -1)
        self._dirichlet = Dirichlet(both, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Beta, _instance)
        new._dirichlet = self._dirichlet.expand(batch_shape)
        Distribution.__init__(new, as_size(batch_shape, "expand"), validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def concentration1(self):
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self):
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        self._check_value(value)
        return self._dirichlet.log_prob(F.stack([value, 1.0 - value], -1))

    def entropy(self):
        return self._dirichlet.entropy()

    @property
    def _natural_params(self):
        return self.concentration1, self.concentration0

    def _log_normalizer(self, x, y):
        return F.lgamma(x) + F.lgamma(y) - F.lgamma(x + y)

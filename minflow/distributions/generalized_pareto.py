"""GeneralizedPareto(loc, scale, concentration), as torch.distributions.GeneralizedPareto
(after TensorFlow Probability's): Exponential at concentration 0, Pareto-like tails for
concentration > 0, bounded above for concentration < 0."""
import math
import numbers

from ..core.namespace import F
from ..core.tensor import Size
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, standard_uniform

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """GeneralizedPareto(loc, scale, concentration): with z = (x - loc) / scale and
    xi = concentration, the survival function is (1 + xi z)^(-1/xi) (exp(-z) at xi = 0);

    log p(x) = -log scale - (1 / xi + 1) log(1 + xi z)

    on x >= loc, and x <= loc - scale / xi when xi < 0.

    >>> d = minflow.distributions.GeneralizedPareto(0.0, 1.0, 0.5)
    >>> round(d.log_prob(minflow.tensor(1.0)).item(), 4), d.mean.item()
    (-1.2164, 2.0)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        scalar = all(isinstance(v, numbers.Number) for v in (loc, scale, concentration))
        super().__init__(Size(()) if scalar else self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(GeneralizedPareto, batch_shape, _instance,
                              {"loc": (), "scale": (), "concentration": ()})

    def _safe_concentration(self):
        """(concentration == 0 within isclose, the concentration with 1 in those places):
        the xi = 0 limit has its own formula, and the general one must stay finite there."""
        eq_zero = F.isclose(self.concentration, F.zeros_like(self.concentration))
        return eq_zero, F.where(eq_zero, F.ones_like(self.concentration), self.concentration)

    def _z(self, value):
        return (value - self.loc) / self.scale

    def rsample(self, sample_shape=Size(())):
        return self.icdf(standard_uniform(self._extended_shape(sample_shape), self.loc))

    def log_prob(self, value):
        self._check_value(value)
        z = self._z(value)
        eq_zero, safe = self._safe_concentration()
        y = 1 / safe + F.ones_like(z)
        nonzero = F.where(y == 0, y, y * F.log1p(safe * z))
        return -self.scale.log() - F.where(eq_zero, z, nonzero)

    def log_survival_function(self, value):
        """log P(X > value) = -log(1 + xi z) / xi (-z at xi = 0)."""
        self._check_value(value)
        z = self._z(value)
        eq_zero, safe = self._safe_concentration()
        return F.where(eq_zero, -z, -F.log1p(safe * z) / safe)

    def log_cdf(self, value):
        """log P(X <= value)."""
        return F.log1p(-F.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return F.exp(self.log_cdf(value))

    def icdf(self, value):
        eq_zero, safe = self._safe_concentration()
        log_u = F.log1p(-value)
        nonzero = self.loc + self.scale / safe * F.expm1(-safe * log_u)
        return F.where(eq_zero, self.loc - self.scale * log_u, nonzero)

    @property
    def mean(self):
        """loc + scale / (1 - xi), nan for xi >= 1."""
        valid = self.concentration < 1
        safe = F.where(valid, self.concentration, 0.5)
        return F.where(valid, self.loc + self.scale / (1 - safe), math.nan)

    @property
    def variance(self):
        """scale^2 / ((1 - xi)^2 (1 - 2 xi)), nan for xi >= 1/2."""
        valid = self.concentration < 0.5
        safe = F.where(valid, self.concentration, 0.25)
        return F.where(valid, self.scale ** 2 / ((1 - safe) ** 2 * (1 - 2 * safe)), math.nan)

    @property
    def mode(self):
        return self.loc

    def entropy(self):
        return F.broadcast_to(self.scale.log() + self.concentration + 1, tuple(self._batch_shape))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        upper = F.where(self.concentration < 0, self.loc - self.scale / self.concentration,
                        math.inf)
        return constraints.interval(self.loc, upper)

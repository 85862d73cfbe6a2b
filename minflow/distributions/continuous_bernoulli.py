"""ContinuousBernoulli: the normalized Bernoulli likelihood over [0, 1] (Loaiza-Ganem &
Cunningham, 2019), for data such as pixel intensities. Near probs = 1/2 the closed forms
cancel, so inside ``lims`` they are replaced by Taylor expansions, as torch does."""
import math
import numbers

from ..core.namespace import F
from ..core.tensor import Size
from ..nn.functional import binary_cross_entropy_with_logits
from . import constraints
from .exp_family import ExponentialFamily
from .utils import (broadcast_all, clamp_probs, lazy_property, logits_to_probs,
                    probs_to_logits, standard_uniform)

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    """ContinuousBernoulli(probs=None, logits=None, lims=(0.499, 0.501)): density
    C(p) p^x (1 - p)^(1 - x) on [0, 1], with C(p) = 2 atanh(1 - 2p) / (1 - 2p).

    >>> d = minflow.distributions.ContinuousBernoulli(probs=minflow.tensor([0.2]))
    >>> round(d.log_prob(minflow.tensor([0.5])).item(), 4), round(d.mean.item(), 4)
    (-0.0788, 0.388)
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        given = probs if probs is not None else logits
        (param,) = broadcast_all(given)
        if probs is not None:
            if validate_args is not None and not \
                    self.arg_constraints["probs"].check(param).all().item():
                raise ValueError("The parameter probs has invalid values")
            self.probs = param = clamp_probs(param)       # NOTE: as torch, out-of-range
        else:                                            # probs are clamped, not refused
            self.logits = param
        self._param = param
        self._lims = lims
        batch_shape = Size(()) if isinstance(given, numbers.Number) else param.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(ContinuousBernoulli, batch_shape, _instance,
                             {"probs": (), "logits": ()})
        new._param = new.__dict__["probs" if "probs" in self.__dict__ else "logits"]
        new._lims = self._lims
        return new

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self):
        return self._param.size()

    def _outside_unstable_region(self):
        return F.le(self.probs, self._lims[0]) | F.gt(self.probs, self._lims[1])

    def _cut_probs(self):
        """probs, moved off the unstable region (whose values the Taylor branch gives)."""
        return F.where(self._outside_unstable_region(), self.probs,
                       self._lims[0] * F.ones_like(self.probs))

    def _cont_bern_log_norm(self):
        """log C(p)."""
        cut = self._cut_probs()
        below_half = F.where(F.le(cut, 0.5), cut, F.zeros_like(cut))
        above_half = F.where(F.ge(cut, 0.5), cut, F.ones_like(cut))
        log_norm = F.log(F.abs(F.log1p(-cut) - F.log(cut))) - F.where(
            F.le(cut, 0.5), F.log1p(-2.0 * below_half), F.log(2.0 * above_half - 1.0))
        x = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return F.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        cut = self._cut_probs()
        mus = cut / (2.0 * cut - 1.0) + 1.0 / (F.log1p(-cut) - F.log(cut))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x
        return F.where(self._outside_unstable_region(), mus, taylor)

    @property
    def variance(self):
        cut = self._cut_probs()
        variances = (cut * (cut - 1.0) / (1.0 - 2.0 * cut).pow(2)
                     + 1.0 / (F.log1p(-cut) - F.log(cut)).pow(2))
        x = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return F.where(self._outside_unstable_region(), variances, taylor)

    @property
    def stddev(self):
        return F.sqrt(self.variance)

    def rsample(self, sample_shape=Size(())):
        return self.icdf(standard_uniform(self._extended_shape(sample_shape), self.probs))

    def log_prob(self, value):
        self._check_value(value)
        logits, value = broadcast_all(self.logits, value)
        return (-binary_cross_entropy_with_logits(logits, value, reduction="none")
                + self._cont_bern_log_norm())

    def cdf(self, value):
        self._check_value(value)
        cut = self._cut_probs()
        cdfs = ((cut.pow(value) * (1.0 - cut).pow(1.0 - value) + cut - 1.0)
                / (2.0 * cut - 1.0))
        unbounded = F.where(self._outside_unstable_region(), cdfs, value)
        return F.where(F.le(value, 0.0), F.zeros_like(value),
                       F.where(F.ge(value, 1.0), F.ones_like(value), unbounded))

    def icdf(self, value):
        cut = self._cut_probs()
        inverse = ((F.log1p(-cut + value * (2.0 * cut - 1.0)) - F.log1p(-cut))
                   / (F.log(cut) - F.log1p(-cut)))
        return F.where(self._outside_unstable_region(), inverse, value)

    def entropy(self):
        log_probs0, log_probs1 = F.log1p(-self.probs), F.log(self.probs)
        return (self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm()
                - log_probs0)

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        """log C as a function of the natural parameter (Taylor-expanded near 0)."""
        outside = F.le(x, self._lims[0] - 0.5) | F.gt(x, self._lims[1] - 0.5)
        cut = F.where(outside, x, (self._lims[0] - 0.5) * F.ones_like(x))
        log_norm = F.log(F.abs(F.expm1(cut))) - F.log(F.abs(cut))
        taylor = 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0
        return F.where(outside, log_norm, taylor)

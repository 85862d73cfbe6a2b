"""Counts and binary outcomes: Bernoulli, Geometric, Binomial, NegativeBinomial,
Poisson."""
import math
import numbers

from ..core.grad_mode import no_grad
from ..core.namespace import F
from ..core.tensor import Size
from ..nn.functional import binary_cross_entropy_with_logits
from . import constraints
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .gamma import Gamma
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits, tiny_of

__all__ = ["Bernoulli", "Geometric", "Binomial", "NegativeBinomial", "Poisson"]


def _one_of(probs, logits):
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


class _BinaryParams(Distribution):
    """probs or logits (the other made lazily from it), as torch's binary distributions."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}

    def _set_param(self, probs, logits, *others):
        _one_of(probs, logits)
        given = probs if probs is not None else logits
        values = broadcast_all(*others, given)
        setattr(self, "probs" if probs is not None else "logits", values[-1])
        self._param = values[-1]
        scalar = all(isinstance(v, numbers.Number) for v in (*others, given))
        return values[:-1], Size(()) if scalar else self._param.size()

    def _expand_binary(self, cls, batch_shape, _instance, **extra):
        new = self._expanded(cls, batch_shape, _instance, {"probs": (), "logits": (), **extra})
        new._param = new.__dict__["probs" if "probs" in self.__dict__ else "logits"]
        return new

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()


class Bernoulli(_BinaryParams, ExponentialFamily):
    """Bernoulli(probs=None, logits=None): 1 with probability probs (= sigmoid(logits)).

    >>> d = minflow.distributions.Bernoulli(probs=minflow.tensor([0.25]))
    >>> round(d.log_prob(minflow.tensor([1.0])).item(), 4), round(d.entropy().item(), 4)
    (-1.3863, 0.5623)
    """

    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        _, batch_shape = self._set_param(probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_binary(Bernoulli, batch_shape, _instance)

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return F.where(self.probs == 0.5, math.nan, mode)

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=Size(())):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return F.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        self._check_value(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    @property
    def _natural_params(self):
        return (F.logit(self.probs),)

    def _log_normalizer(self, x):
        return F.log1p(F.exp(x))

    def enumerate_support(self, expand=True):
        values = F.arange(2, dtype=self._param.dtype, device=self._param.device)
        values = values.reshape((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values


class Geometric(_BinaryParams):
    """Geometric(probs=None, logits=None): the number of failures before the first
    success of Bernoulli(probs) trials.

    >>> d = minflow.distributions.Geometric(probs=minflow.tensor([0.5]))
    >>> d.mean.tolist(), round(d.log_prob(minflow.tensor([2.0])).item(), 4)
    ([1.0], -2.0794)
    """

    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        _, batch_shape = self._set_param(probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)
        if self._validate_args and probs is not None and not (self.probs > 0).all().item():
            value = self.probs
            raise ValueError(f"Expected parameter probs ({type(value).__name__} of shape "
                             f"{tuple(value.shape)}) of distribution {self!r} to be positive "
                             f"but found invalid values:\n{value[~(value > 0)]}")

    def expand(self, batch_shape, _instance=None):
        return self._expand_binary(Geometric, batch_shape, _instance)

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return F.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=Size(())):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            u = F.empty(tuple(shape), dtype=self.probs.dtype, device=self.probs.device)
            u = u.uniform_(tiny_of(self.probs.dtype), 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        self._check_value(value)
        value, probs = broadcast_all(value, self.probs)
        # 0 * log(0) at probs == 1, value == 0: the term is 0 (probs set to 0 there)
        probs = F.where((probs == 1) & (value == 0), 0.0, probs)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        return binary_cross_entropy_with_logits(self.logits, self.probs,
                                                reduction="none") / self.probs


def _clamp_by_zero(x):
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(_BinaryParams):
    """Binomial(total_count=1, probs=None, logits=None): successes in total_count
    Bernoulli(probs) trials.

    >>> d = minflow.distributions.Binomial(4, probs=minflow.tensor([0.5]))
    >>> d.mean.tolist(), round(d.log_prob(minflow.tensor([2.0])).exp().item(), 4)
    ([2.0], 0.375)
    """

    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        (total_count_t,), _ = self._set_param(probs, logits, total_count)
        self.total_count = total_count_t.to(self._param.dtype)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_binary(Binomial, batch_shape, _instance, total_count=())

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=Size(())):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return F.binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        self._check_value(value)
        n = self.total_count
        normalize = (n * _clamp_by_zero(self.logits)
                     + n * F.log1p(F.exp(-F.abs(self.logits))) - F.lgamma(n + 1))
        return (value * self.logits - F.lgamma(value + 1) - F.lgamma(n - value + 1)
                - normalize)

    def _homogeneous_count(self, what):
        total = int(self.total_count.max().item())
        if self.total_count.min().item() != total:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return total

    def entropy(self):
        self._homogeneous_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(F.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand=True):
        total = self._homogeneous_count("enumerate_support")
        values = F.arange(1 + total, dtype=self._param.dtype, device=self._param.device)
        values = values.reshape((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values


class NegativeBinomial(_BinaryParams):
    """NegativeBinomial(total_count, probs=None, logits=None): the number of successes
    of Bernoulli(probs) trials before total_count failures (total_count may be real).

    log p(k) = log Gamma(n + k) - log Gamma(n) - log k! + n log(1 - p) + k log p

    >>> d = minflow.distributions.NegativeBinomial(2.0, probs=minflow.tensor([0.5]))
    >>> d.mean.tolist(), round(d.log_prob(minflow.tensor([1.0])).exp().item(), 4)
    ([2.0], 0.25)
    """

    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        (total_count_t,), _ = self._set_param(probs, logits, total_count)
        self.total_count = total_count_t.to(self._param.dtype)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_binary(NegativeBinomial, batch_shape, _instance, total_count=())

    @property
    def mean(self):
        return self.total_count * F.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / F.sigmoid(-self.logits)

    def sample(self, sample_shape=Size(())):
        with no_grad():
            rate = Gamma(self.total_count, F.exp(-self.logits),
                         validate_args=False).sample(sample_shape)
            return F.poisson(rate)

    def log_prob(self, value):
        self._check_value(value)
        n = self.total_count
        log_unnormalized = n * F.logsigmoid(-self.logits) + value * F.logsigmoid(self.logits)
        log_normalization = -F.lgamma(n + value) + F.lgamma(1.0 + value) + F.lgamma(n)
        # n = k = 0: the probability is 1
        log_normalization = F.where(n + value == 0.0, 0.0, log_normalization)
        return log_unnormalized - log_normalization


class Poisson(ExponentialFamily):
    """Poisson(rate): P(k) = rate^k e^-rate / k!.

    >>> d = minflow.distributions.Poisson(minflow.tensor([2.0]))
    >>> round(d.log_prob(minflow.tensor([1.0])).item(), 4)
    -1.3069
    """

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch_shape = Size(()) if isinstance(rate, numbers.Number) else self.rate.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Poisson, batch_shape, _instance, {"rate": ()})

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=Size(())):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return F.poisson(self.rate.expand(shape))

    def log_prob(self, value):
        self._check_value(value)
        rate, value = broadcast_all(self.rate, value)
        return F.xlogy(value, rate) - rate - F.lgamma(value + 1)

    @property
    def _natural_params(self):
        return (F.log(self.rate),)

    def _log_normalizer(self, x):
        return F.exp(x)

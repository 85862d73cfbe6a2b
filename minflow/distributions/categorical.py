"""Categorical, OneHotCategorical (and its straight-through variant) and Multinomial:
one of K categories, or counts of K categories over total_count draws, given probs or
logits over the last dim."""
import math

from ..core import dtype as dtypes
from ..core.dtype_info import finfo
from ..core.namespace import F
from ..core.tensor import Size
from . import constraints
from .discrete import Binomial
from .distribution import Distribution
from .utils import as_size, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Categorical", "OneHotCategorical", "OneHotCategoricalStraightThrough",
           "Multinomial"]


class Categorical(Distribution):
    """Categorical(probs=None, logits=None): category indices 0 .. K-1 with probabilities
    probs (normalized over the last dim) or softmax(logits).

    >>> d = minflow.distributions.Categorical(probs=minflow.tensor([1.0, 3.0]))
    >>> d.probs.tolist(), round(d.log_prob(minflow.tensor(1)).item(), 4)
    ([0.25, 0.75], -0.2877)
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.dim() > 1 else Size(())
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        k = (self._num_events,)
        new = self._expanded(Categorical, batch_shape, _instance, {"probs": k, "logits": k})
        new._param = new.__dict__["probs" if "probs" in self.__dict__ else "logits"]
        new._num_events = self._num_events
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits)

    @property
    def param_shape(self):
        return self._param.size()

    @property
    def mean(self):
        return F.full(tuple(self._extended_shape()), math.nan, dtype=self.probs.dtype,
                      device=self.probs.device)

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        return self.mean

    def sample(self, sample_shape=Size(())):
        sample_shape = as_size(sample_shape)
        shape = self._extended_shape(sample_shape)
        count = math.prod(sample_shape)
        if count == 0:
            return F.zeros(tuple(shape), dtype=dtypes.int64, device=self._param.device)
        probs_2d = self.probs.detach().reshape(-1, self._num_events)
        return F.multinomial(probs_2d, count, True).T.reshape(tuple(shape))

    def log_prob(self, value):
        self._check_value(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = F.broadcast_tensors(value, self.logits)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self):
        min_real = finfo(self.logits.dtype).min
        return -(self.logits.clamp(min=min_real) * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        values = F.arange(self._num_events, dtype=dtypes.int64, device=self._param.device)
        values = values.reshape((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values


class OneHotCategorical(Distribution):
    """OneHotCategorical(probs=None, logits=None): Categorical samples as one-hot vectors.

    >>> d = minflow.distributions.OneHotCategorical(logits=minflow.zeros(3))
    >>> d.sample().sum().item(), round(d.entropy().item(), 4)
    (1.0, 1.0986)
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(OneHotCategorical, _instance)
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, as_size(batch_shape, "expand"), self._event_shape,
                              validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def _param(self):
        return self._categorical._param

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def param_shape(self):
        return self._categorical.param_shape

    @property
    def mean(self):
        return self._categorical.probs

    @property
    def mode(self):
        probs = self._categorical.probs
        return F.one_hot(probs.argmax(dim=-1), probs.shape[-1]).to(probs.dtype)

    @property
    def variance(self):
        return self._categorical.probs * (1 - self._categorical.probs)

    def sample(self, sample_shape=Size(())):
        indices = self._categorical.sample(sample_shape)
        return F.one_hot(indices, self._categorical._num_events).to(self.probs.dtype)

    def log_prob(self, value):
        self._check_value(value)
        return self._categorical.log_prob(value.max(-1)[1])

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        n = self._event_shape[0]
        values = F.eye(n, dtype=self._param.dtype, device=self._param.device)
        values = values.reshape((n,) + (1,) * len(self._batch_shape) + (n,))
        return values.expand((n,) + tuple(self._batch_shape) + (n,)) if expand else values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """OneHotCategorical whose rsample is the straight-through estimator: one-hot values
    forward, the gradient of probs backward (Bengio et al., 2013).

    >>> logits = minflow.zeros(3, requires_grad=True)
    >>> d = minflow.distributions.OneHotCategoricalStraightThrough(logits=logits)
    >>> x = d.rsample()
    >>> x.sum().item(), x.requires_grad
    (1.0, True)
    """

    has_rsample = True

    def rsample(self, sample_shape=Size(())):
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())


class Multinomial(Distribution):
    """Multinomial(total_count=1, probs=None, logits=None): counts of each of K
    categories over total_count independent Categorical(probs) draws.

    log p(x) = log n! - sum_i log x_i! + sum_i x_i log p_i

    >>> d = minflow.distributions.Multinomial(4, probs=minflow.tensor([0.5, 0.5]))
    >>> d.mean.tolist(), round(d.log_prob(minflow.tensor([2.0, 2.0])).exp().item(), 4)
    ([2.0, 2.0], 0.375)
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Multinomial, _instance)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, as_size(batch_shape, "expand"), self._event_shape,
                              validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def param_shape(self):
        return self._categorical.param_shape

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=Size(())):
        sample_shape = as_size(sample_shape)
        draws = self._categorical.sample(Size((self.total_count,) + tuple(sample_shape)))
        counts = F.one_hot(draws, self._categorical._num_events).sum(0)
        return counts.reshape(tuple(self._extended_shape(sample_shape))).to(self.probs.dtype)

    def entropy(self):
        n = self.total_count
        term1 = n * self._categorical.entropy() - math.lgamma(n + 1)
        binomial = Binomial(total_count=n, probs=self.probs)
        support = binomial.enumerate_support(expand=False)[1:]
        binomial_probs = F.exp(binomial.log_prob(support))
        return term1 + (binomial_probs * F.lgamma(support + 1)).sum([0, -1])

    def log_prob(self, value):
        self._check_value(value)
        logits, value = F.broadcast_tensors(self.logits, value)
        # 0 * log 0 = 0: a category of probability 0 that was never drawn adds nothing
        logits = F.where((value == 0) & (logits == -math.inf), 0.0, logits)
        return (F.lgamma(value.sum(-1) + 1) - F.lgamma(value + 1).sum(-1)
                + (logits * value).sum(-1))

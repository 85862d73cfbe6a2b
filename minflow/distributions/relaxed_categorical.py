"""Continuous relaxations of categorical variables (Concrete / Gumbel-softmax),
reparameterizable: ExpRelaxedCategorical and RelaxedOneHotCategorical. ``temperature`` is
a tensor; as it falls, samples approach one-hot vectors. (Module named as torch's.)"""
from ..core.tensor import Size
from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .relaxed_bernoulli import _RelaxedTransformed
from .transforms import ExpTransform
from .utils import as_size, broadcast_all, clamp_probs, standard_uniform

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(Distribution):
    """ExpRelaxedCategorical(temperature, probs=None, logits=None): the log of a
    RelaxedOneHotCategorical sample, log_softmax((logits + Gumbel noise) / temperature).

    >>> from minflow.distributions.relaxed_categorical import ExpRelaxedCategorical
    >>> d = ExpRelaxedCategorical(minflow.tensor(1.0), logits=minflow.zeros(3))
    >>> x = d.rsample()
    >>> x.shape, abs(x.exp().sum().item() - 1) < 1e-6
    (minflow.Size([3]), True)
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ExpRelaxedCategorical, _instance)
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, as_size(batch_shape, "expand"), self._event_shape,
                              validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def param_shape(self):
        return self._categorical.param_shape

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    def rsample(self, sample_shape=Size(())):
        shape = self._extended_shape(sample_shape)
        uniforms = clamp_probs(standard_uniform(shape, self.logits))
        gumbels = -((-(uniforms.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value):
        k = self._categorical._num_events
        self._check_value(value)
        logits, value = broadcast_all(self.logits, value)
        log_scale = (self.temperature * 0 + float(k)).lgamma() + self.temperature.log() * (k - 1)
        score = logits - value * self.temperature
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(_RelaxedTransformed):
    """RelaxedOneHotCategorical(temperature, probs=None, logits=None): points of the
    simplex that approach one-hot vectors as the temperature falls (Gumbel-softmax).

    >>> d = minflow.distributions.RelaxedOneHotCategorical(
    ...     minflow.tensor(0.5), probs=minflow.tensor([0.2, 0.8]))
    >>> x = d.rsample((3,))
    >>> x.shape, bool(((x.sum(-1) - 1).abs() < 1e-5).all())
    (minflow.Size([3, 2]), True)
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = ExpRelaxedCategorical(temperature, probs, logits,
                                          validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(RelaxedOneHotCategorical, _instance)
        return super().expand(batch_shape, _instance=new)

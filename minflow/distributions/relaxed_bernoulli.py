"""Continuous relaxations of Bernoulli variables (binary Concrete), reparameterizable:
LogitRelaxedBernoulli and RelaxedBernoulli. ``temperature`` is a tensor; as it falls,
samples approach Bernoulli ones. (Module named as torch's, where these classes live.)"""
from ..core.tensor import Size
from . import constraints
from .discrete import _BinaryParams
from .transformed import TransformedDistribution
from .transforms import SigmoidTransform
from .utils import broadcast_all, clamp_probs, standard_uniform

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


class LogitRelaxedBernoulli(_BinaryParams):
    """LogitRelaxedBernoulli(temperature, probs=None, logits=None): the logit of a
    RelaxedBernoulli sample, (logit(u) + logits) / temperature for u ~ U(0, 1).

    >>> from minflow.distributions.relaxed_bernoulli import LogitRelaxedBernoulli
    >>> d = LogitRelaxedBernoulli(minflow.tensor(0.5), logits=minflow.zeros(2))
    >>> round(d.log_prob(minflow.zeros(2))[0].item(), 4)
    -2.0794
    """

    support = constraints.real
    # NOTE: has_rsample stays False, as torch's, though rsample is reparameterized

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        _, batch_shape = self._set_param(probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_binary(LogitRelaxedBernoulli, batch_shape, _instance)
        new.temperature = self.temperature
        return new

    def rsample(self, sample_shape=Size(())):
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(tuple(shape)))
        uniforms = clamp_probs(standard_uniform(shape, probs))
        return (uniforms.log() - (-uniforms).log1p() + probs.log()
                - (-probs).log1p()) / self.temperature

    def log_prob(self, value):
        self._check_value(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value * self.temperature
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class _RelaxedTransformed(TransformedDistribution):
    """A relaxed distribution made by transforming a relaxed base (RelaxedBernoulli,
    RelaxedOneHotCategorical): its temperature and parameters are the base's."""

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs


class RelaxedBernoulli(_RelaxedTransformed):
    """RelaxedBernoulli(temperature, probs=None, logits=None): samples in (0, 1), the
    sigmoid of LogitRelaxedBernoulli ones.

    >>> d = minflow.distributions.RelaxedBernoulli(minflow.tensor(0.1),
    ...                                            probs=minflow.tensor([0.9]))
    >>> x = d.rsample((1000,))
    >>> bool(((x > 0) & (x < 1)).all()), 0.8 < (x > 0.5).float().mean().item() < 1.0
    (True, True)
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base_dist, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(RelaxedBernoulli, _instance)
        return super().expand(batch_shape, _instance=new)

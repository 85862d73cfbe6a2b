"""MixtureSameFamily: a mixture of components of one family, weighted by a Categorical
(Gaussian mixture models and the like)."""
from ..core.grad_mode import no_grad
from ..core.namespace import F
from ..core.tensor import Size
from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .utils import as_size

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """MixtureSameFamily(mixture_distribution, component_distribution): draw a component
    index from the Categorical ``mixture_distribution``, then a value from that component
    (the rightmost batch dim of ``component_distribution`` indexes the components).

    log p(x) = logsumexp_k (log pi_k + log p_k(x))

    >>> from minflow.distributions import Categorical, MixtureSameFamily, Normal
    >>> gmm = MixtureSameFamily(Categorical(probs=minflow.tensor([0.5, 0.5])),
    ...                         Normal(minflow.tensor([-1.0, 1.0]), minflow.tensor([1.0, 1.0])))
    >>> gmm.mean.item(), round(gmm.variance.item(), 4), gmm.sample((4,)).shape
    (0.0, 2.0, minflow.Size([4]))
    """

    arg_constraints = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of "
                             "minflow.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution need to be an instance of "
                             "minflow.distributions.Distribution")
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        mixture_batch = mixture_distribution.batch_shape
        component_batch = component_distribution.batch_shape[:-1]
        for a, b in zip(reversed(mixture_batch), reversed(component_batch)):
            if a != 1 and b != 1 and a != b:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mixture_batch}) is not "
                                 f"compatible with `component_distribution.batch_shape`"
                                 f"({component_batch})")
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1]
        if km != kc:
            raise ValueError(f"`mixture_distribution component` ({km}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({kc})")
        self._num_component = km
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(component_batch, component_distribution.event_shape,
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = as_size(batch_shape, "expand")
        new = self._get_checked_instance(MixtureSameFamily, _instance)
        new._component_distribution = self._component_distribution.expand(
            tuple(batch_shape) + (self._num_component,))
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._num_component = self._num_component
        new._event_ndims = self._event_ndims
        Distribution.__init__(new, batch_shape, new._component_distribution.event_shape,
                              validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property
    def support(self):
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self):
        return self._mixture_distribution

    @property
    def component_distribution(self):
        return self._component_distribution

    @property
    def mean(self):
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        return (probs * self.component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self):
        """The law of total variance: E[Var(x | k)] + Var(E[x | k])."""
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        components = self.component_distribution
        mean_cond_var = (probs * components.variance).sum(-1 - self._event_ndims)
        var_cond_mean = (probs * (components.mean - self._pad(self.mean)).pow(2.0)).sum(
            -1 - self._event_ndims)
        return mean_cond_var + var_cond_mean

    def cdf(self, x):
        cdf_x = self.component_distribution.cdf(self._pad(x))
        return (cdf_x * self.mixture_distribution.probs).sum(-1)

    def log_prob(self, x):
        self._check_value(x)
        log_prob_x = self.component_distribution.log_prob(self._pad(x))      # [S, B, k]
        log_mix_prob = F.log_softmax(self.mixture_distribution.logits, dim=-1)  # [B, k]
        return F.logsumexp(log_prob_x + log_mix_prob, dim=-1)

    def sample(self, sample_shape=Size(())):
        sample_shape = as_size(sample_shape)
        with no_grad():
            gather_dim = len(sample_shape) + len(self.batch_shape)
            event = tuple(self.event_shape)
            mix_sample = self.mixture_distribution.sample(sample_shape)
            components = self.component_distribution.sample(sample_shape)
            mix_shape = tuple(mix_sample.shape)
            index = mix_sample.reshape(mix_shape + (1,) * (len(event) + 1))
            index = index.repeat((1,) * len(mix_shape) + (1,) + event)
            return F.gather(components, gather_dim, index).squeeze(gather_dim)

    def _pad(self, x):
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, x):
        """Mixture weights [B', k] shaped to broadcast against component values [B, k, E]."""
        dist_batch_ndims = len(self.batch_shape)
        cat_batch_ndims = len(self.mixture_distribution.batch_shape)
        pad_ndims = 0 if cat_batch_ndims == 1 else dist_batch_ndims - cat_batch_ndims
        shape = tuple(x.shape)
        return x.reshape(shape[:-1] + (1,) * pad_ndims + shape[-1:] + (1,) * self._event_ndims)

    def __repr__(self):
        return (f"MixtureSameFamily(\n  {self.mixture_distribution},\n  "
                f"{self.component_distribution})")

"""ExponentialFamily: the base of the distributions with density
p(x; theta) = exp(<t(x), theta> - F(theta) + k(x)), as
torch.distributions.ExponentialFamily. A subclass gives its natural parameters theta,
its log normalizer F and the expected carrier measure E[k(x)]; the entropy and the KL
divergence between two members of one family then follow from the gradient of F
(Bregman divergences; Nielsen and Nock, "Entropies and cross-entropies of exponential
families").

>>> from minflow.distributions import ExponentialFamily, Normal
>>> d = Normal(minflow.tensor([0.0]), minflow.tensor([2.0]))
>>> isinstance(d, ExponentialFamily)
True
>>> round(ExponentialFamily.entropy(d).item(), 4), round(d.entropy().item(), 4)
(2.1121, 2.1121)
"""
from ..autograd.engine import grad
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Abstract base of exponential families: ``_natural_params`` (a tuple of tensors),
    ``_log_normalizer(*natural_params)`` and ``_mean_carrier_measure``."""

    @property
    def _natural_params(self):
        """The natural parameters theta, a tuple of tensors."""
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        """F(theta), the log normalizer, as a function of the natural parameters."""
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        """E[k(x)], the expected carrier measure (needed by the entropy)."""
        raise NotImplementedError

    def entropy(self):
        """H = F(theta) - <theta, grad F(theta)> - E[k(x)], with grad F by autograd
        (differentiable: the gradient is taken with create_graph)."""
        result = -self._mean_carrier_measure
        params = [p.detach().requires_grad_() for p in self._natural_params]
        log_normalizer = self._log_normalizer(*params)
        grads = grad(log_normalizer.sum(), params, create_graph=True)
        result = result + log_normalizer
        for param, param_grad in zip(params, grads):
            term = param * param_grad
            result = result - term.reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result

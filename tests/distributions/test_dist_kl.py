"""kl_divergence against torch for every pair torch registers among minflow's
distributions (values and gradients w.r.t. both distributions' parameters), dispatch
to subclasses, register_kl, and the error for a pair without a formula."""
import numpy as np
import pytest

import minflow
from minflow.distributions import kl_divergence, register_kl
from _dist_cases import CASES

torch = pytest.importorskip("torch")
TOL = dict(rtol=1e-5, atol=1e-8)

# the case that stands for each family
FAMILY = {"Normal": "Normal", "Laplace": "Laplace", "Uniform": "Uniform",
          "Exponential": "Exponential", "Gamma": "Gamma", "Beta": "Beta",
          "Dirichlet": "Dirichlet", "Bernoulli": "Bernoulli/probs",
          "Geometric": "Geometric/logits", "Binomial": "Binomial/probs", "Poisson": "Poisson",
          "Categorical": "Categorical/logits", "OneHotCategorical": "OneHotCategorical",
          "MultivariateNormal": "MultivariateNormal/scale_tril", "Independent": "Independent",
          "TransformedDistribution": "LogNormal", "Gumbel": "Gumbel", "HalfNormal": "HalfNormal",
          "Cauchy": "Cauchy", "Pareto": "Pareto",
          "ContinuousBernoulli": "ContinuousBernoulli/probs",
          "LowRankMultivariateNormal": "LowRankMultivariateNormal"}


def _pairs():
    from torch.distributions.kl import _KL_REGISTRY
    return sorted((p.__name__, q.__name__) for p, q in _KL_REGISTRY
                  if p.__name__ in FAMILY and q.__name__ in FAMILY)


def _build(lib, family, shift):
    """The family's case; with shift, its array parameters rolled along the first axis
    (other valid values)."""
    case = CASES[FAMILY[family]]
    leaves, args = [], {}
    for name, value in case.params.items():
        if isinstance(value, np.ndarray):
            value = np.roll(value, shift, axis=0) if value.ndim else value
            args[name] = lib.tensor(value, dtype=lib.float64, requires_grad=True)
            leaves.append(args[name])
        else:
            args[name] = value
    return case.make(lib.distributions, **args), leaves


def _kl(lib, pair):
    p, p_leaves = _build(lib, pair[0], 0)
    q, q_leaves = _build(lib, pair[1], 1)
    kl = lib.distributions.kl_divergence(p, q)
    leaves = p_leaves + q_leaves
    if not kl.requires_grad:
        return kl, [None] * len(leaves)
    finite = lib.isfinite(kl.detach())
    loss = lib.where(finite, kl, lib.zeros_like(kl)).sum()
    grad = torch.autograd.grad if lib is torch else minflow.autograd.grad
    return kl, grad(loss, leaves, allow_unused=True)


def test_the_pairs_cover_every_family():
    covered = {name for pair in _pairs() for name in pair}
    assert covered == set(FAMILY)


@pytest.mark.parametrize("pair", _pairs(), ids="-".join)
def test_kl_values_and_grads_match_torch(pair):
    expected, expected_grads = _kl(torch, pair)
    got, grads = _kl(minflow, pair)
    assert tuple(got.shape) == tuple(expected.shape)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), **TOL)
    for g, e in zip(grads, expected_grads):
        if e is None or not e.abs().sum().item():
            assert g is None or not g.abs().sum().item()
        else:
            np.testing.assert_allclose(g.numpy(), e.numpy(), **TOL)


def test_kl_of_a_distribution_with_itself_is_zero():
    for family in ("Normal", "Gamma", "Dirichlet", "MultivariateNormal", "Categorical"):
        p, _ = _build(minflow, family, 0)
        np.testing.assert_allclose(kl_divergence(p, p).detach().numpy(), 0.0, atol=1e-12)


def test_register_kl_dispatches_to_the_most_specific_pair():
    class Special(minflow.distributions.Normal):
        pass

    p = Special(0.0, 1.0)
    q = minflow.distributions.Normal(1.0, 1.0)
    assert kl_divergence(p, q).item() == 0.5           # falls back to (Normal, Normal)

    @register_kl(Special, minflow.distributions.Normal)
    def _special(p, q):
        return minflow.tensor(7.0)

    assert kl_divergence(p, q).item() == 7.0
    assert kl_divergence(q, q).item() == 0.0


def test_kl_errors():
    with pytest.raises(NotImplementedError, match="No KL\\(p \\|\\| q\\) is implemented for p "
                                                  "type Poisson and q type Laplace"):
        kl_divergence(minflow.distributions.Poisson(1.0), minflow.distributions.Laplace(0.0, 1.0))
    for lib in (minflow, torch):        # two exponential families, no formula between them
        D = lib.distributions
        with pytest.raises(NotImplementedError, match="cross KL-divergence between different "
                                                      "exponential families"):
            D.kl_divergence(D.Poisson(lib.tensor(1.0)), D.Normal(0.0, 1.0))
    with pytest.raises(TypeError, match="register_kl: expected type_p to be a Distribution"):
        register_kl(int, minflow.distributions.Normal)
    mvn = minflow.distributions.MultivariateNormal
    with pytest.raises(ValueError, match="different event shapes"):
        kl_divergence(mvn(minflow.zeros(2), minflow.eye(2)), mvn(minflow.zeros(3), minflow.eye(3)))

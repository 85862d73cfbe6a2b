"""ExponentialFamily against torch: which distributions are members, the entropy from
the log normalizer (values and gradients, and NotImplementedError where a family gives
no carrier measure), and the Bregman KL between two members of one family, which agrees
with each family's closed form and is what kl_divergence uses for Wishart."""
import numpy as np
import pytest

import minflow
from minflow.distributions import ExponentialFamily, kl_divergence
from minflow.distributions.kl import _kl_expfamily_expfamily
from _dist_cases import CASES, build
from test_dist_kl import _build

torch = pytest.importorskip("torch")
TOL = dict(rtol=1e-6, atol=1e-9)


def test_the_members_are_torchs():
    members = sorted(name for name in minflow.distributions.__all__
                     if isinstance(getattr(minflow.distributions, name), type)
                     and issubclass(getattr(minflow.distributions, name), ExponentialFamily))
    expected = sorted(name for name in torch.distributions.__all__
                      if isinstance(getattr(torch.distributions, name), type)
                      and issubclass(getattr(torch.distributions, name),
                                     torch.distributions.ExponentialFamily))
    assert members == expected


@pytest.mark.parametrize("key", sorted(CASES))
def test_membership_of_every_case_matches_torch(key):
    dist, ref = build(minflow, key)[0], build(torch, key)[0]
    assert isinstance(dist, ExponentialFamily) == isinstance(
        ref, torch.distributions.ExponentialFamily)


def _generic_entropy(lib, key):
    dist, leaves = build(lib, key)
    base = ExponentialFamily if lib is minflow else torch.distributions.ExponentialFamily
    try:
        entropy = base.entropy(dist)
    except NotImplementedError:
        return NotImplementedError, None, dist
    grad = torch.autograd.grad if lib is torch else minflow.autograd.grad
    # (the natural parameters are detached: no gradient reaches a parameter, as in torch)
    grads = grad(entropy.sum(), list(leaves.values()), allow_unused=True) if leaves else []
    return entropy, grads, dist


@pytest.mark.parametrize("key", sorted(k for k in CASES if isinstance(
    build(torch, k)[0], torch.distributions.ExponentialFamily)))
def test_entropy_from_the_log_normalizer_matches_torch(key):
    expected, expected_grads, _ = _generic_entropy(torch, key)
    got, grads, dist = _generic_entropy(minflow, key)
    if expected is NotImplementedError:          # no _mean_carrier_measure (Beta, Poisson)
        assert got is NotImplementedError
        return
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), **TOL)
    np.testing.assert_allclose(got.detach().numpy(), dist.entropy().detach().numpy(), **TOL)
    assert all(e is None for e in expected_grads) and all(g is None for g in grads)


EF_FAMILIES = ["Normal", "Exponential", "Gamma", "Beta", "Bernoulli", "Poisson", "Dirichlet",
               "ContinuousBernoulli"]


def _bregman(lib, family):
    p, p_leaves = _build(lib, family, 0)
    q, q_leaves = _build(lib, family, 1)
    if lib is torch:
        kl = torch.distributions.kl._kl_expfamily_expfamily(p, q)
        return kl, torch.autograd.grad(kl.sum(), p_leaves + q_leaves, allow_unused=True), None
    kl = _kl_expfamily_expfamily(p, q)
    grads = minflow.autograd.grad(kl.sum(), p_leaves + q_leaves, allow_unused=True)
    return kl, grads, kl_divergence(p, q)


@pytest.mark.parametrize("family", EF_FAMILIES)
def test_bregman_kl_matches_torch_and_the_closed_form(family):
    expected, expected_grads, _ = _bregman(torch, family)
    got, grads, closed_form = _bregman(minflow, family)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), **TOL)
    np.testing.assert_allclose(got.detach().numpy(), closed_form.detach().numpy(),
                               rtol=1e-5, atol=1e-8)
    for g, e in zip(grads, expected_grads):      # p's parameters are detached: None
        assert (g is None) == (e is None)
        if e is not None:
            np.testing.assert_allclose(g.numpy(), e.numpy(), **TOL)


def _wisharts(lib, df_p, df_q):
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=(2, 3, 3))
    leaves = [lib.tensor(m @ m.T + 3 * np.eye(3), dtype=lib.float64, requires_grad=True)
              for m in (a, b)]
    D = lib.distributions
    return (D.Wishart(lib.tensor(df_p, dtype=lib.float64), covariance_matrix=leaves[0]),
            D.Wishart(lib.tensor(df_q, dtype=lib.float64), precision_matrix=leaves[1]), leaves)


def test_wishart_kl_goes_through_the_bregman_divergence_as_torch():
    p, q, leaves = _wisharts(minflow, 4.5, 6.0)
    p_ref, q_ref, ref_leaves = _wisharts(torch, 4.5, 6.0)
    got, expected = kl_divergence(p, q), torch.distributions.kl_divergence(p_ref, q_ref)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), **TOL)
    grads = minflow.autograd.grad(got, leaves, allow_unused=True)
    for g, e in zip(grads, torch.autograd.grad(expected, ref_leaves, allow_unused=True)):
        assert (g is None) == (e is None)
        if e is not None:
            np.testing.assert_allclose(g.numpy(), e.numpy(), **TOL)
    np.testing.assert_allclose(kl_divergence(p, p).detach().numpy(), 0.0, atol=1e-10)


def test_the_bregman_kl_needs_one_family():
    for lib in (minflow, torch):
        D = lib.distributions
        one = lib.tensor([1.0, 2.0])
        with pytest.raises(NotImplementedError, match="cross KL-divergence between different "
                                                      "exponential families"):
            D.kl_divergence(D.Beta(one, one), D.Dirichlet(one))

"""sample and rsample: shapes over sample_shape and batch shapes, dtypes as torch,
reproducible under minflow.manual_seed, sample statistics against torch's own samples,
and reparameterized gradients against the gradients of the analytic mean."""
import numpy as np
import pytest

import minflow
from _dist_cases import CASES, build

torch = pytest.importorskip("torch")
N = 20_000


def _draw(lib, key, sample_shape, rsample=False):
    dist, _ = build(lib, key)
    return dist.rsample(sample_shape) if rsample else dist.sample(sample_shape)


@pytest.mark.parametrize("sample_shape", [(), (5,), (2, 3)])
@pytest.mark.parametrize("key", sorted(CASES))
def test_sample_shapes_and_dtypes_match_torch(key, sample_shape):
    got, expected = _draw(minflow, key, sample_shape), _draw(torch, key, sample_shape)
    assert tuple(got.shape) == tuple(expected.shape)
    assert got.dtype.name == str(expected.dtype).split(".")[1]
    assert not got.requires_grad
    dist, leaves = build(minflow, key)
    if dist.has_rsample:
        drawn = dist.rsample(sample_shape)
        assert tuple(drawn.shape) == tuple(expected.shape)
        assert drawn.requires_grad == bool(leaves)
    elif type(dist).rsample is minflow.distributions.Distribution.rsample:
        with pytest.raises(NotImplementedError, match="has no rsample"):
            dist.rsample(sample_shape)
    assert dist.support.check(got).all().item()


@pytest.mark.parametrize("key", sorted(CASES))
def test_samples_are_reproducible_under_manual_seed(key):
    minflow.manual_seed(7)
    a = _draw(minflow, key, (4,))
    minflow.manual_seed(7)
    b = _draw(minflow, key, (4,))
    c = _draw(minflow, key, (4,))
    assert np.array_equal(a.numpy(), b.numpy())
    assert not np.array_equal(b.numpy(), c.numpy())


@pytest.mark.parametrize("key", sorted(CASES))
def test_sample_moments_agree_with_torch_samples(key):
    """Means agree within 5 standard errors of the difference; variances within 10%.
    Heavy-tailed cases: the quartiles agree within a tenth of the interquartile range."""
    if CASES[key].kwargs.get("torch_sampler_differs"):
        pytest.skip(f"{key}: torch samples off the density (the exact moments are tested)")
    torch.manual_seed(0)
    minflow.manual_seed(0)
    x = _draw(minflow, key, (N,)).double().numpy().reshape(N, -1)
    y = _draw(torch, key, (N,)).double().numpy().reshape(N, -1)
    if CASES[key].kwargs.get("heavy_tails"):
        qx, qy = np.quantile(x, [0.25, 0.5, 0.75], 0), np.quantile(y, [0.25, 0.5, 0.75], 0)
        assert np.all(np.abs(qx - qy) <= 0.1 * (qy[2] - qy[0])), (key, qx, qy)
        return
    se = np.sqrt((x.var(0) + y.var(0)) / N)
    assert np.all(np.abs(x.mean(0) - y.mean(0)) <= 5 * se + 1e-12), key
    np.testing.assert_allclose(x.var(0), y.var(0), rtol=0.1, atol=1e-12, err_msg=key)


@pytest.mark.parametrize("key", sorted(k for k in CASES
                                        if build(minflow, k)[0].has_rsample and
                                        any(isinstance(v, np.ndarray)
                                            for v in CASES[k].params.values())))
def test_rsample_grads_average_to_the_grads_of_the_mean(key):
    """E[d x / d theta] = d E[x] / d theta: the reparameterized gradient is unbiased."""
    dist, leaves = build(minflow, key)
    ref, ref_leaves = build(torch, key)
    try:
        mean = ref.mean
    except NotImplementedError:
        pytest.skip(f"{key}: no analytic mean")
    if CASES[key].kwargs.get("constant_rsample"):
        pytest.skip(f"{key}: rsample does not depend on the parameters everywhere")
    if not torch.isfinite(mean).all():
        pytest.skip(f"{key}: the mean is infinite or undefined for some parameters")
    weights = np.random.default_rng(1).uniform(0.5, 1.5, tuple(mean.shape))
    expected = (torch.autograd.grad((mean * torch.tensor(weights)).sum(),
                                    list(ref_leaves.values()), allow_unused=True)
                if mean.requires_grad else [None] * len(ref_leaves))    # a constant mean
    loss = (dist.rsample((N,)).mean(0) * minflow.tensor(weights)).sum()
    grads = minflow.autograd.grad(loss, list(leaves.values()), allow_unused=True)
    for name, got, want in zip(leaves, grads, expected):
        want = np.zeros(leaves[name].shape) if want is None else want.numpy()
        got = np.zeros(leaves[name].shape) if got is None else got.numpy()
        if name in CASES[key].kwargs.get("symmetric", ()):
            want, got = _symmetric_part(want), _symmetric_part(got)
        np.testing.assert_allclose(got, want, rtol=0.05, atol=0.03, err_msg=f"{key}: d/d{name}")


def _symmetric_part(matrices):
    return (matrices + np.swapaxes(matrices, -1, -2)) / 2


def test_categorical_frequencies_match_probs():
    probs = minflow.tensor([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])
    draws = minflow.distributions.Categorical(probs=probs).sample((N,)).numpy()
    for row in range(2):
        freq = np.bincount(draws[:, row], minlength=3) / N
        np.testing.assert_allclose(freq, probs[row].tolist(), atol=0.015)


def test_gamma_dirichlet_and_beta_rsample_keep_the_sample_positive():
    gamma = minflow.distributions.Gamma(minflow.tensor([1e-3]), minflow.tensor([1.0]))
    assert (gamma.rsample((1000,)) > 0).all().item()
    dirichlet = minflow.distributions.Dirichlet(minflow.full((3,), 0.01))
    x = dirichlet.rsample((100,))
    assert (x > 0).all().item()
    np.testing.assert_allclose(x.sum(-1).numpy(), 1.0, rtol=1e-5)


def _wishart_with_draws(singular_draws):
    """A Wishart whose first ``singular_draws`` Bartlett draws have a zero (singular)
    matrix at sample 1, batch 0; and the list of the draws it made."""
    d = minflow.distributions.Wishart(minflow.tensor([3.0, 4.0], dtype=minflow.float64),
                                      covariance_matrix=minflow.eye(2, dtype=minflow.float64))
    draws, bartlett = [], d._bartlett_sampling
    mask = minflow.ones(5, 2, 1, 1, dtype=minflow.float64)
    mask[1, 0] = 0.0

    def sampling(sample_shape):
        draw = bartlett(sample_shape)
        draws.append(draw * mask if len(draws) < singular_draws else draw)
        return draws[-1]

    d._bartlett_sampling = sampling
    return d, draws


def test_wishart_redraws_singular_samples():
    d, draws = _wishart_with_draws(1)
    with pytest.warns(UserWarning, match="Singular sample detected."):
        x = d.rsample((5,))
    assert len(draws) == 2
    assert d.support.check(x).all().item()
    np.testing.assert_array_equal(x[1].numpy(), draws[1][1].numpy())    # redrawn: sample 1
    keep = [0, 2, 3, 4]
    np.testing.assert_array_equal(x[keep].numpy(), draws[0][keep].numpy())


def test_wishart_gives_up_after_max_try_correction():
    d, draws = _wishart_with_draws(100)
    with pytest.warns(UserWarning, match="Singular sample detected."):
        x = d.rsample((5,), max_try_correction=3)
    assert len(draws) == 4 and not d.support.check(x)[1, 0].item()
    d, draws = _wishart_with_draws(100)
    with pytest.warns(UserWarning, match="Singular sample detected."):
        d.rsample((5,))
    assert len(draws) == 11                 # 10 tries by default
    d, draws = _wishart_with_draws(0)
    d.rsample((5,))
    assert len(draws) == 1                  # nothing singular: no redraw


@pytest.mark.parametrize("key", sorted(k for k in CASES if k.startswith("Wishart")))
def test_wishart_matrices_match_torch(key):
    dist, ref = build(minflow, key)[0], build(torch, key)[0]
    for name in ("covariance_matrix", "precision_matrix", "scale_tril"):
        np.testing.assert_allclose(getattr(dist, name).detach().numpy(),
                                   getattr(ref, name).detach().numpy(), rtol=1e-10, atol=1e-12)


def test_lkj_cholesky_samples_correlation_factors_at_the_density():
    """Marginally each off-diagonal correlation of LKJ(dim, eta) is 2 Beta(b, b) - 1 with
    b = eta - 1 + dim / 2: its variance is 1 / (2 b + 1)."""
    minflow.manual_seed(0)
    d = minflow.distributions.LKJCholesky(4, minflow.tensor([0.5, 2.0], dtype=minflow.float64))
    factors = d.sample((N,))
    assert d.support.check(factors).all().item()
    corr = (factors @ factors.mT).numpy()
    off_diagonal = corr[..., [1, 2, 3, 2, 3, 3], [0, 0, 0, 1, 1, 2]]
    b = np.array([0.5, 2.0]) - 1 + 4 / 2
    np.testing.assert_allclose(off_diagonal.var(0), np.repeat((1 / (2 * b + 1))[:, None], 6, 1),
                               rtol=0.05)
    np.testing.assert_allclose(off_diagonal.mean(0), 0.0, atol=0.02)

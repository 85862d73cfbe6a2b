"""Transforms against torch.distributions.transforms: forward, inverse, log-det-Jacobian
(values and grads), sign, domain / codomain, event_dim, shapes, repr, equality, caching;
the top-level exports; a tanh-squashed Normal (SAC's policy) against torch."""
import numpy as np
import pytest

import minflow
from minflow.distributions import transforms as T

torch = pytest.importorskip("torch")
TOL = dict(rtol=1e-6, atol=1e-10)


def _make(lib):
    """name -> (transform, input array) in lib."""
    M = lib.distributions.transforms
    scale = lib.tensor([0.5, -2.0, 3.0], dtype=lib.float64)
    return {
        "exp": (M.ExpTransform(), np.linspace(-2, 2, 6)),
        "affine/number": (M.AffineTransform(1.0, -2.0), np.linspace(-2, 2, 6)),
        "affine/tensor": (M.AffineTransform(scale * 0 + 1.0, scale),
                          np.linspace(-2, 2, 6).reshape(2, 3)),
        "affine/event_dim": (M.AffineTransform(0.0, scale, event_dim=1),
                             np.linspace(-2, 2, 6).reshape(2, 3)),
        "sigmoid": (M.SigmoidTransform(), np.linspace(-3, 3, 6)),
        "tanh": (M.TanhTransform(), np.linspace(-3, 3, 6)),
        "compose": (M.ComposeTransform([M.TanhTransform(), M.AffineTransform(2.0, 3.0),
                                        M.ExpTransform()]), np.linspace(-2, 2, 6)),
        "inverse": (M.ExpTransform().inv, np.linspace(0.5, 3, 6)),
        "compose/inverse": (M.ComposeTransform([M.SigmoidTransform(),
                                                M.AffineTransform(0.0, 2.0)]).inv,
                            np.linspace(0.2, 1.8, 6)),
        "abs": (M.AbsTransform(), np.linspace(-2, 2, 6)),
        "power/number": (M.PowerTransform(2.5), np.linspace(0.5, 3, 6)),
        "power/tensor": (M.PowerTransform(scale), np.linspace(0.5, 3, 6).reshape(2, 3)),
        "softplus": (M.SoftplusTransform(), np.linspace(-3, 3, 6)),
        "softmax": (M.SoftmaxTransform(), np.linspace(-2, 2, 6).reshape(2, 3)),
        "stick_breaking": (M.StickBreakingTransform(), np.linspace(-2, 2, 6).reshape(2, 3)),
        "lower_cholesky": (M.LowerCholeskyTransform(), np.linspace(-2, 2, 18).reshape(2, 3, 3)),
        "positive_definite": (M.PositiveDefiniteTransform(),
                              np.linspace(-2, 2, 18).reshape(2, 3, 3)),
        "corr_cholesky": (M.CorrCholeskyTransform(), np.linspace(-2, 2, 12).reshape(2, 6)),
        "corr_cholesky/2x2": (M.CorrCholeskyTransform(), np.array([[0.3], [-1.5]])),
        "reshape": (M.ReshapeTransform((2, 3), (3, 2)), np.linspace(-2, 2, 12).reshape(2, 2, 3)),
        "independent": (M.IndependentTransform(M.SigmoidTransform(), 2),
                        np.linspace(-2, 2, 12).reshape(2, 2, 3)),
        "cat/batch": (M.CatTransform([M.ExpTransform(), M.TanhTransform()], dim=0,
                                     lengths=[1, 2]), np.linspace(-2, 2, 9).reshape(3, 3)),
        "cat/event": (M.CatTransform([M.IndependentTransform(M.ExpTransform(), 1),
                                      M.IndependentTransform(M.SigmoidTransform(), 1)],
                                     dim=-1, lengths=[1, 3]),
                      np.linspace(-2, 2, 8).reshape(2, 4)),
        "stack": (M.StackTransform([M.ExpTransform(), M.AffineTransform(1.0, 3.0),
                                    M.SoftplusTransform()], dim=1),
                  np.linspace(-2, 2, 6).reshape(2, 3)),
        "cdf": (M.CumulativeDistributionTransform(lib.distributions.Normal(0.5, 2.0)),
                np.linspace(-2, 2, 6)),
    }


NAMES = sorted(_make(minflow))


def _run(lib, name):
    """The transform and [y, log-det-Jacobian (or NotImplementedError), t.inv(y), the grad
    of a loss of both w.r.t. x]."""
    t, x = _make(lib)[name]
    x = lib.tensor(x, dtype=lib.float64, requires_grad=True)
    y = t(x)
    try:
        ladj = t.log_abs_det_jacobian(x, y)
        loss = (ladj * ladj).sum() + (y * y).sum()
    except NotImplementedError:
        ladj, loss = NotImplementedError, (y * y).sum()
    back = t.inv(y)
    grad = (torch.autograd.grad if lib is torch else minflow.autograd.grad)(loss, [x])[0]
    return t, [y, ladj, back, grad]


def _sign(t):
    try:
        sign = t.sign
    except NotImplementedError:
        return NotImplementedError
    return sign.tolist() if hasattr(sign, "tolist") else sign


def _event_dim(t):
    try:
        return t.event_dim
    except ValueError:              # domain and codomain differ (CorrCholeskyTransform)
        return ValueError


@pytest.mark.parametrize("name", NAMES)
def test_transform_matches_torch(name):
    t, got = _run(minflow, name)
    ref, expected = _run(torch, name)
    for g, e in zip(got, expected):
        if e is NotImplementedError:
            assert g is NotImplementedError, f"{name}: torch has no log_abs_det_jacobian"
            continue
        assert tuple(g.shape) == tuple(e.shape)
        np.testing.assert_allclose(g.detach().numpy(), e.detach().numpy(), **TOL)
    assert repr(t) == repr(ref)
    assert repr(t.domain) == repr(ref.domain) and repr(t.codomain) == repr(ref.codomain)
    assert t.bijective == ref.bijective
    assert _event_dim(t) == _event_dim(ref)
    assert _sign(t) == _sign(ref)
    shape = (4,) + tuple(got[0].shape)
    assert tuple(t.inverse_shape(shape)) == tuple(ref.inverse_shape(shape))
    shape = (4,) + tuple(_make(torch)[name][1].shape)
    assert tuple(t.forward_shape(shape)) == tuple(ref.forward_shape(shape))
    y = got[0].detach()
    assert t.codomain.check(y).tolist() == ref.codomain.check(expected[0].detach()).tolist()


def test_equality_inverse_and_cache():
    assert T.ExpTransform() == T.ExpTransform() and T.ExpTransform() != T.TanhTransform()
    assert T.AffineTransform(1.0, 2.0) == T.AffineTransform(1.0, 2.0)
    assert T.AffineTransform(1.0, 2.0) != T.AffineTransform(1.0, 3.0)
    assert T.ExpTransform().inv.inv == T.ExpTransform()
    t = T.ComposeTransform([T.ExpTransform(), T.AffineTransform(1.0, 2.0)])
    assert t.inv.inv is t
    cached = T.ExpTransform(cache_size=1)
    x = minflow.tensor([0.5])
    y = cached(x)
    assert cached.inv(y) is x and cached(x) is y
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        T.ExpTransform(cache_size=2)
    with pytest.raises(ValueError, match="Please use either .domain.event_dim"):
        _mixed().event_dim


def _mixed():
    class VectorToScalar(T.Transform):
        domain = minflow.distributions.constraints.real_vector
        codomain = minflow.distributions.constraints.real
    return VectorToScalar()


def test_transformed_distribution_reinterprets_batch_dims_like_torch():
    for lib in (minflow, torch):
        M = lib.distributions
        d = M.TransformedDistribution(M.Normal(lib.zeros(4, 3), 1.0),
                                      [M.transforms.AffineTransform(0.0, lib.ones(3),
                                                                    event_dim=1)])
        assert (tuple(d.batch_shape), tuple(d.event_shape)) == ((4,), (3,))
        assert tuple(d.log_prob(lib.zeros(4, 3)).shape) == (4,)


def test_transforms_are_exported_at_the_top_level_as_torch():
    names = [n for n in torch.distributions.__all__
             if n.endswith("Transform") or n == "identity_transform"]
    assert [n for n in names if not hasattr(T, n)] == []
    for name in names:
        assert getattr(minflow.distributions, name) is getattr(T, name)
        assert name in minflow.distributions.__all__


def test_cache_and_with_cache_of_the_new_transforms():
    x = minflow.tensor([[0.5, 1.5]], dtype=minflow.float64)
    for t in (T.PowerTransform(2.0), T.ReshapeTransform((2,), (2, 1)),
              T.IndependentTransform(T.ExpTransform(), 1), T.StackTransform([T.ExpTransform()], 0),
              T.CatTransform([T.ExpTransform()], 0),
              T.CumulativeDistributionTransform(minflow.distributions.Normal(0.0, 1.0))):
        cached = t.with_cache(1)
        assert type(cached) is type(t) and cached._cache_size == 1 and t.with_cache(0) is t
        y = cached(x)
        assert cached.inv(y) is x


def test_bad_arguments_of_the_new_transforms():
    with pytest.raises(ValueError, match="ReshapeTransform: in_shape \\(2, 3\\) and out_shape "
                                         "\\(5,\\) have different numbers of elements"):
        T.ReshapeTransform((2, 3), (5,))
    with pytest.raises(ValueError, match="Shape mismatch"):
        T.ReshapeTransform((2, 3), (6,)).forward_shape((4, 3, 2))
    with pytest.raises(TypeError, match="CatTransform: expected a sequence of Transforms"):
        T.CatTransform([T.ExpTransform(), 1])
    with pytest.raises(ValueError, match="CatTransform: expected one length per transform"):
        T.CatTransform([T.ExpTransform()], lengths=[1, 2])
    with pytest.raises(ValueError, match="StackTransform: expected x.size\\(0\\) == 2, got 3"):
        T.StackTransform([T.ExpTransform(), T.ExpTransform()])(minflow.zeros(3))
    with pytest.raises(ValueError, match="Too few dimensions"):
        T.StickBreakingTransform().forward_shape(())
    with pytest.raises(NotImplementedError):
        T.AbsTransform().log_abs_det_jacobian(minflow.zeros(1), minflow.zeros(1))
    with pytest.raises(ValueError, match="Input is not a flattened lower-diagonal number"):
        T.CorrCholeskyTransform().forward_shape((2, 4))
    with pytest.raises(ValueError, match="Input is not square"):
        T.CorrCholeskyTransform().inverse_shape((2, 3))
    with pytest.raises(ValueError, match="cannot be expressed as the lower triangular part"):
        T.CorrCholeskyTransform()(minflow.zeros(4))


@pytest.mark.parametrize("lib", ["minflow", "torch"])
def test_corr_cholesky_round_trips_onto_correlation_factors(lib):
    lib = minflow if lib == "minflow" else torch
    t = lib.distributions.CorrCholeskyTransform()
    x = lib.tensor(np.linspace(-3, 3, 30).reshape(3, 10), dtype=lib.float64)
    y = t(x)
    assert tuple(y.shape) == (3, 5, 5)
    assert lib.distributions.constraints.corr_cholesky.check(y).all().item()
    np.testing.assert_allclose((y @ y.mT).diagonal(dim1=-2, dim2=-1).numpy(), 1.0, atol=1e-12)
    np.testing.assert_allclose(t.inv(y).numpy(), x.numpy(), atol=1e-10)


def test_corr_cholesky_log_det_jacobian_is_that_of_the_strict_lower_triangle():
    """log |det d tril(y) / dx| by a numerical Jacobian of the map onto the strictly lower
    entries of y (the free coordinates of a correlation Cholesky factor)."""
    from minflow.distributions.utils import tril_matrix_to_vec
    t = T.CorrCholeskyTransform()
    x = np.array([0.4, -0.8, 1.1, 0.2, -0.3, 0.9])
    step = 1e-6

    def lower(v):
        return tril_matrix_to_vec(t(minflow.tensor(v, dtype=minflow.float64)), -1).numpy()

    jacobian = np.stack([(lower(x + step * e) - lower(x - step * e)) / (2 * step)
                         for e in np.eye(6)], -1)
    x_t = minflow.tensor(x, dtype=minflow.float64)
    np.testing.assert_allclose(t.log_abs_det_jacobian(x_t, t(x_t)).item(),
                               np.linalg.slogdet(jacobian)[1], rtol=1e-6)


@pytest.mark.parametrize("lib", ["minflow", "torch"])
def test_stick_breaking_inverse_round_trips(lib):
    lib = minflow if lib == "minflow" else torch
    t = lib.distributions.StickBreakingTransform()
    x = lib.tensor(np.linspace(-3, 3, 12).reshape(3, 4), dtype=lib.float64)
    np.testing.assert_allclose(t.inv(t(x)).numpy(), x.numpy(), atol=1e-10)


def _tanh_normal(lib, loc, scale):
    """SAC's squashed Gaussian policy: an action, its log-probability and their grads."""
    D = lib.distributions
    mu = lib.tensor(loc, dtype=lib.float64, requires_grad=True)
    std = lib.tensor(scale, dtype=lib.float64, requires_grad=True)
    policy = D.TransformedDistribution(D.Normal(mu, std), [D.TanhTransform(cache_size=1)])
    lib.manual_seed(0)
    action = policy.rsample()
    log_prob = policy.log_prob(action)
    return policy, action, log_prob, mu, std


def test_tanh_squashed_normal_log_prob_and_grads_match_torch():
    """The same pre-squash draw in both: the log-probability and the grads of
    log_prob(action) and of the action w.r.t. mu and std agree with torch."""
    loc, scale = np.array([0.3, -1.2, 2.5]), np.array([0.5, 1.0, 0.1])
    policy, action, log_prob, mu, std = _tanh_normal(minflow, loc, scale)
    ref, _, _, ref_mu, ref_std = _tanh_normal(torch, loc, scale)
    # replay minflow's pre-squash noise in torch: u = mu + std * eps
    noise = ((policy.transforms[0].inv(action) - mu) / std).detach().numpy()
    ref_u = ref_mu + ref_std * torch.tensor(noise)
    ref_action = ref.transforms[0](ref_u)
    ref_log_prob = ref.log_prob(ref_action)
    np.testing.assert_allclose(action.detach().numpy(), ref_action.detach().numpy(), **TOL)
    np.testing.assert_allclose(log_prob.detach().numpy(), ref_log_prob.detach().numpy(), **TOL)
    loss = log_prob.sum() + (action * action).sum()
    ref_loss = ref_log_prob.sum() + (ref_action * ref_action).sum()
    grads = minflow.autograd.grad(loss, [mu, std])
    ref_grads = torch.autograd.grad(ref_loss, [ref_mu, ref_std])
    for g, e in zip(grads, ref_grads):
        np.testing.assert_allclose(g.numpy(), e.numpy(), **TOL)
    assert (action.abs() < 1).all().item()

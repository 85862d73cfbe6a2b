"""Transforms against torch.distributions.transforms: forward, inverse, log-det-Jacobian
(values and grads), sign, domain / codomain, event_dim, shapes, repr, equality, caching."""
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
    }


NAMES = sorted(_make(minflow))


def _run(lib, name):
    t, x = _make(lib)[name]
    x = lib.tensor(x, dtype=lib.float64, requires_grad=True)
    y = t(x)
    ladj = t.log_abs_det_jacobian(x, y)
    back = t.inv(y)
    grad = (torch.autograd.grad if lib is torch else minflow.autograd.grad)(
        (ladj * ladj).sum() + (y * y).sum(), [x])[0]
    return t, [y, ladj, back, grad]


@pytest.mark.parametrize("name", NAMES)
def test_transform_matches_torch(name):
    t, got = _run(minflow, name)
    ref, expected = _run(torch, name)
    for g, e in zip(got, expected):
        assert tuple(g.shape) == tuple(e.shape)
        np.testing.assert_allclose(g.detach().numpy(), e.detach().numpy(), **TOL)
    assert repr(t) == repr(ref)
    assert repr(t.domain) == repr(ref.domain) and repr(t.codomain) == repr(ref.codomain)
    assert t.bijective == ref.bijective
    sign, ref_sign = t.sign, ref.sign
    if isinstance(ref_sign, torch.Tensor):
        assert sign.tolist() == ref_sign.tolist()
    else:
        assert sign == ref_sign
    assert tuple(t.forward_shape((4, 2, 3))) == tuple(ref.forward_shape((4, 2, 3)))


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

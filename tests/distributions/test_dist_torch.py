"""Every distribution against torch.distributions (float64): log_prob, cdf, icdf,
entropy, mean, mode, variance and stddev values and their gradients w.r.t. the
parameters, shapes, support and repr; a method torch lacks (NotImplementedError) is
lacking here too."""
import numpy as np
import pytest

import minflow
from _dist_cases import CASES, build, values

torch = pytest.importorskip("torch")
TOL = dict(rtol=1e-5, atol=1e-8)

PROPERTIES = ("mean", "mode", "variance", "stddev")
METHODS = ("log_prob", "cdf", "entropy", "perplexity")


def _quantity(lib, key, what):
    """(tensor or the exception type raised, leaves) for one quantity of case ``key``."""
    dist, leaves = build(lib, key)
    try:
        if what in PROPERTIES:
            out = getattr(dist, what)
        elif what in ("entropy", "perplexity"):
            out = getattr(dist, what)()
        elif what == "icdf":
            out = dist.icdf(dist.cdf(values(lib, key)))
        else:
            out = getattr(dist, what)(values(lib, key))
    except NotImplementedError:
        return NotImplementedError, leaves
    return out, leaves


def _grads(lib, out, leaves):
    if not out.requires_grad:
        return {name: None for name in leaves}
    weights = np.random.default_rng(1).uniform(0.5, 1.5, tuple(out.shape))
    finite = lib.isfinite(out.detach())
    loss = lib.where(finite, out, lib.zeros_like(out)) * lib.tensor(weights, dtype=out.dtype)
    tensors = list(leaves.values())
    try:
        grads = (torch.autograd.grad(loss.sum(), tensors, allow_unused=True) if lib is torch
                 else minflow.autograd.grad(loss.sum(), tensors, allow_unused=True))
    except NotImplementedError as err:       # Gamma.cdf: no derivative w.r.t. concentration
        return str(err)
    return dict(zip(leaves, grads))


def _numpy(t):
    return t.detach().numpy() if t is not None else None


@pytest.mark.parametrize("what", PROPERTIES + METHODS + ("icdf",))
@pytest.mark.parametrize("key", sorted(CASES))
def test_values_and_grads_match_torch(key, what):
    expected, torch_leaves = _quantity(torch, key, what)
    got, leaves = _quantity(minflow, key, what)
    if expected is NotImplementedError:
        assert got is NotImplementedError, f"{key}.{what}: torch has none, minflow gives one"
        return
    assert got is not NotImplementedError, f"{key}.{what}: missing"
    assert tuple(got.shape) == tuple(expected.shape)
    assert got.dtype.name == str(expected.dtype).split(".")[1]
    np.testing.assert_allclose(_numpy(got).astype(float), _numpy(expected).astype(float),
                               equal_nan=True, **TOL)
    if not got.dtype.is_floating_point:
        return
    expected_grads, grads = _grads(torch, expected, torch_leaves), _grads(minflow, got, leaves)
    if isinstance(expected_grads, str):
        assert grads == expected_grads
        return
    for name, grad in grads.items():
        want = expected_grads[name]
        if want is None or not want.abs().sum().item():      # zero up to rounding
            assert grad is None or grad.abs().max().item() <= TOL["atol"], \
                f"{key}.{what}: d/d{name}"
            continue
        np.testing.assert_allclose(_numpy(grad), _numpy(want), err_msg=f"d{what}/d{name}",
                                   **TOL)


@pytest.mark.parametrize("key", sorted(CASES))
def test_shapes_support_and_repr_match_torch(key):
    dist, _ = build(minflow, key)
    ref, _ = build(torch, key)
    assert tuple(dist.batch_shape) == tuple(ref.batch_shape)
    assert tuple(dist.event_shape) == tuple(ref.event_shape)
    assert dist.has_rsample == ref.has_rsample
    assert dist.has_enumerate_support == ref.has_enumerate_support
    assert repr(dist.support) == repr(ref.support).replace("torch", "minflow")
    assert repr(dist).replace("minflow", "torch") == repr(ref)
    v = values(minflow, key)
    assert dist.support.check(v).tolist() == ref.support.check(values(torch, key)).tolist()


@pytest.mark.parametrize("key", sorted(CASES))
def test_expand_matches_torch(key):
    dist, _ = build(minflow, key)
    ref, _ = build(torch, key)
    shape = (2,) + tuple(ref.batch_shape)
    big, big_ref = dist.expand(shape), ref.expand(shape)
    assert type(big) is type(dist)
    assert tuple(big.batch_shape) == tuple(big_ref.batch_shape)
    assert tuple(big.event_shape) == tuple(big_ref.event_shape)
    v, v_ref = values(minflow, key), values(torch, key)
    lead = (0,) * (v.dim() - len(ref.batch_shape) - len(ref.event_shape))   # one batch of
    np.testing.assert_allclose(big.log_prob(v[lead]).detach().numpy(),      # values
                               big_ref.log_prob(v_ref[lead]).detach().numpy(), **TOL)
    assert big._validate_args == dist._validate_args


@pytest.mark.parametrize("expand", [True, False])
@pytest.mark.parametrize("key", sorted(k for k in CASES
                                        if build(torch, k)[0].has_enumerate_support))
def test_enumerate_support_matches_torch(key, expand):
    got = build(minflow, key)[0].enumerate_support(expand)
    expected = build(torch, key)[0].enumerate_support(expand)
    assert tuple(got.shape) == tuple(expected.shape)
    assert got.dtype.name == str(expected.dtype).split(".")[1]
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_enumerate_support_raises_where_torch_does():
    for lib in (minflow, torch):
        D = lib.distributions
        with pytest.raises(NotImplementedError, match="Inhomogeneous total count"):
            D.Binomial(lib.tensor([2.0, 3.0]), probs=lib.tensor([0.5, 0.5])).enumerate_support()
        with pytest.raises(NotImplementedError, match="cartesian product"):
            D.Independent(D.Bernoulli(probs=lib.ones(2, 3) / 2), 1).enumerate_support()

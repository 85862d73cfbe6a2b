"""biject_to and transform_to against torch's registries: for the support of every
distribution case, the same transform (or the same NotImplementedError), the same values
from the same unconstrained input, inside the support, and back again for the bijections;
the registrations one by one; registering new constraints; bad arguments."""
import numpy as np
import pytest

import minflow
from minflow.distributions import biject_to, constraints, transform_to, transforms
from minflow.distributions.constraint_registry import ConstraintRegistry
from _dist_cases import CASES, build

torch = pytest.importorskip("torch")
TOL = dict(rtol=1e-6, atol=1e-10)


def _lookup(lib, registry, constraint):
    """The registered transform, or the message of the NotImplementedError."""
    try:
        return getattr(lib.distributions, registry)(constraint)
    except NotImplementedError as err:
        return str(err)


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
@pytest.mark.parametrize("key", sorted(CASES))
def test_every_support_is_reached_as_in_torch(key, registry):
    dist, _ = build(minflow, key, requires_grad=False)
    ref, _ = build(torch, key, requires_grad=False)
    got, expected = _lookup(minflow, registry, dist.support), _lookup(torch, registry,
                                                                        ref.support)
    if isinstance(expected, str):
        assert got == expected
        return
    assert repr(got) == repr(expected)
    shape = tuple(expected.inverse_shape(ref.sample().shape))
    x = np.random.default_rng(0).normal(size=shape)
    y = got(minflow.tensor(x, dtype=minflow.float64))
    y_ref = expected(torch.tensor(x, dtype=torch.float64))
    np.testing.assert_allclose(y.numpy(), y_ref.numpy(), equal_nan=True, **TOL)
    assert dist.support.check(y).tolist() == ref.support.check(y_ref).tolist()
    if registry == "biject_to":
        np.testing.assert_allclose(got.inv(y).numpy(), expected.inv(y_ref).numpy(),
                                   equal_nan=True, **TOL)
        np.testing.assert_allclose(
            got.log_abs_det_jacobian(minflow.tensor(x, dtype=minflow.float64), y).numpy(),
            expected.log_abs_det_jacobian(torch.tensor(x, dtype=torch.float64), y_ref).numpy(),
            equal_nan=True, **TOL)


def _constraints(lib):
    C = lib.distributions.constraints
    bound = lib.tensor([0.5, -1.0], dtype=lib.float64)
    return {
        "real": C.real, "real_vector": C.real_vector, "positive": C.positive,
        "nonnegative": C.nonnegative, "greater_than": C.greater_than(bound),
        "greater_than_eq": C.greater_than_eq(-2.0), "less_than": C.less_than(bound),
        "unit_interval": C.unit_interval, "interval": C.interval(bound, bound + 3.0),
        "half_open_interval": C.half_open_interval(-1.0, 2.0), "simplex": C.simplex,
        "lower_cholesky": C.lower_cholesky, "positive_definite": C.positive_definite,
        "positive_semidefinite": C.positive_semidefinite, "corr_cholesky": C.corr_cholesky,
        "independent": C.independent(C.positive, 1),
        "cat": C.cat([C.positive, C.interval(0.0, 2.0)], dim=-1, lengths=[1, 1]),
        "stack": C.stack([C.real, C.less_than(1.0)], dim=-1),
        "boolean": C.boolean, "nonnegative_integer": C.nonnegative_integer,
    }


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
@pytest.mark.parametrize("name", sorted(_constraints(torch)))
def test_each_registration_matches_torch(name, registry):
    got = _lookup(minflow, registry, _constraints(minflow)[name])
    expected = _lookup(torch, registry, _constraints(torch)[name])
    if isinstance(expected, str):
        assert got == expected
        return
    assert repr(got) == repr(expected)
    shape = tuple(expected.inverse_shape((3, 2, 2)))
    x = np.random.default_rng(1).normal(size=shape)
    y = got(minflow.tensor(x, dtype=minflow.float64))
    y_ref = expected(torch.tensor(x, dtype=torch.float64))
    np.testing.assert_allclose(y.numpy(), y_ref.numpy(), **TOL)
    assert _constraints(minflow)[name].check(y).all().item()


def test_positive_and_greater_than_share_a_factory_as_in_torch():
    t = biject_to(constraints.positive)
    assert isinstance(t, transforms.ComposeTransform)
    assert [type(p) for p in t.parts] == [transforms.ExpTransform, transforms.AffineTransform]
    assert t.parts[1].loc == 0.0 and t.parts[1].scale == 1
    assert isinstance(biject_to(constraints.unit_interval), transforms.SigmoidTransform)
    assert isinstance(biject_to(constraints.simplex), transforms.StickBreakingTransform)
    assert isinstance(transform_to(constraints.simplex), transforms.SoftmaxTransform)


def test_transform_to_optimizes_a_constrained_parameter():
    """Gradient descent in unconstrained space keeps a scale positive: fitting a Normal's
    scale to data by log_prob reaches the sample standard deviation."""
    data = minflow.tensor(np.random.default_rng(2).normal(0.0, 3.0, 500))
    to_scale = transform_to(minflow.distributions.Normal.arg_constraints["scale"])
    raw = to_scale.inv(minflow.tensor(1.0)).requires_grad_()
    opt = minflow.optim.Adam([raw], lr=0.1)
    for _ in range(300):
        loss = -minflow.distributions.Normal(0.0, to_scale(raw)).log_prob(data).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    expected = float(np.sqrt((data.numpy() ** 2).mean()))
    assert abs(to_scale(raw).item() - expected) < 1e-2 * expected


def test_register_adds_constraints_and_checks_its_arguments():
    registry = ConstraintRegistry()

    class Even(constraints.Constraint):
        def check(self, value):
            return value % 2 == 0

    @registry.register(Even)
    def _double(constraint):
        return transforms.AffineTransform(0.0, 2.0)

    assert registry(Even()).scale == 2.0
    registry.register(constraints.real, lambda c: transforms.ExpTransform())
    assert isinstance(registry(constraints.real), transforms.ExpTransform)
    with pytest.raises(TypeError, match="Expected constraint to be either a Constraint "
                                        "subclass or instance, but got <class 'int'>"):
        registry.register(int, _double)
    with pytest.raises(NotImplementedError, match="Cannot transform _Simplex constraints"):
        registry(constraints.simplex)
    with pytest.raises(NotImplementedError, match="Cannot transform _PositiveDefinite"):
        biject_to(constraints.positive_definite)

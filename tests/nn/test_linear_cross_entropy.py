"""linear_cross_entropy and LinearCrossEntropyLoss side by side with torch 2.13's: values
and gradients for index and probability targets, K-dimensional weights, biases, class
weights, ignore_index, label smoothing, reductions; options (accepted, unchunked) and
torch's errors and warning."""
import warnings

import numpy as np
import pytest

import minflow

RNG = np.random.default_rng(0)
N, IN, C = 5, 4, 3


def _case(name):
    x = RNG.standard_normal((N, IN))
    w = RNG.standard_normal((C, IN))
    target = RNG.integers(0, C, N)
    kwargs = {}
    if name == "unbatched":
        x, target = x[0], np.array(target[0])
    if name == "bias_weight":
        kwargs.update(linear_bias=RNG.standard_normal(C), weight=RNG.uniform(0.5, 2, C))
    if name == "ignore_smoothing":
        target[1] = 7
        kwargs.update(ignore_index=7, label_smoothing=0.2, weight=RNG.uniform(0.5, 2, C))
    if name == "probabilities":
        target = RNG.dirichlet(np.ones(C), N)
        kwargs.update(label_smoothing=0.1)
    if name == "k_dim":
        w = RNG.standard_normal((C, 2, IN))
        target = RNG.integers(0, C, (N, 2))
        kwargs.update(linear_bias=RNG.standard_normal((C, 2)))
    return x, w, target, kwargs


def _call(lib, case, reduction, options=None):
    x, w, target, kwargs = case
    leaves = [lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)]
    extra = {k: lib.tensor(v, requires_grad=k == "linear_bias") if isinstance(v, np.ndarray)
             else v for k, v in kwargs.items()}
    if "linear_bias" in extra:
        leaves.append(extra["linear_bias"])
    if options:
        extra["options"] = lib.nn.LinearCrossEntropyOptions(batch_chunk_size=2)
    loss = lib.nn.functional.linear_cross_entropy(leaves[0], leaves[1], lib.tensor(target),
                                                  reduction=reduction, **extra)
    return loss, leaves


@pytest.mark.parametrize("options", [False, True])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name", ["plain", "unbatched", "bias_weight", "ignore_smoothing",
                                  "probabilities", "k_dim"])
def test_linear_cross_entropy_as_torch(name, reduction, options):
    torch = pytest.importorskip("torch")
    case = _case(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, leaves = _call(minflow, case, reduction, options)
        expected, t_leaves = _call(torch, case, reduction, options)
    assert got.shape == tuple(expected.shape)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-10,
                               atol=1e-12)
    g = RNG.standard_normal(tuple(expected.shape))
    (got * minflow.tensor(g)).sum().backward()
    (expected * torch.tensor(g)).sum().backward()
    for ours, theirs in zip(leaves, t_leaves):
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-9,
                                   atol=1e-12)


def test_options_ignored_warns_as_torch():
    torch = pytest.importorskip("torch")
    case = _case("plain")
    with pytest.warns(UserWarning) as expected:
        _call(torch, (*case[:3], {"label_smoothing": 0.1}), "mean", True)
    with pytest.warns(UserWarning) as got:
        _call(minflow, (*case[:3], {"label_smoothing": 0.1}), "mean", True)
    assert str(got[0].message) == str(expected[0].message).replace("torch.", "minflow.")


@pytest.mark.parametrize("change", ["input_3d", "weight_1d", "in_features", "bias_shape",
                                    "k_dim_unbatched", "ignore_with_probabilities"])
def test_errors_as_torch(change):
    torch = pytest.importorskip("torch")

    def call(lib):
        x, w, target, kwargs = lib.ones(N, IN), lib.ones(C, IN), lib.zeros(N, dtype=lib.int64), {}
        if change == "input_3d":
            x = lib.ones(1, N, IN)
        if change == "weight_1d":
            w = lib.ones(IN)
        if change == "in_features":
            w = lib.ones(C, IN + 1)
        if change == "bias_shape":
            kwargs["linear_bias"] = lib.ones(C + 1)
        if change == "k_dim_unbatched":
            x, w = lib.ones(IN), lib.ones(C, 2, IN)
        if change == "ignore_with_probabilities":
            target, kwargs["ignore_index"] = lib.ones(N, C) / C, 0
        return lib.nn.functional.linear_cross_entropy(x, w, target, **kwargs)
    with pytest.raises(RuntimeError) as expected:
        call(torch)
    with pytest.raises(RuntimeError) as got:
        call(minflow)
    # torch's message (minflow names the function first where its own checks raise)
    assert str(got.value).removeprefix("linear_cross_entropy: ") == str(expected.value)


@pytest.mark.parametrize("kwargs", [{}, {"bias": True, "out_features": (2,),
                                         "label_smoothing": 0.1, "reduction": "sum"}])
def test_module_as_torch(kwargs):
    torch = pytest.importorskip("torch")
    ours = minflow.nn.LinearCrossEntropyLoss(IN, C, **kwargs)
    theirs = torch.nn.LinearCrossEntropyLoss(IN, C, **kwargs).double()
    ours.load_state_dict({k: minflow.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    ours.double()
    assert repr(ours) == repr(theirs)
    x = RNG.standard_normal((N, IN))
    shape = (N, *kwargs.get("out_features", ()))
    target = RNG.integers(0, C, shape)
    got = ours(minflow.tensor(x), minflow.tensor(target))
    expected = theirs(torch.tensor(x), torch.tensor(target))
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-10)
    got.backward()
    expected.backward()
    np.testing.assert_allclose(ours.linear.weight.grad.numpy(),
                               theirs.linear.weight.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_module_errors_as_torch():
    torch = pytest.importorskip("torch")
    for kwargs in ({"weight": "wrong"}, {"label_smoothing": 1.5}):
        with pytest.raises(RuntimeError) as expected:
            torch.nn.LinearCrossEntropyLoss(IN, C, **{k: torch.ones(C + 1) if v == "wrong" else v
                                                    for k, v in kwargs.items()})
        with pytest.raises(RuntimeError) as got:
            minflow.nn.LinearCrossEntropyLoss(IN, C, **{k: minflow.ones(C + 1) if v == "wrong"
                                                       else v for k, v in kwargs.items()})
        assert str(got.value) == str(expected.value)

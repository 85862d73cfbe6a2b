"""SELU, CELU, Softmin, Softmax2d, the shrinks, Threshold and RReLU against torch: module
outputs and grads, repr and state_dict; the functions' in-place variants and special
values (NaN, the kinks) with their gradients; rrelu's random slopes in training."""
import numpy as np
import pytest

import minflow
import minflow.nn.functional as Fn

torch = pytest.importorskip("torch")

from test_nn_torch_parity import Case, assert_close, run, same_repr  # noqa: E402

rng = np.random.RandomState(5)
X4 = rng.randn(4, 5) * 2
IMG = rng.randn(2, 3, 4, 5)

CASES = {
    "selu": Case(lambda L: L.nn.SELU(), [X4]),
    "celu": Case(lambda L: L.nn.CELU(0.6), [X4]),
    "softmin": Case(lambda L: L.nn.Softmin(dim=1), [X4]),
    "softmin_dim0": Case(lambda L: L.nn.Softmin(0), [IMG]),
    "softmax2d": Case(lambda L: L.nn.Softmax2d(), [IMG]),
    "softmax2d_3d": Case(lambda L: L.nn.Softmax2d(), [IMG[0]]),
    "softshrink": Case(lambda L: L.nn.Softshrink(0.8), [X4]),
    "hardshrink": Case(lambda L: L.nn.Hardshrink(), [X4]),
    "tanhshrink": Case(lambda L: L.nn.Tanhshrink(), [X4]),
    "threshold": Case(lambda L: L.nn.Threshold(0.3, -4.0), [X4]),
    "rrelu_eval": Case(lambda L: L.nn.RReLU(0.05, 0.5), [X4], train=False),
}


@pytest.mark.parametrize("name", CASES)
def test_layer_matches_torch(name):
    case = CASES[name]
    assert_close(run(minflow, case), run(torch, case), case.tol, name)


@pytest.mark.parametrize("build", [
    lambda L: L.nn.SELU(), lambda L: L.nn.SELU(inplace=True), lambda L: L.nn.CELU(),
    lambda L: L.nn.CELU(2.5, inplace=True), lambda L: L.nn.Softmin(), lambda L: L.nn.Softmin(1),
    lambda L: L.nn.Softmax2d(), lambda L: L.nn.Softshrink(), lambda L: L.nn.Hardshrink(0.25),
    lambda L: L.nn.Tanhshrink(), lambda L: L.nn.Threshold(0.1, 20),
    lambda L: L.nn.Threshold(1.5, 0.0, inplace=True), lambda L: L.nn.RReLU(),
    lambda L: L.nn.RReLU(0.2, 0.4, True)])
def test_repr_and_state_dict_match_torch(build):
    ours, theirs = build(minflow), build(torch)
    same_repr(repr(ours), repr(theirs))
    assert list(ours.state_dict()) == list(theirs.state_dict()) == []


SPECIAL = np.array([np.nan, -np.inf, -1.0, -0.5, 0.0, 0.5, 0.3, 1.0, np.inf])
FUNCTIONS = {
    "selu": lambda L, x: L.nn.functional.selu(x),
    "celu": lambda L, x: L.nn.functional.celu(x, 2.0),
    "softshrink": lambda L, x: L.nn.functional.softshrink(x),
    "hardshrink": lambda L, x: L.nn.functional.hardshrink(x),
    "hardshrink_method": lambda L, x: x.hardshrink(0.3),
    "tanhshrink": lambda L, x: L.nn.functional.tanhshrink(x),
    "threshold": lambda L, x: L.nn.functional.threshold(x, 0.5, -2.0),
    "rrelu_eval": lambda L, x: L.nn.functional.rrelu(x),
    "softmin": lambda L, x: L.nn.functional.softmin(x, 0),
    "softmin_dtype": lambda L, x: L.nn.functional.softmin(x.float(), 0, dtype=L.float64),
}


@pytest.mark.parametrize("name", FUNCTIONS)
def test_values_and_grads_at_special_points_match_torch(name):
    results = []
    for L in (minflow, torch):
        x = L.tensor(SPECIAL[1:-1] if name.startswith("softmin") else SPECIAL,
                     requires_grad=True)
        out = FUNCTIONS[name](L, x)
        out.backward(L.ones_like(out))
        results.append((out.detach().numpy(), x.grad.numpy(), str(out.dtype).split(".")[-1]))
    (ours, our_grad, our_dtype), (theirs, their_grad, their_dtype) = results
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-15)
    if "shrink" in name:
        # NOTE: torch's shrink gradient at NaN is 1 or 0 depending on whether its kernel
        # takes the vectorized path (float32 or float64, the tensor's length): not compared
        our_grad, their_grad = our_grad[1:], their_grad[1:]
    np.testing.assert_allclose(our_grad, their_grad, rtol=1e-12, atol=1e-15)
    assert our_dtype == their_dtype


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_dtypes_follow_the_input(dtype):
    x = minflow.tensor(X4, dtype=getattr(minflow, dtype))
    for name, fn in FUNCTIONS.items():
        if name != "softmin_dtype":
            assert fn(minflow, x).dtype is x.dtype, name


@pytest.mark.parametrize("name, call", [
    ("selu_", lambda L, x: L.nn.functional.selu_(x)),
    ("selu", lambda L, x: L.nn.functional.selu(x, inplace=True)),
    ("celu_", lambda L, x: L.nn.functional.celu_(x, 0.5)),
    ("elu_", lambda L, x: L.nn.functional.elu_(x, 0.5)),
    ("hardtanh_", lambda L, x: L.nn.functional.hardtanh_(x, -0.5, 0.25)),
    ("threshold_", lambda L, x: L.nn.functional.threshold_(x, 0.2, 7.0)),
    ("threshold", lambda L, x: L.nn.functional.threshold(x, 0.2, 7.0, inplace=True)),
    ("rrelu_", lambda L, x: L.nn.functional.rrelu_(x, 0.1, 0.2)),
    ("torch.selu_", lambda L, x: L.selu_(x)),
    ("torch.celu_", lambda L, x: L.celu_(x)),
])
def test_inplace_variants_match_torch(name, call):
    results = []
    for L in (minflow, torch):
        leaf = L.tensor(X4, requires_grad=True)
        x = leaf * 1.0
        out = call(L, x)
        assert out is x
        out.backward(L.tensor(X4 + 1))
        results.append((x.detach().numpy(), leaf.grad.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12)


def test_threshold_on_integers_truncates_value_as_torch():
    for value in (0.5, -2.7, 3):
        ours = Fn.threshold(minflow.tensor([1, 2, 3]), 2, value)
        theirs = torch.nn.functional.threshold(torch.tensor([1, 2, 3]), 2, value)
        assert ours.tolist() == theirs.tolist() and ours.dtype is minflow.int64


def test_tanhshrink_of_integers_is_float_as_torch():
    ours = Fn.tanhshrink(minflow.tensor([1, -2]))
    theirs = torch.nn.functional.tanhshrink(torch.tensor([1, -2]))
    assert ours.dtype is minflow.float32 and theirs.dtype is torch.float32
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


def test_rrelu_training_draws_seeded_slopes_in_range():
    x = minflow.tensor(-np.abs(rng.randn(2000)) - 0.1, requires_grad=True)
    minflow.manual_seed(3)
    out = Fn.rrelu(x, 0.1, 0.3, training=True)
    slopes = (out / x).detach().numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3
    assert abs(slopes.mean() - 0.2) < 0.01 and abs(slopes.std() - 0.2 / np.sqrt(12)) < 0.01
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), slopes, rtol=1e-12)   # grad = the slope drawn
    minflow.manual_seed(3)
    np.testing.assert_array_equal(Fn.rrelu(x, 0.1, 0.3, training=True).detach().numpy(),
                                  out.detach().numpy())
    positive = minflow.tensor([0.5, 2.0])
    assert Fn.rrelu(positive, training=True).tolist() == [0.5, 2.0]


def test_rrelu_module_is_random_in_train_and_fixed_in_eval():
    layer, x = minflow.nn.RReLU(), minflow.tensor(-np.ones(50))
    first, second = layer(x), layer(x)
    assert not np.array_equal(first.numpy(), second.numpy())
    layer.eval()
    np.testing.assert_allclose(layer(x).numpy(), -np.full(50, (1 / 8 + 1 / 3) / 2))


def test_module_and_function_errors():
    with pytest.raises(ValueError, match="Softmax2d: expected input to be 3D or 4D, got 2D"):
        minflow.nn.Softmax2d()(minflow.ones(2, 3))
    with pytest.raises(RuntimeError, match="rrelu: lower bound should be less than or equal"):
        minflow.nn.RReLU(0.5, 0.1)(minflow.ones(2))

"""Binary math (fmod, hypot, copysign, logaddexp, logaddexp2, xlogy, fmax, fmin,
heaviside, nextafter, gcd, lcm, float_power, ldexp, the aliases): the op table that
test_op_table.py runs through check_op, and torch as the oracle over sweeps of edge value
pairs, dtype pairs and Python numbers (values, dtypes, gradients, errors)."""
import itertools
import math

import numpy as np
import pytest

import minflow

FLOATS = ("float16", "float32", "float64")
INTS = ("int32", "int64")
INF, NAN = math.inf, math.nan


def anywhere(shape, rng):
    return rng.uniform(-2.0, 2.0, shape)


def positive(shape, rng):
    return rng.uniform(0.5, 2.0, shape)


def integers(shape, rng):
    return rng.integers(-30, 30, shape)


def _xlogy(x, y):
    return np.where(x == 0, 0, x * np.log(y)).astype(np.result_type(x, y))


def _heaviside(x, values):
    return np.where(x == 0, values, x > 0).astype(x.dtype)


# name: (numpy reference, samplers of input and other, dtypes, differentiable)
BINARY = {
    "fmod": (np.fmod, (anywhere, positive), FLOATS + INTS, True),
    "hypot": (np.hypot, (anywhere, anywhere), FLOATS, True),
    "copysign": (np.copysign, (anywhere, anywhere), FLOATS, True),
    "logaddexp": (np.logaddexp, (anywhere, anywhere), FLOATS, True),
    "logaddexp2": (np.logaddexp2, (anywhere, anywhere), FLOATS, True),
    "xlogy": (_xlogy, (anywhere, positive), FLOATS, True),
    "fmax": (np.fmax, (anywhere, anywhere), FLOATS + INTS, True),
    "fmin": (np.fmin, (anywhere, anywhere), FLOATS + INTS, True),
    "heaviside": (_heaviside, (anywhere, anywhere), FLOATS + INTS, False),
    "nextafter": (np.nextafter, (anywhere, anywhere), ("float32", "float64"), True),
    "gcd": (np.gcd, (integers, integers), INTS, False),
    "lcm": (np.lcm, (integers, integers), INTS, False),
    "float_power": (lambda x, y: np.power(x.astype(np.float64), y.astype(np.float64)),
                    (positive, anywhere), ("float32", "float64"), True),
    "ldexp": (lambda x, y: x * np.exp2(y), (anywhere, anywhere), ("float32", "float64"), True),
}

ALIASES = {"not_equal": "ne", "greater": "gt", "greater_equal": "ge", "less": "lt",
           "less_equal": "le", "multiply": "mul", "subtract": "sub", "divide": "div",
           "true_divide": "div"}

EDGES = [NAN, -INF, INF, -0.0, 0.0, -2.5, -1.0, 0.5, 1.0, 3.0]
PAIRS = np.array(list(itertools.product(EDGES, EDGES))).T
SCALAR_OTHER = ("fmod", "copysign", "xlogy", "float_power")


def sample(sampler, shape, dtype, seed):
    values = sampler(shape, np.random.default_rng(seed))
    if dtype in INTS:
        return np.round(values * 3).astype(dtype) + (1 if sampler is positive else 0)
    return values.astype(dtype)


def _outcome(call):
    try:
        return call()
    except (RuntimeError, TypeError, ValueError, NotImplementedError) as err:
        return err


def _compare(ours, theirs, where, tol=1e-6):
    if isinstance(theirs, Exception):
        expected = (NotImplementedError if isinstance(theirs, NotImplementedError)
                    else RuntimeError if isinstance(theirs, RuntimeError) else type(theirs))
        assert isinstance(ours, expected), f"{where}: torch raised {theirs!r}, minflow {ours!r}"
        return
    assert not isinstance(ours, Exception), f"{where}: minflow raised {ours!r}"
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1], where
    np.testing.assert_allclose(ours.numpy().astype(np.float64), theirs.numpy().astype(
        np.float64), rtol=tol, atol=tol, equal_nan=True, err_msg=where)


def _operands(dtype_a, dtype_b):
    a, b = PAIRS
    if "int" in dtype_a or "int" in dtype_b or "bool" in (dtype_a, dtype_b):
        a, b = np.array([-7, -7, 0, 5, 12, 3, 0]), np.array([2, -3, 5, 0, 18, 3, 0])
    if dtype_a == "bool":
        a = a > 0
    if dtype_b == "bool":
        b = b > 0
    return a.astype(dtype_a), b.astype(dtype_b)


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("dtypes", [("float64", "float64"), ("float32", "float32"),
                                    ("float16", "float16"), ("int64", "int64"),
                                    ("int32", "int32"), ("bool", "bool"),
                                    ("float16", "float32"), ("int64", "float32"),
                                    ("int32", "int64"), ("float32", "float64")],
                         ids="-".join)
def test_values_dtypes_and_errors_match_torch(name, dtypes):
    torch = pytest.importorskip("torch")
    a, b = _operands(*dtypes)
    theirs = _outcome(lambda: getattr(torch, name)(torch.tensor(a), torch.tensor(b)))
    ours = _outcome(lambda: getattr(minflow, name)(minflow.tensor(a), minflow.tensor(b)))
    _compare(ours, theirs, f"{name}{dtypes}", tol=2e-3 if "float16" in dtypes else 1e-6)


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("other", [2, -2.5, 0.0, -0.0, True])
def test_python_number_operands_match_torch(name, other):
    torch = pytest.importorskip("torch")
    for dtype in ("float32", "int64"):
        a, _ = _operands(dtype, dtype)
        theirs = _outcome(lambda: getattr(torch, name)(torch.tensor(a), other))
        ours = _outcome(lambda: getattr(minflow, name)(minflow.tensor(a), other))
        _compare(ours, theirs, f"{name}({dtype}, {other!r})")
        theirs = _outcome(lambda: getattr(torch, name)(other, torch.tensor(a)))
        ours = _outcome(lambda: getattr(minflow, name)(other, minflow.tensor(a)))
        _compare(ours, theirs, f"{name}({other!r}, {dtype})")


@pytest.mark.parametrize("name", sorted(n for n in BINARY if BINARY[n][3]))
def test_gradients_match_torch_at_edge_pairs(name):
    torch = pytest.importorskip("torch")
    a, b = PAIRS
    grad = np.linspace(-1.0, 2.0, a.size)
    if name == "float_power":       # pow's rules at 0 and below, through float64
        a = np.abs(a)

    def grads(lib):
        x = lib.tensor(a, requires_grad=True)
        y = lib.tensor(b, requires_grad=True)
        getattr(lib, name)(x, y).backward(lib.tensor(grad))
        return x.grad, y.grad
    for ours, theirs in zip(grads(minflow), grads(torch)):
        assert (ours is None) == (theirs is None), name
        if theirs is not None:
            np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10,
                                       atol=1e-12, equal_nan=True, err_msg=name)


@pytest.mark.parametrize("name", ["fmod", "copysign", "xlogy"])
def test_gradients_with_a_python_number_match_torch(name):
    torch = pytest.importorskip("torch")
    values = np.array([-2.0, -0.0, 0.0, 0.5, 3.0, NAN])
    for other in (2.0, -0.0, 0.0):
        x, t = minflow.tensor(values, requires_grad=True), torch.tensor(values,
                                                                       requires_grad=True)
        getattr(minflow, name)(x, other).sum().backward()
        getattr(torch, name)(t, other).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), equal_nan=True,
                                   err_msg=f"{name} {other}")


def test_xlogy_with_a_number_first_matches_torch():
    torch = pytest.importorskip("torch")
    values = np.array([-1.0, 0.0, 0.5, 2.0, NAN])
    y, t = minflow.tensor(values, requires_grad=True), torch.tensor(values, requires_grad=True)
    for x in (0, 2.0):
        ours, theirs = minflow.xlogy(x, y), torch.xlogy(x, t)
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(),
                                   equal_nan=True)
        ours.sum().backward()
        theirs.sum().backward()
        np.testing.assert_allclose(y.grad.numpy(), t.grad.numpy(), equal_nan=True)


@pytest.mark.parametrize("name", ["fmod", "hypot", "copysign", "xlogy", "heaviside",
                                  "nextafter", "gcd", "lcm", "float_power", "ldexp"])
def test_in_place_variants_match_torch(name):
    torch = pytest.importorskip("torch")
    dtype = "int64" if name in ("gcd", "lcm") else "float64"
    a, b = _operands(dtype, dtype)
    ours, theirs = minflow.tensor(a), torch.tensor(a)
    assert getattr(ours, name + "_")(minflow.tensor(b)) is ours
    getattr(theirs, name + "_")(torch.tensor(b))
    _compare(ours, theirs, name)
    if name in ("float_power", "ldexp"):       # float32 self can't hold a float64 result
        theirs = _outcome(lambda: getattr(torch.ones(2), name + "_")(torch.ones(2)))
        ours = _outcome(lambda: getattr(minflow.ones(2), name + "_")(minflow.ones(2)))
        _compare(ours, theirs, name + "_ of float32")


@pytest.mark.parametrize("alias, name", sorted(ALIASES.items()))
def test_aliases_are_the_functions_and_methods_they_name(alias, name):
    torch = pytest.importorskip("torch")
    assert getattr(minflow, alias) is getattr(minflow, name)
    assert getattr(minflow.Tensor, alias) is getattr(minflow, name)
    a, b = np.array([1.0, 2.0, 3.0]), np.array([2.0, 2.0, 2.0])
    _compare(getattr(minflow.tensor(a), alias)(minflow.tensor(b)),
             getattr(torch.tensor(a), alias)(torch.tensor(b)), alias)
    if hasattr(torch.Tensor, alias + "_") and hasattr(minflow.Tensor, name + "_"):
        x, t = minflow.tensor(a), torch.tensor(a)
        assert getattr(x, alias + "_")(minflow.tensor(b)) is x
        getattr(t, alias + "_")(torch.tensor(b))
        _compare(x, t, alias + "_")


@pytest.mark.parametrize("name", ["eq", "ne", "lt", "le", "gt", "ge"])
def test_comparisons_in_place_match_torch(name):
    torch = pytest.importorskip("torch")
    a, b = _operands("float32", "float32")
    for other in (b, 0.5):
        ours, theirs = minflow.tensor(a), torch.tensor(a)
        assert getattr(ours, name + "_")(minflow.tensor(other) if other is b else other) is ours
        getattr(theirs, name + "_")(torch.tensor(other) if other is b else other)
        _compare(ours, theirs, name + "_")
    ours, theirs = minflow.tensor([1, 5]), torch.tensor([1, 5])
    ours.gt_(2), theirs.gt_(2)
    _compare(ours, theirs, "gt_ of int64")


def test_integer_fmod_by_zero_raises():
    with pytest.raises(RuntimeError, match="fmod: ZeroDivisionError"):
        minflow.fmod(minflow.tensor([3, 4]), minflow.tensor([1, 0]))

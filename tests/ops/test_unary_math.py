"""Unary math (tan ... rad2deg, logit, nan_to_num, signbit, isposinf, isneginf, isreal,
positive, the aliases): the op table that test_op_table.py runs through check_op, and
torch as the oracle over sweeps with edge values (values, dtypes, gradients)."""
import math

import numpy as np
import pytest

import minflow

FLOATS = ("float16", "float32", "float64")
INF, NAN = math.inf, math.nan
_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def anywhere(shape, rng):
    return rng.uniform(-2.0, 2.0, shape)


def unit(shape, rng):
    return rng.uniform(-0.9, 0.9, shape)


def positive(shape, rng):
    return rng.uniform(0.5, 3.0, shape)


def above_one(shape, rng):
    return rng.uniform(1.2, 3.0, shape)


def probability(shape, rng):
    return rng.uniform(0.05, 0.95, shape)


def _sinc(x):
    return np.sinc(x.astype(np.float64)).astype(x.dtype)


# name: (numpy reference, sampler, differentiable); forward runs in the float dtypes
UNARY = {
    "tan": (np.tan, unit, True),
    "asin": (np.arcsin, unit, True),
    "acos": (np.arccos, unit, True),
    "atan": (np.arctan, anywhere, True),
    "sinh": (np.sinh, anywhere, True),
    "cosh": (np.cosh, anywhere, True),
    "asinh": (np.arcsinh, anywhere, True),
    "acosh": (np.arccosh, above_one, True),
    "atanh": (np.arctanh, unit, True),
    "log2": (np.log2, positive, True),
    "log10": (np.log10, positive, True),
    "exp2": (np.exp2, anywhere, True),
    "erfc": (lambda x: _erfc(x).astype(x.dtype), anywhere, True),
    "sinc": (_sinc, anywhere, True),
    "deg2rad": (np.deg2rad, anywhere, True),
    "rad2deg": (np.rad2deg, anywhere, True),
    "logit": (lambda x: np.log(x / (1 - x)), probability, True),
    "nan_to_num": (np.nan_to_num, anywhere, True),
    "signbit": (np.signbit, anywhere, False),
    "isposinf": (np.isposinf, anywhere, False),
    "isneginf": (np.isneginf, anywhere, False),
}

ALIASES = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh",
           "arccosh": "acosh", "arctanh": "atanh", "absolute": "abs", "negative": "neg"}

EDGES = [NAN, -INF, INF, -0.0, 0.0, 1e-8, -3.0, -1.0, -0.75, -0.5, 0.25, 0.5, 0.9, 1.0,
         1.5, 2.0, 7.5, 100.0]
SWEEP = sorted(n for n in UNARY) + ["isreal", "positive"]


def _outcome(call):
    try:
        return call()
    except (RuntimeError, TypeError, ValueError) as err:
        return err


@pytest.mark.parametrize("name", SWEEP)
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int64", "int32", "bool"])
def test_values_and_dtypes_match_torch(name, dtype):
    torch = pytest.importorskip("torch")
    values = np.array(EDGES)
    if dtype == "bool":
        values = values > 0.3
    elif dtype.startswith("int"):
        values = np.array([-3, -1, 0, 1, 2, 7, 100])
    values = values.astype(dtype)
    theirs = _outcome(lambda: getattr(torch, name)(torch.tensor(values)))
    ours = _outcome(lambda: getattr(minflow, name)(minflow.tensor(values)))
    if isinstance(theirs, Exception):      # the same class of error (positive of a bool)
        assert isinstance(ours, RuntimeError if isinstance(theirs, RuntimeError)
                          else type(theirs)), f"torch raised {theirs!r}, minflow {ours!r}"
        return
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    tol = 2e-3 if dtype == "float16" else 1e-6
    np.testing.assert_allclose(ours.numpy().astype(np.float64),
                               theirs.numpy().astype(np.float64), rtol=tol, atol=tol,
                               equal_nan=True, err_msg=f"{name} {dtype}")


@pytest.mark.parametrize("name", sorted(n for n in UNARY if UNARY[n][2]))
def test_gradients_match_torch_at_edges(name):
    torch = pytest.importorskip("torch")
    values = np.array(EDGES)
    grad = np.linspace(-1.0, 2.0, len(values))
    x = minflow.tensor(values, requires_grad=True)
    getattr(minflow, name)(x).backward(minflow.tensor(grad))
    t = torch.tensor(values, requires_grad=True)
    getattr(torch, name)(t).backward(torch.tensor(grad))
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12,
                               equal_nan=True, err_msg=name)


@pytest.mark.parametrize("eps", [None, 0.1, 0.25, -1.0])
def test_logit_eps_values_and_gradients_match_torch(eps):
    torch = pytest.importorskip("torch")
    values = np.array([-0.5, 0.0, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 1.0, 1.5, NAN])
    x = minflow.tensor(values, requires_grad=True)
    t = torch.tensor(values, requires_grad=True)
    ours, theirs = minflow.logit(x, eps), torch.logit(t, eps)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12,
                               equal_nan=True)
    ours.sum().backward()
    theirs.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-12, equal_nan=True)
    for dtype in ("float32", "float16"):
        ours = minflow.logit(minflow.tensor(values, dtype=getattr(minflow, dtype)), eps)
        theirs = torch.logit(torch.tensor(values, dtype=getattr(torch, dtype)), eps)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=2e-3, equal_nan=True)


@pytest.mark.parametrize("dtype", FLOATS)
def test_nan_to_num_arguments_match_torch(dtype):
    torch = pytest.importorskip("torch")
    values = np.array([NAN, INF, -INF, 1.5, -0.0])
    for kwargs in ({}, {"nan": 2.0}, {"posinf": 7.0}, {"neginf": -7, "nan": -1.0},
                   {"posinf": 1e6}):
        ours = minflow.nan_to_num(minflow.tensor(values, dtype=getattr(minflow, dtype)),
                                  **kwargs)
        theirs = torch.nan_to_num(torch.tensor(values, dtype=getattr(torch, dtype)), **kwargs)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy(), err_msg=str(kwargs))


@pytest.mark.parametrize("alias, name", sorted(ALIASES.items()))
def test_aliases_are_the_functions_and_methods_they_name(alias, name):
    torch = pytest.importorskip("torch")
    assert getattr(minflow, alias) is getattr(minflow, name)
    assert getattr(minflow.Tensor, alias) is getattr(minflow.Tensor, name)
    x = np.array([-0.5, 0.0, 0.25])
    y = minflow.tensor(x)
    assert getattr(y, alias + "_")() is y
    np.testing.assert_allclose(y.numpy(), getattr(torch, alias)(torch.tensor(x)).numpy())


def test_in_place_on_integers_is_refused_as_torch():
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match="tan_: result type float32 can't be cast"):
        minflow.tensor([1, 2]).tan_()
    with pytest.raises(RuntimeError):
        torch.tensor([1, 2]).tan_()


def test_positive_isreal_and_unary_plus():
    x = minflow.tensor([1, -2])
    assert minflow.positive(x) is x and +x is x
    assert minflow.isreal(x).tolist() == [True, True]
    with pytest.raises(RuntimeError, match="positive: The `\\+` operator, on a bool"):
        +minflow.tensor([True])


def test_float16_sinc_at_zero_is_one(device):
    out = minflow.sinc(minflow.tensor([0.0, 1.0, -0.5], dtype=minflow.float16, device=device))
    np.testing.assert_allclose(out.cpu().numpy(), [1.0, 0.0, 2 / math.pi], atol=1e-3)


def test_erfc_without_scipy_uses_math_erfc(monkeypatch):
    from minflow.kernels.generic import unary_math
    monkeypatch.setattr(unary_math, "_special", lambda xp: None)
    x = np.array([-2.0, 0.0, 0.5, 5.0, 9.0], dtype=np.float32)
    out = unary_math.erfc(np, x)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, np.float32([math.erfc(v) for v in x]), rtol=1e-6)

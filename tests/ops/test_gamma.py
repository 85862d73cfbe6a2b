"""lgamma, digamma, polygamma, mvlgamma, i0, i1: the table test_op_table.py runs through
check_op, torch as the oracle over sweeps with poles and infinities (values, dtypes,
gradients, errors), and the pure-numpy fallbacks against scipy."""
import math

import numpy as np
import pytest

import minflow
from minflow.core.dispatch import apply
from minflow.kernels.generic import gamma, gamma_fallback

try:
    from scipy import special
except ImportError:                 # the references below are scipy's
    special = None
needs_scipy = pytest.mark.skipif(special is None, reason="needs scipy")
NAN, INF = math.nan, math.inf
FLOATS = ("float16", "float32", "float64")


def positive(shape, rng):
    return rng.uniform(0.5, 3.0, shape)


def off_poles(shape, rng):
    """Both signs, away from the poles at 0, -1, -2, ..."""
    return rng.integers(-3, 3, shape) + rng.uniform(0.2, 0.8, shape)


def anywhere(shape, rng):
    return rng.uniform(-3.0, 3.0, shape)


def i1(x):
    return apply(minflow.ops.get_op("i1"), (x,), {})


# name: (function, scipy reference (called once scipy is there), sampler)
TABLE = {
    "lgamma": (minflow.lgamma, lambda x: special.gammaln(x), off_poles),
    "digamma": (minflow.digamma, lambda x: special.psi(x), off_poles),
    "polygamma": (lambda x: minflow.polygamma(2, x), lambda x: special.polygamma(2, x),
                  off_poles),
    "i0": (minflow.i0, lambda x: special.i0(x), anywhere),
    "i1": (i1, lambda x: special.i1(x), anywhere),
    "mvlgamma": (lambda x: minflow.mvlgamma(x, 3),
                 lambda x: np.vectorize(lambda v: special.multigammaln(v, 3))(x),
                 lambda shape, rng: rng.uniform(1.2, 4.0, shape)),
}

EDGES = [NAN, -INF, INF, -3.0, -2.5, -1.0, -0.5, -0.0, 0.0, 1e-8, 0.5, 1.0, 2.5, 10.0, 150.0]
SWEEP = {       # name: call(lib, x)
    "lgamma": lambda lib, x: lib.lgamma(x),
    "digamma": lambda lib, x: lib.digamma(x),
    "i0": lambda lib, x: lib.i0(x),
    "i1": lambda lib, x: i1(x) if lib is minflow else lib.special.i1(x),
    "polygamma0": lambda lib, x: lib.polygamma(0, x),
    "polygamma1": lambda lib, x: lib.polygamma(1, x),
    "polygamma2": lambda lib, x: lib.polygamma(2, x),
    "polygamma3": lambda lib, x: lib.polygamma(3, x),
    "mvlgamma": lambda lib, x: lib.mvlgamma(x, 2),
}


def _call(lib, name, x):
    return SWEEP[name](lib, x)


@pytest.mark.parametrize("name", sorted(SWEEP))
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "int64", "bool"])
def test_values_and_dtypes_match_torch(name, dtype):
    torch = pytest.importorskip("torch")
    x = np.array(EDGES)
    if dtype == "bool":
        x = x > 0
    elif dtype == "int64":
        x = np.array([-3, -1, 0, 1, 2, 7, 30])
    x = x.astype(dtype)
    try:
        theirs = _call(torch, name, torch.tensor(x))
    except RuntimeError:                    # mvlgamma of a bool tensor
        with pytest.raises(RuntimeError, match=name.rstrip("0123456789")):
            _call(minflow, name, minflow.tensor(x))
        return
    ours = _call(minflow, name, minflow.tensor(x))
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    a, b = ours.numpy().astype(np.float64), theirs.numpy().astype(np.float64)
    if name == "polygamma1":     # torch's trigamma: finite garbage at the negative poles
        b = np.where((x.astype(np.float64) < 0) & (x == np.floor(x)) & np.isfinite(b)
                     & (np.abs(b) > 1e15), np.inf, b)
    tol = 2e-3 if dtype == "float16" else 1e-6
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol, equal_nan=True, err_msg=name)


@pytest.mark.parametrize("name", sorted(SWEEP))
def test_gradients_match_torch(name):
    torch = pytest.importorskip("torch")
    x = np.array([-2.5, -0.5, 0.0, 1e-8, 0.5, 1.0, 2.5, 10.0] if name not in
                 ("mvlgamma",) else [0.6, 1.0, 2.5, 10.0])
    grad = np.linspace(-1.0, 2.0, x.size)

    def grads(lib):
        t = lib.tensor(x, requires_grad=True)
        _call(lib, name, t).backward(lib.tensor(grad))
        return t.grad.numpy()
    ours, theirs = grads(minflow), grads(torch)
    # torch's trigamma (digamma's and polygamma(0)'s derivative) is good to ~1e-9
    np.testing.assert_allclose(ours, theirs, rtol=1e-8, atol=1e-12, equal_nan=True,
                               err_msg=name)


@needs_scipy
def test_polygamma_method_in_place_and_out():
    x = minflow.tensor([0.5, 2.0], dtype=minflow.float64)
    expected = special.polygamma(3, [0.5, 2.0])
    np.testing.assert_allclose(x.polygamma(3).numpy(), expected)
    out = minflow.empty(2, dtype=minflow.float64)
    assert minflow.polygamma(3, x, out=out) is out
    np.testing.assert_allclose(out.numpy(), expected)
    assert x.polygamma_(3) is x
    np.testing.assert_allclose(x.numpy(), expected)
    y = minflow.tensor([2.5, 3.0])
    np.testing.assert_allclose(y.mvlgamma_(2).numpy(), [special.multigammaln(2.5, 2),
                                                        special.multigammaln(3.0, 2)], rtol=1e-6)


SCIPY_SWEEP = np.concatenate([np.array(EDGES), np.linspace(-7.75, 30.25, 153),
                              np.geomspace(1e-6, 1e3, 40), -np.geomspace(1e-6, 1e2, 40) - 0.25])


@needs_scipy
@pytest.mark.parametrize("name, ours, ref, rtol", [
    ("lgamma", gamma_fallback.lgamma, lambda x: special.gammaln(x), 1e-13),
    ("digamma", gamma_fallback.digamma, lambda x: special.psi(x), 1e-12),
    ("trigamma", lambda x: gamma_fallback.polygamma(1, x), lambda x: special.polygamma(1, x),
     1e-12),
    ("polygamma4", lambda x: gamma_fallback.polygamma(4, x), lambda x: special.polygamma(4, x),
     1e-12),
    ("i1", gamma_fallback.i1, lambda x: special.i1(x), 1e-13)])
def test_fallbacks_equal_scipy(name, ours, ref, rtol):
    x = SCIPY_SWEEP
    if name == "lgamma":
        x = x[x != -INF]            # scipy's -inf there; the kernel makes it torch's +inf
    if name == "i1":
        x = x[np.isfinite(x) & (np.abs(x) < 700)]
    if name == "digamma":          # near the poles both are large; compare where finite
        x = x[np.abs(x - np.round(x)) > 1e-9]
    if name.startswith("poly") or name == "trigamma":
        x = x[np.isfinite(x) & (np.abs(x - np.round(x)) > 1e-9) | (x > 0)]
    np.testing.assert_allclose(ours(x), ref(x), rtol=rtol, atol=1e-300, equal_nan=True,
                               err_msg=name)


@needs_scipy
def test_kernels_without_scipy_use_the_fallbacks(monkeypatch):
    x = np.array([-2.5, 0.5, 1.0, 3.0, 20.0], dtype=np.float32)
    expected = [gamma.lgamma(np, x), gamma.digamma(np, x), gamma.polygamma(np, x, 2),
                gamma.i1(np, x)]
    monkeypatch.setattr(gamma, "_special", lambda xp: None)
    got = [gamma.lgamma(np, x), gamma.digamma(np, x), gamma.polygamma(np, x, 2),
           gamma.i1(np, x)]
    for a, b in zip(got, expected):
        assert a.dtype == np.float32
        np.testing.assert_allclose(a, b, rtol=1e-6)

"""standard_gamma's gradient (standard_gamma_grad) and the incomplete gamma functions
igamma / igammac: check_op against scipy, torch as the oracle for values and gradients,
the implicit reparameterization gradient against finite differences of the quantile
function, and the pure-numpy fallback of gammainc against scipy."""
import math

import numpy as np
import pytest

import minflow
from minflow.kernels.generic import gamma_fallback
from minflow.testing import Sample, check_op

try:
    from scipy import special
except ImportError:
    special = None
needs_scipy = pytest.mark.skipif(special is None, reason="needs scipy")
TOL = {"float16": (2e-2, 2e-2), "float32": (1e-5, 1e-6), "float64": (1e-9, 1e-12)}


def _quantile_derivative(a, x):
    """dx/da at a fixed quantile u = P(a, x): a central difference of scipy's inverse."""
    u = special.gammainc(a, x)
    h = 1e-6 * a
    return (special.gammaincinv(a + h, u) - special.gammaincinv(a - h, u)) / (2 * h)


def _gamma_pair(rng, shape):
    a = rng.uniform(0.2, 20.0, shape)
    return a, rng.gamma(a)


@needs_scipy
def test_standard_gamma_grad_check_op(device):
    rng = np.random.default_rng(0)
    a, x = _gamma_pair(rng, (3, 4))

    def samples(dtype):
        return [Sample(a.astype(dtype), x.astype(dtype))]
    check_op("standard_gamma_grad", samples,
             lambda a, x: _quantile_derivative(a.astype(float), x.astype(float)).astype(a.dtype),
             dtypes=("float32", "float64"), devices=[device], grad=False,
             tol={"float32": (1e-4, 1e-6), "float64": (1e-6, 1e-9)})


@needs_scipy
@pytest.mark.parametrize("a, x", [(0.01, 1e-30), (0.1, 1e-5), (0.5, 0.3), (1.0, 1.0),
                                  (3.0, 0.05), (3.0, 12.0), (100.0, 90.0), (1e4, 1.01e4)])
def test_standard_gamma_grad_is_the_implicit_derivative(a, x):
    got = minflow._standard_gamma_grad(minflow.tensor([a], dtype=minflow.float64),
                                       minflow.tensor([x], dtype=minflow.float64)).item()
    assert math.isclose(got, _quantile_derivative(a, x), rel_tol=1e-6)


def test_standard_gamma_grad_matches_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    a, x = _gamma_pair(rng, (200,))
    got = minflow._standard_gamma_grad(minflow.tensor(a), minflow.tensor(x)).numpy()
    expected = torch._standard_gamma_grad(torch.tensor(a), torch.tensor(x)).numpy()
    np.testing.assert_allclose(got, expected, rtol=2e-3)   # torch's is an approximation


def test_standard_gamma_backward_uses_the_implicit_gradient(device):
    alpha = minflow.tensor([0.5, 4.0], dtype=minflow.float64, device=device, requires_grad=True)
    x = minflow._standard_gamma(alpha.expand(3, 2))
    x.sum().backward()
    expected = minflow._standard_gamma_grad(alpha.detach().expand(3, 2), x.detach()).sum(0)
    np.testing.assert_allclose(alpha.grad.cpu().numpy(), expected.cpu().numpy())
    assert x.grad_fn.name() == "StandardGammaBackward0"


def test_standard_gamma_dtype_and_edges_as_torch():
    torch = pytest.importorskip("torch")
    for dtype in ("float32", "float64"):
        out = minflow._standard_gamma(minflow.tensor([0.0, 1e-4], dtype=getattr(minflow, dtype)))
        ref = torch._standard_gamma(torch.tensor([0.0, 1e-4], dtype=getattr(torch, dtype)))
        assert out.dtype.name == dtype and str(ref.dtype) == f"torch.{dtype}"
        assert out[0].item() == ref[0].item() == np.finfo(dtype).tiny    # torch's clamp
        assert out[1].item() >= np.finfo(dtype).tiny


@needs_scipy
@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_incomplete_gamma_check_op(name, device):
    rng = np.random.default_rng(2)
    ref = {"igamma": special.gammainc, "igammac": special.gammaincc}[name]

    def samples(dtype):
        return [Sample(rng.uniform(0.2, 5, (3, 1)).astype(dtype),
                       rng.uniform(0.1, 8, (4,)).astype(dtype)),
                Sample(rng.uniform(0.2, 5, (2, 3)).astype(dtype),
                       rng.uniform(0.1, 8, (2, 3)).astype(dtype))]
    check_op(getattr(minflow, name), samples,
             lambda a, x: ref(a.astype(float), x.astype(float)).astype(a.dtype),
             dtypes=("float16", "float32", "float64"), devices=[device], grad=False, tol=TOL)


EDGES = [0.0, 1e-3, 0.5, 1.0, 3.0, 30.0, 300.0, math.inf, -1.0, math.nan]


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_incomplete_gamma_matches_torch(name):
    torch = pytest.importorskip("torch")
    a, x = np.meshgrid(EDGES, EDGES)
    got = getattr(minflow, name)(minflow.tensor(a), minflow.tensor(x)).numpy()
    expected = getattr(torch, name)(torch.tensor(a), torch.tensor(x)).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-8, atol=1e-14, equal_nan=True)
    at = torch.tensor([0.5, 2.0, 9.0], dtype=torch.float64)
    xt = torch.tensor([0.3, 2.5, 7.0], dtype=torch.float64, requires_grad=True)
    getattr(torch, name)(at, xt).sum().backward()
    xm = minflow.tensor(xt.detach().numpy(), requires_grad=True)
    getattr(minflow, name)(minflow.tensor(at.numpy()), xm).sum().backward()
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), rtol=1e-10)
    am = minflow.tensor([1.0], requires_grad=True)
    with pytest.raises(NotImplementedError, match=f"the derivative for '{name}: input' is not"):
        getattr(minflow, name)(am, minflow.ones(1)).sum().backward()


@needs_scipy
def test_gammainc_fallback_against_scipy():
    rng = np.random.default_rng(3)
    a = np.concatenate([rng.uniform(0.01, 60, 500), [0.0, 0.0, 1.0, 2.0]])
    x = np.concatenate([rng.uniform(0, 100, 500), [1.0, 0.0, 0.0, math.inf]])
    np.testing.assert_allclose(gamma_fallback.gammainc(a, x), special.gammainc(a, x),
                               rtol=1e-9, atol=1e-11, equal_nan=True)


@pytest.mark.parametrize("call", [
    lambda lib: lib.igamma(lib.ones(1), lib.ones(1, dtype=lib.float64)),
    lambda lib: lib.igammac(lib.ones(1, dtype=lib.int64), lib.ones(1)),
    lambda lib: lib.igamma(lib.ones(1, dtype=lib.float16), lib.ones(1, dtype=lib.float16)),
    lambda lib: lib.poisson(lib.ones(1, dtype=lib.float64)),
    lambda lib: lib.binomial(lib.ones(1, dtype=lib.float64), lib.ones(1, dtype=lib.float64) / 2),
    lambda lib: lib._standard_gamma(lib.ones(1, dtype=lib.float64)),
])
def test_result_dtypes_as_torch(call):
    torch = pytest.importorskip("torch")
    assert call(minflow).dtype.name == str(call(torch).dtype).split(".")[1]


def test_standard_gamma_grad_edges_as_torch():
    torch = pytest.importorskip("torch")
    a = [1.0, 0.0, math.nan, 1.0, math.inf, 2.0, -1.0]
    x = [0.0, 1.0, 1.0, math.nan, 1.0, math.inf, 1.0]
    got = minflow._standard_gamma_grad(minflow.tensor(a), minflow.tensor(x)).numpy()
    expected = torch._standard_gamma_grad(torch.tensor(a), torch.tensor(x)).numpy()
    np.testing.assert_array_equal(got, expected)

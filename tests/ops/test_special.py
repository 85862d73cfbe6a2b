"""trunc, frac, erf, erfinv, atan2, lerp, isclose / allclose / equal, cumprod, var_mean:
forward vs numpy on every declared dtype, gradcheck, torch parity, errors."""
import math

import numpy as np
import pytest

import minflow
from minflow.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(0)
FLOATS = ("float16", "float32", "float64")
_erf = np.vectorize(math.erf)

# name: (minflow fn, numpy reference, sampler, dtypes)
UNARY = {
    "trunc": (minflow.trunc, np.trunc, lambda s: RNG.uniform(-3, 3, s), FLOATS + ("int64",)),
    "frac": (minflow.frac, lambda x: x - np.trunc(x), lambda s: RNG.uniform(-3, 3, s), FLOATS),
    "erf": (minflow.erf, _erf, lambda s: RNG.uniform(-2, 2, s), FLOATS),
    "erfinv": (minflow.erfinv, None, lambda s: RNG.uniform(-0.95, 0.95, s), FLOATS),
    "cumprod": (lambda x: minflow.cumprod(x, 1), lambda x: np.cumprod(x, 1),
                lambda s: RNG.uniform(-2, 2, s), FLOATS + ("int64",)),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_forward_every_dtype(name, device):
    fn, ref, sampler, dtypes = UNARY[name]
    for dtype in dtypes:
        x = sampler((3, 4)).astype(dtype) if dtype != "int64" else RNG.integers(-3, 4, (3, 4))
        out = fn(minflow.tensor(x, device=device))
        assert out.dtype.name == dtype
        tol = 3e-3 if dtype == "float16" else 1e-6
        if ref is None:                 # erfinv: check erf(erfinv(x)) == x
            np.testing.assert_allclose(_erf(out.cpu().numpy().astype(np.float64)), x,
                                       rtol=tol, atol=tol)
        else:
            np.testing.assert_allclose(out.cpu().numpy(), ref(x.astype(np.float64)),
                                       rtol=tol, atol=tol)


@pytest.mark.parametrize("name", ["erf", "erfinv", "frac", "cumprod"])
def test_unary_gradcheck(name):
    fn, _, sampler, _ = UNARY[name]
    x = minflow.tensor(sampler((2, 3)), dtype=minflow.float64, requires_grad=True)
    assert gradcheck(fn, (x,)) and gradgradcheck(fn, (x,))


def test_cumprod_grad_with_zeros_matches_torch():
    torch = pytest.importorskip("torch")
    x = np.array([[2.0, 0.0, 3.0, 0.0, 4.0], [0.0, 1.5, 2.0, -1.0, 0.5],
                  [1.0, 2.0, 3.0, 4.0, 0.0]])
    g = RNG.standard_normal(x.shape)
    a = minflow.tensor(x, requires_grad=True)
    minflow.cumprod(a, 1).backward(minflow.tensor(g))
    t = torch.tensor(x, requires_grad=True)
    torch.cumprod(t, 1).backward(torch.tensor(g))
    np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-12)
    assert gradcheck(lambda v: minflow.cumprod(v, 1), (minflow.tensor(x, requires_grad=True),))


# the scans and products whose gradients have a special case at 0: public fn of (lib, x)
WITH_ZEROS = {
    "cumprod": lambda lib, x: lib.cumprod(x, -1),
    "cumprod_dim0": lambda lib, x: lib.cumprod(x, 0),
    "cumsum": lambda lib, x: lib.cumsum(x, -1),
    "prod": lambda lib, x: lib.prod(x, -1),
    "prod_all": lambda lib, x: lib.prod(x),
    "cummax": lambda lib, x: lib.cummax(x, -1).values,
    "cummin": lambda lib, x: lib.cummin(x, -1).values,
}
ZERO_SAMPLES = {
    "one_zero": np.array([2.0, 0.0, 3.0, -1.5, 4.0]),
    "two_zeros": np.array([2.0, 0.0, 3.0, 0.0, 4.0, 0.5]),
    "leading_zeros": np.array([0.0, 0.0, 2.0, 3.0]),
    "batched": np.array([[2.0, 0.0, 3.0, 0.0, 4.0], [0.0, 1.5, 2.0, -1.0, 0.5],
                         [1.0, 2.0, 3.0, 4.0, 0.0], [1.0, 2.0, 3.0, 4.0, 5.0]]),
}


def _double_backward(lib, fn, x, grad_out, grad_grad):
    """The gradient of x and the gradient of <that gradient, grad_grad> (0 where the
    gradient does not depend on x)."""
    leaf = lib.tensor(x, requires_grad=True)
    grad, = lib.autograd.grad(fn(lib, leaf), leaf, lib.tensor(grad_out), create_graph=True)
    if not grad.requires_grad:
        return grad.numpy(), np.zeros_like(x)
    second, = lib.autograd.grad(grad, leaf, lib.tensor(grad_grad))
    return grad.detach().numpy(), second.numpy()


@pytest.mark.parametrize("sample", sorted(ZERO_SAMPLES))
@pytest.mark.parametrize("name", sorted(WITH_ZEROS))
def test_double_backward_at_zeros_matches_torch(name, sample):
    torch = pytest.importorskip("torch")
    fn, x = WITH_ZEROS[name], ZERO_SAMPLES[sample]
    grad_out = RNG.standard_normal(tuple(fn(torch, torch.tensor(x)).shape))
    grad_grad = RNG.standard_normal(x.shape)
    ours = _double_backward(minflow, fn, x, grad_out, grad_grad)
    theirs = _double_backward(torch, fn, x, grad_out, grad_grad)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    assert gradgradcheck(lambda v: fn(minflow, v), (minflow.tensor(x, requires_grad=True),))


def test_cumprod_third_derivative_at_zeros():
    x = minflow.tensor(ZERO_SAMPLES["batched"], requires_grad=True)
    grad = lambda v: minflow.autograd.grad(minflow.cumprod(v, 1).sum(), v, create_graph=True)[0]
    assert gradgradcheck(grad, (x,))


def test_atan2_and_lerp(device):
    for dtype in FLOATS:
        y, x = RNG.uniform(-2, 2, (3, 1)).astype(dtype), RNG.uniform(-2, 2, (4,)).astype(dtype)
        out = minflow.atan2(minflow.tensor(y, device=device), minflow.tensor(x, device=device))
        tol = 3e-3 if dtype == "float16" else 1e-6
        np.testing.assert_allclose(out.cpu().numpy(), np.arctan2(y, x), rtol=tol, atol=tol)
        a, b = minflow.tensor(y, device=device), minflow.tensor(y * 3, device=device)
        np.testing.assert_allclose(minflow.lerp(a, b, 0.25).cpu().numpy(), y + 0.25 * 2 * y,
                                   rtol=tol, atol=tol)
        assert minflow.lerp(a, b, 1.0).cpu().numpy().tolist() == (y * 3).tolist()
    assert minflow.atan2(minflow.tensor([1]), minflow.tensor([1])).dtype == minflow.float32
    a, b = (minflow.tensor(RNG.standard_normal((2, 3)), requires_grad=True) for _ in range(2))
    w = minflow.tensor(RNG.uniform(0, 1, (3,)), requires_grad=True)
    assert gradcheck(minflow.atan2, (a, b)) and gradcheck(minflow.lerp, (a, b, w))


def test_isclose_allclose_equal():
    a = minflow.tensor([1.0, math.inf, math.nan, 1.0, -math.inf])
    b = minflow.tensor([1.0 + 1e-7, math.inf, math.nan, 1.1, math.inf])
    assert minflow.isclose(a, b).tolist() == [True, True, False, False, False]
    assert minflow.isclose(a, b, equal_nan=True).tolist()[2] is True
    assert minflow.isclose(minflow.tensor([1, 2]), minflow.tensor([1, 3])).tolist() == \
        [True, False]
    assert not minflow.allclose(a, b) and minflow.allclose(a[:2], b[:2])
    assert minflow.equal(minflow.tensor([1, 2]), minflow.tensor([1, 2]))
    assert not minflow.equal(minflow.tensor([1, 2]), minflow.tensor([1, 2, 3]))


def test_var_mean_std_mean():
    x = RNG.standard_normal((3, 4))
    v, m = minflow.var_mean(minflow.tensor(x), 1, keepdim=True)
    np.testing.assert_allclose(v.numpy(), x.var(1, ddof=1, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(m.numpy(), x.mean(1, keepdims=True), rtol=1e-6)
    s, m = minflow.std_mean(minflow.tensor(x), correction=0)
    np.testing.assert_allclose(s.numpy(), x.std(), rtol=1e-6)
    np.testing.assert_allclose(m.numpy(), x.mean(), rtol=1e-6)


def test_torch_parity():
    torch = pytest.importorskip("torch")
    x = RNG.uniform(-0.9, 0.9, (3, 4)).astype(np.float32)
    for name in ("trunc", "frac", "erf", "erfinv"):
        ours, theirs = getattr(minflow, name)(minflow.tensor(x)), getattr(torch, name)(
            torch.tensor(x))
        assert ours.dtype.name == str(theirs.dtype).split(".")[1]
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6)
    assert minflow.erf(minflow.tensor([1])).dtype == minflow.float32
    assert minflow.cumprod(minflow.tensor([1, 2], dtype=minflow.int32), 0).dtype == minflow.int64
    a, b = x, x[::-1].copy()
    np.testing.assert_allclose(minflow.lerp(minflow.tensor(a), minflow.tensor(b), 0.7).numpy(),
                               torch.lerp(torch.tensor(a), torch.tensor(b), 0.7).numpy(),
                               rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(minflow.cumprod(minflow.tensor(x), 0).numpy(),
                               torch.cumprod(torch.tensor(x), 0).numpy(), rtol=1e-6)
    vm, tvm = minflow.var_mean(minflow.tensor(x), 0), torch.var_mean(torch.tensor(x), 0)
    for ours, theirs in zip(vm, tvm):
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5)


@pytest.mark.parametrize("call, err, match", [
    (lambda: minflow.frac(minflow.tensor([1])), RuntimeError, "frac: expected a floating"),
    (lambda: minflow.lerp(minflow.tensor([1.0]), 2.0, 0.5), TypeError,
     "lerp\\(\\): argument 'end' must be Tensor, not float"),
    (lambda: minflow.isclose(minflow.tensor([1.0]), minflow.tensor([1])), RuntimeError,
     "isclose: expected other"),
    (lambda: minflow.atan2(minflow.ones(2), minflow.ones(3)), RuntimeError, "atan2: shapes"),
    (lambda: minflow.cumprod(minflow.ones(2), 1), IndexError, "cumprod"),
])
def test_errors(call, err, match):
    with pytest.raises(err, match=match):
        call()

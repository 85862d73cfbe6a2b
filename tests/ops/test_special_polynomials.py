"""minflow.special's functions of two arguments: the Hurwitz zeta function and the
orthogonal polynomials. The op table through check_op against scipy; values and dtypes
against torch over wide grids (negative and fractional degrees, |x| = 1, x = 0, large n,
NaN, +-inf), numbers on either side, broadcasting; zeta's gradient (in q only, as torch)
and none for the polynomials."""
import math

import numpy as np
import pytest

import minflow
from minflow.testing import Sample, check_op

POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
               "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
               "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
               "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
               "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"]


def _reference(sp, name):
    """scipy's value of polynomial ``name`` at (x, n), n a nonnegative integer array."""
    def chebyshev_vw(sign):        # V_n = U_n - U_{n-1}, W_n = U_n + U_{n-1}
        return lambda n, x: np.where(n == 0, 1.0, sp.eval_chebyu(n, x)
                                     + sign * sp.eval_chebyu(np.maximum(n - 1, 0), x))
    base = {"chebyshev_polynomial_t": sp.eval_chebyt, "chebyshev_polynomial_u": sp.eval_chebyu,
            "chebyshev_polynomial_v": chebyshev_vw(-1), "chebyshev_polynomial_w": chebyshev_vw(1),
            "hermite_polynomial_h": sp.eval_hermite, "hermite_polynomial_he": sp.eval_hermitenorm,
            "laguerre_polynomial_l": sp.eval_laguerre, "legendre_polynomial_p": sp.eval_legendre}
    fn = base[name.removeprefix("shifted_")]
    shift = (lambda x: 2 * x - 1) if name.startswith("shifted_") else (lambda x: x)
    return lambda x, n: fn(n.astype(np.int64), shift(x.astype(np.float64))).astype(x.dtype)


# float32: a degree-12 polynomial sums terms ~1e3 times its value near its zeros
TOL = {"float32": (1e-4, 1e-3), "float64": (1e-10, 1e-10)}


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_op_table(name, device):
    sp = pytest.importorskip("scipy.special")
    rng = np.random.default_rng(2)
    low, high = (-0.25, 1.25) if name.startswith("shifted_") else (-1.5, 1.5)

    def samples(dtype):     # broadcasting, and one shape; degrees past the closed forms' 6
        return [Sample(rng.uniform(low, high, (3, 1)).astype(dtype),
                       rng.integers(0, 13, (4,)).astype(dtype)),
                Sample(rng.uniform(low, high, (2, 5)).astype(dtype),
                       rng.integers(0, 13, (2, 5)).astype(dtype))]
    check_op(getattr(minflow.special, name), samples, _reference(sp, name),
             op=f"special_{name}", devices=[device], tol=TOL)


def test_zeta_op_table(device):
    sp = pytest.importorskip("scipy.special")
    rng = np.random.default_rng(3)

    def samples(dtype):
        return [Sample(rng.uniform(1.2, 6, (3, 1)).astype(dtype),
                       rng.uniform(0.2, 12, (4,)).astype(dtype)),
                # q < 0 (not an integer): finite for integer x only
                Sample(rng.integers(2, 7, (2, 3)).astype(dtype),
                       rng.uniform(-3.5, 12, (2, 3)).round().astype(dtype) + 0.25)]
    # no gradient w.r.t. input (torch has none): gradients are checked against torch below
    check_op(minflow.special.zeta, samples,
             lambda x, q: sp.zeta(x.astype(np.float64), q.astype(np.float64)).astype(x.dtype),
             devices=[device], tol={"float32": (1e-5, 1e-6), "float64": (1e-12, 1e-14)},
             grad=False)


# ---- against torch -------------------------------------------------------------------------
X = [-3.0, -1.5, -1.0, -0.7, -0.5, -1e-20, -0.0, 0.0, 1e-20, 0.2, 0.5, 0.93, 1.0 - 2 ** -24,
     1.0, 1.0 + 2 ** -23, 1.2, 2.0, 7.5, 1e10, -1e10, math.inf, -math.inf, math.nan]
N = [-3.0, -1.0, -0.5, 0.0, 0.7, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 12.5, 40.0,
     127.0, 129.0, 300.0, 511.0, 513.0, 1e19, -1e19, math.inf, -math.inf, math.nan]


def _close(got, expected, tol, where):
    """Same NaNs and infinities; finite values within tol (per element) of each other,
    relative where above 1."""
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    np.testing.assert_array_equal(np.isinf(got) * np.sign(got),
                                  np.isinf(expected) * np.sign(expected))
    got, expected = got.astype(np.float64), expected.astype(np.float64)
    finite = np.isfinite(expected)
    error = np.abs(got - expected) / np.maximum(np.abs(expected), 1)
    bad = finite & ~(error <= tol)
    assert not bad.any(), [(*where(i), got[i], expected[i]) for i in np.flatnonzero(bad)[:5]]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_values_as_torch(name, dtype):
    torch = pytest.importorskip("torch")
    x, n = (a.astype(dtype).ravel() for a in np.meshgrid(X, N))
    got = getattr(minflow.special, name)(minflow.tensor(x), minflow.tensor(n)).numpy()
    expected = getattr(torch.special, name)(torch.tensor(x), torch.tensor(n)).numpy()
    assert got.dtype == expected.dtype
    # NOTE: for NaN x and a degree n >= 2, torch's U, W, shifted U, V, W, Laguerre and
    # Legendre loops never run (q is NaN) and return an uninitialized variable: their
    # value is undefined (0, 1e-43, -2e307 ... here); minflow gives NaN
    defined = ~(np.isnan(x) & (n >= 2) & (n < 2.0 ** 63)) | np.isnan(expected)
    assert np.isnan(got[~defined]).all()
    # the closed forms cos(n acos x) ... turn an ulp of acos into n ulps of the value; the
    # recurrences agree to the last bit (torch's fused multiply-adds are emulated)
    eps = np.finfo(dtype).eps
    tol = 16 * eps * (1 + np.where(np.isfinite(n) & (np.abs(n) < 1e4), np.abs(n), 0))
    x, n = x[defined], n[defined]
    _close(got[defined], expected[defined], tol[defined], lambda i: (x[i], n[i]))


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_numbers_dtypes_and_broadcasting_as_torch(name):
    torch = pytest.importorskip("torch")
    x32, n64 = np.array([[0.3], [-0.8], [1.4]], dtype=np.float32), np.array([0.0, 2.0, 5.0, 9.0])
    calls = [
        lambda lib: (lib.tensor(x32), lib.tensor(n64)),            # float32, float64
        lambda lib: (lib.tensor(x32), 7),                          # a number degree
        lambda lib: (0.25, lib.tensor([1, 4, 10])),                # a number x, int degrees
        lambda lib: (lib.tensor([1, 0, -1]), lib.tensor([3, 3, 3])),   # ints: default float
        lambda lib: (lib.tensor([True, False]), 2.0),
        lambda lib: (lib.tensor(0.5), lib.tensor([[2.0], [11.0]])),
    ]
    for arguments in calls:
        got = getattr(minflow.special, name)(*arguments(minflow))
        expected = getattr(torch.special, name)(*arguments(torch))
        assert got.dtype.name == str(expected.dtype).removeprefix("torch.")
        assert tuple(got.shape) == tuple(expected.shape)
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6, atol=1e-6)


def test_polynomials_have_no_gradient_and_no_float16():
    x = minflow.tensor([0.3, 0.6], requires_grad=True)
    for name in POLYNOMIALS:
        fn = getattr(minflow.special, name)
        assert not fn(x, 3).requires_grad
        assert not fn(0.5, minflow.tensor([2.0], requires_grad=True)).requires_grad
        with pytest.raises(NotImplementedError, match=f"special_{name}: no kernel for device "
                                                      f"'cpu' and dtype float16"):
            fn(minflow.tensor([0.5], dtype=minflow.float16), 2)


def test_polynomial_degree_loops_stop_per_element():
    """Each element runs its own number of steps: a huge degree at |x| = 1 or on the
    closed forms costs nothing, and a recurrence that overflows stops at NaN, as torch."""
    x = minflow.tensor([1.0, -1.0, 0.5, 3.0, 0.25], dtype=minflow.float64)
    n = minflow.tensor([1e15, 1e15 + 1, 1e15, 1e15, 3.0], dtype=minflow.float64)
    got = minflow.special.chebyshev_polynomial_t(x, n).numpy()
    assert got[:2].tolist() == [1.0, -1.0] and math.isnan(got[3])
    assert got[4] == pytest.approx(4 * 0.25 ** 3 - 3 * 0.25)


X_ZETA = [-2.0, 0.0, 0.5, 1.0, 1.0 + 1e-10, 1.5, 2.0, 3.0, 4.0, 7.5, 20.0, 60.0, 200.0, 1e10,
          math.inf, -math.inf, math.nan]
Q_ZETA = [-1000.5, -10.0, -9.5, -3.0, -2.5, -0.5, -0.0, 0.0, 1e-300, 1e-10, 0.5, 1.0, 2.0,
          8.5, 9.0, 10.0, 1e3, 1e8, 1e300, math.inf, -math.inf, math.nan]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_zeta_values_as_torch(dtype):
    torch = pytest.importorskip("torch")
    with np.errstate(over="ignore"):
        x, q = (a.astype(dtype).ravel() for a in np.meshgrid(X_ZETA, Q_ZETA))
    got = minflow.special.zeta(minflow.tensor(x), minflow.tensor(q)).numpy()
    expected = torch.special.zeta(torch.tensor(x), torch.tensor(q)).numpy()
    assert got.dtype == expected.dtype
    _close(got, expected, 4 * np.finfo(dtype).eps, lambda i: (x[i], q[i]))


def test_zeta_numbers_and_dtypes_as_torch():
    torch = pytest.importorskip("torch")
    calls = [lambda lib: (lib.tensor([2.0, 4.0]), 1), lambda lib: (2, lib.tensor([1.0, 2.5])),
             lambda lib: (lib.tensor([2, 3]), lib.tensor([1, 2])),
             lambda lib: (lib.tensor([[3.0], [5.0]], dtype=lib.float64), lib.tensor([0.5, 2.0])),
             lambda lib: (lib.tensor([True]), 2.0)]
    for arguments in calls:
        got = minflow.special.zeta(*arguments(minflow))
        expected = torch.special.zeta(*arguments(torch))
        assert got.dtype.name == str(expected.dtype).removeprefix("torch.")
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6)


def test_zeta_gradient_in_q_as_torch():
    torch = pytest.importorskip("torch")

    def run(lib, x):
        q = lib.tensor([[0.5, 1.5, 3.0], [2.0, 7.5, 12.0]], dtype=lib.float64,
                       requires_grad=True)
        out = lib.special.zeta(x(lib), q)
        (grad,) = lib.autograd.grad(out.sum(), q, create_graph=True)
        (second,) = lib.autograd.grad(grad.sum(), q)
        return grad.detach().numpy(), second.numpy()
    for x in (lambda lib: lib.tensor([2.0, 3.5, 6.0], dtype=lib.float64), lambda lib: 3):
        for ours, theirs in zip(run(minflow, x), run(torch, x)):
            np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_zeta_refuses_the_gradient_in_x_as_torch():
    x = minflow.tensor([2.0, 3.0], requires_grad=True)
    out = minflow.special.zeta(x, minflow.tensor([1.0, 2.0]))     # forward is fine, as torch
    assert out.requires_grad
    with pytest.raises(NotImplementedError, match="the derivative for 'special_zeta: input' "
                                                  "is not implemented"):
        out.sum().backward()


def test_polynomial_out_and_meta():
    out = minflow.empty(2, 3, dtype=minflow.float64)
    x = minflow.tensor([0.1, 0.2, 0.3], dtype=minflow.float64)
    n = minflow.tensor([[1.0], [4.0]], dtype=minflow.float64)
    assert minflow.special.legendre_polynomial_p(x, n, out=out) is out
    np.testing.assert_allclose(out.numpy()[1], (35 * x.numpy() ** 4 - 30 * x.numpy() ** 2 + 3) / 8)
    meta = minflow.special.zeta(minflow.empty(2, 1, device="meta"), minflow.empty(3, device="meta"))
    assert meta.shape == (2, 3) and meta.dtype is minflow.float32

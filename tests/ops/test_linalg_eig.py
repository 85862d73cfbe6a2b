"""linalg.eig / eigvals against torch: eigenvalues, unit-norm eigenvectors up to each
vector's phase, gradients of phase-invariant losses, and view_as_real-based losses."""
import numpy as np
import pytest

import minflow
from minflow.autograd import gradcheck

torch = pytest.importorskip("torch")


def _matrix(shape, dtype="float64", seed=0):
    rng = np.random.default_rng(seed)
    data = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        data = data + 1j * rng.standard_normal(shape)
    return data.astype(dtype)


def _numpy(t):
    t = t.detach()
    return t.resolve_conj().numpy() if isinstance(t, torch.Tensor) else t.numpy()


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3), (1, 1)])
def test_values_dtypes_and_unit_eigenvectors_as_torch(shape, dtype):
    A = _matrix(shape, dtype)
    L, V = minflow.linalg.eig(minflow.tensor(A))
    tL, tV = torch.linalg.eig(torch.tensor(A))
    assert L.dtype.name == str(tL.dtype)[6:] and V.dtype.name == str(tV.dtype)[6:]
    tol = 1e-4 if dtype in ("float32", "complex64") else 1e-10
    np.testing.assert_allclose(_numpy(L), _numpy(tL), rtol=tol, atol=tol)
    ours, theirs = _numpy(V), _numpy(tV)
    np.testing.assert_allclose(np.linalg.norm(ours, axis=-2), 1, rtol=tol)
    # each eigenvector up to a phase: |<v_ours, v_torch>| = 1
    overlap = np.abs(np.sum(np.conj(ours) * theirs, axis=-2))
    np.testing.assert_allclose(overlap, 1, rtol=tol, atol=tol)
    np.testing.assert_allclose(A.astype(ours.dtype) @ ours, ours * _numpy(L)[..., None, :],
                               rtol=tol * 10, atol=tol * 10)
    np.testing.assert_allclose(_numpy(minflow.linalg.eigvals(minflow.tensor(A))), _numpy(L))


def _losses(lib, L, V):
    """Real losses that do not depend on the eigenvectors' phases."""
    return [(L * L.conj()).real.sum(),
            lib.view_as_real(L).pow(3).sum() + (V.abs() ** 2 * lib.arange(
                V.shape[-1], dtype=lib.float64)).sum(),
            (lib.view_as_real(V * V.conj()).sum() + lib.view_as_real(L)[..., 1].sum())]


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("which", [0, 1, 2])
def test_gradients_match_torch(dtype, which):
    A = _matrix((2, 4, 4), dtype, seed=1)
    grads = []
    for lib in (minflow, torch):
        x = lib.tensor(A, requires_grad=True)
        L, V = lib.linalg.eig(x)
        (g,) = lib.autograd.grad(_losses(lib, L, V)[which], [x])
        grads.append(_numpy(g))
    assert grads[0].dtype == grads[1].dtype
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-8, atol=1e-10)


def test_eigvals_gradient_matches_torch():
    A = _matrix((3, 3), seed=2)
    grads = []
    for lib in (minflow, torch):
        x = lib.tensor(A, requires_grad=True)
        (g,) = lib.autograd.grad(lib.view_as_real(lib.linalg.eigvals(x)).pow(2).sum(), [x])
        grads.append(_numpy(g))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_gradcheck(dtype):
    x = minflow.tensor(_matrix((3, 3), dtype, seed=3), requires_grad=True)

    def fn(A):
        L, V = minflow.linalg.eig(A)
        return L, V.abs()
    assert gradcheck(fn, (x,))


def test_a_phase_dependent_loss_is_refused_as_torch():
    A = _matrix((3, 3), "complex128", seed=4)
    for lib in (minflow, torch):
        x = lib.tensor(A, requires_grad=True)
        _, V = lib.linalg.eig(x)
        with pytest.raises(RuntimeError, match="specified up to multiplication by e"):
            lib.autograd.grad(lib.view_as_real(V).sum(), [x])


@pytest.mark.parametrize("call, error, message", [
    (lambda: minflow.linalg.eig(minflow.ones(2, 3)), RuntimeError, "square"),
    (lambda: minflow.linalg.eig(minflow.ones(2, 2, dtype=minflow.int64)), TypeError,
     "expected A with dtype in \\[float32, float64, complex64, complex128\\], got int64"),
    (lambda: minflow.linalg.eigvals(minflow.ones(3)), RuntimeError, "linalg.eigvals"),
])
def test_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()

"""diagonal (a view), diag, trace, addmm, inverse, det and minflow.linalg norms: forward vs
numpy, gradients, torch parity, errors; Tensor.stride / storage_offset / data_ptr."""
import numpy as np
import pytest

import minflow
from minflow.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 4, 5))
SQUARE = RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3)

# name: (minflow fn, numpy reference, input, dtypes)
CASES = {
    "diagonal": (lambda x: x.diagonal(), lambda x: np.diagonal(x, 0, 0, 1), A,
                 ("float16", "float32", "float64", "int64", "bool")),
    "diagonal/offset": (lambda x: minflow.diagonal(x, -1, 2, 0),
                        lambda x: np.diagonal(x, -1, 2, 0), A, ("float32", "int32")),
    "diag/vector": (lambda x: minflow.diag(x[0, 0], 2), lambda x: np.diag(x[0, 0], 2), A,
                    ("float32", "int64")),
    "diag/matrix": (lambda x: minflow.diag(x[0], -1), lambda x: np.diag(x[0], -1), A,
                    ("float32", "int64")),
    "trace": (lambda x: minflow.trace(x[1]), lambda x: np.trace(x[1]), A, ("float64", "int64")),
    "addmm": (lambda x: minflow.addmm(x[0, :, 0], x[0], x[1].T, beta=0.5, alpha=2),
              lambda x: 0.5 * x[0, :, 0] + 2 * x[0] @ x[1].T, A, ("float32", "float64")),
    "inverse": (minflow.inverse, np.linalg.inv, SQUARE, ("float32", "float64")),
    "det": (minflow.det, np.linalg.det, SQUARE, ("float32", "float64")),
    "vector_norm": (lambda x: minflow.linalg.vector_norm(x, 3, (0, 2)),
                    lambda x: (np.abs(x) ** 3).sum((0, 2)) ** (1 / 3), A, ("float32", "float64")),
    "matrix_norm": (minflow.linalg.matrix_norm, lambda x: np.linalg.norm(x, "fro", (-2, -1)), A,
                    ("float32", "float64")),
    "matrix_norm/inf": (lambda x: minflow.linalg.matrix_norm(x, float("inf"), keepdim=True),
                        lambda x: np.linalg.norm(x, np.inf, (-2, -1), keepdims=True), A,
                        ("float64",)),
    "matrix_norm/-1": (lambda x: minflow.linalg.matrix_norm(x, -1, (0, 2)),
                       lambda x: np.linalg.norm(x, -1, (0, 2)), A, ("float64",)),
    "norm": (lambda x: minflow.linalg.norm(x[0], 1), lambda x: np.linalg.norm(x[0], 1), A,
             ("float64",)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_every_dtype(name, device):
    fn, ref, a, dtypes = CASES[name]
    for dtype in dtypes:
        x = a.astype(dtype) if dtype != "bool" else a > 0
        out = fn(minflow.tensor(x, device=device)).cpu().numpy()
        tol = 1e-2 if dtype == "float16" else 1e-5
        np.testing.assert_allclose(out, ref(x), rtol=tol, atol=tol)


@pytest.mark.parametrize("fn, a", [
    (lambda x: x.diagonal(1, -1, 0), A), (lambda x: minflow.diag(x[0, 0], -2), A),
    (lambda x: minflow.trace(x[0]), A), (minflow.inverse, SQUARE), (minflow.det, SQUARE),
    (lambda x: minflow.addmm(x[0, :, 0], x[0], x[1].T), A),
    (lambda x: minflow.linalg.matrix_norm(x, 1), A)])
def test_gradcheck(fn, a):
    x = minflow.tensor(a, requires_grad=True)
    assert gradcheck(fn, (x,)) and gradgradcheck(fn, (x,))


def test_diagonal_is_a_writable_view():
    x = minflow.zeros(3, 4)
    d = x.diagonal(1)
    d.add_(1)
    assert x.sum().item() == 3 and x[0, 1].item() == 1
    assert d.storage_offset() == 1 and d.stride() == (5,)
    w = minflow.ones(3, 3, requires_grad=True)
    y = w * 2
    y.diagonal().mul_(3)
    y.sum().backward()
    assert w.grad.tolist() == [[6, 2, 2], [2, 6, 2], [2, 2, 6]]


def test_layout_methods():
    x = minflow.zeros(3, 4)
    assert x.stride() == (4, 1) and x.t().stride() == (1, 4) and x.stride(-1) == 1
    assert x[1:, 2:].storage_offset() == 6 and x.storage_offset() == 0
    assert x[1].data_ptr() == x.data_ptr() + 16 and x.element_size() == 4
    assert minflow.empty(2, 3, device="meta").stride() == (3, 1)
    assert x.type_as(minflow.tensor([1])).dtype == minflow.int64


def test_torch_parity():
    torch = pytest.importorskip("torch")
    m = SQUARE.astype(np.float32)
    for name in ("inverse", "det"):
        ours, theirs = getattr(minflow, name)(minflow.tensor(m)), getattr(torch, name)(
            torch.tensor(m))
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6)
    for args in ((), (1,), (float("-inf"), (0, 2), True)):
        ours = minflow.linalg.matrix_norm(minflow.tensor(A), *args)
        theirs = torch.linalg.matrix_norm(torch.tensor(A), *args)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy())
    for kw in ({}, {"ord": 1, "dim": 1}, {"dim": (0, 1)}):
        np.testing.assert_allclose(minflow.linalg.norm(minflow.tensor(A), **kw).numpy(),
                                   torch.linalg.norm(torch.tensor(A), **kw).numpy())
    t = torch.zeros(3, 4)
    x = minflow.zeros(3, 4)
    assert x.diagonal(-1).storage_offset() == t.diagonal(-1).storage_offset()
    assert x.diagonal(-1).stride() == t.diagonal(-1).stride()
    assert minflow.trace(minflow.tensor([[1, 2], [3, 4]])).dtype == minflow.int64
    g = RNG.standard_normal((2,))
    a, ta = minflow.tensor(SQUARE, requires_grad=True), torch.tensor(SQUARE, requires_grad=True)
    minflow.det(a).backward(minflow.tensor(g))
    torch.det(ta).backward(torch.tensor(g))
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-10)


@pytest.mark.parametrize("call, err, match", [
    (lambda: minflow.diagonal(minflow.ones(3), 0), IndexError, "diagonal"),
    (lambda: minflow.diagonal(minflow.ones(3, 3), 0, 1, 1), RuntimeError,
     "diagonal: expected two different dims"),
    (lambda: minflow.diag(minflow.ones(2, 2, 2)), RuntimeError, "diag: expected a 1-D or 2-D"),
    (lambda: minflow.inverse(minflow.ones(2, 3)), RuntimeError, "inverse: A must be batches"),
    (lambda: minflow.inverse(minflow.ones(2, 2)), RuntimeError, "singular"),
    (lambda: minflow.det(minflow.ones(2, 2, dtype=minflow.int64)), RuntimeError,
     "det: Expected a float32, float64, complex64 or complex128"),
    (lambda: minflow.addmm(minflow.ones(2), minflow.ones(3), minflow.ones(3, 2)), RuntimeError,
     "addmm: mat1 must be a matrix"),
    (lambda: minflow.linalg.vector_norm(minflow.tensor([1])), RuntimeError,
     "linalg.vector_norm: Expected a floating"),
    (lambda: minflow.linalg.matrix_norm(minflow.ones(2, 2), 3), RuntimeError,
     "linalg.matrix_norm: expected ord in"),
])
def test_errors(call, err, match):
    with pytest.raises(err, match=match):
        call()


@pytest.mark.parametrize("p", [0.5, -0.5, -1, -2, 1.5, 3])
def test_vector_norm_gradient_at_zero_entries_is_zero(p):
    """As torch: zeros of x get a zero gradient (not inf or NaN) for every order."""
    for values in ([0.0, 0.0, 0.0], [0.0, 1.0, -2.0]):
        x = minflow.tensor(values, dtype=minflow.float64, requires_grad=True)
        minflow.linalg.vector_norm(x, p).backward()
        assert np.isfinite(x.grad.numpy()).all() and x.grad[0].item() == 0.0


def test_matrix_norm_of_empty_matrices():
    """Positive orders of an empty matrix norm to 0 (as torch); -inf has no identity."""
    for shape in [(0, 0), (0, 3), (2, 3, 0)]:
        for ord in (1, float("inf"), 2, "nuc", "fro"):
            out = minflow.linalg.matrix_norm(minflow.empty(*shape), ord)
            assert out.shape == shape[:-2] and not out.any().item()
    with pytest.raises(IndexError):
        minflow.linalg.matrix_norm(minflow.empty(0, 3), -float("inf"))

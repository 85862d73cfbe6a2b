"""The ops of minflow.linalg (solve, solve_triangular, cholesky, qr, svd, eigh, slogdet, pinv,
matrix_exp, lu_factor_ex and what is built on it, cholesky_solve) through check_op: forward against references computed another way, dtypes,
meta, non-contiguous inputs, gradcheck and double backward, eager vs graph gradients.

QR, SVD and eigh vectors are defined up to sign, so their cases return invariants: the
canonical QR (positive diagonal of R), singular values with |U| and |Vh|, eigenvalues with
|V|, reconstructions.
"""
import numpy as np
import pytest

import minflow
from minflow.autograd import gradcheck, gradgradcheck
from minflow.testing import CHECKS, Sample, check_op

L = minflow.linalg
RNG = np.random.default_rng(0)
TOL = {"float32": (2e-4, 2e-5), "float64": (1e-9, 1e-11)}


def well(*shape):
    """Random matrices with a dominant diagonal: far from singular."""
    return RNG.standard_normal(shape) + 3 * np.eye(shape[-1])


def spd_of(a):
    """a a^T + n I, symmetric positive-definite, in a's array module (numpy or minflow)."""
    n = a.shape[-1]
    eye = np.eye(n, dtype=a.dtype) if isinstance(a, np.ndarray) else \
        minflow.eye(n, dtype=a.dtype, device=a.device)
    return a @ (np.swapaxes(a, -1, -2) if isinstance(a, np.ndarray) else a.mT) + n * eye


def sym_of(a):
    return a + (np.swapaxes(a, -1, -2) if isinstance(a, np.ndarray) else a.mT)


def canonical_qr(a):
    """minflow's Q, R with R's diagonal made positive (the unique QR of a full-rank a)."""
    Q, R = L.qr(a)
    s = minflow.sign(R.diagonal(0, -2, -1))
    return Q * s.unsqueeze(-2), R * s.unsqueeze(-1)


def qr_reference(a):
    """The canonical QR from the Cholesky factor of a^T a (tall or square a)."""
    R = np.swapaxes(np.linalg.cholesky(np.swapaxes(a, -1, -2) @ a), -1, -2)
    return a @ np.linalg.inv(R), R


def svd_invariants(a):
    U, S, Vh = L.svd(a, full_matrices=False)
    return S, U.abs(), Vh.abs()


def svd_reference(a):
    """S from the eigenvalues of a^T a, |U| and |Vh| from the eigenvectors of a a^T, a^T a."""
    k = min(a.shape[-2:])
    at = np.swapaxes(a, -1, -2)
    w, V = np.linalg.eigh(at @ a)
    _, U = np.linalg.eigh(a @ at)
    S = np.sqrt(np.clip(w[..., ::-1][..., :k], 0, None))
    return (S, np.abs(U[..., ::-1][..., :k]),
            np.abs(np.swapaxes(V[..., ::-1], -1, -2)[..., :k, :]))


def eigh_invariants(a):
    w, V = L.eigh(sym_of(a))
    return w, V.abs()


def eigh_reference(a):
    w, V = np.linalg.eig(sym_of(a))        # the general solver: another LAPACK routine
    order = np.argsort(w.real, -1)
    w = np.take_along_axis(w.real, order, -1)
    V = np.take_along_axis(V.real, order[..., None, :], -1)
    return w, np.abs(V / np.linalg.norm(V, axis=-2, keepdims=True))


def expm_reference(a):
    """exp(a) by its Taylor series in float64 (inputs of small norm)."""
    a64, term = a.astype(np.float64), np.broadcast_to(np.eye(a.shape[-1]), a.shape).copy()
    total = term.copy()
    for k in range(1, 40):
        term = term @ a64 / k
        total = total + term
    return total.astype(a.dtype)


def slogdet_reference(a):
    det = np.linalg.det(a.astype(np.float64))
    return np.sign(det).astype(a.dtype), np.log(np.abs(det)).astype(a.dtype)


def triangular_reference(a, b, upper, unit=False):
    t = np.triu(a) if upper else np.tril(a)
    if unit:
        eye = np.eye(a.shape[-1], dtype=a.dtype)
        t = t - t * eye + eye
    return np.linalg.solve(t, b)


def lu_reference(a):
    """(P, L, U) of each matrix by textbook Gaussian elimination, one matrix and one row
    swap at a time, pivoting on the first largest |value| of the column."""
    batch, (m, n) = a.shape[:-2], a.shape[-2:]
    k = min(m, n)
    Ps, Ls, Us = [], [], []
    for A in a.reshape((-1, m, n)).astype(np.float64):
        U, L, perm = A.copy(), np.eye(m), list(range(m))
        for j in range(k):
            p = j + int(np.argmax(np.abs(U[j:, j])))
            U[[j, p]], L[[j, p], :j], perm[j], perm[p] = U[[p, j]], L[[p, j], :j], perm[p], \
                perm[j]
            for i in range(j + 1, m):
                L[i, j] = U[i, j] / U[j, j]
                U[i] -= L[i, j] * U[j]
        P = np.zeros((m, m))
        P[perm, range(m)] = 1
        Ps.append(P), Ls.append(L[:, :k]), Us.append(np.triu(U[:k]))
    return tuple(np.stack(x).reshape(batch + x[0].shape).astype(a.dtype)
                 for x in (Ps, Ls, Us))


def lu_factor_reference(a):
    _, L, U = lu_reference(a)
    k = min(a.shape[-2:])
    LU = np.zeros(a.shape, a.dtype)
    LU[..., :, :k] += np.tril(L, -1)
    LU[..., :k, :] += U
    return LU


def solve_factored(a, b, left=True, adjoint=False):
    """X with op(A) X = B, or X op(A) = B, op(A) = A^T if adjoint."""
    a = np.swapaxes(a, -1, -2) if adjoint else a
    if left:
        return np.linalg.solve(a, b)
    return np.swapaxes(np.linalg.solve(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2)), -1, -2)


def cholesky_solve_reference(b, a, upper=False):
    T = np.triu(a) if upper else np.tril(a)
    A = np.swapaxes(T, -1, -2) @ T if upper else T @ np.swapaxes(T, -1, -2)
    return np.linalg.solve(A, b)


# name: (function, op name, samples, reference)
CASES = {
    "solve": (L.solve, "linalg_solve", [Sample(well(2, 3, 3), RNG.standard_normal((2, 3, 2))),
                                        Sample(well(3, 3), RNG.standard_normal(3))],
              lambda a, b: np.linalg.solve(a, b[..., None])[..., 0] if b.ndim == 1 else
              np.linalg.solve(a, b)),
    "solve/broadcast_left_false": (
        lambda a, b: L.solve(a, b, left=False), "linalg_solve",
        [Sample(well(3, 3), RNG.standard_normal((2, 4, 3)))],
        lambda a, b: np.swapaxes(np.linalg.solve(a.T, np.swapaxes(b, -1, -2)), -1, -2)),
    "solve_triangular": (
        lambda a, b: L.solve_triangular(a, b, upper=True), "linalg_solve_triangular",
        [Sample(well(2, 3, 3), RNG.standard_normal((2, 3, 2)))],
        lambda a, b: triangular_reference(a, b, True)),
    "solve_triangular/lower_unit_right": (
        lambda a, b: L.solve_triangular(a, b, upper=False, left=False, unitriangular=True),
        "linalg_solve_triangular", [Sample(well(3, 3), RNG.standard_normal((2, 3)))],
        lambda a, b: triangular_reference(a.T, b.T, True, True).T),
    "cholesky": (lambda a: L.cholesky(spd_of(a)), "linalg_cholesky_ex",
                 [Sample(RNG.standard_normal((2, 3, 3))), Sample(RNG.standard_normal((4, 4)))],
                 lambda a: np.linalg.cholesky(spd_of(a))),
    "cholesky/upper": (lambda a: L.cholesky(spd_of(a), upper=True), "linalg_cholesky_ex",
                       [Sample(RNG.standard_normal((3, 3)))],
                       lambda a: np.linalg.cholesky(spd_of(a)).T),
    "qr": (canonical_qr, "linalg_qr", [Sample(RNG.standard_normal((2, 4, 3))),
                                       Sample(well(3, 3))], qr_reference),
    "qr/wide": (lambda a: (lambda q, r: (q.abs(), q @ r))(*L.qr(a)), "linalg_qr",
                [Sample(RNG.standard_normal((3, 5)))],
                lambda a: (np.abs(qr_reference(a[:, :3])[0]), a)),
    "svd": (svd_invariants, "linalg_svd", [Sample(RNG.standard_normal((2, 4, 3))),
                                           Sample(RNG.standard_normal((3, 5)))],
            svd_reference),
    "svdvals": (L.svdvals, "linalg_svd", [Sample(RNG.standard_normal((2, 3, 4)))],
                lambda a: svd_reference(a)[0]),
    "eigh": (eigh_invariants, "linalg_eigh", [Sample(RNG.standard_normal((2, 3, 3)))],
             eigh_reference),
    "eigvalsh/upper": (lambda a: L.eigvalsh(sym_of(a), "U"), "linalg_eigh",
                       [Sample(RNG.standard_normal((4, 4)))], lambda a: eigh_reference(a)[0]),
    "slogdet": (L.slogdet, "linalg_slogdet", [Sample(RNG.standard_normal((2, 3, 3)))],
                slogdet_reference),
    "pinv": (L.pinv, "linalg_pinv", [Sample(RNG.standard_normal((2, 4, 3))),
                                     Sample(RNG.standard_normal((3, 5)))],
             lambda a: np.linalg.pinv(a)),
    "pinv/hermitian": (lambda a: L.pinv(sym_of(a), hermitian=True), "linalg_pinv",
                       [Sample(RNG.standard_normal((3, 3)))],
                       lambda a: np.linalg.pinv(sym_of(a))),
    "lu": (lambda a: L.lu(a)[1:], "linalg_lu_factor_ex",
           [Sample(RNG.standard_normal((2, 4, 4))), Sample(RNG.standard_normal((5, 3))),
            Sample(RNG.standard_normal((2, 3, 5)))], lambda a: lu_reference(a)[1:]),
    "lu/P_times_L": (lambda a: (lambda P, L, U: P @ L)(*L.lu(a)), "linalg_lu_factor_ex",
                     [Sample(RNG.standard_normal((3, 4, 4))), Sample(RNG.standard_normal((5, 2)))],
                     lambda a: (lambda P, L, U: P @ L)(*lu_reference(a))),
    "lu_factor": (lambda a: L.lu_factor(a).LU, "linalg_lu_factor_ex",
                  [Sample(RNG.standard_normal((3, 4, 4))), Sample(RNG.standard_normal((4, 2)))],
                  lu_factor_reference),
    "lu_solve/left": (lambda a, b: L.lu_solve(*L.lu_factor(a), b), "linalg_lu_factor_ex",
                      [Sample(well(2, 3, 3), RNG.standard_normal((3, 2)))], solve_factored),
    "lu_solve/adjoint_right": (
        lambda a, b: L.lu_solve(*L.lu_factor(a), b, left=False, adjoint=True),
        "linalg_lu_factor_ex", [Sample(well(3, 3), RNG.standard_normal((2, 4, 3)))],
        lambda a, b: solve_factored(a, b, left=False, adjoint=True)),
    "cholesky_solve/lower": (
        lambda b, a: minflow.cholesky_solve(b, a.tril()), "cholesky_solve",
        [Sample(RNG.standard_normal((2, 3, 2)), well(2, 3, 3)),
         Sample(RNG.standard_normal((3, 1)), well(2, 3, 3))], cholesky_solve_reference),
    "cholesky_solve/upper": (
        lambda b, a: minflow.cholesky_solve(b, a.triu(), upper=True), "cholesky_solve",
        [Sample(RNG.standard_normal((3, 4)), well(3, 3))],
        lambda b, a: cholesky_solve_reference(b, a, True)),
    "cholesky_solve/inverse": (
        lambda a: minflow.cholesky_inverse(a.tril()), "cholesky_solve", [Sample(well(2, 3, 3))],
        lambda a: np.linalg.inv(np.tril(a) @ np.swapaxes(np.tril(a), -1, -2))),
    "geqrf/reconstruction": (
        lambda a: (lambda h, tau: L.householder_product(h, tau) @ h.triu()[..., :3, :])(
            *minflow.geqrf(a)),
        "geqrf", [Sample(RNG.standard_normal((2, 5, 3))), Sample(RNG.standard_normal((3, 3)))],
        lambda a: a),
    "ldl_solve/definite": (
        lambda a, b: L.ldl_solve(*L.ldl_factor(spd_of(a)), b), "linalg_ldl_solve",
        [Sample(RNG.standard_normal((2, 3, 3)), RNG.standard_normal((2, 3, 2)))],
        lambda a, b: np.linalg.solve(spd_of(a), b)),
    "ldl_solve/indefinite_broadcast": (   # 2x2 blocks of D: the diagonal is small
        lambda a, b: L.ldl_solve(*L.ldl_factor(sym_of(a) * 0.1 + a.mT @ a - a @ a.mT), b),
        "linalg_ldl_solve", [Sample(RNG.standard_normal((4, 4)), RNG.standard_normal((3, 4, 1)))],
        lambda a, b: np.linalg.solve(sym_of(a) * 0.1 + a.T @ a - a @ a.T, b)),
    "matrix_exp": (L.matrix_exp, "linalg_matrix_exp",
                   [Sample(RNG.uniform(-1, 1, (2, 3, 3))), Sample(4 * RNG.standard_normal((3, 3)))],
                   expm_reference),
}


# NOTE: undeclared dtypes are rejected by the public functions, whose errors name them
# ("linalg.solve: ...") rather than the op: test_undeclared_dtypes_are_rejected
OP_CHECKS = tuple(c for c in CHECKS if c != "undeclared_dtype")


@pytest.mark.parametrize("name", sorted(CASES))
def test_linalg_op_table(name, device):
    fn, op, samples, reference = CASES[name]
    check_op(fn, samples, reference, op=op, devices=[device], tol=TOL, checks=OP_CHECKS)


@pytest.mark.parametrize("name", sorted(n for n in CASES if "/" not in n))
def test_undeclared_dtypes_are_rejected(name):
    """int and bool inputs fail naming the function; float16 has no kernel (as torch's cpu)
    and fails naming the op."""
    _, op, samples, _ = CASES[name]
    public = name
    fn = getattr(L, public)
    kwargs = {"upper": True} if public == "solve_triangular" else {}
    for dtype in ("int64", "int32", "bool", "float16"):
        tensors = [minflow.tensor(a.astype(dtype)) for a in samples[0].args]
        fragment = op if dtype == "float16" else f"linalg.{public}: Expected a floating"
        with pytest.raises(RuntimeError, match=fragment):
            fn(*tensors, **kwargs)


def test_matrix_exp_scales_large_norms():
    """Norms far above the Pade bound take the squaring path: exp(t J), J a rotation."""
    t = 40.0
    A = minflow.tensor([[0.0, -t], [t, 0.0]], dtype=minflow.float64)
    expected = [[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]]
    np.testing.assert_allclose(L.matrix_exp(A).numpy(), expected, atol=1e-10)
    diag = minflow.tensor([[0.5, 0.0], [0.0, 30.0]], dtype=minflow.float64)
    np.testing.assert_allclose(L.matrix_exp(diag).numpy(), np.diag(np.exp([0.5, 30.0])),
                               rtol=1e-12)


def _leaf(a):
    return minflow.tensor(a, requires_grad=True)


# composites of the linalg ops and the torch namespace's products: gradcheck and double
# backward in float64 (their forward values are checked against torch in
# test_linalg_torch.py)
COMPOSITES = {
    "lstsq": (lambda a, b: L.lstsq(a, b).solution, [RNG.standard_normal((2, 5, 3)),
                                                    RNG.standard_normal((2, 5, 2))]),
    "lstsq/wide": (lambda a, b: L.lstsq(a, b).solution, [RNG.standard_normal((3, 5)),
                                                         RNG.standard_normal(3)]),
    "matrix_power": (lambda a: L.matrix_power(a, 3), [RNG.standard_normal((2, 3, 3))]),
    "matrix_power/negative": (lambda a: L.matrix_power(a, -2), [well(3, 3)]),
    "multi_dot": (lambda a, b, c: L.multi_dot([a, b, c]),
                  [RNG.standard_normal(3), RNG.standard_normal((3, 4)),
                   RNG.standard_normal((4, 2))]),
    "inv_ex": (lambda a: L.inv_ex(a).inverse, [well(2, 3, 3)]),
    "cond": (L.cond, [well(2, 3, 3)]),
    "matrix_norm/nuc": (lambda a: L.matrix_norm(a, "nuc"), [RNG.standard_normal((2, 3, 4))]),
    "cross": (lambda a, b: L.cross(a, b, dim=0), [RNG.standard_normal((3, 2)),
                                                  RNG.standard_normal((3, 1))]),
    "vecdot": (L.vecdot, [RNG.standard_normal((2, 3)), RNG.standard_normal(3)]),
    "logdet": (lambda a: minflow.logdet(spd_of(a)), [RNG.standard_normal((2, 3, 3))]),
    "triangular_solve": (lambda b, a: minflow.triangular_solve(b, well_of(a)).solution,
                         [RNG.standard_normal((3, 2)), RNG.standard_normal((3, 3))]),
    "kron": (minflow.kron, [RNG.standard_normal((2, 3)), RNG.standard_normal((2, 2))]),
    "tensordot": (lambda a, b: minflow.tensordot(a, b, dims=1),
                  [RNG.standard_normal((2, 3)), RNG.standard_normal((3, 2))]),
    "inner": (minflow.inner, [RNG.standard_normal((2, 3)), RNG.standard_normal((4, 3))]),
    "cdist": (lambda a, b: minflow.cdist(a, b, p=3.0), [RNG.standard_normal((3, 2)),
                                                       RNG.standard_normal((2, 2))]),
    "addmv": (lambda x, m, v: minflow.addmv(x, m, v, beta=0.5, alpha=2),
              [RNG.standard_normal(3), RNG.standard_normal((3, 2)), RNG.standard_normal(2)]),
    "baddbmm": (lambda x, a, b: minflow.baddbmm(x, a, b, alpha=2),
                [RNG.standard_normal((2, 1)), RNG.standard_normal((2, 2, 3)),
                 RNG.standard_normal((2, 3, 1))]),
}


def well_of(a):
    return a + 3 * minflow.eye(a.shape[-1], dtype=a.dtype)


@pytest.mark.parametrize("name", sorted(COMPOSITES))
def test_composite_gradcheck(name):
    fn, arrays = COMPOSITES[name]
    leaves = tuple(_leaf(a) for a in arrays)
    assert gradcheck(fn, leaves) and gradgradcheck(fn, leaves)


def test_inplace_scaled_sums():
    x = minflow.ones(2, 2)
    assert x.addr_(minflow.tensor([1.0, 2.0]), minflow.ones(2), beta=2) is x
    assert x.tolist() == [[3.0, 3.0], [4.0, 4.0]]
    y = minflow.zeros(2)
    y.addmv_(minflow.ones(2, 3), minflow.ones(3), alpha=0.5)
    assert y.tolist() == [1.5, 1.5]


def _qr_stand_in():
    """numpy standing in for cupy, so that ``_qr`` takes cupy's one-matrix-at-a-time path."""
    import types
    return types.SimpleNamespace(linalg=np.linalg, stack=np.stack, empty=np.empty)


@pytest.mark.parametrize("shape", [(2, 3, 4, 3), (2, 3, 3, 4), (0, 3, 3), (2, 0, 4, 2),
                                   (0, 2, 4)])
def test_qr_one_matrix_at_a_time_path(shape):
    """The per-matrix QR that cupy takes, empty batches included, against numpy's own."""
    from minflow.kernels.generic.decomposition import _qr
    a = RNG.standard_normal(shape)
    for mode in ("reduced", "complete", "r", "raw"):
        got, expected = _qr(_qr_stand_in(), a, mode), _qr(np, a, mode)
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert g.shape == e.shape and g.dtype == e.dtype
            np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("shape", [(0, 3, 3), (0, 4, 2), (2, 0, 2, 4)])
def test_qr_empty_batch_as_torch(shape, device):
    torch = pytest.importorskip("torch")
    a = np.zeros(shape)
    for mode in ("reduced", "complete", "r"):
        ours, theirs = L.qr(minflow.tensor(a, device=device), mode=mode), \
            torch.linalg.qr(torch.tensor(a), mode=mode)
        assert [tuple(t.shape) for t in ours] == [tuple(t.shape) for t in theirs]
    ours, theirs = minflow.geqrf(minflow.tensor(a, device=device)), torch.geqrf(torch.tensor(a))
    assert [tuple(t.shape) for t in ours] == [tuple(t.shape) for t in theirs]


def test_lstsq_grad_flags_as_torch():
    """Residuals are differentiable even when empty; singular values are not."""
    A = minflow.randn(4, 3, dtype=minflow.float64, requires_grad=True)
    B = minflow.randn(4, 2, dtype=minflow.float64)
    _, residuals, _, values = minflow.linalg.lstsq(A, B, driver="gelsd")
    assert residuals.requires_grad and not values.requires_grad
    empty = minflow.linalg.lstsq(A, B, driver="gelsy").residuals
    assert empty.shape == (0,) and empty.requires_grad


def test_cross_dim_must_have_length_3_in_both_inputs():
    """The cross dim does not broadcast (length 1 against 3 is rejected, as torch)."""
    with pytest.raises(RuntimeError, match="must have length 3. Got 3 and 1"):
        minflow.linalg.cross(minflow.ones(5, 3), minflow.ones(5, 1))
    with pytest.raises(IndexError, match="no dimensions"):
        minflow.linalg.cross(minflow.tensor(1.0), minflow.tensor(1.0))
    assert minflow.linalg.cross(minflow.ones(1, 3), minflow.ones(4, 3)).shape == (4, 3)

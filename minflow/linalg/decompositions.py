"""Factorizations and what is built on them: cholesky, qr, svd, eigh, eig, slogdet, pinv,
matrix_rank and cond, with torch.linalg's names and results (named tuples), and the torch
namespace's cholesky, svd, slogdet, logdet and pinverse.

The factorizations are ops (minflow/ops/decomposition.py); the rest are composites.
"""
import numbers

from ..core import dtype as dtypes
from ..core.dispatch import LinAlgError, apply
from ..core.dtype_info import finfo
from ..core.functional import public
from ..core.grad_mode import is_grad_enabled
from ..core.inplace import write_out
from ..core.namespace import F
from ..ops.decomposition import CHOLESKY_EX, EIGH, PINV, QR, SLOGDET, SVD
from ..ops.eig import EIG, check_eig_input
from ..ops.solve import check_matrix, check_square
from .lu import solve_ex
from .returns import return_type

__all__ = ["cholesky", "cholesky_ex", "inv_ex", "qr", "svd", "svdvals", "eigh", "eigvalsh",
           "eig", "eigvals", "slogdet", "pinv", "matrix_rank", "cond"]

_CHOLESKY_EX = return_type("linalg_cholesky_ex", ["L", "info"])
_INV_EX = return_type("linalg_inv_ex", ["inverse", "info"])
_QR = return_type("linalg_qr", ["Q", "R"])
_SVD = return_type("linalg_svd", ["U", "S", "Vh"])
_TORCH_SVD = return_type("svd", ["U", "S", "V"])
_EIGH = return_type("linalg_eigh", ["eigenvalues", "eigenvectors"])
_EIG = return_type("linalg_eig", ["eigenvalues", "eigenvectors"])
_SLOGDET = return_type("linalg_slogdet", ["sign", "logabsdet"])
_TORCH_SLOGDET = return_type("slogdet", ["sign", "logabsdet"])


def _needs_grad(A):
    return is_grad_enabled() and A.requires_grad


def _write(result, out, name):
    return result if out is None else write_out(result, out, name)


def _write_all(results, outs, name):
    """Each result into its ``out=`` tensor (``outs``: a tuple, as torch's)."""
    return type(results)(*[_write(r, o, name) for r, o in zip(results, outs)])


def cholesky(A, *, upper=False, out=None):
    """cholesky(A, *, upper=False, out=None) -> Tensor

    L, lower triangular with a positive diagonal, with A = L L^T for each symmetric
    positive-definite A (only its lower triangle is read; ``upper=True``: U = L^T from the
    upper triangle). LinAlgError names the first leading minor that is not positive-definite.

    >>> minflow.linalg.cholesky(minflow.tensor([[4.0, 2.0], [2.0, 2.0]])).tolist()
    [[2.0, 0.0], [1.0, 1.0]]
    """
    check_square("linalg.cholesky", A)
    L = apply(CHOLESKY_EX, (A,), {"upper": upper, "check_errors": True})[0]
    return _write(L, out, "linalg.cholesky")


def cholesky_ex(A, *, upper=False, check_errors=False):
    """cholesky_ex(A, *, upper=False, check_errors=False) -> (L, info)

    cholesky without the error: ``info`` (int32, per matrix) is 0 where the factorization
    succeeded, else the order of the first leading minor that is not positive-definite
    (L is then NaN there). ``check_errors=True`` raises as cholesky.

    >>> minflow.linalg.cholesky_ex(minflow.tensor([[1.0, 2.0], [2.0, 1.0]])).info.item()
    2
    """
    check_square("linalg.cholesky_ex", A)
    try:
        return _CHOLESKY_EX(*apply(CHOLESKY_EX, (A,), {"upper": upper,
                                                       "check_errors": check_errors}))
    except LinAlgError as err:      # the kernel's message names linalg.cholesky
        raise LinAlgError(str(err).replace("linalg.cholesky:", "linalg.cholesky_ex:", 1)
                          ) from None


def inv_ex(A, *, check_errors=False):
    """inv_ex(A, *, check_errors=False) -> (inverse, info)

    inv without the error: solve_ex(A, I), as torch. ``info`` (int32, per matrix) is 0
    where A is invertible, else the first zero on the diagonal of A's LU factor U (the
    inverse then holds inf / nan).

    >>> minflow.linalg.inv_ex(minflow.eye(2) * 2).inverse.tolist()
    [[0.5, 0.0], [0.0, 0.5]]
    """
    check_square("linalg.inv_ex", A)
    if check_errors:
        inverse = F.inverse(A)
        return _INV_EX(inverse, F.zeros(tuple(A.shape[:-2]), dtype=dtypes.int32,
                                        device=A.device))
    eye = F.expand(F.eye(A.shape[-1], dtype=A.dtype, device=A.device), tuple(A.shape))
    return _INV_EX(*solve_ex(A, eye))


def qr(A, mode="reduced", *, out=None):
    """qr(A, mode='reduced', *, out=None) -> (Q, R)

    A = Q R with Q's columns orthonormal and R upper triangular. ``mode``: 'reduced'
    (Q: m x k, R: k x n, k = min(m, n)), 'complete' (Q: m x m, R: m x n) or 'r' (R only;
    Q empty). Differentiable except mode 'r', and 'complete' with m > n.

    >>> Q, R = minflow.linalg.qr(minflow.tensor([[3.0, 1.0], [4.0, 2.0]]))
    >>> [round(v, 4) for v in R.abs().flatten().tolist()]
    [5.0, 2.2, 0.0, 0.4]
    """
    check_matrix("linalg.qr", A)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"linalg.qr: qr received unrecognized mode {mode!r} but expected "
                           f"one of 'reduced' (default), 'r', or 'complete'")
    result = _QR(*apply(QR, (A,), {"mode": mode}))
    return result if out is None else _write_all(result, out, "linalg.qr")


def svd(A, full_matrices=True, *, driver=None, out=None):
    """svd(A, full_matrices=True, *, driver=None, out=None) -> (U, S, Vh)

    A = U diag(S) Vh, S descending and non-negative; U: m x m and Vh: n x n with
    ``full_matrices``, else m x k and k x n (k = min(m, n)). The gradient through U or Vh
    needs distinct singular values (as torch). ``driver`` is accepted for cuda scripts
    and ignored.

    >>> U, S, Vh = minflow.linalg.svd(minflow.tensor([[3.0, 0.0], [0.0, -4.0]]))
    >>> S.tolist()
    [4.0, 3.0]
    """
    check_matrix("linalg.svd", A)
    result = _SVD(*apply(SVD, (A,), {"full_matrices": full_matrices, "compute_uv": True}))
    return result if out is None else _write_all(result, out, "linalg.svd")


def svdvals(A, *, driver=None, out=None):
    """svdvals(A, *, driver=None, out=None) -> Tensor

    The singular values of each matrix, descending. Differentiable (the vectors are then
    computed too), with a gradient U diag(g) Vh that is stable for repeated values.

    >>> minflow.linalg.svdvals(minflow.tensor([[0.0, 2.0], [1.0, 0.0]])).tolist()
    [2.0, 1.0]
    """
    check_matrix("linalg.svdvals", A)
    S = apply(SVD, (A,), {"full_matrices": False, "compute_uv": _needs_grad(A)})[1]
    return S if out is None else _write(S, out, "linalg.svdvals")


def _check_uplo(name, UPLO):
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"{name}: Expected UPLO argument to be 'L' or 'U', but got {UPLO!r}")


def eigh(A, UPLO="L", *, out=None):
    """eigh(A, UPLO='L', *, out=None) -> (eigenvalues, eigenvectors)

    The eigenvalues (ascending) and orthonormal eigenvectors (columns) of each symmetric
    matrix, read from A's lower (UPLO='L') or upper ('U') triangle. The gradient through
    the eigenvectors needs distinct eigenvalues; like torch's, it is not symmetrised.

    >>> minflow.linalg.eigh(minflow.tensor([[2.0, 1.0], [1.0, 2.0]])).eigenvalues.tolist()
    [1.0, 3.0]
    """
    check_square("linalg.eigh", A)
    _check_uplo("linalg.eigh", UPLO)
    result = _EIGH(*apply(EIGH, (A,), {"UPLO": UPLO, "compute_v": True}))
    return result if out is None else _write_all(result, out, "linalg.eigh")


def eigvalsh(A, UPLO="L", *, out=None):
    """eigvalsh(A, UPLO='L', *, out=None) -> Tensor

    The eigenvalues (ascending) of each symmetric matrix, read from one triangle of A.

    >>> minflow.linalg.eigvalsh(minflow.tensor([[2.0, 9.0], [1.0, 2.0]], dtype=minflow.float64))
    tensor([1., 3.], dtype=minflow.float64)
    """
    check_square("linalg.eigvalsh", A)
    _check_uplo("linalg.eigvalsh", UPLO)
    L = apply(EIGH, (A,), {"UPLO": UPLO, "compute_v": _needs_grad(A)})[0]
    return L if out is None else _write(L, out, "linalg.eigvalsh")


def eig(A, *, out=None):
    """eig(A, *, out=None) -> (eigenvalues, eigenvectors)

    The complex eigenvalues L and eigenvectors V (columns, each of unit norm, as LAPACK
    and torch normalize them) of each square matrix: A V = V diag(L). Real inputs give
    complex64 / complex128. The gradient (torch's) needs distinct eigenvalues, and a loss
    that does not depend on each eigenvector's phase.

    >>> L, V = minflow.linalg.eig(minflow.tensor([[0.0, -1.0], [1.0, 0.0]]))
    >>> L
    tensor([0.+1.j, 0.-1.j])
    """
    check_eig_input("linalg.eig", A)
    result = _EIG(*apply(EIG, (A,), {"compute_v": True}))
    return result if out is None else _write_all(result, out, "linalg.eig")


def eigvals(A, *, out=None):
    """eigvals(A, *, out=None) -> Tensor: the complex eigenvalues of each square matrix
    (see :func:`eig`).

    >>> minflow.linalg.eigvals(minflow.tensor([[2.0, 0.0], [0.0, 3.0]]))
    tensor([2.+0.j, 3.+0.j])
    """
    check_eig_input("linalg.eigvals", A)
    L = apply(EIG, (A,), {"compute_v": _needs_grad(A)})[0]
    return _write(L, out, "linalg.eigvals")


def slogdet(A, *, out=None):
    """slogdet(A, *, out=None) -> (sign, logabsdet)

    The sign of det A and log|det A| (sign 0 and -inf for a singular A): the determinant
    without overflow. log|det A| has gradient A^-T.

    >>> minflow.linalg.slogdet(minflow.tensor([[-2.0, 0.0], [0.0, 3.0]])).sign.item()
    -1.0
    """
    check_square("linalg.slogdet", A)
    result = _SLOGDET(*apply(SLOGDET, (A,), {}))
    return result if out is None else _write_all(result, out, "linalg.slogdet")


def _tolerance(name, value, what):
    """A float, a Tensor (one tolerance per matrix, broadcast over the batch) or None."""
    if value is None or _is_tensor(value):
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}: expected {what} to be a float, a Tensor or None, got "
                        f"{type(value).__name__}")
    return float(value)


def _is_tensor(value):
    return hasattr(value, "_data")


def _cutoff(S, atol, rtol, shape):
    """max(atol, rtol * max|S|) per matrix, shape (..., 1); rtol defaults to eps * max(m, n),
    or to 0 where atol > 0, as torch."""
    default = finfo(S.dtype).eps * max(shape[-2:])
    atol, rtol = (F.unsqueeze(F.cast(t, S.dtype), -1) if _is_tensor(t) else t
                  for t in (atol, rtol))
    if rtol is None:
        rtol = default if atol is None else (
            F.where(F.gt(atol, 0), 0.0, default) if _is_tensor(atol) else
            (0.0 if atol > 0 else default))
    top = F.amax(S, -1, keepdim=True) if S.shape[-1] else S
    cut = F.mul(top, rtol)
    return cut if atol is None else F.maximum(cut, atol if _is_tensor(atol) else
                                             F.full_like(cut, atol))


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """pinv(A, *, atol=None, rtol=None, hermitian=False, out=None) -> Tensor

    The Moore-Penrose pseudo-inverse V diag(1/S) U^T, dropping singular values at or below
    max(atol, rtol * S_max); rtol defaults to eps * max(m, n) (0 where atol > 0). ``atol``
    and ``rtol`` are floats or tensors of tolerances per matrix. ``hermitian``: A is
    symmetric, read through eigh.

    >>> minflow.linalg.pinv(minflow.tensor([[1.0, 0.0], [0.0, 0.0]])).tolist()
    [[1.0, 0.0], [0.0, 0.0]]
    """
    name = "linalg.pinv"
    (check_square if hermitian else check_matrix)(name, A)
    tolerances = [_tolerance(name, t, what) for t, what in ((atol, "atol"), (rtol, "rtol"))]
    tolerances = [t if t is None or _is_tensor(t) else F.full((), t, dtype=A.dtype,
                                                                 device=A.device)
                  for t in tolerances]
    tolerances = [F.cast(t, A.dtype) if t is not None else None for t in tolerances]
    result = apply(PINV, (A, *tolerances), {"hermitian": hermitian})
    return result if out is None else _write(result, out, name)


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """matrix_rank(A, *, atol=None, rtol=None, hermitian=False, out=None) -> Tensor

    The number of singular values (|eigenvalues| if ``hermitian``) above
    max(atol, rtol * S_max), as int64; tolerances as pinv.

    >>> minflow.linalg.matrix_rank(minflow.tensor([[1.0, 2.0], [2.0, 4.0]])).item()
    1
    """
    name = "linalg.matrix_rank"
    (check_square if hermitian else check_matrix)(name, A)
    atol, rtol = _tolerance(name, atol, "atol"), _tolerance(name, rtol, "rtol")
    A = A.detach()
    if hermitian:
        S = F.abs(apply(EIGH, (A,), {"UPLO": "L", "compute_v": False})[0])
    else:
        S = apply(SVD, (A,), {"full_matrices": False, "compute_uv": False})[1]
    rank = F.sum(F.gt(S, _cutoff(S, atol, rtol, tuple(A.shape))), -1)
    return rank if out is None else _write(rank, out, name)


def cond(A, p=None, *, out=None):
    """cond(A, p=None, *, out=None) -> Tensor

    The condition number: S_max / S_min for p None or 2, S_min / S_max for -2, else
    matrix_norm(A, p) * matrix_norm(inv(A), p) ('fro', 'nuc', inf, -inf, 1, -1).

    >>> minflow.linalg.cond(minflow.tensor([[2.0, 0.0], [0.0, 0.5]])).item()
    4.0
    """
    from .norms import matrix_norm
    name = "linalg.cond"
    check_matrix(name, A)
    if p is None or p in (2, -2):
        S = svdvals(A)
        first, last = F.select(S, -1, 0), F.select(S, -1, -1)
        result = F.div(first, last) if p != -2 else F.div(last, first)
    else:
        check_square(name, A)
        result = F.mul(matrix_norm(A, p), matrix_norm(F.inverse(A), p))
    return result if out is None else _write(result, out, name)


# ---- the torch namespace's versions ------------------------------------------------------

@public(name="cholesky", method=True)
def torch_cholesky(input, upper=False, *, out=None):
    """cholesky(input, upper=False, *, out=None) -> Tensor, as linalg.cholesky (upper
    positional, as torch.cholesky).

    >>> minflow.cholesky(minflow.tensor([[4.0, 2.0], [2.0, 2.0]]), True).tolist()
    [[2.0, 1.0], [0.0, 1.0]]
    """
    return cholesky(input, upper=upper, out=out)


@public(name="slogdet", method=True)
def torch_slogdet(input):
    """slogdet(input) -> (sign, logabsdet), as linalg.slogdet.

    >>> round(minflow.slogdet(minflow.eye(2) * 3).logabsdet.item(), 4)
    2.1972
    """
    return _TORCH_SLOGDET(*slogdet(input))


@public(method=True)
def logdet(input):
    """logdet(input) -> Tensor: log det A, NaN where det A < 0 and -inf where it is 0.

    >>> round(minflow.logdet(minflow.eye(2) * 2).item(), 4)
    1.3863
    """
    sign, logabsdet = slogdet(input)
    return F.where(F.lt(sign, 0), float("nan"), F.where(F.eq(sign, 0), float("-inf"),
                                                          logabsdet))


@public(name="svd", method=True)
def torch_svd(input, some=True, compute_uv=True, *, out=None):
    """svd(input, some=True, compute_uv=True, *, out=None) -> (U, S, V)

    torch.svd's convention: V (not V^T), reduced unless ``some=False``; with
    ``compute_uv=False`` U and V are zero matrices, m x m and n x n.

    >>> U, S, V = minflow.svd(minflow.tensor([[3.0, 0.0], [0.0, 4.0]]))
    >>> S.tolist()
    [4.0, 3.0]
    """
    if not compute_uv:
        batch, (m, n) = tuple(input.shape[:-2]), tuple(input.shape[-2:])
        U, V = (F.zeros(batch + (k, k), dtype=input.dtype, device=input.device) for k in (m, n))
        return _TORCH_SVD(U, svdvals(input), V)
    U, S, Vh = svd(input, full_matrices=not some)
    result = _TORCH_SVD(U, S, F.transpose(Vh, -1, -2))
    return result if out is None else _write_all(result, out, "svd")


@public(method=True)
def pinverse(input, rcond=1e-15):
    """pinverse(input, rcond=1e-15) -> Tensor: linalg.pinv with rtol=rcond.

    >>> minflow.pinverse(minflow.tensor([[2.0, 0.0]])).tolist()
    [[0.5], [0.0]]
    """
    return pinv(input, rtol=rcond)

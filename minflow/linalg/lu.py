"""The LU family: lu_factor, lu_factor_ex, lu, lu_solve and solve_ex, with torch.linalg's
names and results, and the torch namespace's lu, lu_unpack and lu_solve.

One op factors (``linalg_lu_factor_ex``, minflow/ops/lu.py, with its gradient); the rest
are composites of it, of the pivots' permutation and of triangular solves.
"""
import re

from ..core import dtype as dtypes
from ..core.dispatch import LinAlgError, apply
from ..core.functional import public
from ..core.inplace import write_out
from ..core.namespace import F
from ..ops.infer import broadcast_shapes
from ..ops.lu import LU_FACTOR_EX, PIVOTS_TO_PERMUTATION, unpack
from ..ops.solve import check_matrix, check_same_dtype, check_square
from .returns import return_type
from .solve import mT, solve_system, solve_triangular

__all__ = ["lu_factor", "lu_factor_ex", "lu", "lu_solve", "solve_ex"]

_LU_FACTOR = return_type("linalg_lu_factor", ["LU", "pivots"])
_LU_FACTOR_EX = return_type("linalg_lu_factor_ex", ["LU", "pivots", "info"])
_LU = return_type("linalg_lu", ["P", "L", "U"])
_LU_UNPACK = return_type("lu_unpack", ["P", "L", "U"])
_LU_WITH_INFO = return_type("_lu_with_info", ["LU", "pivots", "info"])
_SOLVE_EX = return_type("linalg_solve_ex", ["result", "info"])


def _write_all(results, outs, name):
    if outs is None:
        return results
    return type(results)(*[write_out(r, o, name) for r, o in zip(results, outs)])


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """lu_factor_ex(A, *, pivot=True, check_errors=False, out=None) -> (LU, pivots, info)

    P A = L U by Gaussian elimination with partial pivoting (LAPACK getrf's row choice:
    the largest |value| of the column, the first on ties), for each m x n matrix of A.
    LU holds L (unit lower, below the diagonal) and U; ``pivots`` (int32, 1-based) says
    that row i was swapped with row pivots[i], in order; ``info`` (int32) is the first
    k with U[k, k] == 0 (1-based), else 0. ``pivot=False`` factors without row swaps (as
    torch on cuda; its cpu raises).

    >>> LU, pivots, info = minflow.linalg.lu_factor_ex(minflow.tensor([[1.0, 2.0], [4.0, 4.0]]))
    >>> LU.tolist(), pivots.tolist(), info.item()
    ([[4.0, 4.0], [0.25, 1.0]], [2, 2], 0)
    """
    check_matrix("torch.linalg.lu_factor_ex", A)
    result = _LU_FACTOR_EX(*apply(LU_FACTOR_EX, (A,), {"pivot": pivot,
                                                       "check_errors": check_errors}))
    return _write_all(result, out, "linalg.lu_factor_ex")


def lu_factor(A, *, pivot=True, out=None):
    """lu_factor(A, *, pivot=True, out=None) -> (LU, pivots)

    lu_factor_ex's LU and pivots; a zero on U's diagonal raises RuntimeError (lu_solve
    would divide by it), as torch.

    >>> LU, pivots = minflow.linalg.lu_factor(minflow.tensor([[0.0, 1.0], [2.0, 0.0]]))
    >>> LU.tolist(), pivots.tolist()
    ([[2.0, 0.0], [0.0, 1.0]], [2, 2])
    """
    check_matrix("torch.linalg.lu_factor", A)
    LU, pivots, _ = apply(LU_FACTOR_EX, (A,), {"pivot": pivot, "check_errors": True})
    return _write_all(_LU_FACTOR(LU, pivots), out, "linalg.lu_factor")


def lu(A, *, pivot=True, out=None):
    """lu(A, *, pivot=True, out=None) -> (P, L, U)

    A = P L U for each m x n matrix: P a permutation matrix (m x m), L unit lower
    triangular (m x k), U upper triangular (k x n), k = min(m, n). Differentiable
    (torch's LU backward). ``pivot=False``: A = L U and P is empty.

    >>> P, L, U = minflow.linalg.lu(minflow.tensor([[0.0, 1.0], [2.0, 3.0]]))
    >>> P.tolist(), L.tolist(), U.tolist()
    ([[0.0, 1.0], [1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]], [[2.0, 3.0], [0.0, 1.0]])
    """
    check_matrix("torch.linalg.lu", A)
    LU, pivots, _ = apply(LU_FACTOR_EX, (A,), {"pivot": pivot, "check_errors": False})
    P, L, U = unpack(LU, pivots, unpack_pivots=pivot)
    if P is None:
        P = F.zeros(0, dtype=A.dtype, device=A.device)
    return _write_all(_LU(P, L, U), out, "linalg.lu")


def _check_lu_solve(name, LU, pivots, B, left):
    check_square(name, LU, "A")
    if pivots.dtype is not dtypes.int32:
        raise RuntimeError(f"{name}: pivots should be a Tensor of scalar type int32, got "
                           f"{pivots.dtype.name}")
    if tuple(pivots.shape[:-1]) != tuple(LU.shape[:-2]):
        raise RuntimeError(f"{name}: Expected LU.shape[:-1] and pivots.shape to be the same, "
                           f"but got LU of shape {list(LU.shape)} and pivots with shape "
                           f"{list(pivots.shape)}")
    if pivots.shape[-1] != LU.shape[-1]:
        raise RuntimeError(f"{name}: Number of pivots per batch should be same as the "
                           f"dimension of the matrix, got {pivots.shape[-1]} pivots for "
                           f"{LU.shape[-1]}x{LU.shape[-1]} matrices")
    if B.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions, got "
                           f"shape {list(B.shape)}")
    check_same_dtype(name, LU, B, ("LU", "B"))
    n = LU.shape[-1]
    if B.shape[-2 if left else -1] != n:
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and "
                           f"{B.shape[-2]}x{B.shape[-1]})")


def _rows(B, perm):
    """B[..., perm[i], :] for each row i (perm: (..., n) with B's batch shape)."""
    index = F.expand(F.unsqueeze(perm, -1), tuple(B.shape))
    return F.gather(B, -2, index)


def _solve_factored(LU, perm, B, adjoint):
    """X with A X = B (A^T X = B if ``adjoint``), P A = L U packed in LU, perm P's rows;
    LU, perm and B share their batch shape."""
    if not adjoint:     # X = U^-1 L^-1 P^T B
        Y = solve_triangular(LU, _rows(B, perm), upper=False, unitriangular=True)
        return solve_triangular(LU, Y, upper=True)
    Y = solve_triangular(mT(LU), B, upper=False)                   # U^-T B
    Y = solve_triangular(mT(LU), Y, upper=True, unitriangular=True)  # L^-T U^-T B
    return _rows(Y, F.argsort(perm, -1))                            # P L^-T U^-T B


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None) -> Tensor

    X with A X = B from lu_factor's (LU, pivots) of a square A: A^T X = B if ``adjoint``,
    X A = B if not ``left`` (X A^T = B with both). Batch dims of LU and B broadcast;
    pivots has LU's. Differentiable in LU and B.

    >>> A = minflow.tensor([[2.0, 1.0], [1.0, 3.0]])
    >>> LU, pivots = minflow.linalg.lu_factor(A)
    >>> minflow.linalg.lu_solve(LU, pivots, minflow.tensor([[3.0], [4.0]])).tolist()
    [[1.0], [1.0]]
    """
    name = "linalg.lu_solve"
    _check_lu_solve(name, LU, pivots, B, left)
    if not left:        # X A = B: A^T X^T = B^T
        X = mT(lu_solve(LU, pivots, mT(B), adjoint=not adjoint))
        return X if out is None else write_out(X, out, name)
    n = LU.shape[-1]
    try:
        batch = broadcast_shapes(tuple(LU.shape[:-2]), tuple(B.shape[:-2]))
    except RuntimeError:
        raise RuntimeError(f"{name}: the batch dims of LU {list(LU.shape)} and B "
                           f"{list(B.shape)} must broadcast") from None
    perm = apply(PIVOTS_TO_PERMUTATION, (pivots,), {"m": n})
    LU, perm = F.expand(LU, batch + (n, n)), F.expand(perm, batch + (n,))
    X = _solve_factored(LU, perm, F.expand(B, batch + tuple(B.shape[-2:])), adjoint)
    return X if out is None else write_out(X, out, name)


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """solve_ex(A, B, *, left=True, check_errors=False, out=None) -> (result, info)

    linalg.solve through an LU factorization, without its error: ``info`` (int32, per
    matrix) is lu_factor_ex's (0, or the first zero on U's diagonal, where ``result`` holds
    inf / nan). ``check_errors=True`` raises LinAlgError for a singular A.

    >>> A = minflow.tensor([[2.0, 0.0], [0.0, 0.0]])
    >>> minflow.linalg.solve_ex(A, minflow.tensor([2.0, 1.0])).info.item()
    2
    """
    name = "torch.linalg.solve_ex"
    check_square(name, A)
    check_same_dtype(name, A, B)
    try:
        LU, pivots, info = apply(LU_FACTOR_EX, (A,), {"pivot": True,
                                                      "check_errors": check_errors})
    except RuntimeError as err:     # the kernel's error names lu_factor
        where = re.search(r"\(Batch element \d+\): ", str(err))
        raise LinAlgError(f"{name}: {where.group(0) if where else ''}The solver failed "
                          f"because the input matrix is singular.") from None
    X = solve_system(name, A, B, left, lambda B2, adjoint: lu_solve(LU, pivots, B2,
                                                                     adjoint=adjoint))
    return _write_all(_SOLVE_EX(X, info), out, name)


# ---- the torch namespace's versions ------------------------------------------------------

@public(name="lu", method=True)
def torch_lu(A, pivot=True, get_infos=False, out=None):
    """lu(A, pivot=True, get_infos=False, out=None) -> (LU, pivots[, infos])

    linalg.lu_factor_ex's results, ``infos`` only with ``get_infos`` (a singular A never
    raises, as torch.lu).

    >>> LU, pivots = minflow.lu(minflow.tensor([[1.0, 2.0], [2.0, 4.0]]))
    >>> LU.tolist(), pivots.tolist()
    ([[2.0, 4.0], [0.5, 0.0]], [2, 2])
    """
    check_matrix("torch.lu", A)
    LU, pivots, info = apply(LU_FACTOR_EX, (A,), {"pivot": pivot, "check_errors": False})
    result = _LU_WITH_INFO(LU, pivots, info) if get_infos else (LU, pivots)
    return _write_all(result, out, "lu")


@public
def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None)

    (P, L, U) with A = P L U from lu_factor's results; a part not unpacked is an empty
    tensor. Differentiable in LU_data.

    >>> LU, pivots = minflow.linalg.lu_factor(minflow.tensor([[0.0, 1.0], [2.0, 3.0]]))
    >>> minflow.lu_unpack(LU, pivots).P.tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    name = "torch.lu_unpack"
    check_matrix(name, LU_data, "LU_data")
    if LU_pivots.dtype is not dtypes.int32:
        raise RuntimeError(f"{name}: LU_pivots is expected to be a contiguous tensor of int32 "
                           f"dtype, got {LU_pivots.dtype.name}. Note: this function is "
                           f"intended to be used with the output produced by "
                           f"torch.linalg.lu_factor")
    k = min(LU_data.shape[-2:])
    if tuple(LU_pivots.shape) != tuple(LU_data.shape[:-2]) + (k,):
        raise RuntimeError(f"{name}: expected LU_pivots of shape "
                           f"{list(LU_data.shape[:-2]) + [k]} for LU_data of shape "
                           f"{list(LU_data.shape)}, got {list(LU_pivots.shape)}")
    parts = unpack(LU_data, LU_pivots, unpack_data, unpack_pivots)
    empty = F.zeros(0, dtype=LU_data.dtype, device=LU_data.device)
    result = _LU_UNPACK(*(empty if p is None else p for p in parts))
    return _write_all(result, out, "lu_unpack")


@public(name="lu_solve", method=True)
def torch_lu_solve(b, LU_data, LU_pivots, *, out=None):
    """lu_solve(b, LU_data, LU_pivots, *, out=None) -> Tensor: linalg.lu_solve(LU_data,
    LU_pivots, b), as torch.lu_solve.

    >>> LU, pivots = minflow.linalg.lu_factor(minflow.eye(2) * 2)
    >>> minflow.lu_solve(minflow.ones(2, 1), LU, pivots).tolist()
    [[0.5], [0.5]]
    """
    return lu_solve(LU_data, LU_pivots, b, out=out)

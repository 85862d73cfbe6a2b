"""The LU factorization with partial pivoting, and the permutation its pivots encode.

``linalg_lu_factor_ex`` is the one primitive of the LU family: lu, lu_factor, lu_solve,
lu_unpack and solve_ex (minflow/linalg/lu.py) are composites of it, of
``lu_pivots_to_permutation`` and of triangular solves.
Kernels: kernels/generic/lu.py; grad function: autograd/grads/lu.py.
"""
from ..core import dtype as dtypes
from ..core.dispatch import apply
from ..core.namespace import F
from .registry import Attr, define_op
from .solve import OPAQUE, check_matrix


def _lu_factor_infer(A, pivot, check_errors):
    check_matrix("linalg_lu_factor_ex", A)
    shape = tuple(A.shape)
    batch, k = shape[:-2], min(shape[-2:])
    return (shape, A.dtype), (batch + (k,), dtypes.int32), (batch, dtypes.int32)


LU_FACTOR_EX = define_op(
    "linalg_lu_factor_ex", ["A"], ("LU", "pivots", "info"), infer=_lu_factor_infer,
    attrs=[Attr("pivot", "bool", True), Attr("check_errors", "bool", False)], traits=OPAQUE,
    doc="P A = L U packed in one matrix (L unit lower, below the diagonal; U upper), "
        "LAPACK's 1-based int32 pivots, and info: the first k with U[k, k] == 0, else 0.")


def _permutation_infer(pivots, m):
    if pivots.dtype is not dtypes.int32:
        raise RuntimeError(f"lu_pivots_to_permutation: expected pivots of dtype int32, got "
                           f"{pivots.dtype.name}")
    if pivots.ndim < 1 or pivots.shape[-1] > m:
        raise RuntimeError(f"lu_pivots_to_permutation: expected pivots of shape [..., k] with "
                           f"k <= m = {m}, got {list(pivots.shape)}")
    return tuple(pivots.shape[:-1]) + (m,), dtypes.int64


PIVOTS_TO_PERMUTATION = define_op(
    "lu_pivots_to_permutation", ["pivots"], infer=_permutation_infer,
    attrs=[Attr("m", "int", min=0)], traits=("no_grad",) + OPAQUE,
    doc="perm with (P^T A)[i] = A[perm[i]]: the row swaps i <-> pivots[i] - 1, applied in "
        "order to arange(m).")


def unpack(LU, pivots, unpack_data=True, unpack_pivots=True):
    """(P, L, U) with A = P L U from lu_factor's packed result (None for a part not asked
    for): L unit lower m x k, U upper k x n, P the m x m permutation of ``pivots``.
    Differentiable in LU (through tril / triu)."""
    m, n = LU.shape[-2:]
    k = min(m, n)
    L = U = P = None
    if unpack_data:
        eye = F.eye(m, k, dtype=LU.dtype, device=LU.device)
        L = F.add(F.tril(F.narrow(LU, -1, 0, k), -1), eye)
        U = F.triu(F.narrow(LU, -2, 0, k))
    if unpack_pivots:
        perm = apply(PIVOTS_TO_PERMUTATION, (pivots,), {"m": m})
        rows = F.arange(m, device=LU.device)
        P = F.cast(F.eq(F.unsqueeze(perm, -2), F.unsqueeze(rows, -1)), LU.dtype)
    return P, L, U

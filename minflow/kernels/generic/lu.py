"""Kernels of the LU family, written once against the array module: numpy.linalg has no LU,
and the same code runs on cupy (every matrix of the batch at once, one column a step).
"""
import contextlib
import math

from ...core.dtype import int32
from ..registry import register_kernel
from .matrix import LINALG
from .solve import batch_prefix


def _choose_pivots(xp, LU, j, rows):
    """Swap row j of every matrix with the row, at or below j, of the largest |value| in
    column j (the first on ties, as LAPACK's getrf); the pivot row indices (0-based)."""
    p = j + xp.argmax(xp.abs(LU[:, j:, j]), axis=1)
    top = LU[:, j, :].copy()
    LU[:, j, :] = LU[rows, p, :]
    LU[rows, p, :] = top
    return p


def _eliminate(xp, LU, j):
    """Column j below the diagonal becomes L's multipliers; the trailing block is updated.
    As LAPACK, a zero pivot leaves its column alone (all zero when pivoting)."""
    d = LU[:, j, j]
    nonzero = d != 0
    # NOTE: LAPACK scales by the reciprocal (dscal by 1 / pivot), not by dividing
    scale = xp.where(nonzero, 1 / xp.where(nonzero, d, 1), 1).astype(LU.dtype)
    LU[:, j + 1:, j] *= scale[:, None]
    LU[:, j + 1:, j + 1:] -= LU[:, j + 1:, j:j + 1] * LU[:, j:j + 1, j + 1:]
    return nonzero


def _lu_no_pivot_column(xp, LU, j):
    """Without pivoting a zero pivot divides by zero (inf / nan), as torch on cuda."""
    LU[:, j + 1:, j] /= LU[:, j:j + 1, j]
    LU[:, j + 1:, j + 1:] -= LU[:, j + 1:, j:j + 1] * LU[:, j:j + 1, j + 1:]
    return LU[:, j, j] != 0


@register_kernel("linalg_lu_factor_ex", ("cpu", "cuda"), LINALG)
def linalg_lu_factor_ex(xp, A, pivot, check_errors):
    """Right-looking Gaussian elimination with partial pivoting (LAPACK getf2's choices)."""
    batch, (m, n) = A.shape[:-2], A.shape[-2:]
    k = min(m, n)
    count = math.prod(batch)
    LU = A.reshape((count, m, n)).copy()
    rows = xp.arange(count)
    pivots = xp.broadcast_to(xp.arange(1, k + 1, dtype=xp.int32), (count, k)).copy()
    info = xp.zeros(count, xp.int32)
    with quiet_division(xp):
        for j in range(k):
            if pivot:
                pivots[:, j] = _choose_pivots(xp, LU, j, rows) + 1
                nonzero = _eliminate(xp, LU, j)
            else:
                nonzero = _lu_no_pivot_column(xp, LU, j)
            info = xp.where((info == 0) & ~nonzero, j + 1, info).astype(xp.int32)
    info = info.reshape(batch)
    if check_errors and bool((info > 0).any()):
        bad = info > 0
        first = int(info.reshape(-1)[int(xp.flatnonzero(bad.reshape(-1))[0])])
        raise RuntimeError(        # as torch: a RuntimeError, not a LinAlgError
            f"torch.linalg.lu_factor: {batch_prefix(xp, bad, batch)}U[{first},{first}] is zero "
            f"and using it on lu_solve would result in a division by zero. If you still want "
            f"to perform the factorization, consider calling linalg.lu(A, pivot) or "
            f"linalg.lu_factor_ex(A, pivot)")
    return LU.reshape(A.shape), pivots.reshape(batch + (k,)), info


def quiet_division(xp):
    """Division by a zero pivot is expected (no pivoting, singular blocks): no numpy
    warning (cupy gives none)."""
    return xp.errstate(divide="ignore", invalid="ignore") if hasattr(xp, "errstate") else \
        contextlib.nullcontext()


@register_kernel("lu_pivots_to_permutation", ("cpu", "cuda"), (int32,))
def lu_pivots_to_permutation(xp, pivots, m):
    """The row swaps i <-> pivots[i] - 1, in order, applied to arange(m) of each matrix."""
    batch, k = pivots.shape[:-1], pivots.shape[-1]
    flat = pivots.reshape((math.prod(batch), k)).astype(xp.int64) - 1
    if flat.size and bool(((flat < 0) | (flat >= m)).any()):
        raise RuntimeError(f"lu_pivots_to_permutation: pivots must be between 1 and "
                           f"LU.size(-2) = {m} inclusive, got values from "
                           f"{int(flat.min()) + 1} to {int(flat.max()) + 1}. Did you "
                           f"properly pass the result of lu_factor?")
    perm = xp.broadcast_to(xp.arange(m, dtype=xp.int64), (flat.shape[0], m)).copy()
    rows = xp.arange(flat.shape[0])
    for i in range(k):
        target = flat[:, i]
        here = perm[:, i].copy()
        perm[:, i] = perm[rows, target]
        perm[rows, target] = here
    return perm.reshape(batch + (m,))

"""Kernels of the LDL^T factorization (LAPACK sytf2's Bunch-Kaufman choices, lower
triangle) and its solve (sytrs), written once against the array module.

NOTE: each matrix chooses its own sequence of 1x1 and 2x2 pivot blocks, so the batch is
factored one matrix at a time (the steps inside a matrix are whole-column operations).
"""
import math

from ...core.dispatch import LinAlgError
from ..registry import register_kernel
from .lu import quiet_division
from .matrix import LINALG

ALPHA = (1 + math.sqrt(17)) / 8      # Bunch-Kaufman's growth bound


def _first_max(xp, column):
    """(index, |value|) of the first largest |value| (BLAS idamax)."""
    i = int(xp.argmax(xp.abs(column)))
    return i, abs(float(column[i]))


def _choose_pivot(xp, A, k):
    """(kp, kstep, zero) for column k (sytf2): a 1x1 block with no swap (kp = k) or with a
    swap of row kp, or a 2x2 block (kstep = 2); ``zero``: the column is all zero (A is
    singular and the step eliminates nothing)."""
    n = A.shape[0]
    absakk = abs(float(A[k, k]))
    imax, colmax = k, 0.0
    if k < n - 1:
        i, colmax = _first_max(xp, A[k + 1:, k])
        imax = k + 1 + i
    if max(absakk, colmax) == 0 or math.isnan(absakk):
        return k, 1, True
    if absakk >= ALPHA * colmax:
        return k, 1, False
    rowmax = _first_max(xp, A[imax, k:imax])[1]        # row imax, left of the diagonal
    if imax < n - 1:
        rowmax = max(rowmax, _first_max(xp, A[imax + 1:, imax])[1])
    if absakk >= ALPHA * colmax * (colmax / rowmax):
        return k, 1, False
    if abs(float(A[imax, imax])) >= ALPHA * rowmax:
        return imax, 1, False
    return imax, 2, False


def _swap(A, k, kk, kp, kstep):
    """Rows and columns kk and kp of the trailing lower triangle change places."""
    A[kp + 1:, [kk, kp]] = A[kp + 1:, [kp, kk]]
    inner = A[kk + 1:kp, kk].copy()
    A[kk + 1:kp, kk] = A[kp, kk + 1:kp]
    A[kp, kk + 1:kp] = inner
    A[[kk, kp], [kk, kp]] = A[[kp, kk], [kp, kk]]
    if kstep == 2:
        A[[k + 1, kp], k] = A[[kp, k + 1], k]


def _eliminate(A, k, kstep):
    """Eliminate below the 1x1 or 2x2 pivot block at k: L's column(s) and the update of
    the trailing lower triangle (sytf2's arithmetic, for torch's rounding)."""
    if kstep == 1:
        d11 = 1 / A[k, k]
        x = A[k + 1:, k].copy()
        A[k + 1:, k + 1:] += x[:, None] * (-d11 * x)[None, :]
        A[k + 1:, k] = x * d11
        return
    d21 = A[k + 1, k]
    d11, d22 = A[k + 1, k + 1] / d21, A[k, k] / d21
    d21 = 1 / (d11 * d22 - 1) / d21
    a, b = A[k + 2:, k].copy(), A[k + 2:, k + 1].copy()
    wk, wkp1 = d21 * (d11 * a - b), d21 * (d22 * b - a)
    A[k + 2:, k + 2:] -= a[:, None] * wk[None, :]
    A[k + 2:, k + 2:] -= b[:, None] * wkp1[None, :]
    A[k + 2:, k], A[k + 2:, k + 1] = wk, wkp1


def _ldl_one(xp, A):
    """sytf2 on one matrix (its lower triangle, symmetrised); (LD, ipiv, info)."""
    n = A.shape[0]
    A = xp.tril(A) + xp.tril(A, -1).T
    ipiv = xp.zeros(n, xp.int32)
    info, k = 0, 0
    while k < n:
        kp, kstep, zero = _choose_pivot(xp, A, k)
        info = k + 1 if zero and not info else info
        if not zero:
            kk = k + kstep - 1
            if kp != kk:
                _swap(A, k, kk, kp, kstep)
            _eliminate(A, k, kstep)
        ipiv[k:k + kstep] = kp + 1 if kstep == 1 else -(kp + 1)
        k += kstep
    return xp.tril(A), ipiv, info


@register_kernel("linalg_ldl_factor_ex", ("cpu", "cuda"), LINALG)
def linalg_ldl_factor_ex(xp, A, hermitian, check_errors):
    """hermitian and symmetric are the same for real matrices."""
    batch, n = A.shape[:-2], A.shape[-1]
    flat = A.reshape((math.prod(batch), n, n))
    LD, pivots, info = xp.empty_like(flat), xp.empty(flat.shape[:-1], xp.int32), []
    with quiet_division(xp):
        for i in range(flat.shape[0]):
            LD[i], pivots[i], one = _ldl_one(xp, flat[i].copy())
            info.append(one)
    if check_errors and any(info):
        bad = next(i for i, v in enumerate(info) if v)
        where = f"(Batch element {bad}): " if batch else ""
        raise LinAlgError(f"torch.linalg.ldl_factor: {where}D[{info[bad]},{info[bad]}] is "
                          f"zero: A is singular and ldl_solve would divide by zero. "
                          f"linalg.ldl_factor_ex reports this in info instead")
    return (LD.reshape(A.shape), pivots.reshape(batch + (n,)),
            xp.asarray(info, dtype=xp.int32).reshape(batch))


def _solve_one(LD, ipiv, B):
    """sytrs (lower) on one matrix: solve with P L D, then with L^T P^T, where
    A = (P L) D (P L)^T and P is the product of the recorded row swaps."""
    n, k = LD.shape[0], 0
    B = B.copy()
    while k < n:                                    # L D Y = P^T B
        if ipiv[k] > 0:
            kp = int(ipiv[k]) - 1
            B[[k, kp]] = B[[kp, k]]
            B[k + 1:] -= LD[k + 1:, k:k + 1] * B[k:k + 1]
            B[k] /= LD[k, k]
            k += 1
            continue
        kp = -int(ipiv[k]) - 1
        B[[k + 1, kp]] = B[[kp, k + 1]]
        B[k + 2:] -= LD[k + 2:, k:k + 1] * B[k:k + 1] + LD[k + 2:, k + 1:k + 2] * B[k + 1:k + 2]
        akm1k = LD[k + 1, k]
        akm1, ak = LD[k, k] / akm1k, LD[k + 1, k + 1] / akm1k
        denom = akm1 * ak - 1
        bkm1, bk = B[k] / akm1k, B[k + 1] / akm1k
        B[k], B[k + 1] = (ak * bkm1 - bk) / denom, (akm1 * bk - bkm1) / denom
        k += 2
    k = n - 1
    while k >= 0:                                   # L^T P^T X = Y
        step = 1 if ipiv[k] > 0 else 2
        for j in range(k, k - step, -1):
            B[j] -= LD[k + 1:, j] @ B[k + 1:]
        kp = abs(int(ipiv[k])) - 1
        B[[k, kp]] = B[[kp, k]]
        k -= step
    return B


@register_kernel("linalg_ldl_solve", ("cpu", "cuda"), LINALG)
def linalg_ldl_solve(xp, LD, pivots, B, hermitian):
    batch, n = LD.shape[:-2], LD.shape[-1]
    count = math.prod(batch)
    flat_LD, flat_B = LD.reshape((count, n, n)), B.reshape((count,) + B.shape[-2:])
    flat_piv = pivots.reshape((count, n)).tolist()
    X = xp.empty_like(flat_B)
    with quiet_division(xp):
        for i in range(count):
            X[i] = _solve_one(flat_LD[i], flat_piv[i], flat_B[i])
    return X.reshape(B.shape)

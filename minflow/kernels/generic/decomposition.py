"""Kernels of the factorizations, written once against the array module: numpy.linalg
and cupy.linalg have the same batched functions.

NOTE: a matrix that is not positive-definite makes numpy (and cupy under ``linalg_raises``)
raise for the whole batch: ``_cholesky_or_nan`` factors the batch one matrix at a time
then, NaN for those that fail, and the orders of the failing minors are found one matrix
at a time (on the error path only).
"""
import numpy as np

from ...core.device import linalg_raises
from ...core.dispatch import LinAlgError
from ..registry import register_kernel
from .matrix import LINALG
from .solve import batch_prefix


def _cholesky_or_nan(xp, A):
    """The lower Cholesky factors, NaN for every matrix that has none."""
    try:
        with linalg_raises(xp):
            L = xp.linalg.cholesky(A)
    except xp.linalg.LinAlgError:
        if A.ndim == 2:
            return xp.full(A.shape, xp.nan, A.dtype)
        return xp.stack([_cholesky_or_nan(xp, a) for a in A.reshape((-1,) + A.shape[-2:])]
                        ).reshape(A.shape)
    return L


def _failing_order(xp, a):
    """The order of the first leading minor of matrix ``a`` that is not positive-definite."""
    for k in range(1, a.shape[-1] + 1):
        if not bool(xp.isfinite(_cholesky_or_nan(xp, a[:k, :k])).all()):
            return k
    return a.shape[-1]


@register_kernel("linalg_cholesky_ex", ("cpu", "cuda"), LINALG)
def linalg_cholesky_ex(xp, A, upper, check_errors):
    M = xp.swapaxes(A, -1, -2) if upper else A     # upper reads A's upper triangle
    L = _cholesky_or_nan(xp, M)
    failed = ~xp.isfinite(L).all(axis=(-2, -1))
    info = xp.zeros(A.shape[:-2], xp.int32)
    if bool(failed.any()):
        flat, where = info.reshape(-1), xp.flatnonzero(failed.reshape(-1))
        for k in where.tolist():
            flat[k] = _failing_order(xp, M.reshape((-1,) + M.shape[-2:])[k])
        if check_errors:
            first = int(flat[int(where[0])])
            raise LinAlgError(
                f"linalg.cholesky: {batch_prefix(xp, failed, A.shape[:-2])}The factorization "
                f"could not be completed because the input is not positive-definite (the "
                f"leading minor of order {first} is not positive-definite).")
    return (xp.swapaxes(L, -1, -2) if upper else L), info


@register_kernel("linalg_qr", ("cpu", "cuda"), LINALG)
def linalg_qr(xp, A, mode):
    if mode == "r":
        return xp.empty((0,), A.dtype), _qr(xp, A, "r")[0]
    return _qr(xp, A, mode)


@register_kernel("geqrf", ("cpu", "cuda"), LINALG)
def geqrf(xp, A):
    h, tau = _qr(xp, A, "raw")      # numpy and cupy give LAPACK's h transposed
    return xp.ascontiguousarray(xp.swapaxes(h, -1, -2)), tau


def _qr(xp, A, mode):
    """(Q, R), (R,) for mode 'r' or (h, tau) for mode 'raw', of a batch of matrices."""
    if xp is np or A.ndim == 2:
        out = xp.linalg.qr(A, mode=mode)
        return (out,) if mode == "r" else tuple(out)    # numpy returns a named tuple
    # NOTE: cupy's qr takes one matrix (before cupy 13): one factorization per matrix
    flat = A.reshape((-1,) + A.shape[-2:])
    if not flat.shape[0]:           # no matrix to stack: empty results of the right shapes
        return tuple(xp.empty(A.shape[:-2] + shape, A.dtype)
                     for shape in _qr_shapes(*A.shape[-2:], mode))
    parts = [_qr(xp, a, mode) for a in flat]
    return tuple(xp.stack(p).reshape(A.shape[:-2] + p[0].shape) for p in zip(*parts))


def _qr_shapes(m, n, mode):
    """The shapes of the results of ``_qr`` for one m x n matrix, as numpy gives them."""
    k = min(m, n)
    return {"reduced": ((m, k), (k, n)), "complete": ((m, m), (m, n)), "r": ((k, n),),
            "raw": ((n, m), (k,))}[mode]


@register_kernel("linalg_svd", ("cpu", "cuda"), LINALG)
def linalg_svd(xp, A, full_matrices, compute_uv):
    if not compute_uv:
        empty = xp.empty((0,), A.dtype)
        return empty, xp.linalg.svd(A, compute_uv=False), empty
    return tuple(xp.linalg.svd(A, full_matrices=full_matrices))


@register_kernel("linalg_eigh", ("cpu", "cuda"), LINALG)
def linalg_eigh(xp, A, UPLO, compute_v):
    if not compute_v:
        return xp.linalg.eigvalsh(A, UPLO), xp.empty((0,), A.dtype)
    return tuple(xp.linalg.eigh(A, UPLO))


@register_kernel("linalg_slogdet", ("cpu", "cuda"), LINALG)
def linalg_slogdet(xp, A):
    sign, logabsdet = xp.linalg.slogdet(A)
    return xp.asarray(sign), xp.asarray(logabsdet)


@register_kernel("linalg_pinv", ("cpu", "cuda"), LINALG)
def linalg_pinv(xp, A, atol, rtol, hermitian):
    """From the SVD (eigh if hermitian) with torch's default rtol = eps * max(m, n), which
    is 0 where atol > 0."""
    if hermitian:
        S, U = xp.linalg.eigh(A)
        Vh = xp.swapaxes(U, -1, -2)
    else:
        U, S, Vh = xp.linalg.svd(A, full_matrices=False)
    size = xp.abs(S)
    top = size.max(-1, keepdims=True) if S.shape[-1] else size
    default = float(xp.finfo(A.dtype).eps) * max(A.shape[-2:])
    if rtol is None:
        rtol = default if atol is None else xp.where(atol > 0, 0.0, default)
    cut = xp.asarray(rtol)[..., None] * top
    if atol is not None:
        cut = xp.maximum(cut, atol[..., None])
    keep = size > cut
    inv = xp.where(keep, 1 / xp.where(keep, S, 1), 0).astype(A.dtype)
    return xp.swapaxes(Vh, -1, -2) @ (inv[..., None] * xp.swapaxes(U, -1, -2))

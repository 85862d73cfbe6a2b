"""Kernels of the linear-system ops and matrix_exp, written once against the array module
(numpy or cupy).

NOTE: cupy's solvers return garbage for singular input unless told to raise (numpy always
raises): every call that can fail runs under ``linalg_raises``.
"""
from ...core.device import linalg_raises
from ...core.dispatch import LinAlgError
from ..registry import register_kernel
from ...core.dtype import COMPLEX
from .matrix import LINALG


def batch_prefix(xp, bad, batch_shape):
    """torch's "(Batch element k): " for the first flat batch index in mask ``bad``."""
    if not batch_shape:
        return ""
    return f"(Batch element {int(xp.flatnonzero(bad.reshape(-1))[0])}): "


def singular(xp, A):
    """Which matrices of A are singular (for the error message only)."""
    flat = A.reshape((-1,) + A.shape[-2:])
    bad = xp.zeros(flat.shape[0], bool)
    for k in range(flat.shape[0]):
        try:
            with linalg_raises(xp):
                xp.linalg.inv(flat[k])
        except xp.linalg.LinAlgError:
            bad[k] = True
    return bad


@register_kernel("linalg_solve", ("cpu", "cuda"), LINALG + COMPLEX)
def linalg_solve(xp, A, B):
    try:
        with linalg_raises(xp):
            return xp.linalg.solve(A, B)
    except xp.linalg.LinAlgError:
        where = batch_prefix(xp, singular(xp, A), A.shape[:-2])
        raise LinAlgError(f"linalg.solve: {where}The solver failed because the input matrix "
                          f"is singular.") from None


@register_kernel("linalg_solve_triangular", ("cpu", "cuda"), LINALG)
def linalg_solve_triangular(xp, A, B, upper, unitriangular):
    """Forward (lower) or back (upper) substitution, one row of X per step, every batch
    and column at once. A zero on the diagonal gives inf / nan, as LAPACK's trsm."""
    n = A.shape[-1]
    T = xp.triu(A, 1) if upper else xp.tril(A, -1)    # the strict triangle that is read
    X = xp.zeros(B.shape, xp.result_type(A, B))
    for i in (range(n - 1, -1, -1) if upper else range(n)):
        row = B[..., i, :] - (T[..., i:i + 1, :] @ X)[..., 0, :]
        X[..., i, :] = row if unitriangular else row / A[..., i, i:i + 1]
    return X


@register_kernel("cholesky_solve", ("cpu", "cuda"), LINALG)
def cholesky_solve(xp, B, L, upper):
    """Two triangular solves: A = T T^T with T lower (L, or U^T when ``upper``)."""
    T = xp.swapaxes(L, -1, -2) if upper else L
    Y = linalg_solve_triangular(xp, T, B, upper=False, unitriangular=False)
    return linalg_solve_triangular(xp, xp.swapaxes(T, -1, -2), Y, upper=True,
                                   unitriangular=False)


# Pade [13/13] coefficients and the 1-norm bound up to which it is accurate in float64
# without scaling (Higham, "The scaling and squaring method for the matrix exponential
# revisited", 2005)
_PADE13 = (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
           129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
           40840800., 960960., 16380., 182., 1.)
_THETA13 = 5.371920351148152


@register_kernel("linalg_matrix_exp", ("cpu", "cuda"), LINALG)
def linalg_matrix_exp(xp, A):
    """Scaling and squaring: exp(A) = exp(A / 2^s)^(2^s), the inner exp by Pade [13/13],
    with s per matrix so that ||A / 2^s||_1 <= theta_13."""
    if A.shape[-1] == 0:
        return A.copy()
    norm = xp.abs(A).sum(-2).max(-1)                      # the 1-norm of each matrix
    s = xp.maximum(0, xp.ceil(xp.log2(xp.maximum(norm, 1e-300) / _THETA13))).astype(int)
    scaled = A / (2.0 ** s)[..., None, None].astype(A.dtype)
    out = _pade13(xp, scaled)
    for step in range(int(s.max()) if s.size else 0):
        squared = out @ out
        out = xp.where((s > step)[..., None, None], squared, out)
    return out


def _pade13(xp, A):
    b = _PADE13
    eye = xp.broadcast_to(xp.eye(A.shape[-1], dtype=A.dtype), A.shape)
    A2 = A @ A
    A4 = A2 @ A2
    A6 = A4 @ A2
    U = A @ (A6 @ (b[13] * A6 + b[11] * A4 + b[9] * A2) + b[7] * A6 + b[5] * A4
             + b[3] * A2 + b[1] * eye)
    V = A6 @ (b[12] * A6 + b[10] * A4 + b[8] * A2) + b[6] * A6 + b[4] * A4 + b[2] * A2 \
        + b[0] * eye
    return xp.linalg.solve(V - U, V + U).astype(A.dtype)

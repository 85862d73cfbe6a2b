"""Matrix factorizations: Cholesky, QR (and its raw Householder form, geqrf), SVD,
symmetric eigendecomposition and the sign / log-determinant, each on a batch of matrices
(the last two dims).

The public functions are in minflow/linalg/decompositions.py; kernels in
kernels/generic/decomposition.py (numpy.linalg / cupy.linalg); grad functions, with
torch's formulas, in autograd/grads/decomposition.py.
"""
from ..core import dtype as dtypes
from .infer import broadcast_shapes
from .registry import Attr, Input, define_op
from .solve import OPAQUE, check_matrix, check_square

_EMPTY = (0,)       # an output that was not asked for (Q of mode 'r', U / V without uv)


def _shape(A):
    shape = tuple(A.shape)
    return shape[:-2], shape[-2], shape[-1]


def _cholesky_infer(A, upper, check_errors):
    check_square("linalg_cholesky_ex", A)
    batch, n, _ = _shape(A)
    return (batch + (n, n), A.dtype), (batch, dtypes.int32)


CHOLESKY_EX = define_op(
    "linalg_cholesky_ex", ["A"], ("L", "info"), infer=_cholesky_infer,
    attrs=[Attr("upper", "bool", False), Attr("check_errors", "bool", False)], traits=OPAQUE,
    doc="L with A = L L^T (U^T U if upper) from A's lower (upper) triangle; info = the order "
        "of the first leading minor that is not positive-definite, 0 if none.")


def _qr_infer(A, mode):
    check_matrix("linalg_qr", A)
    batch, m, n = _shape(A)
    k = min(m, n)
    if mode == "complete":
        return (batch + (m, m), A.dtype), (batch + (m, n), A.dtype)
    q = _EMPTY if mode == "r" else batch + (m, k)
    return (q, A.dtype), (batch + (k, n), A.dtype)


QR = define_op("linalg_qr", ["A"], ("Q", "R"), infer=_qr_infer,
               attrs=[Attr("mode", "str", "reduced", choices=("reduced", "complete", "r"))],
               traits=OPAQUE, doc="A = Q R, Q with orthonormal columns, R upper triangular.")


def _geqrf_infer(A):
    check_matrix("geqrf", A, "input")
    batch, m, n = _shape(A)
    return (batch + (m, n), A.dtype), (batch + (min(m, n),), A.dtype)


GEQRF = define_op("geqrf", ["A"], ("a", "tau"), infer=_geqrf_infer,
                  traits=("no_grad",) + OPAQUE,
                  doc="LAPACK geqrf's QR: R in a's upper triangle, the Householder vectors "
                      "below it, and their scales tau.")


def _svd_infer(A, full_matrices, compute_uv):
    check_matrix("linalg_svd", A)
    batch, m, n = _shape(A)
    k = min(m, n)
    s = (batch + (k,), A.dtype)
    if not compute_uv:
        return (_EMPTY, A.dtype), s, (_EMPTY, A.dtype)
    u, v = ((m, m), (n, n)) if full_matrices else ((m, k), (k, n))
    return (batch + u, A.dtype), s, (batch + v, A.dtype)


SVD = define_op("linalg_svd", ["A"], ("U", "S", "Vh"), infer=_svd_infer,
                attrs=[Attr("full_matrices", "bool", True), Attr("compute_uv", "bool", True)],
                traits=OPAQUE,
                doc="A = U diag(S) Vh, S descending; U and Vh empty unless compute_uv.")


def _eigh_infer(A, UPLO, compute_v):
    check_square("linalg_eigh", A)
    batch, n, _ = _shape(A)
    return (batch + (n,), A.dtype), ((batch + (n, n)) if compute_v else _EMPTY, A.dtype)


EIGH = define_op("linalg_eigh", ["A"], ("eigenvalues", "eigenvectors"), infer=_eigh_infer,
                 attrs=[Attr("UPLO", "str", "L", choices=("L", "U")),
                        Attr("compute_v", "bool", True)], traits=OPAQUE,
                 doc="Eigenvalues (ascending) and orthonormal eigenvectors of the symmetric "
                     "matrix read from A's lower (UPLO='L') or upper triangle.")


def _slogdet_infer(A):
    check_square("linalg_slogdet", A)
    batch = _shape(A)[0]
    return (batch, A.dtype), (batch, A.dtype)


SLOGDET = define_op("linalg_slogdet", ["A"], ("sign", "logabsdet"), infer=_slogdet_infer,
                    traits=OPAQUE, doc="sign(det A) and log|det A| (-inf when singular).")


def _pinv_infer(A, atol, rtol, hermitian):
    (check_square if hermitian else check_matrix)("linalg_pinv", A)
    batch, m, n = _shape(A)
    for name, tol in (("atol", atol), ("rtol", rtol)):
        if tol is not None:
            try:
                batch = broadcast_shapes(batch, tuple(tol.shape))
            except RuntimeError:
                raise RuntimeError(f"linalg_pinv: expected {name} to broadcast with A's batch "
                                   f"shape {list(batch)}, got shape {list(tol.shape)}") from None
    return batch + (n, m), A.dtype


PINV = define_op("linalg_pinv", ["A", Input("atol", optional=True),
                                 Input("rtol", optional=True)],
                 attrs=[Attr("hermitian", "bool", False)], infer=_pinv_infer, traits=OPAQUE,
                 doc="The pseudo-inverse V diag(1/S) U^T, singular values at or below "
                     "max(atol, rtol * S_max) dropped; tolerances per matrix (batch shape).")

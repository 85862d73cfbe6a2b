"""Householder reflectors: householder_product (torch.orgqr) and the torch namespace's qr.

householder_product is a composite of matmuls, so its gradient needs no code of its own.
"""
from ..core import dtype as dtypes
from ..core.functional import public
from ..core.inplace import write_out
from ..core.namespace import F
from ..ops.solve import check_matrix
from .decompositions import qr as linalg_qr
from .returns import return_type
from .solve import mT

__all__ = ["householder_product"]

_TORCH_QR = return_type("qr", ["Q", "R"])


def _check_householder(name, A, tau):
    if A.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions, got shape "
                           f"{list(A.shape)}")
    check_matrix(name, A, "input")
    m, n = A.shape[-2:]
    if m < n:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to "
                           f"input.shape[-1], got {m} < {n}")
    if tau.ndim != A.ndim - 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but "
                           f"got tau.ndim equal to {tau.ndim} and input.ndim is equal to "
                           f"{A.ndim}")
    if tau.shape[-1] > n:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to "
                           f"tau.shape[-1], got {n} < {tau.shape[-1]}")
    if tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise RuntimeError(f"{name}: Expected batch dimensions of tau to be equal to "
                           f"input.shape[:-2], but got {list(tau.shape[:-1])}")
    if tau.dtype is not A.dtype:
        raise RuntimeError(f"{name}: tau dtype {tau.dtype.name} does not match input dtype "
                           f"{A.dtype.name}")


def householder_product(A, tau, *, out=None):
    """householder_product(A, tau, *, out=None) -> Tensor

    The first n columns of H_1 H_2 ... H_k for each m x n matrix A (m >= n), with
    H_i = I - tau_i v_i v_i^T and v_i = (0, ..., 0, 1, A[i+1:, i]): the Q of a QR
    factorization stored as LAPACK's geqrf leaves it. Only A's strict lower triangle is
    read.

    >>> A = minflow.tensor([[0.0], [1.0]])
    >>> minflow.linalg.householder_product(A, minflow.tensor([1.0])).tolist()
    [[0.0], [-1.0]]
    """
    name = "torch.linalg.householder_product"
    _check_householder(name, A, tau)
    m, n = A.shape[-2:]
    eye = F.eye(m, n, dtype=A.dtype, device=A.device)
    V = F.add(F.tril(A, -1), eye)
    Q = F.expand(eye, tuple(A.shape))
    if tau.shape[-1] == 0:      # the identity, differentiable with a zero gradient (as torch)
        Q = F.where(F.ones(tuple(A.shape), dtype=dtypes.bool, device=A.device), Q, A)
    for i in reversed(range(tau.shape[-1])):        # Q = H_i Q, the last reflector first
        v = F.narrow(V, -1, i, 1)
        scale = F.unsqueeze(F.unsqueeze(F.select(tau, -1, i), -1), -1)
        Q = F.sub(Q, F.mul(scale, F.matmul(v, F.matmul(mT(v), Q))))
    return Q if out is None else write_out(Q, out, "linalg.householder_product")


@public(method=True)
def orgqr(input, tau):
    """orgqr(input, tau) -> Tensor: linalg.householder_product, as torch.orgqr.

    >>> minflow.orgqr(minflow.tensor([[0.0], [1.0]]), minflow.tensor([0.0])).tolist()
    [[1.0], [0.0]]
    """
    return householder_product(input, tau)


@public(name="qr", method=True)
def torch_qr(input, some=True, *, out=None):
    """qr(input, some=True, *, out=None) -> (Q, R): linalg.qr in mode 'reduced', or
    'complete' when ``some=False``, as torch.qr.

    >>> Q, R = minflow.qr(minflow.tensor([[3.0], [4.0]]), some=False)
    >>> Q.shape, R.shape
    (minflow.Size([2, 2]), minflow.Size([2, 1]))
    """
    check_matrix("qr", input)
    result = _TORCH_QR(*linalg_qr(input, "reduced" if some else "complete"))
    return result if out is None else _TORCH_QR(*[write_out(r, o, "qr")
                                                 for r, o in zip(result, out)])

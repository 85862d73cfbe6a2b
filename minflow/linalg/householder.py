"""Householder reflectors: householder_product (torch.orgqr), and the torch namespace's
geqrf, ormqr and qr.

householder_product and ormqr are composites of matmuls, so their gradients need no code
of their own; geqrf is an op (LAPACK's raw QR, not differentiable, as torch's).
"""
from ..core import dtype as dtypes
from ..core.functional import public
from ..core.inplace import write_out
from ..core.dispatch import apply
from ..core.namespace import F
from ..ops.decomposition import GEQRF
from ..ops.solve import check_matrix
from .decompositions import qr as linalg_qr
from .returns import return_type
from .solve import mT

__all__ = ["householder_product"]

_TORCH_QR = return_type("qr", ["Q", "R"])
_GEQRF = return_type("geqrf", ["a", "tau"])


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
    Q = F.expand(eye, tuple(A.shape))
    if tau.shape[-1] == 0:      # the identity, differentiable with a zero gradient (as torch)
        Q = F.where(F.ones(tuple(A.shape), dtype=dtypes.bool, device=A.device), Q, A)
    Q = _reflect(A, tau, Q, left=True, reverse=True)
    return Q if out is None else write_out(Q, out, "linalg.householder_product")


def _reflect(A, tau, C, left, reverse):
    """H_1 ... H_k applied to C, H_i = I - tau_i v_i v_i^T with v_i column i of A's unit
    lower triangle: from the left (H_i C) or the right (C H_i), the reflectors in order
    1..k or, if ``reverse``, k..1."""
    m = A.shape[-2]
    V = F.add(F.tril(A, -1), F.eye(m, A.shape[-1], dtype=A.dtype, device=A.device))
    order = range(tau.shape[-1])
    for i in (reversed(order) if reverse else order):
        v = F.narrow(V, -1, i, 1)
        scale = F.unsqueeze(F.unsqueeze(F.select(tau, -1, i), -1), -1)
        if left:
            C = F.sub(C, F.mul(scale, F.matmul(v, F.matmul(mT(v), C))))
        else:
            C = F.sub(C, F.mul(scale, F.matmul(F.matmul(C, v), mT(v))))
    return C


@public(method=True)
def geqrf(input, *, out=None):
    """geqrf(input, *, out=None) -> (a, tau)

    LAPACK geqrf's QR of each matrix: R in a's upper triangle, the Householder vectors v_i
    (v_i[i] = 1 implied) below it, and their scales tau; householder_product(a, tau) is Q.
    Not differentiable (as torch's).

    >>> a, tau = minflow.geqrf(minflow.tensor([[3.0], [4.0]], dtype=minflow.float64))
    >>> a.tolist(), tau.tolist()
    ([[-5.0], [0.5]], [1.6])
    """
    check_matrix("geqrf", input, "input")
    result = _GEQRF(*apply(GEQRF, (input,), {}))
    return result if out is None else _GEQRF(*[write_out(r, o, "geqrf")
                                              for r, o in zip(result, out)])


def _check_ormqr(name, input, tau, other, left):
    for what, x in (("input", input), ("other", other)):
        if x.ndim < 2:
            raise RuntimeError(f"{name}: {what} must have at least 2 dimensions, got shape "
                               f"{list(x.shape)}")
    check_matrix(name, input, "input")
    side = -2 if left else -1
    k = tau.shape[-1] if tau.ndim else 0
    if tau.ndim != input.ndim - 1 or other.ndim != input.ndim:
        raise RuntimeError(f"{name}: Expected tau with one dimension less than input and other "
                           f"with as many, got tau.ndim {tau.ndim}, other.ndim {other.ndim} "
                           f"and input.ndim {input.ndim}")
    if other.shape[side] != input.shape[-2]:
        raise RuntimeError(f"{name}: other.shape[{side}] must be equal to input.shape[-2], got "
                           f"{other.shape[side]} and {input.shape[-2]}")
    if k != min(other.shape[side], input.shape[-1]):
        raise RuntimeError(f"{name}: tau.shape[-1] must be equal to min(other.shape[{side}], "
                           f"input.shape[-1]), got {k} for input {list(input.shape)} and other "
                           f"{list(other.shape)}")
    if tuple(tau.shape[:-1]) != tuple(input.shape[:-2]) or \
            tuple(other.shape[:-2]) != tuple(input.shape[:-2]):
        raise RuntimeError(f"{name}: Expected batch dimensions of tau and other to be equal to "
                           f"input.shape[:-2] = {list(input.shape[:-2])}, got "
                           f"{list(tau.shape[:-1])} and {list(other.shape[:-2])}")
    for what, x in (("tau", tau), ("other", other)):
        if x.dtype is not input.dtype:
            raise RuntimeError(f"{name}: Expected input and {what} to have the same dtype, but "
                               f"input has dtype {input.dtype.name} and {what} has dtype "
                               f"{x.dtype.name}")


@public(method=True)
def ormqr(input, input2, input3, left=True, transpose=False, *, out=None):
    """ormqr(input, input2, input3, left=True, transpose=False, *, out=None) -> Tensor

    Q C, Q^T C (``transpose``), C Q or C Q^T (``left=False``) for C = ``input3`` and the
    m x m Q = H_1 ... H_k of Householder vectors (columns of ``input``, as geqrf leaves
    them) with scales tau = ``input2``, without forming Q.

    >>> a, tau = minflow.geqrf(minflow.tensor([[3.0], [4.0]]))
    >>> [round(v, 4) for v in minflow.ormqr(a, tau, minflow.eye(2)).flatten().tolist()]
    [-0.6, -0.8, -0.8, 0.6]
    """
    name = "torch.ormqr"
    _check_ormqr(name, input, input2, input3, left)
    result = _reflect(input, input2, input3, left, reverse=left != transpose)
    if result is input3:        # no reflectors: a new tensor all the same, as torch
        result = F.clone(input3)
    return result if out is None else write_out(result, out, "ormqr")


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

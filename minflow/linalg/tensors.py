"""Functions on tensors of more than two dims read as matrices: tensorinv and tensorsolve,
and the Vandermonde matrices of linalg.vander. All are composites (their gradients come
from inv, solve and cumprod)."""
import math
import numbers

from ..core import dtype as dtypes
from ..core.inplace import write_out
from ..core.namespace import F
from .solve import solve

__all__ = ["tensorinv", "tensorsolve", "vander"]


def _check_int(name, what, value):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise TypeError(f"{name}: expected {what} to be an int, got {type(value).__name__}")


def tensorinv(A, ind=2, *, out=None):
    """tensorinv(A, ind=2, *, out=None) -> Tensor

    The inverse of A read as the matrix (prod(A.shape[:ind]), prod(A.shape[ind:])), shaped
    A.shape[ind:] + A.shape[:ind]: tensordot(tensorinv(A, ind), A, ind) is the identity.

    >>> minflow.linalg.tensorinv(2 * minflow.eye(4).reshape(4, 2, 2), ind=1).shape
    minflow.Size([2, 2, 4])
    """
    name = "linalg.tensorinv"
    _check_int(name, "ind", ind)
    if ind <= 0:
        raise RuntimeError(f"{name}: Expected a strictly positive integer for 'ind', but got "
                           f"{ind}")
    shape = tuple(A.shape)
    rows, cols = math.prod(shape[:ind]), math.prod(shape[ind:])
    if rows != cols:
        raise RuntimeError(f"{name}: Expected self to satisfy the requirement "
                           f"prod(self.shape[ind:]) == prod(self.shape[:ind]), but got {cols} "
                           f"!= {rows}")
    result = F.reshape(F.inverse(F.reshape(A, (rows, cols))), shape[ind:] + shape[:ind])
    return result if out is None else write_out(result, out, name)


def tensorsolve(A, B, dims=None, *, out=None):
    """tensorsolve(A, B, dims=None, *, out=None) -> Tensor

    X with tensordot(A, X, X.ndim) = B: A read as the matrix (B.numel(), the rest); the
    dims ``dims`` of A move to its end first.

    >>> A = minflow.eye(6).reshape(2, 3, 6)
    >>> minflow.linalg.tensorsolve(A, minflow.arange(6.0).reshape(2, 3)).tolist()
    [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    """
    name = "linalg.tensorsolve"
    if dims is not None:
        dims = [dims] if isinstance(dims, int) else list(dims)
        A = F.movedim(A, dims, list(range(A.ndim - len(dims), A.ndim)))
    shape = tuple(A.shape)
    result_shape = shape[B.ndim:]
    rows, cols = math.prod(shape[:B.ndim]), math.prod(result_shape)
    if rows != cols:
        raise RuntimeError(f"{name}: Expected self to satisfy the requirement "
                           f"prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), "
                           f"but got {cols} != {rows}")
    X = solve(F.reshape(A, (rows, cols)), F.reshape(B, (-1,)))
    result = F.reshape(X, result_shape)
    return result if out is None else write_out(result, out, name)


def vander(x, *, N=None):
    """vander(x, *, N=None) -> Tensor

    The Vandermonde matrix of each vector x (the last dim): columns x^0, x^1, ...,
    x^(N-1), N = x.shape[-1] by default (torch.vander's order reversed); a 0-D x is one
    vector of one. Integer inputs give int64, as torch.

    >>> minflow.linalg.vander(minflow.tensor([1, 2, 3])).tolist()
    [[1, 1, 1], [1, 2, 4], [1, 3, 9]]
    """
    name = "linalg.vander"
    if x.dtype is dtypes.bool:
        raise RuntimeError(f"{name} supports floating point, complex, and integer tensors, "
                           f"but got bool")
    if x.ndim == 0:         # one number: a vector of one (as torch)
        x = F.reshape(x, (1,))
    n = x.shape[-1] if N is None else N
    _check_int(name, "N", n)
    if n <= 1:
        raise RuntimeError(f"{name}: N must be greater than 1, got {n}")
    column = F.unsqueeze(x, -1)
    powers = F.cumprod(F.expand(column, tuple(x.shape) + (n - 1,)), -1)
    return F.cat([F.ones_like(column, dtype=powers.dtype), powers], -1)

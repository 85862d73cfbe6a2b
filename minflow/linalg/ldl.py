"""The LDL^T factorization with Bunch-Kaufman pivoting: ldl_factor, ldl_factor_ex and
ldl_solve, with torch.linalg's names and results (not differentiable, as torch's)."""
from ..core import dtype as dtypes
from ..core.dispatch import apply
from ..core.inplace import write_out
from ..core.namespace import F
from ..ops.infer import broadcast_shapes
from ..ops.ldl import LDL_FACTOR_EX, LDL_SOLVE
from ..ops.solve import check_square
from .returns import return_type

__all__ = ["ldl_factor", "ldl_factor_ex", "ldl_solve"]

_LDL_FACTOR = return_type("linalg_ldl_factor", ["LD", "pivots"])
_LDL_FACTOR_EX = return_type("linalg_ldl_factor_ex", ["LD", "pivots", "info"])


def _write_all(results, outs, name):
    if outs is None:
        return results
    return type(results)(*[write_out(r, o, name) for r, o in zip(results, outs)])


def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    """ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None) -> (LD, pivots, info)

    P A P^T = L D L^T for each symmetric A (only its lower triangle is read), with LAPACK
    sytrf's Bunch-Kaufman pivots: D has 1x1 and 2x2 blocks. LD holds L below the diagonal
    and D on it (a 2x2 block's corner just below it); ``pivots`` (int32, 1-based) is
    sytrf's ipiv, negative for the rows of a 2x2 block; ``info`` the first k with a zero
    block, else 0. For real A, ``hermitian`` changes nothing.

    >>> A = minflow.tensor([[0.0, 1.0], [1.0, 0.0]])
    >>> LD, pivots, info = minflow.linalg.ldl_factor_ex(A)
    >>> LD.tolist(), pivots.tolist(), info.item()
    ([[0.0, 0.0], [1.0, 0.0]], [-2, -2], 0)
    """
    check_square("torch.linalg.ldl_factor_ex", A)
    result = _LDL_FACTOR_EX(*apply(LDL_FACTOR_EX, (A,), {"hermitian": hermitian,
                                                         "check_errors": check_errors}))
    return _write_all(result, out, "linalg.ldl_factor_ex")


def ldl_factor(A, *, hermitian=False, out=None):
    """ldl_factor(A, *, hermitian=False, out=None) -> (LD, pivots)

    ldl_factor_ex's LD and pivots; a singular A (a zero block of D) raises LinAlgError.

    >>> minflow.linalg.ldl_factor(minflow.tensor([[4.0, 2.0], [2.0, 3.0]])).LD.tolist()
    [[4.0, 0.0], [0.5, 2.0]]
    """
    check_square("torch.linalg.ldl_factor", A)
    LD, pivots, _ = apply(LDL_FACTOR_EX, (A,), {"hermitian": hermitian, "check_errors": True})
    return _write_all(_LDL_FACTOR(LD, pivots), out, "linalg.ldl_factor")


def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """ldl_solve(LD, pivots, B, *, hermitian=False, out=None) -> Tensor

    X with A X = B from ldl_factor's (LD, pivots) of A; batch dims of LD and B broadcast
    (pivots has LD's).

    >>> A = minflow.tensor([[4.0, 2.0], [2.0, 3.0]])
    >>> LD, pivots = minflow.linalg.ldl_factor(A)
    >>> minflow.linalg.ldl_solve(LD, pivots, minflow.tensor([[6.0], [5.0]])).tolist()
    [[1.0], [1.0]]
    """
    name = "torch.linalg.ldl_solve"
    check_square(name, LD, "LD")
    if B.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions, got "
                           f"shape {list(B.shape)}")
    if B.dtype is not LD.dtype:
        raise RuntimeError(f"{name}: Expected b and A to have the same dtype, but found b of "
                           f"type {B.dtype.name} and A of type {LD.dtype.name} instead.")
    if pivots.dtype not in (dtypes.int32, dtypes.int64):
        raise RuntimeError(f"{name}: expected pivots of an integer dtype (int32, from "
                           f"ldl_factor), got {pivots.dtype.name}")
    n = LD.shape[-1]
    if tuple(pivots.shape) != tuple(LD.shape[:-1]):
        raise RuntimeError(f"{name}: Expected LD.shape[:-1] and pivots.shape to be the same, "
                           f"but got LD of shape {list(LD.shape)} and pivots with shape "
                           f"{list(pivots.shape)}")
    if B.shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for {name}: each A matrix is {n} by {n} "
                           f"but each b matrix is {B.shape[-2]} by {B.shape[-1]}")
    try:
        batch = broadcast_shapes(tuple(LD.shape[:-2]), tuple(B.shape[:-2]))
    except RuntimeError:
        raise RuntimeError(f"{name}: the batch dims of LD {list(LD.shape)} and B "
                           f"{list(B.shape)} must broadcast") from None
    LD, pivots = F.expand(LD, batch + (n, n)), F.expand(pivots, batch + (n,))
    X = apply(LDL_SOLVE, (LD, pivots, F.expand(B, batch + tuple(B.shape[-2:]))),
              {"hermitian": hermitian})
    return X if out is None else write_out(X, out, "linalg.ldl_solve")

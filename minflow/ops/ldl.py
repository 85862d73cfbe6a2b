"""The LDL^T factorization of symmetric matrices with Bunch-Kaufman pivoting, and the solve
that uses it (torch.linalg.ldl_factor_ex and ldl_solve; not differentiable, as torch).

Kernels: kernels/generic/ldl.py; public functions: minflow/linalg/ldl.py.
"""
from ..core import dtype as dtypes
from .registry import Attr, define_op
from .solve import OPAQUE, check_square

LDL_TRAITS = ("no_grad",) + OPAQUE


def _ldl_factor_infer(A, hermitian, check_errors):
    check_square("torch.linalg.ldl_factor_ex", A)
    shape = tuple(A.shape)
    return (shape, A.dtype), (shape[:-1], dtypes.int32), (shape[:-2], dtypes.int32)


LDL_FACTOR_EX = define_op(
    "linalg_ldl_factor_ex", ["A"], ("LD", "pivots", "info"), infer=_ldl_factor_infer,
    attrs=[Attr("hermitian", "bool", False), Attr("check_errors", "bool", False)],
    traits=LDL_TRAITS,
    doc="P A P^T = L D L^T from A's lower triangle (LAPACK sytrf): LD holds L below the "
        "diagonal and the 1x1 / 2x2 blocks of D; pivots as sytrf's ipiv (1-based, negative "
        "for a 2x2 block); info: the first k with a zero block D[k, k], else 0.")


def _ldl_solve_infer(LD, pivots, B, hermitian):
    name = "torch.linalg.ldl_solve"
    check_square(name, LD, "LD")
    shape, b = tuple(LD.shape), tuple(B.shape)
    if tuple(pivots.shape) != shape[:-1] or pivots.dtype not in (dtypes.int32, dtypes.int64):
        raise RuntimeError(f"{name}: expected integer pivots of shape {list(shape[:-1])}, got "
                           f"{pivots.dtype.name} of shape {list(pivots.shape)}")
    if B.dtype is not LD.dtype or len(b) != len(shape) or b[:-2] != shape[:-2] or \
            b[-2] != shape[-1]:
        raise RuntimeError(f"{name}: expected B of dtype {LD.dtype.name} and shape "
                           f"[{', '.join(map(str, shape[:-1]))}, k], got {B.dtype.name} of "
                           f"shape {list(b)}")
    return b, B.dtype


LDL_SOLVE = define_op(
    "linalg_ldl_solve", ["LD", "pivots", "B"], attrs=[Attr("hermitian", "bool", False)],
    infer=_ldl_solve_infer, traits=LDL_TRAITS,
    doc="X with A X = B from ldl_factor's LD and pivots (LAPACK sytrs); B has LD's batch "
        "dims.")

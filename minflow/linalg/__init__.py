"""minflow.linalg: torch.linalg's functions with its names, arguments and results.

norms.py: norms and inv / det; solve.py: linear systems, matrix powers and products;
decompositions.py: factorizations and what is built on them; lu.py: the LU family and
solve_ex; householder.py: householder_product (and torch.orgqr, torch.qr); tensors.py:
tensorinv, tensorsolve and vander; ldl.py: the LDL^T factorization; vectors.py: cross, vecdot, diagonal and matmul.
"""
from ..core.dispatch import LinAlgError
from ..core.functional import checking_tensor_args
from .decompositions import (cholesky, cholesky_ex, cond, eig, eigh, eigvals, eigvalsh, inv_ex,
                             matrix_rank, pinv, qr, slogdet, svd, svdvals)
from .householder import householder_product
from .ldl import ldl_factor, ldl_factor_ex, ldl_solve
from .lu import lu, lu_factor, lu_factor_ex, lu_solve, solve_ex
from .norms import det, inv, matrix_norm, norm, vector_norm
from .solve import lstsq, matrix_exp, matrix_power, multi_dot, solve, solve_triangular
from .tensors import tensorinv, tensorsolve, vander
from .vectors import cross, diagonal, matmul, vecdot

__all__ = ["LinAlgError", "norm", "vector_norm", "matrix_norm", "inv", "inv_ex", "det",
           "slogdet", "solve", "solve_ex", "solve_triangular", "lstsq", "cholesky",
           "cholesky_ex", "qr", "svd", "svdvals", "eigh", "eigvalsh", "eig", "eigvals", "pinv",
           "matrix_rank", "cond", "matrix_power", "matrix_exp", "multi_dot", "cross", "vecdot",
           "diagonal", "matmul", "lu_factor", "lu_factor_ex", "lu", "lu_solve",
           "householder_product", "tensorinv", "tensorsolve", "vander", "ldl_factor",
           "ldl_factor_ex", "ldl_solve"]

# a string, list or None where a matrix goes: torch's TypeError naming the function and the
# argument, not an AttributeError from inside
for _name in __all__[1:]:
    globals()[_name] = checking_tensor_args(globals()[_name], f"linalg.{_name}")
del _name

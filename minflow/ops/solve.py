"""Linear systems and the matrix exponential: the ops under minflow.linalg's solve,
solve_triangular and matrix_exp, torch's cholesky_solve, and the checks every linear
algebra function shares.

Both solve ops take B as matrices with A's batch dims and solve A X = B; the public
functions (minflow/linalg/solve.py) broadcast batch dims, turn vector right-hand sides
into columns and ``left=False`` (X A = B) into the transposed system.
Kernels: kernels/generic/solve.py; grad functions: autograd/grads/solve.py.
"""
from .registry import Attr, define_op

OPAQUE = ("opaque", "no_side_effect")


def check_matrix(name, x, what="A", complex_ok=False):
    """At least 2 dims, floating point (or complex, where the function takes it): what
    every linalg function asks of its input."""
    if x.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor {what} must have at least 2 dimensions, "
                           f"got shape {list(x.shape)}")
    if not (x.dtype.is_floating_point or (complex_ok and x.dtype.is_complex)):
        raise RuntimeError(f"{name}: Expected a floating point tensor as {what}, got "
                           f"{x.dtype.name}")


def check_square(name, x, what="A", complex_ok=False):
    """A batch of square floating point (or complex) matrices."""
    shape = tuple(x.shape)
    if len(shape) < 2 or shape[-1] != shape[-2]:
        got = f"{shape[-2]} by {shape[-1]} matrices" if len(shape) >= 2 else \
            f"a {len(shape)}-D tensor"
        raise RuntimeError(f"{name}: {what} must be batches of square matrices, but they are "
                           f"{got}")
    check_matrix(name, x, what, complex_ok)


def check_same_dtype(name, a, b, names=("A", "B")):
    if a.dtype is not b.dtype:
        raise RuntimeError(f"{name}: Expected {names[0]} and {names[1]} to have the same dtype, "
                           f"but found {names[0]} of type {a.dtype.name} and {names[1]} of type "
                           f"{b.dtype.name} instead")


def _solve_infer(A, B, name="linalg_solve", complex_ok=False):
    check_square(name, A, complex_ok=complex_ok)
    check_same_dtype(name, A, B)
    a, b = tuple(A.shape), tuple(B.shape)
    if len(b) != len(a) or b[:-2] != a[:-2] or b[-2] != a[-1]:
        raise RuntimeError(f"{name}: expected B of shape [{', '.join(map(str, a[:-1]))}, k] "
                           f"(A's batch dims and rows), got {list(b)}")
    return b, B.dtype


SOLVE = define_op("linalg_solve", ["A", "B"], traits=OPAQUE,
                  infer=lambda A, B: _solve_infer(A, B, complex_ok=True),
                  doc="X with A X = B for each square A; B has A's batch dims.")
SOLVE_TRIANGULAR = define_op(
    "linalg_solve_triangular", ["A", "B"],
    attrs=[Attr("upper", "bool"), Attr("unitriangular", "bool", False)],
    infer=lambda A, B, upper, unitriangular: _solve_infer(A, B, "linalg_solve_triangular"),
    traits=OPAQUE,
    doc="X with T X = B for the upper or lower triangle T of A (ones on the diagonal if "
        "unitriangular); the other triangle is not read.")


def _cholesky_solve_infer(B, L, upper):
    name = "cholesky_solve"
    check_square(name, L, "L")
    check_same_dtype(name, B, L, ("B", "L"))
    b, n = tuple(B.shape), L.shape[-1]
    if len(b) != L.ndim or b[:-2] != tuple(L.shape[:-2]) or b[-2] != n:
        raise RuntimeError(f"{name}: expected B of shape [{', '.join(map(str, L.shape[:-1]))}, "
                           f"k] (L's batch dims and rows), got {list(b)}")
    return b, B.dtype


CHOLESKY_SOLVE = define_op(
    "cholesky_solve", ["B", "L"], attrs=[Attr("upper", "bool", False)],
    infer=_cholesky_solve_infer, traits=OPAQUE,
    doc="X with A X = B for A = L L^T (U^T U if upper), from the lower (upper) triangle of "
        "L only; B has L's batch dims.")


def _matrix_exp_infer(A):
    check_square("linalg_matrix_exp", A)
    return tuple(A.shape), A.dtype


MATRIX_EXP = define_op("linalg_matrix_exp", ["A"], infer=_matrix_exp_infer, traits=OPAQUE,
                       doc="exp(A) = sum_k A^k / k! of each square matrix.")

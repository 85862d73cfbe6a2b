"""Linear systems: solve, solve_triangular, lstsq, matrix_power, multi_dot, matrix_exp,
with torch.linalg's names and argument rules (and the torch namespace's triangular_solve,
cholesky_solve, cholesky_inverse, matrix_power and matrix_exp).

solve and solve_triangular are ops (minflow/ops/solve.py) on matrices with A's batch
dims: here the batch dims broadcast, a vector B becomes a column, and X A = B becomes
A^T X^T = B^T.
"""
import numbers

from ..core import dtype as dtypes
from ..core.dispatch import apply
from ..core.functional import public
from ..core.inplace import write_out
from ..core.namespace import F
from ..ops.infer import broadcast_shapes
from ..ops.solve import (CHOLESKY_SOLVE, MATRIX_EXP, SOLVE, SOLVE_TRIANGULAR, check_matrix,
                         check_same_dtype, check_square)
from .returns import return_type

__all__ = ["solve", "solve_triangular", "lstsq", "matrix_power", "multi_dot", "matrix_exp"]


def mT(x):
    return F.transpose(x, -1, -2)


def _broadcast_batch(name, A, B):
    """A and B expanded to one batch shape (all but their last two dims)."""
    try:
        batch = broadcast_shapes(tuple(A.shape[:-2]), tuple(B.shape[:-2]))
    except RuntimeError:
        raise RuntimeError(f"{name}: the batch dims of A {list(A.shape)} and B "
                           f"{list(B.shape)} must broadcast") from None
    return (F.expand(A, batch + tuple(A.shape[-2:])),
            F.expand(B, batch + tuple(B.shape[-2:])))


def _finish(result, out, name):
    return result if out is None else write_out(result, out, name)


def solve(A, B, *, left=True, out=None):
    """solve(A, B, *, left=True, out=None) -> Tensor

    X with A X = B (``left=False``: X A = B) for each square A, batch dims broadcast.
    B is a batch of vectors when it is 1-D or has shape A.shape[:-1] (``left=True`` only);
    its result then has B's shape. A singular A raises LinAlgError.

    >>> A = minflow.tensor([[2.0, 1.0], [1.0, 3.0]])
    >>> minflow.linalg.solve(A, minflow.tensor([4.0, 7.0]))
    tensor([1., 2.])
    """
    name = "linalg.solve"
    check_square(name, A, complex_ok=True)
    check_same_dtype(name, A, B)
    X = solve_system(name, A, B, left, lambda B2, adjoint: apply(
        SOLVE, _broadcast_batch(name, mT(A) if adjoint else A, B2), {}))
    return _finish(X, out, name)


def solve_system(name, A, B, left, solve_left):
    """linalg.solve's argument rules around ``solve_left(B2, adjoint)``, which solves
    A X = B2 (A^T X = B2 if ``adjoint``) for matrices B2: a vector B becomes a column
    (``left=True`` only, as torch), and X A = B becomes A^T X^T = B^T."""
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    B2 = F.unsqueeze(B, -1) if vector else B
    if B2.ndim < 2:
        raise RuntimeError(f"{name}: expected B to be a vector or a batch of matrices, got a "
                           f"{B.ndim}-D tensor")
    if not left and not vector:
        B2 = mT(B2)
    if B2.shape[-2] != A.shape[-1] or (vector and not left):     # as torch: no x A = b
        n, rows, cols = A.shape[-1], B.shape[-1] if vector else B.shape[-2], \
            1 if vector else B.shape[-1]
        eq, shown = ("AX = B", f"{rows}x{cols}") if left else \
            ("XA = B", f"{rows}x{cols}" if vector else f"{cols}x{rows}")
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation {eq} "
                           f"({n}x{n} and {shown})")
    X = solve_left(B2, not left)
    return F.squeeze(X, -1) if vector else (X if left else mT(X))


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None) -> Tensor

    X with T X = B (``left=False``: X T = B), T the upper or lower triangle of A (the other
    is not read), with ones on its diagonal when ``unitriangular``. B is a batch of
    matrices; batch dims broadcast. A zero on T's diagonal gives inf / nan, as torch.

    >>> T = minflow.tensor([[2.0, 0.0], [1.0, 1.0]])
    >>> minflow.linalg.solve_triangular(T, minflow.tensor([[2.0], [3.0]]), upper=False).tolist()
    [[1.0], [2.0]]
    """
    name = "linalg.solve_triangular"
    check_square(name, A)
    check_matrix(name, B, "B")
    check_same_dtype(name, A, B)
    k = -2 if left else -1
    if B.shape[k] != A.shape[-1]:
        n = A.shape[-1]
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and "
                           f"{B.shape[-2]}x{B.shape[-1]})")
    if not left:
        A, B, upper = mT(A), mT(B), not upper
    A, B = _broadcast_batch(name, A, B)
    X = apply(SOLVE_TRIANGULAR, (A, B), {"upper": upper, "unitriangular": unitriangular})
    return _finish(X if left else mT(X), out, name)


_TRIANGULAR_SOLVE = return_type("triangular_solve", ["solution", "cloned_coefficient"])


@public(method=True)
def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """triangular_solve(b, A, upper=True, transpose=False, unitriangular=False)

    (solution, cloned_coefficient): X with T X = b (T^T X = b if ``transpose``), T the
    upper or lower triangle of A, as torch.triangular_solve; a copy of A comes back too.

    >>> T = minflow.tensor([[2.0, 1.0], [0.0, 1.0]])
    >>> minflow.triangular_solve(minflow.tensor([[3.0], [1.0]]), T).solution.tolist()
    [[1.0], [1.0]]
    """
    T = mT(A) if transpose else A
    X = solve_triangular(T, b, upper=upper != transpose, unitriangular=unitriangular)
    return _TRIANGULAR_SOLVE(X, F.clone(A))


@public(method=True)
def cholesky_solve(input, input2, upper=False, *, out=None):
    """cholesky_solve(input, input2, upper=False, *, out=None) -> Tensor

    X with A X = B for B = ``input`` and A = L L^T from its Cholesky factor L = ``input2``
    (A = U^T U if ``upper``); only that triangle of L is read. Batch dims broadcast.

    >>> L = minflow.tensor([[2.0, 0.0], [1.0, 1.0]])          # A = [[4, 2], [2, 2]]
    >>> minflow.cholesky_solve(minflow.tensor([[6.0], [4.0]]), L).tolist()
    [[1.0], [1.0]]
    """
    name = "cholesky_solve"
    B, L = input, input2
    for what, x in (("b", B), ("u", L)):
        if x.ndim < 2:
            raise RuntimeError(f"{name}: {what} should have at least 2 dimensions, but has "
                               f"{x.ndim} dimensions instead")
    check_same_dtype(name, B, L, ("b", "A"))
    check_square(name, L)
    n = L.shape[-1]
    if B.shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for {name}: each A matrix is {n} by {n} "
                           f"but each b matrix is {B.shape[-2]} by {B.shape[-1]}")
    L, B = _broadcast_batch(name, L, B)
    return _finish(apply(CHOLESKY_SOLVE, (B, L), {"upper": upper}), out, name)


@public(method=True)
def cholesky_inverse(input, upper=False, *, out=None):
    """cholesky_inverse(input, upper=False, *, out=None) -> Tensor

    A^-1 for A = L L^T from its Cholesky factor L = ``input`` (A = U^T U if ``upper``):
    cholesky_solve of the identity, with torch's gradient.

    >>> minflow.cholesky_inverse(minflow.tensor([[2.0, 0.0], [0.0, 0.5]])).tolist()
    [[0.25, 0.0], [0.0, 4.0]]
    """
    name = "cholesky_inverse"
    check_square(name, input)
    eye = F.expand(F.eye(input.shape[-1], dtype=input.dtype, device=input.device),
                   tuple(input.shape))
    return _finish(apply(CHOLESKY_SOLVE, (eye, input), {"upper": upper}), out, name)


def matrix_exp(A):
    """matrix_exp(A) -> Tensor

    exp(A) = sum_k A^k / k! of each square matrix, by scaling and squaring with a Pade
    approximant. Its gradient is that of the same function (block-matrix identity).

    >>> minflow.linalg.matrix_exp(minflow.zeros(2, 2)).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    check_square("linalg.matrix_exp", A)
    return apply(MATRIX_EXP, (A,), {})


def matrix_power(A, n, *, out=None):
    """matrix_power(A, n, *, out=None) -> Tensor

    A^n for an integer n by repeated squaring: the identity for n = 0, and inv(A)^|n| for
    n < 0 (A must then be invertible, and floating point).

    >>> A = minflow.tensor([[1, 1], [0, 1]])
    >>> minflow.linalg.matrix_power(A, 3).tolist()
    [[1, 3], [0, 1]]
    """
    name = "linalg.matrix_power"
    if not isinstance(n, numbers.Integral) or isinstance(n, bool):
        raise TypeError(f"{name}: expected n to be an int, got {type(n).__name__}")
    shape = tuple(A.shape)
    if len(shape) < 2 or shape[-1] != shape[-2]:
        got = f"{shape[-2]} by {shape[-1]} matrices" if len(shape) >= 2 else \
            f"a {len(shape)}-D tensor"
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {got}")
    if n < 0:
        if not A.dtype.is_differentiable:
            raise RuntimeError(f"{name}: a negative n needs the inverse of A, so A must be "
                               f"floating point or complex, got {A.dtype.name}")
        A, n = F.inverse(A), -n
    if n == 0:      # the identity, differentiable with a zero gradient (as torch)
        eye = F.expand(F.eye(shape[-1], dtype=A.dtype, device=A.device), shape)
        return _finish(F.where(F.ones(shape, dtype=dtypes.bool, device=A.device), eye, A),
                       out, name)
    result, power = None, A
    while n:
        if n & 1:
            result = power if result is None else F.matmul(result, power)
        n >>= 1
        if n:
            power = F.matmul(power, power)
    return _finish(result if result is not A else F.clone(A), out, name)


def multi_dot(tensors, *, out=None):
    """multi_dot(tensors, *, out=None) -> Tensor

    The product of two or more matrices, in the order of fewest multiplications (as
    torch); the first may be a 1-D row vector and the last a 1-D column vector.

    >>> a, b, c = minflow.ones(2, 3), minflow.ones(3, 4), minflow.ones(4)
    >>> minflow.linalg.multi_dot([a, b, c]).tolist()
    [12.0, 12.0]
    """
    name = "linalg.multi_dot"
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"{name}(): expected at least 2 tensors but got {len(tensors)}")
    first, last = tensors[0].ndim == 1, tensors[-1].ndim == 1
    mats = [F.unsqueeze(tensors[0], 0) if first else tensors[0]] + tensors[1:-1] + \
        [F.unsqueeze(tensors[-1], -1) if last else tensors[-1]]
    for i, m in enumerate(mats):
        if m.ndim != 2:
            raise RuntimeError(f"{name}(): tensor {i} must be 2D (1D for the first and last), "
                               f"got {tensors[i].ndim}D")
        if m.dtype is not mats[0].dtype:
            raise RuntimeError(f"{name}(): all tensors must have the same dtype, got "
                               f"{mats[0].dtype.name} and {m.dtype.name}")
        if i and mats[i - 1].shape[1] != m.shape[0]:
            raise RuntimeError(f"{name}(): tensors {i - 1} and {i} cannot be multiplied "
                               f"({mats[i - 1].shape[0]}x{mats[i - 1].shape[1]} and "
                               f"{m.shape[0]}x{m.shape[1]})")
    result = _chain(mats, _order([m.shape[0] for m in mats] + [mats[-1].shape[1]]),
                    0, len(mats) - 1)
    if first:
        result = F.squeeze(result, 0)
    if last:
        result = F.squeeze(result, -1)
    return _finish(result, out, name)


def _order(dims):
    """The split table of the cheapest parenthesisation (the textbook dynamic program)."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = float("inf")
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _chain(mats, split, i, j):
    if i == j:
        return mats[i]
    k = split[i][j]
    return F.matmul(_chain(mats, split, i, k), _chain(mats, split, k + 1, j))


def lstsq(A, B, rcond=None, *, driver=None):
    """lstsq(A, B, rcond=None, *, driver=None) -> (solution, residuals, rank, singular_values)

    The least-squares solution X minimising ||A X - B|| for each A of shape (m, n) with
    full rank (min-norm for m < n), through a QR factorization (differentiable). As torch:
    ``rank`` for drivers gelsy (the default), gelsd and gelss; ``singular_values`` for
    gelsd and gelss; ``residuals`` (squared, per column) for drivers other than gelsy when
    m > n; the others are empty. B may be a vector when A is a single matrix.

    >>> A = minflow.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> minflow.linalg.lstsq(A, minflow.tensor([[1.0], [1.0], [2.0]])).solution
    tensor([[1.0000],
            [1.0000]])
    """
    from .decompositions import qr
    name = "torch.linalg.lstsq"
    check_matrix(name, A)
    check_same_dtype(name, A, B)
    drivers = ("gels", "gelsy", "gelsd", "gelss")
    driver = "gelsy" if driver is None else driver
    if driver not in drivers:
        raise RuntimeError(f"{name}: parameter `driver` should be one of {drivers}, got "
                           f"{driver!r}")
    vector = B.ndim == A.ndim - 1
    B2 = F.unsqueeze(B, -1) if vector else B
    if B2.ndim < 2 or B2.shape[-2] != A.shape[-2]:
        raise RuntimeError(f"{name}: input.size(-2) should match other.size(-2), got A of "
                           f"shape {list(A.shape)} and B of shape {list(B.shape)}")
    A, B2 = _broadcast_batch(name, A, B2)
    m, n = A.shape[-2:]
    if m >= n:      # A = QR: X = R^-1 Q^T B
        Q, R = qr(A)
        X = solve_triangular(R, F.matmul(mT(Q), B2), upper=True)
    else:           # A^T = QR: the min-norm X = Q R^-T B
        Q, R = qr(mT(A))
        X = F.matmul(Q, solve_triangular(mT(R), B2, upper=False))
    residuals, rank, values = _lstsq_extras(A, B2, X, rcond, driver)
    if vector:
        X = F.squeeze(X, -1)
        residuals = F.squeeze(residuals, -1) if residuals.numel() else residuals
    return _LSTSQ(X, residuals, rank, values)


def _lstsq_extras(A, B, X, rcond, driver):
    """residuals, rank and singular values, each empty where torch's driver gives none."""
    from .decompositions import matrix_rank, svdvals
    empty = F.zeros(0, dtype=A.dtype, device=A.device)
    # as torch, residuals are differentiable even when empty; singular values are not
    residuals = F.narrow(F.flatten(X), 0, 0, 0)
    if driver != "gelsy" and A.shape[-2] > A.shape[-1]:
        residuals = F.sum(F.pow(F.sub(F.matmul(A, X), B), 2), -2)
    rank = matrix_rank(A, rtol=rcond) if driver != "gels" else \
        F.zeros(0, dtype=dtypes.int64, device=A.device)
    values = svdvals(A.detach()) if driver in ("gelsd", "gelss") else empty
    return residuals, rank, values


_LSTSQ = return_type("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])

public(matrix_power, method=True)
public(matrix_exp, method=True)

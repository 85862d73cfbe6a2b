"""minflow.linalg: norms, inverse and determinant, with torch.linalg's names.

The norms are composites of reductions; inv and det are the ``inverse`` and ``det``
ops (minflow/ops/matrix.py).
"""
import math

from ..core import dtype as dtypes
from ..core.namespace import F
from ..ops.infer import normalize_dims
from ..ops.reduce import _vector_norm, moduli

__all__ = ["norm", "vector_norm", "matrix_norm", "inv", "det"]


def _float_input(name, x, dtype):
    out = x.dtype if dtype is None else dtypes.as_dtype(dtype)
    if not out.is_floating_point:
        raise RuntimeError(f"linalg.{name}: Expected a floating point tensor as input. Got "
                           f"{x.dtype.name}")
    return out


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None) -> Tensor

    (sum |x|^ord)^(1/ord) over ``dim`` (all elements when None); inf / -inf give the
    max / min of |x|, 0 the count of nonzeros. Of complex x: the same of its moduli (real).

    >>> minflow.linalg.vector_norm(minflow.tensor([[3.0, 4.0]]), dim=1).tolist()
    [5.0]
    """
    if x.dtype.is_complex:
        x, dtype = moduli("linalg.vector_norm", x, dtype), None
    out_dtype = _float_input("vector_norm", x, dtype)
    if isinstance(ord, (bool, str)) or not isinstance(ord, (int, float)):
        raise TypeError(f"linalg.vector_norm: expected ord to be a number, got {ord!r}")
    dims = _dims("vector_norm", dim, x.ndim)
    x = F.cast(x, dtypes.float32 if out_dtype is dtypes.float16 else out_dtype)
    return F.cast(_vector_norm(x, ord, dims, keepdim), out_dtype)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """matrix_norm(A, ord='fro', dim=(-2, -1), keepdim=False, *, dtype=None) -> Tensor

    The norm of each matrix in the ``dim`` planes: 'fro' (sqrt of the sum of squares),
    1 / -1 (max / min absolute column sum), inf / -inf (max / min absolute row sum),
    'nuc' (sum of the singular values), 2 / -2 (largest / smallest singular value).

    >>> minflow.linalg.matrix_norm(minflow.tensor([[1.0, -2.0], [3.0, 4.0]]), 1).item()
    6.0
    """
    if A.dtype.is_complex and ord in ("fro", 1, -1, math.inf, -math.inf):
        # norms of the moduli (real); the singular-value ones need a complex svd
        A, dtype = moduli("linalg.matrix_norm", A, dtype), None
    out_dtype = _float_input("matrix_norm", A, dtype)
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple, got {dim!r}")
    if A.ndim < 2:
        raise RuntimeError(f"linalg.matrix_norm: expected A with at least 2 dims, got "
                           f"{A.ndim}")
    rows, cols = (_dims("matrix_norm", d, A.ndim)[0] for d in dim)
    if rows == cols:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different, got {list(dim)}")
    A = F.cast(A, dtypes.float32 if out_dtype is dtypes.float16 else out_dtype)
    if ord == "fro":
        out = _vector_norm(A, 2, tuple(sorted((rows, cols))), keepdim)
    elif ord in (1, -1, math.inf, -math.inf) and not isinstance(ord, bool):
        summed, other = (rows, cols) if abs(ord) == 1 else (cols, rows)
        sums = F.sum(F.abs(A), summed, keepdim=True)
        out = _max_or_zero(sums, other) if ord > 0 else F.amin(sums, other, keepdim=True)
        if not keepdim:
            out = F.squeeze(F.squeeze(out, max(rows, cols)), min(rows, cols))
    elif ord in ("nuc", 2, -2) and not isinstance(ord, bool):
        out = _singular_value_norm(A, ord, rows, cols, keepdim)
    else:
        raise RuntimeError(f"linalg.matrix_norm: expected ord in ['fro', 'nuc', 1, -1, 2, -2, "
                           f"inf, -inf], got {ord!r}")
    return F.cast(out, out_dtype)


def _singular_value_norm(A, ord, rows, cols, keepdim):
    """'nuc', 2 or -2: from the singular values of the (rows, cols) planes."""
    from .decompositions import svdvals
    S = svdvals(F.movedim(A, (rows, cols), (-2, -1)))
    if ord == "nuc":
        out = F.sum(S, -1)
    else:
        out = F.squeeze(_max_or_zero(S, -1), -1) if ord == 2 else F.amin(S, -1)
    if keepdim:
        for d in sorted((rows, cols)):
            out = F.unsqueeze(out, d)
    return out


def _max_or_zero(x, dim):
    """The max over ``dim`` (kept) of values >= 0; 0 where ``dim`` is empty, as torch's
    positive-order matrix norms of an empty matrix."""
    if x.shape[dim] == 0:
        return F.sum(x, dim, keepdim=True)
    return F.amax(x, dim, keepdim=True)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """norm(A, ord=None, dim=None, keepdim=False, *, dtype=None) -> Tensor

    A vector norm (``dim`` an int, or ``ord`` None over all elements) or a matrix norm
    (``dim`` a 2-tuple, or a 2-D ``A`` with ``ord`` given), as torch.linalg.norm.

    >>> minflow.linalg.norm(minflow.tensor([[3.0, 0.0], [0.0, 4.0]])).item()
    5.0
    """
    if isinstance(dim, int) or (isinstance(dim, (tuple, list)) and len(dim) == 1):
        if isinstance(ord, str):
            raise RuntimeError(f"linalg.norm: ord={ord!r} is a matrix norm, so dim must be a "
                               f"2-tuple, got {dim!r}")
        return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
    if dim is None:
        if ord is None:
            return vector_norm(A, 2, None, keepdim, dtype=dtype)
        if A.ndim == 1:
            return vector_norm(A, ord, None, keepdim, dtype=dtype)
        if A.ndim != 2:
            raise RuntimeError(f"linalg.norm: with ord={ord!r} and dim=None, A must be 1-D or "
                               f"2-D, got {A.ndim}-D")
        dim = (0, 1)
    return matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype)


def inv(A):
    """inv(A) -> Tensor, the inverse of each square matrix: ``minflow.inverse``.

    >>> minflow.linalg.inv(minflow.tensor([[4.0]])).item()
    0.25
    """
    return F.inverse(A)


def det(A):
    """det(A) -> Tensor, the determinant of each square matrix: ``minflow.det``.

    >>> minflow.linalg.det(minflow.eye(3) * 2).item()
    8.0
    """
    return F.det(A)


def _dims(name, dim, ndim):
    try:
        return normalize_dims(dim, ndim, "dim")
    except (IndexError, TypeError, RuntimeError) as err:
        raise type(err)(f"linalg.{name}: {err}") from None

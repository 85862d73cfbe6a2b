"""linalg.cross, vecdot, diagonal and matmul: composites of elementwise ops, reductions and
views (their gradients come from those)."""
from ..core.namespace import F
from ..core.tensor import wrap_dim
from ..ops.infer import broadcast_shapes

__all__ = ["cross", "vecdot", "diagonal", "matmul"]


def _broadcast(name, x, y):
    try:
        shape = broadcast_shapes(tuple(x.shape), tuple(y.shape))
    except RuntimeError:
        raise RuntimeError(f"{name}: the shapes of input {list(x.shape)} and other "
                           f"{list(y.shape)} must broadcast") from None
    return F.expand(x, shape), F.expand(y, shape)


def cross(input, other, *, dim=-1, out=None):
    """cross(input, other, *, dim=-1, out=None) -> Tensor

    The cross product of the 3-vectors along ``dim``, input and other (of as many dims)
    broadcast:
    (a1 b2 - a2 b1, a2 b0 - a0 b2, a0 b1 - a1 b0).

    >>> minflow.linalg.cross(minflow.tensor([[1.0, 0.0, 0.0]]), minflow.tensor([[0.0, 1.0, 0.0]]))
    tensor([[0., 0., 1.]])
    """
    name = "linalg.cross"
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{name}: expected input and other to have the same dtype, got "
                           f"{input.dtype.name} and {other.dtype.name}")
    if input.ndim != other.ndim:
        raise RuntimeError(f"{name}: inputs must have the same number of dimensions, got "
                           f"{input.ndim} and {other.ndim}")
    if input.ndim == 0:
        raise IndexError(f"{name}: Dimension specified as {dim} but tensor has no dimensions")
    d = wrap_dim(dim, input.ndim, name)
    if input.shape[d] != 3 or other.shape[d] != 3:      # dim itself does not broadcast
        raise RuntimeError(f"{name}: inputs dimension {dim} must have length 3. Got "
                           f"{input.shape[d]} and {other.shape[d]}")
    a, b = _broadcast(name, input, other)
    result = F.sub(F.mul(F.roll(a, -1, d), F.roll(b, 1, d)),
                   F.mul(F.roll(a, 1, d), F.roll(b, -1, d)))
    if out is None:
        return result
    from ..core.inplace import write_out
    return write_out(result, out, name)


def vecdot(x, y, *, dim=-1, out=None):
    """vecdot(x, y, *, dim=-1, out=None) -> Tensor

    sum(x * y) along ``dim``, x and y broadcast (the dot product of each pair of vectors).

    >>> minflow.linalg.vecdot(minflow.tensor([[1.0, 2.0]]), minflow.tensor([3.0, 4.0]))
    tensor([11.])
    """
    name = "linalg.vecdot"
    if x.dtype is not y.dtype:
        raise RuntimeError(f"{name}: Expected x and y to have the same dtype, but found x of "
                           f"type {x.dtype.name} and y of type {y.dtype.name} instead.")
    a, b = _broadcast(name, x, y)
    result = F.sum(F.mul(a, b), wrap_dim(dim, a.ndim, name))
    if out is None:
        return result
    from ..core.inplace import write_out
    return write_out(result, out, name)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """diagonal(A, *, offset=0, dim1=-2, dim2=-1) -> Tensor

    minflow.diagonal with the last two dims as the default plane (a view).

    >>> minflow.linalg.diagonal(minflow.eye(2).expand(3, 2, 2)).shape
    minflow.Size([3, 2])
    """
    return F.diagonal(A, offset, dim1, dim2)


def matmul(input, other, *, out=None):
    """matmul(input, other, *, out=None) -> Tensor: minflow.matmul.

    >>> minflow.linalg.matmul(minflow.ones(2, 3), minflow.ones(3)).tolist()
    [3.0, 3.0]
    """
    return F.matmul(input, other, out=out)

"""Normalisation and distances between vectors, with PyTorch's signatures
(minflow.nn.functional takes ``__all__``).

All four are composites of differentiable reductions (norm, sum) and elementwise ops:
no op, kernel or grad function of their own.
"""
from ..core.functional import public
from ..core.namespace import F
from .infer import broadcast_shapes, check_int, check_number
from .reduce import _vector_norm

__all__ = ["normalize", "cosine_similarity", "pairwise_distance", "pdist"]


@public
def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """normalize(input, p=2.0, dim=1, eps=1e-12, out=None) -> Tensor

    v / max(||v||_p, eps) for each vector v along ``dim``.

    >>> x = minflow.tensor([[3.0, 4.0]], dtype=minflow.float64)
    >>> minflow.nn.functional.normalize(x).tolist()
    [[0.6, 0.8]]
    """
    if out is not None:
        raise NotImplementedError("normalize: out= is not supported; assign the result")
    denom = F.clamp(F.norm(input, p, dim, keepdim=True), min=eps)
    return F.div(input, denom)


@public
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """cosine_similarity(x1, x2, dim=1, eps=1e-8) -> Tensor

    sum(x1 / max(||x1||, eps) * x2 / max(||x2||, eps)) along ``dim``, x1 and x2 broadcast.

    >>> a, b = minflow.tensor([[1.0, 0.0]]), minflow.tensor([[1.0, 1.0]])
    >>> round(minflow.nn.functional.cosine_similarity(a, b).item(), 4)
    0.7071
    """
    shape = _broadcast("cosine_similarity", x1, x2)
    _check_floating("cosine_similarity", x1, x2)
    if not -len(shape) <= check_int("cosine_similarity", "dim", dim) < max(len(shape), 1):
        raise IndexError(f"cosine_similarity: Dimension out of range (expected to be in range "
                         f"of [{-len(shape)}, {len(shape) - 1}], but got {dim})")
    x1, x2 = F.expand(x1, shape), F.expand(x2, shape)
    # each vector is normalised first, as torch: the result stays within [-1, 1]
    n1 = F.clamp(F.norm(x1, 2, dim, keepdim=True), min=eps)
    n2 = F.clamp(F.norm(x2, 2, dim, keepdim=True), min=eps)
    return F.sum(F.mul(F.div(x1, n1), F.div(x2, n2)), dim)


@public
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False) -> Tensor

    ||x1 - x2 + eps||_p over the last dim, x1 and x2 broadcast.

    >>> a, b = minflow.tensor([[3.0, 0.0]]), minflow.tensor([[0.0, 4.0]])
    >>> round(minflow.nn.functional.pairwise_distance(a, b, eps=0.0).item(), 4)
    5.0
    """
    shape = _broadcast("pairwise_distance", x1, x2)
    diff = F.add(F.sub(x1, x2), eps)
    if not shape:       # torch takes a 0-d difference as one vector of one element
        return F.reshape(F.norm(F.reshape(diff, (1,)), p, -1), ())
    return F.norm(diff, p, -1, keepdim=keepdim)


def _check_floating(name, x1, x2):
    if not (x1.dtype.is_floating_point or x2.dtype.is_floating_point):
        raise RuntimeError(f"{name}: expected a floating point x1 or x2, got "
                           f"{x1.dtype.name} and {x2.dtype.name}")


def _broadcast(name, x1, x2):
    try:
        return tuple(broadcast_shapes(tuple(x1.shape), tuple(x2.shape)))
    except RuntimeError:
        raise RuntimeError(f"{name}: x1 of shape {list(x1.shape)} and x2 of shape "
                           f"{list(x2.shape)} must be broadcastable") from None


@public
def pdist(input, p=2):
    """pdist(input, p=2) -> Tensor

    The p-norm distance between every pair of rows of the (N, M) ``input``: the upper
    triangle of cdist(input, input), row by row, N (N - 1) / 2 values.

    >>> minflow.nn.functional.pdist(minflow.tensor([[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]])).tolist()
    [5.0, 1.0, 4.242640495300293]
    """
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"pdist only supports floating-point dtypes, got {input.dtype.name}")
    if check_number("pdist", "p", p) < 0:
        raise RuntimeError(f"pdist only supports non-negative p values, got {p}")
    first, second = F.triu_indices(input.shape[0], input.shape[0], 1, device=input.device)
    diff = F.sub(F.index_select(input, 0, first), F.index_select(input, 0, second))
    return _vector_norm(diff, p, (1,), False)

"""Broadcasting composites, with PyTorch's signatures: broadcast_shapes, broadcast_tensors,
meshgrid and atleast_1d / 2d / 3d. Each output is a view (``expand`` of a ``reshape``),
so they need no kernels or grad code of their own.
"""
import operator
import warnings

from ..core.functional import public
from ..core.namespace import F
from ..core.tensor import Size, Tensor
from .infer import broadcast_shapes as _broadcast

__all__ = ["broadcast_shapes", "broadcast_tensors", "meshgrid", "atleast_1d", "atleast_2d",
           "atleast_3d"]


def _tensor_args(fn, tensors):
    """``fn(a, b)`` and ``fn([a, b])`` alike: the tensors as a list, each checked."""
    if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
        tensors = tensors[0]
    for k, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"{fn}: expected Tensors, got {type(t).__name__} as argument {k}")
    return list(tensors)


def _shape_arg(shape, k):
    try:
        dims = (operator.index(shape),) if not isinstance(shape, (tuple, list)) else \
            tuple(operator.index(s) for s in shape)
    except TypeError:
        raise RuntimeError(f"broadcast_shapes: Input shapes should be of type ints, a tuple "
                           f"of ints, or a list of ints, got {shape!r} as shape {k}") from None
    if any(d < 0 for d in dims):
        raise ValueError(f"broadcast_shapes: Attempting to broadcast a dimension with "
                         f"negative length! Got shape {list(dims)} as shape {k}")
    return dims


@public
def broadcast_shapes(*shapes):
    """broadcast_shapes(*shapes) -> Size, the shape all ``shapes`` broadcast to.

    Each shape is an int or a sequence of ints; sizes must match or be 1, from the right.

    >>> minflow.broadcast_shapes((2, 1), (3,), 1)
    minflow.Size([2, 3])
    """
    dims = [_shape_arg(s, k) for k, s in enumerate(shapes)]
    if not dims:
        return Size(())
    try:
        return Size(_broadcast(*dims))
    except RuntimeError as err:
        raise RuntimeError(f"broadcast_shapes: {err}") from None


@public
def broadcast_tensors(*tensors):
    """broadcast_tensors(*tensors) -> tuple of views, each expanded to the common shape.

    >>> a, b = minflow.broadcast_tensors(minflow.tensor([[1], [2]]), minflow.tensor([3, 4]))
    >>> a.tolist(), b.tolist()
    ([[1, 1], [2, 2]], [[3, 4], [3, 4]])
    """
    tensors = _tensor_args("broadcast_tensors", tensors)
    try:
        shape = _broadcast(*(tuple(t.shape) for t in tensors)) if tensors else ()
    except RuntimeError as err:
        raise RuntimeError(f"broadcast_tensors: {err}") from None
    return tuple(F.expand(t, shape) for t in tensors)


def _meshgrid_check(tensors, indexing):
    if not tensors:
        raise RuntimeError("meshgrid: meshgrid expects a non-empty TensorList")
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'meshgrid: indexing must be one of "xy" or "ij", but received: '
                           f'{indexing}')
    for k, t in enumerate(tensors):
        if t.ndim > 1:
            raise RuntimeError(f"meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got a {t.ndim}-D tensor of shape {list(t.shape)} as tensor {k}")
        if t.dtype is not tensors[0].dtype or t.device != tensors[0].device:
            raise RuntimeError(f"meshgrid: meshgrid expects all tensors to have the same "
                               f"dtype and device, got {tensors[0].dtype.name} on "
                               f"{tensors[0].device} and {t.dtype.name} on {t.device} "
                               f"(tensor {k})")


@public
def meshgrid(*tensors, indexing=None):
    """meshgrid(*tensors, indexing=None) -> tuple of views, one coordinate grid per input.

    With N 1-D inputs of sizes s_1..s_N, output i has shape (s_1, ..., s_N) and
    out_i[j_1, ..., j_N] = tensors[i][j_i] (``indexing="ij"``, the default); ``"xy"``
    swaps the first two dims of every output (Cartesian, as numpy's default).

    >>> x, y = minflow.meshgrid(minflow.tensor([1, 2, 3]), minflow.tensor([4, 5]),
    ...                         indexing="xy")
    >>> x.tolist(), y.tolist()
    ([[1, 2, 3], [1, 2, 3]], [[4, 4, 4], [5, 5, 5]])
    """
    tensors = _tensor_args("meshgrid", tensors)
    if indexing is None:
        warnings.warn("meshgrid: in an upcoming release, it will be required to pass the "
                      "indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    _meshgrid_check(tensors, indexing)
    swap = indexing == "xy" and len(tensors) >= 2
    order = [1, 0] + list(range(2, len(tensors))) if swap else list(range(len(tensors)))
    sizes = [tensors[i].numel() for i in order]
    grids = []
    for k, i in enumerate(order):
        shape = [1] * len(tensors)
        shape[k] = -1
        grids.append((i, F.expand(F.reshape(tensors[i], tuple(shape)), tuple(sizes))))
    return tuple(grid for _, grid in sorted(grids, key=lambda pair: pair[0]))


def _atleast(fn, ndim, tensors, pad):
    """``pad(t)`` for each tensor of fewer than ``ndim`` dims; one tensor in, one out."""
    single = len(tensors) == 1 and isinstance(tensors[0], Tensor)
    tensors = _tensor_args(fn, tensors)
    out = tuple(F.reshape(t, pad(tuple(t.shape))) if t.ndim < ndim else t for t in tensors)
    return out[0] if single else out


@public
def atleast_1d(*tensors):
    """atleast_1d(*tensors) -> Tensor or tuple: 0-d tensors viewed as shape (1,).

    >>> minflow.atleast_1d(minflow.tensor(5.0)).shape
    minflow.Size([1])
    """
    return _atleast("atleast_1d", 1, tensors, lambda shape: (1,))


@public
def atleast_2d(*tensors):
    """atleast_2d(*tensors) -> Tensor or tuple: () -> (1, 1), (n,) -> (1, n), as views.

    >>> minflow.atleast_2d(minflow.tensor([1, 2])).tolist()
    [[1, 2]]
    """
    return _atleast("atleast_2d", 2, tensors, lambda shape: (1,) * (2 - len(shape)) + shape)


@public
def atleast_3d(*tensors):
    """atleast_3d(*tensors) -> Tensor or tuple: () -> (1, 1, 1), (n,) -> (1, n, 1),
    (m, n) -> (m, n, 1), as views.

    >>> minflow.atleast_3d(minflow.ones(2, 3)).shape
    minflow.Size([2, 3, 1])
    """
    return _atleast("atleast_3d", 3, tensors,
                    lambda shape: {0: (1, 1, 1), 1: (1,) + shape + (1,)}.get(len(shape),
                                                                            shape + (1,)))

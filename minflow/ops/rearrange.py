"""Rearranging composites, with PyTorch's signatures: movedim (moveaxis), select, tile,
repeat_interleave, vstack, hstack, dstack, column_stack, tensor_split and hsplit / vsplit /
dsplit, written with permute, indexing, repeat, expand, reshape, narrow and cat, so they
need no kernels or grad code of their own."""
import numbers
import operator

from ..core import dtype as dtypes
from ..core.functional import public
from ..core.namespace import F
from ..core.tensor import Tensor, wrap_dim

__all__ = ["movedim", "moveaxis", "select", "tile", "repeat_interleave", "vstack", "hstack",
           "dstack", "column_stack", "tensor_split", "hsplit", "vsplit", "dsplit"]


def _ints(fn, name, value):
    values = (value,) if isinstance(value, int) else value
    if not isinstance(values, (tuple, list)) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise TypeError(f"{fn}: expected {name} to be an int or a sequence of ints, got "
                        f"{value!r}")
    return tuple(values)


@public(method=True)
def movedim(input, source, destination):
    """movedim(input, source, destination) -> Tensor (a view)

    Move the dims ``source`` to the positions ``destination`` (ints or sequences of one
    length); the other dims keep their order.

    >>> minflow.zeros(2, 3, 4).movedim(0, -1).shape
    minflow.Size([3, 4, 2])
    """
    source = _ints("movedim", "source", source)
    destination = _ints("movedim", "destination", destination)
    if len(source) != len(destination):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source "
                           f"({list(source)} dims) should contain the same number of dims as "
                           f"destination ({list(destination)} dims)")
    ndim = input.ndim
    source = [wrap_dim(d, ndim, "movedim") for d in source]
    destination = [wrap_dim(d, ndim, "movedim") for d in destination]
    for name, dims in (("source", source), ("destination", destination)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({dims})")
    order = [None] * ndim
    for s, d in zip(source, destination):
        order[d] = s
    rest = iter(d for d in range(ndim) if d not in source)
    return F.permute(input, *[s if s is not None else next(rest) for s in order])


@public(method=True)
def moveaxis(input, source, destination):
    """moveaxis(input, source, destination) -> Tensor: ``movedim``, by numpy's name.

    >>> minflow.zeros(2, 3).moveaxis(1, 0).shape
    minflow.Size([3, 2])
    """
    return movedim(input, source, destination)


@public(method=True)
def select(input, dim, index):
    """select(input, dim, index) -> Tensor (a view): input[..., index, ...] at ``dim``,
    which disappears.

    >>> minflow.arange(6).reshape(2, 3).select(1, -1).tolist()
    [2, 5]
    """
    if isinstance(index, bool) or not isinstance(index, int):
        raise TypeError(f"select: expected index to be an int, got {type(index).__name__}")
    dim = wrap_dim(dim, input.ndim, "select")
    size = input.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input.shape)} at dimension {dim}")
    return input[(slice(None),) * dim + (index,)]


@public(method=True)
def tile(input, dims):
    """tile(input, dims) -> Tensor

    Repeat ``input`` ``dims[i]`` times along each dim; with fewer dims than ``input`` has,
    ones are prepended (torch's rule, unlike ``repeat``).

    >>> minflow.tensor([[1, 2]]).tile((2,)).tolist()
    [[1, 2, 1, 2]]
    """
    dims = _ints("tile", "dims", dims)
    dims = (1,) * (input.ndim - len(dims)) + dims
    return input.repeat(*dims)


@public(method=True)
def repeat_interleave(input, repeats, dim=None, *, output_size=None):
    """repeat_interleave(input, repeats, dim=None, *, output_size=None) -> Tensor

    Repeat each element ``repeats`` times along ``dim``, or over the flattened input when
    dim is None. ``repeats`` is an int, or an integer tensor: 0-d, or 1-D with one count
    per element along dim (or a single count). Tensor counts are read from the data, so
    the result's shape depends on values (not in graph mode).

    >>> minflow.tensor([[1, 2], [3, 4]]).repeat_interleave(2, dim=0).tolist()
    [[1, 2], [1, 2], [3, 4], [3, 4]]
    >>> minflow.tensor([1, 2, 3]).repeat_interleave(minflow.tensor([2, 0, 1])).tolist()
    [1, 1, 3]
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"repeat_interleave: expected input to be a Tensor, got "
                        f"{type(input).__name__}")
    if dim is None:
        input, dim = F.reshape(input, (-1,)), 0
    dim = wrap_dim(dim, input.ndim, "repeat_interleave")
    if isinstance(repeats, Tensor) and repeats.ndim == 0:
        repeats = _int_repeats(repeats).item()
    if isinstance(repeats, Tensor):
        out = _repeat_by_counts(input, _int_repeats(repeats), dim)
    else:
        if not isinstance(repeats, numbers.Integral) or isinstance(repeats, bool):
            raise TypeError(f"repeat_interleave: expected repeats to be an int or a Tensor, "
                            f"got {type(repeats).__name__}")
        if repeats < 0:
            raise RuntimeError(f"repeat_interleave: expected repeats to be a non-negative int, "
                               f"got {repeats!r}")
        shape = tuple(input.shape)
        expanded = F.expand(F.unsqueeze(input, dim + 1),
                            shape[:dim + 1] + (repeats,) + shape[dim + 1:])
        out = F.reshape(expanded, shape[:dim] + (shape[dim] * repeats,) + shape[dim + 1:])
    if output_size is not None and output_size != out.shape[dim]:
        raise RuntimeError(f"repeat_interleave: expected output_size {out.shape[dim]}, got "
                           f"{output_size}")
    return out


def _int_repeats(repeats):
    if repeats.dtype not in (dtypes.int32, dtypes.int64):
        raise NotImplementedError(f"repeat_interleave: expected int32 or int64 repeats, got "
                                  f"{repeats.dtype.name}")
    if repeats.ndim > 1:
        raise RuntimeError(f"repeat_interleave: repeats must be 0-dim or 1-dim tensor, got "
                           f"{repeats.ndim}-dim")
    return repeats


def _repeat_by_counts(input, repeats, dim):
    """index_select of each position along dim, ``repeats[i]`` times (differentiable)."""
    counts = repeats.tolist() * (input.shape[dim] if repeats.numel() == 1 else 1)
    if len(counts) != input.shape[dim]:
        raise RuntimeError(f"repeat_interleave: repeats must have the same size as input "
                           f"along dim, but got repeats.size(0) = {len(counts)} and "
                           f"input.size({dim}) = {input.shape[dim]}")
    if min(counts, default=0) < 0:
        raise RuntimeError(f"repeat_interleave: repeats can not be negative, got {counts}")
    index = [i for i, n in enumerate(counts) for _ in range(n)]
    return F.index_select(input, dim, F.tensor(index, dtype=dtypes.int64, device=input.device))


def _tensors(fn, tensors):
    if not isinstance(tensors, (tuple, list)):
        raise TypeError(f"{fn}: expected a sequence of Tensors, got {type(tensors).__name__}")
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError(f"{fn}: expects a non-empty sequence of tensors")
    if not all(isinstance(t, Tensor) for t in tensors):
        got = ", ".join(type(t).__name__ for t in tensors)
        raise TypeError(f"{fn}: expected a sequence of Tensors, got ({got})")
    return tensors


@public
def vstack(tensors):
    """vstack(tensors) -> Tensor: cat along dim 0 after making each tensor at least 2-D
    (a 1-D tensor becomes one row).

    >>> minflow.vstack([minflow.tensor([1, 2]), minflow.tensor([3, 4])]).tolist()
    [[1, 2], [3, 4]]
    """
    tensors = _tensors("vstack", tensors)
    return F.cat([F.reshape(t, (1, -1)) if t.ndim < 2 else t for t in tensors], 0)


public(vstack, name="row_stack")


@public
def hstack(tensors):
    """hstack(tensors) -> Tensor: cat along dim 1, or along dim 0 for 1-D tensors (0-d
    tensors count as 1-D).

    >>> minflow.hstack([minflow.tensor([1, 2]), minflow.tensor([3])]).tolist()
    [1, 2, 3]
    """
    tensors = [F.reshape(t, (1,)) if t.ndim == 0 else t for t in _tensors("hstack", tensors)]
    return F.cat(tensors, 0 if tensors[0].ndim == 1 else 1)


@public
def dstack(tensors):
    """dstack(tensors) -> Tensor: cat along dim 2 after making each tensor at least 3-D
    (see :func:`atleast_3d`).

    >>> minflow.dstack([minflow.tensor([1, 2]), minflow.tensor([3, 4])]).tolist()
    [[[1, 3], [2, 4]]]
    """
    return F.cat(list(F.atleast_3d(_tensors("dstack", tensors))), 2)


@public
def column_stack(tensors):
    """column_stack(tensors) -> Tensor: ``hstack`` after making 0-d and 1-D tensors columns
    (shape (n, 1)).

    >>> minflow.column_stack([minflow.tensor([1, 2]), minflow.tensor([[3], [4]])]).tolist()
    [[1, 3], [2, 4]]
    """
    tensors = _tensors("column_stack", tensors)
    return F.cat([F.reshape(t, (-1, 1)) if t.ndim < 2 else t for t in tensors], 1)


def _split_points(indices_or_sections):
    """An int (the number of sections) or a tuple of ints (the indices), from an int, a
    sequence of ints, or a 0-d / 1-D int64 tensor."""
    arg = indices_or_sections
    if isinstance(arg, Tensor):
        if arg.ndim > 1:
            raise RuntimeError(f"tensor_split: expected tensor_indices_or_sections to be a "
                               f"zero-dimensional or one-dimensional tensor, but got a tensor "
                               f"with {arg.ndim} dims")
        if arg.dtype is not dtypes.int64:
            raise RuntimeError(f"tensor_split: expected tensor_indices_or_sections to have "
                               f"dtype of long, but got {arg.dtype.name}")
        return int(arg.item()) if arg.ndim == 0 else tuple(arg.tolist())
    try:
        if isinstance(arg, bool):
            raise TypeError     # as torch: True is no number of sections
        if isinstance(arg, (tuple, list)):
            return tuple(operator.index(i) for i in arg)
        return operator.index(arg)
    except TypeError:
        raise TypeError(f"tensor_split: expected indices_or_sections to be an int, a sequence "
                        f"of ints or an int64 tensor, got {arg!r}") from None


@public(method=True)
def tensor_split(input, indices_or_sections, dim=0):
    """tensor_split(input, indices_or_sections, dim=0) -> tuple of views along ``dim``.

    An int n gives n pieces whose sizes differ by at most one (the first size % n are
    one longer); indices [i, j, ...] give input[:i], input[i:j], ..., input[last:] along
    ``dim``, as Python slices (negative indices count from the end).

    >>> [p.tolist() for p in minflow.arange(7).tensor_split(3)]
    [[0, 1, 2], [3, 4], [5, 6]]
    >>> [p.tolist() for p in minflow.arange(7).tensor_split([1, 5])]
    [[0], [1, 2, 3, 4], [5, 6]]
    """
    if input.ndim == 0:
        raise RuntimeError("tensor_split: tensor_split expected at least a 1-dimensional "
                           "tensor, but got a tensor with 0 dims")
    points = _split_points(indices_or_sections)
    dim = wrap_dim(dim, input.ndim, "tensor_split")
    size = input.shape[dim]
    if isinstance(points, int):
        if points <= 0:
            raise RuntimeError(f"tensor_split: number of sections must be larger than 0, got "
                               f"{points}")
        small, extra = divmod(size, points)
        bounds = [k * small + min(k, extra) for k in range(points + 1)]
    else:
        bounds = [0] + [min(max(i + size if i < 0 else i, 0), size) for i in points] + [size]
    return tuple(F.narrow(input, dim, start, max(end - start, 0))
                 for start, end in zip(bounds, bounds[1:]))


def _directional_split(fn, min_ndim, dim, input, indices_or_sections):
    if input.ndim < min_ndim:
        raise RuntimeError(f"{fn}: torch.{fn} requires a tensor with at least {min_ndim} "
                           f"dimension, but got a tensor with {input.ndim} dimensions!")
    if isinstance(indices_or_sections, int) and not isinstance(indices_or_sections, bool):
        size = input.shape[dim]
        if indices_or_sections == 0 or size % indices_or_sections:
            raise RuntimeError(f"{fn}: torch.{fn} attempted to split along dimension {dim}, "
                               f"but the size of the dimension {size} is not divisible by "
                               f"the split_size {indices_or_sections}!")
    return tensor_split(input, indices_or_sections, dim)


@public(method=True)
def hsplit(input, indices_or_sections):
    """hsplit(input, indices_or_sections) -> tuple of views: ``tensor_split`` along dim 1
    (dim 0 for 1-D input); an int must divide that dim's size.

    >>> [p.shape for p in minflow.zeros(2, 4).hsplit(2)]
    [minflow.Size([2, 2]), minflow.Size([2, 2])]
    """
    return _directional_split("hsplit", 1, 0 if input.ndim == 1 else 1, input,
                              indices_or_sections)


@public(method=True)
def vsplit(input, indices_or_sections):
    """vsplit(input, indices_or_sections) -> tuple of views: ``tensor_split`` along dim 0
    of an at least 2-D input; an int must divide that dim's size.

    >>> [p.shape for p in minflow.zeros(4, 2).vsplit([1])]
    [minflow.Size([1, 2]), minflow.Size([3, 2])]
    """
    return _directional_split("vsplit", 2, 0, input, indices_or_sections)


@public(method=True)
def dsplit(input, indices_or_sections):
    """dsplit(input, indices_or_sections) -> tuple of views: ``tensor_split`` along dim 2
    of an at least 3-D input; an int must divide that dim's size.

    >>> [p.shape for p in minflow.zeros(1, 2, 4).dsplit(2)]
    [minflow.Size([1, 2, 2]), minflow.Size([1, 2, 2])]
    """
    return _directional_split("dsplit", 3, 2, input, indices_or_sections)

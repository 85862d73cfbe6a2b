"""Rearranging composites, with PyTorch's signatures: movedim (moveaxis), select, tile,
repeat_interleave, vstack and hstack, written with permute, indexing, repeat, expand,
reshape and cat, so they need no kernels or grad code of their own."""
import numbers

from ..core.functional import public
from ..core.namespace import F
from ..core.tensor import Tensor, wrap_dim

__all__ = ["movedim", "moveaxis", "select", "tile", "repeat_interleave", "vstack", "hstack"]


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

    Repeat each element ``repeats`` times (an int) along ``dim``, or over the flattened
    input when dim is None.

    >>> minflow.tensor([[1, 2], [3, 4]]).repeat_interleave(2, dim=0).tolist()
    [[1, 2], [1, 2], [3, 4], [3, 4]]
    """
    if isinstance(repeats, Tensor):
        raise NotImplementedError("repeat_interleave: tensor repeats are not implemented in "
                                  "minflow; pass an int")
    if not isinstance(repeats, numbers.Integral) or isinstance(repeats, bool) or repeats < 0:
        raise RuntimeError(f"repeat_interleave: expected repeats to be a non-negative int, "
                           f"got {repeats!r}")
    if dim is None:
        input, dim = F.reshape(input, (-1,)), 0
    dim = wrap_dim(dim, input.ndim, "repeat_interleave")
    shape = tuple(input.shape)
    expanded = F.expand(F.unsqueeze(input, dim + 1),
                        shape[:dim + 1] + (repeats,) + shape[dim + 1:])
    out = F.reshape(expanded, shape[:dim] + (shape[dim] * repeats,) + shape[dim + 1:])
    if output_size is not None and output_size != out.shape[dim]:
        raise RuntimeError(f"repeat_interleave: expected output_size {out.shape[dim]}, got "
                           f"{output_size}")
    return out


def _tensors(fn, tensors):
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


@public
def hstack(tensors):
    """hstack(tensors) -> Tensor: cat along dim 1, or along dim 0 for 1-D tensors (0-d
    tensors count as 1-D).

    >>> minflow.hstack([minflow.tensor([1, 2]), minflow.tensor([3])]).tolist()
    [1, 2, 3]
    """
    tensors = [F.reshape(t, (1,)) if t.ndim == 0 else t for t in _tensors("hstack", tensors)]
    return F.cat(tensors, 0 if tensors[0].ndim == 1 else 1)

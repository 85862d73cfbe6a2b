"""The ``*_copy`` functions of the torch namespace: each is its view op followed by a
contiguous copy, so the result never shares memory with the input (``out=`` as torch's).

The sparse ones (``values_copy``, ``indices_copy``, ``crow_indices_copy``...) and the
complex views (``view_as_real_copy``, ``view_as_complex_copy``) have no view op here.
"""
from ..core.dtype import DType
from ..core.functional import public
from ..core.inplace import write_outs
from ..core.namespace import F
from ..core.tensor import Tensor, wrap_dim

__all__ = ["alias_copy", "as_strided_copy", "detach_copy", "diagonal_copy", "expand_copy",
           "permute_copy", "select_copy", "slice_copy", "split_copy", "split_with_sizes_copy",
           "squeeze_copy", "t_copy", "transpose_copy", "unbind_copy", "unfold_copy",
           "unsqueeze_copy", "view_copy"]


def _copied(view, out, name):
    """A contiguous copy of ``view`` (a tensor or a tuple of them), written to ``out`` if
    given: then, for a tuple, None (torch's out= overloads of list results return nothing)."""
    if isinstance(view, tuple):
        copies = tuple(F.clone(v).contiguous() for v in view)
        if out is None:
            return copies
        write_outs(copies, tuple(out) if isinstance(out, (list, tuple)) else out, name)
        return None
    copy = F.clone(view).contiguous()
    return copy if out is None else write_outs(copy, out, name)


@public
def alias_copy(input, *, out=None):
    """alias_copy(input, *, out=None) -> Tensor, a copy of ``input`` (torch's alias is a
    view of all of it).

    >>> minflow.alias_copy(minflow.tensor([1, 2])).tolist()
    [1, 2]
    """
    return _copied(input, out, "alias_copy")


@public
def as_strided_copy(input, size, stride, storage_offset=None, *, out=None):
    """as_strided_copy(input, size, stride, storage_offset=None, *, out=None) -> Tensor,
    a copy of ``input.as_strided(size, stride, storage_offset)``.

    >>> minflow.as_strided_copy(minflow.arange(4), (2, 2), (1, 1)).tolist()
    [[0, 1], [1, 2]]
    """
    return _copied(F.as_strided(input, size, stride, storage_offset), out, "as_strided_copy")


@public
def detach_copy(input, *, out=None):
    """detach_copy(input, *, out=None) -> Tensor, a copy of ``input.detach()``.

    NOTE: torch's result claims requires_grad and fails in backward ("derivative for
    aten::detach_copy is not implemented"); here it does not require grad.

    >>> x = minflow.ones(2, requires_grad=True)
    >>> minflow.detach_copy(x).requires_grad
    False
    """
    return _copied(F.detach(input), out, "detach_copy")


@public
def diagonal_copy(input, offset=0, dim1=0, dim2=1, *, out=None):
    """diagonal_copy(input, offset=0, dim1=0, dim2=1, *, out=None) -> Tensor, a copy of
    ``input.diagonal(offset, dim1, dim2)``.

    >>> minflow.diagonal_copy(minflow.tensor([[1, 2], [3, 4]]), 1).tolist()
    [2]
    """
    return _copied(F.diagonal(input, offset, dim1, dim2), out, "diagonal_copy")


@public
def expand_copy(input, size, *, implicit=False, out=None):
    """expand_copy(input, size, *, implicit=False, out=None) -> Tensor, a copy of
    ``input.expand(size)`` (``implicit`` changes nothing, as in torch's eager mode).

    >>> minflow.expand_copy(minflow.tensor([[1], [2]]), (2, 3)).tolist()
    [[1, 1, 1], [2, 2, 2]]
    """
    return _copied(F.expand(input, *_sizes("expand_copy", "size", size)), out, "expand_copy")


@public
def permute_copy(input, dims, *, out=None):
    """permute_copy(input, dims, *, out=None) -> Tensor, a contiguous copy of
    ``input.permute(dims)``.

    >>> minflow.permute_copy(minflow.zeros(2, 3, 4), (2, 0, 1)).stride()
    (6, 3, 1)
    """
    return _copied(F.permute(input, *_sizes("permute_copy", "dims", dims)), out,
                   "permute_copy")


@public
def select_copy(input, dim, index, *, out=None):
    """select_copy(input, dim, index, *, out=None) -> Tensor, a copy of
    ``input.select(dim, index)``.

    >>> minflow.select_copy(minflow.tensor([[1, 2], [3, 4]]), 1, -1).tolist()
    [2, 4]
    """
    return _copied(F.select(input, dim, index), out, "select_copy")


@public
def slice_copy(input, dim=0, start=None, end=None, step=1, *, out=None):
    """slice_copy(input, dim=0, start=None, end=None, step=1, *, out=None) -> Tensor, a
    copy of ``input[..., start:end:step]`` taken along ``dim`` (start / end clamped to the
    dim as Python's slices are; step must be positive).

    >>> minflow.slice_copy(minflow.arange(10), 0, 2, None, 3).tolist()
    [2, 5, 8]
    """
    if input.ndim == 0:
        raise IndexError("slice_copy: slice() cannot be applied to a 0-dim tensor.")
    if not isinstance(step, int) or step <= 0:
        raise RuntimeError(f"slice_copy: slice step must be positive, got {step}")
    dim = wrap_dim(dim, input.ndim, "slice_copy")
    key = (slice(None),) * dim + (slice(start, end, step),)
    return _copied(input[key], out, "slice_copy")


@public
def split_copy(input, split_size, dim=0, *, out=None):
    """split_copy(input, split_size, dim=0, *, out=None) -> tuple of Tensors, copies of
    ``input.split(split_size, dim)`` (with ``out``, a list of tensors: None).

    >>> [p.tolist() for p in minflow.split_copy(minflow.arange(5), 2)]
    [[0, 1], [2, 3], [4]]
    """
    if not isinstance(split_size, int) or isinstance(split_size, bool):
        raise TypeError(f"split_copy(): argument 'split_size' must be int, not "
                        f"{type(split_size).__name__}")
    return _copied(tuple(F.split(input, split_size, dim)), out, "split_copy")


@public
def split_with_sizes_copy(input, split_sizes, dim=0, *, out=None):
    """split_with_sizes_copy(input, split_sizes, dim=0, *, out=None) -> tuple of Tensors,
    copies of ``input.split_with_sizes(split_sizes, dim)``.

    >>> [p.tolist() for p in minflow.split_with_sizes_copy(minflow.arange(5), [1, 4])]
    [[0], [1, 2, 3, 4]]
    """
    return _copied(tuple(F.split_with_sizes(input, split_sizes, dim)), out,
                   "split_with_sizes_copy")


@public
def squeeze_copy(input, dim=None, *, out=None):
    """squeeze_copy(input, dim=None, *, out=None) -> Tensor, a copy of
    ``input.squeeze(dim)`` (dim an int, a tuple of them, or None for every size-1 dim).

    >>> minflow.squeeze_copy(minflow.zeros(1, 2, 1), (0, 2)).shape
    minflow.Size([2])
    """
    view = F.squeeze(input) if dim is None else F.squeeze(input, dim)
    return _copied(view, out, "squeeze_copy")


@public
def t_copy(input, *, out=None):
    """t_copy(input, *, out=None) -> Tensor, a contiguous copy of ``input.t()``.

    >>> minflow.t_copy(minflow.tensor([[1, 2, 3]])).tolist()
    [[1], [2], [3]]
    """
    return _copied(F.t(input), out, "t_copy")


@public
def transpose_copy(input, dim0, dim1, *, out=None):
    """transpose_copy(input, dim0, dim1, *, out=None) -> Tensor, a contiguous copy of
    ``input.transpose(dim0, dim1)``.

    >>> minflow.transpose_copy(minflow.zeros(2, 3), 0, 1).stride()
    (2, 1)
    """
    return _copied(F.transpose(input, dim0, dim1), out, "transpose_copy")


@public
def unbind_copy(input, dim=0, *, out=None):
    """unbind_copy(input, dim=0, *, out=None) -> tuple of Tensors, copies of
    ``input.unbind(dim)`` (with ``out``, a list of tensors: None).

    >>> [p.tolist() for p in minflow.unbind_copy(minflow.tensor([[1, 2], [3, 4]]), 1)]
    [[1, 3], [2, 4]]
    """
    return _copied(tuple(F.unbind(input, dim)), out, "unbind_copy")


@public
def unfold_copy(input, dimension, size, step, *, out=None):
    """unfold_copy(input, dimension, size, step, *, out=None) -> Tensor, a copy of
    ``input.unfold(dimension, size, step)``.

    >>> minflow.unfold_copy(minflow.arange(5), 0, 2, 2).tolist()
    [[0, 1], [2, 3]]
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"unfold_copy(): argument 'input' must be Tensor, not "
                        f"{type(input).__name__}")
    return _copied(input.unfold(dimension, size, step), out, "unfold_copy")


@public
def unsqueeze_copy(input, dim, *, out=None):
    """unsqueeze_copy(input, dim, *, out=None) -> Tensor, a copy of ``input.unsqueeze(dim)``.

    >>> minflow.unsqueeze_copy(minflow.tensor([1, 2]), 1).shape
    minflow.Size([2, 1])
    """
    return _copied(F.unsqueeze(input, dim), out, "unsqueeze_copy")


@public
def view_copy(input, size, *, out=None):
    """view_copy(input, size, *, out=None) -> Tensor, a copy of ``input.view(size)``
    (the size must be compatible with input's strides, as view's).

    >>> minflow.view_copy(minflow.arange(6), (2, -1)).tolist()
    [[0, 1, 2], [3, 4, 5]]
    """
    if isinstance(size, DType):
        raise TypeError("view_copy: view_copy(dtype), a reinterpretation of the bits, is not "
                        "supported (as Tensor.view(dtype)); use .to(dtype) for a conversion")
    return _copied(input.view(*_sizes("view_copy", "size", size)), out, "view_copy")


def _sizes(fn, name, value):
    """A list / tuple / Size argument as a tuple of ints."""
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,)
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{fn}(): argument '{name}' must be tuple of ints, not "
                        f"{type(value).__name__}")
    return tuple(value)

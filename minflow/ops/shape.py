"""Shape ops: reshape/view, squeeze/unsqueeze, transpose/permute, expand, cat/stack, ..."""
from ..core.dispatch import apply
from ..core.functional import public
from ..core.tensor import wrap_dim
from .registry import Attr, define_op, get_op

VIEW = ("view", "no_side_effect")


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _reshape_infer(input, shape):
    numel = _numel(input._data.shape)
    if _numel(shape) != numel:
        raise RuntimeError(f"shape {list(shape)} is invalid for input of size {numel}")
    return tuple(shape), input.dtype


define_op("reshape", ["input"], attrs=[Attr("shape", "ints")], infer=_reshape_infer,
          traits=VIEW, doc="The same data with a new shape (a view when possible).")


def _resolve_shape(shape, numel, where):
    """Fill in one -1 in ``shape`` so that it holds ``numel`` elements."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    shape = tuple(int(s) for s in shape)
    unknown = [i for i, s in enumerate(shape) if s == -1]
    if len(unknown) > 1:
        raise RuntimeError(f"{where}: only one dimension can be inferred, got {list(shape)}")
    if any(s < -1 for s in shape):
        raise RuntimeError(f"{where}: invalid shape dimension in {list(shape)}")
    if unknown:
        known = _numel(s for s in shape if s != -1)
        if known == 0 or numel % known:
            raise RuntimeError(f"{where}: shape {list(shape)} is invalid for input of size "
                               f"{numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    return shape


@public(method=True)
def reshape(input, *shape):
    """reshape(input, *shape) -> Tensor

    The same elements in a new shape; one dimension may be -1 (inferred).

    >>> minflow.arange(6).reshape(2, -1).shape
    minflow.Size([2, 3])
    """
    return apply(_RESHAPE, (input,), {"shape": _resolve_shape(shape, input.numel(), "reshape")})


_RESHAPE = get_op("reshape")


def _unsqueeze_infer(input, dim):
    shape = list(input._data.shape)
    shape.insert(dim, 1)
    return tuple(shape), input.dtype


define_op("unsqueeze", ["input"], attrs=[Attr("dim", "int")], infer=_unsqueeze_infer,
          traits=VIEW, doc="Insert a dimension of size 1 at ``dim``.")


@public(method=True)
def unsqueeze(input, dim):
    """unsqueeze(input, dim) -> Tensor with a size-1 dimension inserted at ``dim``.

    >>> minflow.zeros(3).unsqueeze(0).shape
    minflow.Size([1, 3])
    """
    return apply(_UNSQUEEZE, (input,), {"dim": wrap_dim(dim, input.ndim + 1, "unsqueeze")})


_UNSQUEEZE = get_op("unsqueeze")


def _expand_infer(input, shape):
    src = input._data.shape
    if len(shape) < len(src):
        raise RuntimeError(f"the number of sizes provided ({len(shape)}) must be greater or "
                           f"equal to the number of dimensions in the tensor ({len(src)})")
    lead = len(shape) - len(src)
    for i, s in enumerate(src):
        if s != 1 and s != shape[lead + i]:
            raise RuntimeError(f"the expanded size of the tensor ({shape[lead + i]}) must match "
                               f"the existing size ({s}) at non-singleton dimension {lead + i}; "
                               f"target sizes: {list(shape)}, tensor sizes: {list(src)}")
    return tuple(shape), input.dtype


define_op("expand", ["input"], attrs=[Attr("shape", "ints")], infer=_expand_infer,
          traits=VIEW + ("broadcast",), doc="A broadcast view with the given shape.")


@public(method=True)
def expand(input, *sizes):
    """expand(input, *sizes) -> Tensor, a broadcast view; -1 keeps a dimension's size.

    >>> minflow.ones(3, 1).expand(3, 4).shape
    minflow.Size([3, 4])
    """
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    lead = len(sizes) - input.ndim
    shape = tuple(input.shape[i - lead] if s == -1 and i >= lead else int(s)
                  for i, s in enumerate(sizes))
    return apply(_EXPAND, (input,), {"shape": shape})


_EXPAND = get_op("expand")

"""Shape ops, with PyTorch's names and semantics: views and layout.

Primitives (kernels in kernels/generic/shape.py, grads in autograd/grads/shape.py):
  reshape, unsqueeze, expand, permute   views: outputs share the input's memory
Everything else is a composite of these and needs no gradient code of its own. Ops that
cut tensors into pieces, join them, pad them or keep a triangle are in ops/join.py.
"""
import itertools
import math
import operator

from ..core import dtype as dtypes
from ..core.dispatch import apply
from ..core.functional import public, tensor_method
from ..core.namespace import F
from ..core.tensor import wrap_dim
from . import infer
from .registry import Attr, define_op

VIEW = ("view", "no_side_effect")


def _sizes(sizes):
    """``f(2, 3)`` and ``f((2, 3))`` alike, as PyTorch's size arguments."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = sizes[0]
    return tuple(operator.index(s) for s in sizes)


# ---- reshape / view: the same elements in a new shape --------------------------------

def _reshape_infer(input, shape):
    numel = math.prod(input._data.shape)
    if math.prod(shape) != numel or any(s < 0 for s in shape):
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    if not viewable(input._data, shape):
        raise RuntimeError(f"the input's layout allows no view of shape {list(shape)}; "
                           f"the reshape() function copies first")
    return tuple(shape), input.dtype


RESHAPE = define_op("reshape", ["input"], attrs=[Attr("shape", "ints")], infer=_reshape_infer,
                    traits=VIEW, doc="The same data in a new shape, as a view (the input "
                                     "must be viewable as that shape).")


def _resolve_shape(shape, numel, where):
    """``shape`` as a tuple holding ``numel`` elements, its one -1 (if any) filled in."""
    shape = _sizes(shape)
    unknown = [i for i, s in enumerate(shape) if s == -1]
    if len(unknown) > 1:
        raise RuntimeError(f"{where}: only one dimension can be inferred")
    for i, s in enumerate(shape):
        if s < -1:
            raise RuntimeError(f"{where}: invalid shape dimension {s} at index {i} of shape "
                               f"{list(shape)}")
    known = math.prod(s for s in shape if s != -1)
    if (known != numel and not unknown) or (unknown and (known == 0 or numel % known)):
        raise RuntimeError(f"{where}: shape '{list(shape)}' is invalid for input of size "
                           f"{numel}")
    return tuple(numel // known if s == -1 else s for s in shape)


def viewable(array, shape):
    """Whether ``array`` can take ``shape`` without a copy (PyTorch's ``computeStride``).

    Runs of dims that are contiguous with each other merge into chunks (size-1 dims take
    any stride); the new shape must split the chunks exactly. numpy's reshape follows the
    same rule, so where this holds its result is a view.
    """
    strides = getattr(array, "strides", None)
    if strides is None or array.size == 0:      # meta arrays have no layout
        return True
    chunks, last = [], None
    for n, s in zip(array.shape, strides):
        if n == 1:
            continue
        if chunks and last == s * n:
            chunks[-1] *= n
        else:
            chunks.append(n)
        last = s
    i, acc = 0, 1
    for n in shape:
        if n == 1:
            continue
        acc *= n
        if acc == chunks[i]:
            i, acc = i + 1, 1
        elif acc > chunks[i]:
            return False
    return True


@public(method=True)
def reshape(input, *shape):
    """reshape(input, shape) -> Tensor

    The same elements in a new shape; one dimension may be -1 (inferred). A view when
    the layout allows, else a copy, as torch.

    >>> minflow.arange(6).reshape(2, -1).shape
    minflow.Size([2, 3])
    """
    shape = _resolve_shape(shape, input.numel(), "reshape")
    if not viewable(input._data, shape):
        input = input.contiguous()      # never a "view" that is secretly a copy
    return apply(RESHAPE, (input,), {"shape": shape})


@tensor_method("view")
def view(self, *shape):
    """view(*shape) -> Tensor, a view with a new shape; one dimension may be -1.

    Raises when the layout allows no view (e.g. a transposed tensor): use reshape.

    >>> minflow.zeros(2, 3).view(3, 2).shape
    minflow.Size([3, 2])
    """
    if len(shape) == 1 and isinstance(shape[0], dtypes.DType):
        raise TypeError("view: view(dtype) is not supported; use .to(dtype) for a copy")
    shape = _resolve_shape(shape, self.numel(), "view")
    if not viewable(self._data, shape):
        raise RuntimeError("view: view size is not compatible with input tensor's size and "
                           "stride (at least one dimension spans across two contiguous "
                           "subspaces). Use .reshape(...) instead.")
    return apply(RESHAPE, (self,), {"shape": shape})


@tensor_method("view_as")
def view_as(self, other):
    """view_as(other) -> Tensor, ``self.view(other.shape)``.

    >>> minflow.zeros(6).view_as(minflow.ones(2, 3)).shape
    minflow.Size([2, 3])
    """
    return view(self, other.shape)


@tensor_method("reshape_as")
def reshape_as(self, other):
    """reshape_as(other) -> Tensor, ``self.reshape(other.shape)``.

    >>> minflow.zeros(6).reshape_as(minflow.ones(3, 2)).shape
    minflow.Size([3, 2])
    """
    return reshape(self, other.shape)


@public(method=True)
def flatten(input, start_dim=0, end_dim=-1):
    """flatten(input, start_dim=0, end_dim=-1) -> Tensor

    Dims ``start_dim`` .. ``end_dim`` merged into one (a 0-d input gives 1-d).

    >>> minflow.zeros(2, 3, 4).flatten(1).shape
    minflow.Size([2, 12])
    """
    shape = input.shape
    start = wrap_dim(start_dim, input.ndim, "flatten")
    end = wrap_dim(end_dim, input.ndim, "flatten")
    if start > end:
        raise RuntimeError("flatten: flatten() has invalid args: start_dim cannot come after "
                           "end_dim")
    if input.ndim == 0:
        return reshape(input, (1,))
    return reshape(input, shape[:start] + (math.prod(shape[start:end + 1]),) + shape[end + 1:])


@public(method=True)
def unflatten(input, dim, sizes):
    """unflatten(input, dim, sizes) -> Tensor, dim ``dim`` split into ``sizes`` (one may be -1).

    >>> minflow.zeros(2, 6).unflatten(1, (3, -1)).shape
    minflow.Size([2, 3, 2])
    """
    dim = wrap_dim(dim, input.ndim, "unflatten")
    size = input.shape[dim]
    sizes = _sizes((sizes,))
    known = math.prod(s for s in sizes if s != -1)
    if sizes.count(-1) > 1:
        raise RuntimeError("unflatten: only one dimension can be inferred")
    if -1 in sizes and known and size % known == 0:
        sizes = tuple(size // known if s == -1 else s for s in sizes)
    if -1 in sizes or math.prod(sizes) != size:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the "
                           f"size of dim {dim} ({size}) in the input tensor")
    return reshape(input, input.shape[:dim] + sizes + input.shape[dim + 1:])


@public(method=True)
def squeeze(input, dim=None):
    """squeeze(input, dim=None) -> Tensor, a view without size-1 dims.

    ``dim`` (an int or a tuple) limits the squeeze to those dims; others stay.

    >>> minflow.zeros(1, 2, 1).squeeze().shape, minflow.zeros(1, 2, 1).squeeze(0).shape
    (minflow.Size([2]), minflow.Size([2, 1]))
    """
    if dim is None:
        dims = range(input.ndim)
    elif isinstance(dim, (tuple, list)) and not dim:
        dims = ()
    else:
        try:
            dims = infer.normalize_dims(dim, input.ndim, "squeeze")
        except (IndexError, RuntimeError) as err:
            raise type(err)(f"squeeze: {err}") from None
    shape = tuple(s for i, s in enumerate(input.shape) if s != 1 or i not in dims)
    return apply(RESHAPE, (input,), {"shape": shape})


# ---- unsqueeze / expand ----------------------------------------------------------------

def _unsqueeze_infer(input, dim):
    shape = list(input._data.shape)
    shape.insert(dim, 1)
    return tuple(shape), input.dtype


UNSQUEEZE = define_op("unsqueeze", ["input"], attrs=[Attr("dim", "int")],
                      infer=_unsqueeze_infer, traits=VIEW,
                      doc="Insert a dimension of size 1 at ``dim``.")


@public(method=True)
def unsqueeze(input, dim):
    """unsqueeze(input, dim) -> Tensor with a size-1 dimension inserted at ``dim``.

    >>> minflow.zeros(3).unsqueeze(0).shape
    minflow.Size([1, 3])
    """
    return apply(UNSQUEEZE, (input,), {"dim": wrap_dim(dim, input.ndim + 1, "unsqueeze")})


def _expand_infer(input, shape):
    src = input._data.shape
    if len(shape) < len(src):
        raise RuntimeError(f"the number of sizes provided ({len(shape)}) must be greater or "
                           f"equal to the number of dimensions in the tensor ({len(src)})")
    lead = len(shape) - len(src)
    for i, s in enumerate(shape[:lead]):
        if s < 0:
            raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a "
                               f"leading, non-existing dimension {i}")
    for i, s in enumerate(src):
        if s != 1 and s != shape[lead + i]:
            raise RuntimeError(f"The expanded size of the tensor ({shape[lead + i]}) must "
                               f"match the existing size ({s}) at non-singleton dimension "
                               f"{lead + i}.  Target sizes: {list(shape)}.  Tensor sizes: "
                               f"{list(src)}")
    return tuple(shape), input.dtype


EXPAND = define_op("expand", ["input"], attrs=[Attr("shape", "ints")], infer=_expand_infer,
                   traits=VIEW + ("broadcast",), doc="A broadcast view with the given shape.")


@public(method=True)
def expand(input, *sizes):
    """expand(input, *sizes) -> Tensor, a broadcast view; -1 keeps a dimension's size.

    >>> minflow.ones(3, 1).expand(3, 4).shape
    minflow.Size([3, 4])
    """
    sizes = _sizes(sizes)
    lead = len(sizes) - input.ndim
    shape = tuple(input.shape[i - lead] if s == -1 and i >= lead else s
                  for i, s in enumerate(sizes))
    return apply(EXPAND, (input,), {"shape": shape})


@tensor_method("expand_as")
def expand_as(self, other):
    """expand_as(other) -> Tensor, ``self.expand(other.shape)``.

    >>> minflow.ones(3, 1).expand_as(minflow.zeros(3, 4)).shape
    minflow.Size([3, 4])
    """
    return expand(self, other.shape)


@public(method=True)
def broadcast_to(input, size):
    """broadcast_to(input, size) -> Tensor, ``input.expand(size)``.

    >>> minflow.broadcast_to(minflow.ones(3), (2, 3)).shape
    minflow.Size([2, 3])
    >>> minflow.ones(2, 1).broadcast_to((2, 4)).shape
    minflow.Size([2, 4])
    """
    return expand(input, size)


@tensor_method("repeat")
def repeat(self, *repeats):
    """repeat(*repeats) -> Tensor, ``self`` tiled ``repeats[i]`` times along dim i (a copy).

    >>> minflow.tensor([1, 2]).repeat(2, 2).tolist()
    [[1, 2, 1, 2], [1, 2, 1, 2]]
    """
    repeats = _sizes(repeats)
    if len(repeats) < self.ndim:
        raise RuntimeError("repeat: Number of dimensions of repeat dims can not be smaller "
                           "than number of dimensions of tensor")
    shape = (1,) * (len(repeats) - self.ndim) + tuple(self.shape)
    out = tuple(r * s for r, s in zip(repeats, shape))
    if min(repeats, default=0) < 0:
        raise RuntimeError(f"repeat: Trying to create tensor with negative dimension "
                           f"{min(out)}: {list(out)}")
    # (s0, s1) -> view (1, s0, 1, s1) -> expand (r0, s0, r1, s1) -> copy -> (r0 s0, r1 s1)
    x = apply(RESHAPE, (self,), {"shape": tuple(itertools.chain(*((1, s) for s in shape)))})
    x = apply(EXPAND, (x,), {"shape": tuple(itertools.chain(*zip(repeats, shape)))})
    return apply(RESHAPE, (F.clone(x),), {"shape": out})


# ---- permute and the transposes built on it --------------------------------------------

def _permute_infer(input, dims):
    ndim = input._data.ndim
    if len(dims) != ndim:
        raise RuntimeError(f"number of dimensions in the tensor input does not match the "
                           f"length of the desired ordering of dimensions i.e. input.dim() = "
                           f"{ndim} is not equal to len(dims) = {len(dims)}")
    if sorted(dims) != list(range(ndim)):
        raise RuntimeError("duplicate dims are not allowed.")
    return tuple(input._data.shape[d] for d in dims), input.dtype


PERMUTE = define_op("permute", ["input"], attrs=[Attr("dims", "ints")], infer=_permute_infer,
                    traits=VIEW, doc="A view with the dims reordered: out dim i is input "
                                     "dim dims[i].")


@public(method=True)
def permute(input, *dims):
    """permute(input, dims) -> Tensor, a view whose dim i is ``input``'s dim ``dims[i]``.

    >>> minflow.zeros(2, 3, 4).permute(2, 0, 1).shape
    minflow.Size([4, 2, 3])
    """
    dims = _sizes(dims)
    if len(dims) == input.ndim:
        dims = tuple(wrap_dim(d, input.ndim, "permute") for d in dims)
    return apply(PERMUTE, (input,), {"dims": dims})


@public(method=True)
def transpose(input, dim0, dim1):
    """transpose(input, dim0, dim1) -> Tensor, a view with ``dim0`` and ``dim1`` swapped.

    >>> minflow.zeros(2, 3, 4).transpose(0, -1).shape
    minflow.Size([4, 3, 2])
    """
    dims = list(range(input.ndim))
    d0, d1 = wrap_dim(dim0, input.ndim, "transpose"), wrap_dim(dim1, input.ndim, "transpose")
    if dims:        # a 0-d input takes dims 0 and -1, as torch, and stays as it is
        dims[d0], dims[d1] = d1, d0
    return apply(PERMUTE, (input,), {"dims": tuple(dims)})


@public(method=True)
def swapaxes(input, axis0, axis1):
    """swapaxes(input, axis0, axis1) -> Tensor, numpy's name for transpose.

    >>> minflow.zeros(2, 3).swapaxes(0, 1).shape
    minflow.Size([3, 2])
    """
    return transpose(input, axis0, axis1)


public(transpose, name="swapdims", method=True)     # torch's alias, same signature


@public(method=True)
def t(input):
    """t(input) -> Tensor, the transpose of a matrix; 0-d and 1-d inputs come back as views.

    >>> minflow.zeros(2, 3).t().shape
    minflow.Size([3, 2])
    """
    if input.ndim > 2:
        raise RuntimeError(f"t: t() expects a tensor with <= 2 dimensions, but self is "
                           f"{input.ndim}D")
    return apply(PERMUTE, (input,), {"dims": tuple(range(input.ndim))[::-1]})


def _mT(self):
    """The last two dims swapped (a view), as ``Tensor.mT``.

    >>> minflow.zeros(5, 2, 3).mT.shape
    minflow.Size([5, 3, 2])
    """
    if self.ndim < 2:
        raise RuntimeError(f"mT: tensor.mT is only supported on matrices or batches of "
                           f"matrices. Got {self.ndim}-D tensor.")
    return transpose(self, -2, -1)


tensor_method("mT")(property(_mT))

"""Shape ops, with PyTorch's names and semantics: views, joins and splits, triangles, padding.

Primitives (kernels in kernels/generic/shape.py, grads in autograd/grads/shape.py):
  reshape, unsqueeze, expand, permute, narrow   views: outputs share the input's memory
  cat, tril, triu, pad                          new tensors
Everything else is a composite of these and needs no gradient code of its own.
"""
import functools
import itertools
import operator

from ..core import dtype as dtypes
from ..core.dispatch import apply
from ..core.functional import generate_function, public, tensor_method
from ..core.namespace import F
from ..core.tensor import Tensor, wrap_dim
from . import infer
from .registry import Attr, Input, define_op

__all__ = ["pad"]   # minflow.nn.functional names; top-level ones come through `public`

VIEW = ("view", "no_side_effect")


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _sizes(sizes):
    """``f(2, 3)`` and ``f((2, 3))`` alike, as PyTorch's size arguments."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = sizes[0]
    return tuple(operator.index(s) for s in sizes)


def _at_least_1d(input, where):
    if input.ndim == 0:
        raise RuntimeError(f"{where}: {where} expects at least a 1-dimensional tensor")


# ---- reshape / view: the same elements in a new shape --------------------------------

def _reshape_infer(input, shape):
    numel = _numel(input._data.shape)
    if _numel(shape) != numel or any(s < 0 for s in shape):
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
    known = _numel(s for s in shape if s != -1)
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
    return reshape(input, shape[:start] + (_numel(shape[start:end + 1]),) + shape[end + 1:])


@public(method=True)
def unflatten(input, dim, sizes):
    """unflatten(input, dim, sizes) -> Tensor, dim ``dim`` split into ``sizes`` (one may be -1).

    >>> minflow.zeros(2, 6).unflatten(1, (3, -1)).shape
    minflow.Size([2, 3, 2])
    """
    dim = wrap_dim(dim, input.ndim, "unflatten")
    size = input.shape[dim]
    sizes = _sizes((sizes,))
    known = _numel(s for s in sizes if s != -1)
    if sizes.count(-1) > 1:
        raise RuntimeError("unflatten: only one dimension can be inferred")
    if -1 in sizes and known and size % known == 0:
        sizes = tuple(size // known if s == -1 else s for s in sizes)
    if -1 in sizes or _numel(sizes) != size:
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


@public
def broadcast_to(input, size):
    """broadcast_to(input, size) -> Tensor, ``input.expand(size)``.

    >>> minflow.broadcast_to(minflow.ones(3), (2, 3)).shape
    minflow.Size([2, 3])
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


# ---- narrow and the splits built on it --------------------------------------------------

def _narrow_infer(input, dim, start, length):
    shape = list(input._data.shape)
    if start + length > shape[dim]:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({shape[dim]}).")
    shape[dim] = length
    return tuple(shape), input.dtype


NARROW = define_op("narrow", ["input"], infer=_narrow_infer, traits=VIEW,
                   attrs=[Attr("dim", "int", min=0), Attr("start", "int", min=0),
                          Attr("length", "int", min=0)],
                   doc="A view of ``length`` entries along ``dim`` from ``start``.")


@public(method=True)
def narrow(input, dim, start, length):
    """narrow(input, dim, start, length) -> Tensor, a view of ``input[..., start:start+length]``
    along ``dim``; a negative ``start`` counts from the end.

    >>> minflow.arange(5).narrow(0, 1, 3).tolist()
    [1, 2, 3]
    """
    if input.ndim == 0:
        raise RuntimeError("narrow: narrow() cannot be applied to a 0-dim tensor.")
    dim = wrap_dim(dim, input.ndim, "narrow")
    size = input.shape[dim]
    if not -size <= start <= size:
        raise IndexError(f"narrow: start out of range (expected to be in range of [{-size}, "
                         f"{size}], but got {start})")
    if length < 0:
        raise RuntimeError("narrow: narrow(): length must be non-negative.")
    start = start + size if start < 0 else start
    return apply(NARROW, (input,), {"dim": dim, "start": start, "length": length})


def _split_sizes(size, split_size_or_sections):
    if isinstance(split_size_or_sections, (tuple, list)):
        sections = [operator.index(s) for s in split_size_or_sections]
        if min(sections, default=0) < 0:
            raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative "
                               f"entries, but got split_sizes={sections}")
        return sections
    step = operator.index(split_size_or_sections)
    if step < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got "
                           f"split_size={step}")
    if step == 0 and size:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                           f"dimension size of {size}")
    return [min(step, size - s) for s in range(0, size, step or 1)] or [0]


@public(method=True)
def split(tensor, split_size_or_sections, dim=0):
    """split(tensor, split_size_or_sections, dim=0) -> tuple of views along ``dim``.

    An int gives pieces of that size (the last may be smaller); a list gives the sizes.

    >>> [p.tolist() for p in minflow.arange(5).split(2)]
    [[0, 1], [2, 3], [4]]
    """
    _at_least_1d(tensor, "split")
    dim = wrap_dim(dim, tensor.ndim, "split")
    size = tensor.shape[dim]
    try:
        sections = _split_sizes(size, split_size_or_sections)
    except RuntimeError as err:
        raise RuntimeError(f"split: {err}") from None
    if sum(sections) != size:
        raise RuntimeError(f"split: split_with_sizes expects split_sizes to sum exactly to "
                           f"{size} (input tensor's size at dimension {dim}), but got "
                           f"split_sizes={sections}")
    starts = itertools.accumulate([0] + sections[:-1])
    return tuple(apply(NARROW, (tensor,), {"dim": dim, "start": s, "length": n})
                 for s, n in zip(starts, sections))


@public(method=True)
def chunk(input, chunks, dim=0):
    """chunk(input, chunks, dim=0) -> tuple of at most ``chunks`` views of equal size
    (the last may be smaller), as torch.

    >>> [p.tolist() for p in minflow.arange(5).chunk(3)]
    [[0, 1], [2, 3], [4]]
    """
    if chunks <= 0:
        raise RuntimeError(f"chunk: chunk expects `chunks` to be greater than 0, got: {chunks}")
    _at_least_1d(input, "chunk")
    size = input.shape[wrap_dim(dim, input.ndim, "chunk")]
    return split(input, -(-size // chunks) if size else [0] * chunks, dim)


@public(method=True)
def unbind(input, dim=0):
    """unbind(input, dim=0) -> tuple of the views ``input.select(dim, i)`` for each i.

    >>> [r.tolist() for r in minflow.tensor([[1, 2], [3, 4]]).unbind(1)]
    [[1, 3], [2, 4]]
    """
    _at_least_1d(input, "unbind")
    dim = wrap_dim(dim, input.ndim, "unbind")
    shape = input.shape[:dim] + input.shape[dim + 1:]
    return tuple(apply(RESHAPE, (apply(NARROW, (input,), {"dim": dim, "start": i,
                                                           "length": 1}),), {"shape": shape})
                 for i in range(input.shape[dim]))


# ---- cat and stack --------------------------------------------------------------------
# NOTE: as torch, cat skips 1-d empty tensors (shape (0,)): old code starts from tensor([])

def _cat_infer(tensors, dim):
    if not tensors:
        raise ValueError("expected a non-empty list of Tensors")
    dtype = functools.reduce(dtypes.promote_types, (t.dtype for t in tensors))
    kept = [(i, t._data.shape) for i, t in enumerate(tensors) if t._data.shape != (0,)]
    if not kept:
        return (0,), dtype
    ref = kept[0][1]
    for i, shape in kept:
        if not shape:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be "
                               f"concatenated")
        if len(shape) != len(ref):
            raise RuntimeError(f"Tensors must have same number of dimensions: got {len(ref)} "
                               f"and {len(shape)}")
        for d, (a, b) in enumerate(zip(ref, shape)):
            if d != dim and a != b:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {dim}. "
                                   f"Expected size {a} but got size {b} for tensor number "
                                   f"{i} in the list.")
    out = list(ref)
    out[dim] = sum(shape[dim] for _, shape in kept)
    return tuple(out), dtype


CAT = define_op("cat", [Input("tensors", variadic=True)], attrs=[Attr("dim", "int", min=0)],
                infer=_cat_infer, promote="out", traits=("no_side_effect",),
                doc="Tensors joined along an existing dim, promoted to a common dtype.")


def _tensor_list(tensors, where):
    tensors = list(tensors)
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"{where}: expected Tensor as element {i} in argument 'tensors', "
                            f"but got {type(t).__name__}")
    return tensors


@public
def cat(tensors, dim=0):
    """cat(tensors, dim=0) -> Tensor, ``tensors`` joined along ``dim`` (a copy).

    Shapes must match except along ``dim``; dtypes promote as in arithmetic.

    >>> minflow.cat([minflow.zeros(2, 3), minflow.ones(1, 3)]).shape
    minflow.Size([3, 3])
    """
    tensors = _tensor_list(tensors, "cat")
    ref = next((x for x in tensors if x.shape != (0,)), None)
    if ref is not None:
        dim = wrap_dim(dim, ref.ndim, "cat")
    return apply(CAT, (tensors,), {"dim": dim})


public(cat, name="concat")      # torch's alias, same signature


@public
def concatenate(tensors, axis=0):
    """concatenate(tensors, axis=0) -> Tensor, numpy's name for cat.

    >>> minflow.concatenate([minflow.zeros(2, 1), minflow.ones(2, 1)], axis=1).shape
    minflow.Size([2, 2])
    """
    return cat(tensors, axis)


@public
def stack(tensors, dim=0):
    """stack(tensors, dim=0) -> Tensor, equal-shaped ``tensors`` joined along a new dim.

    >>> minflow.stack([minflow.zeros(3), minflow.ones(3)], dim=1).shape
    minflow.Size([3, 2])
    """
    tensors = _tensor_list(tensors, "stack")
    if not tensors:
        raise RuntimeError("stack: stack expects a non-empty TensorList")
    for i, x in enumerate(tensors):
        if x.shape != tensors[0].shape:
            raise RuntimeError(f"stack: stack expects each tensor to be equal size, but got "
                               f"{list(tensors[0].shape)} at entry 0 and {list(x.shape)} at "
                               f"entry {i}")
    dim = wrap_dim(dim, tensors[0].ndim + 1, "stack")
    return cat([unsqueeze(x, dim) for x in tensors], dim)


# ---- tril / triu: keep one triangle of the last two dims, zero the rest ----------------

def _tri_infer(input, diagonal):
    if input._data.ndim < 2:
        raise RuntimeError("input tensor must have at least 2 dimensions")
    return input._data.shape, input.dtype


TRIL = define_op("tril", ["input"], attrs=[Attr("diagonal", "int", 0)], infer=_tri_infer,
                 traits=("no_side_effect",),
                 doc="Entries (i, j) of the last two dims with j - i <= diagonal; others 0.")
TRIU = define_op("triu", ["input"], attrs=[Attr("diagonal", "int", 0)], infer=_tri_infer,
                 traits=("no_side_effect",),
                 doc="Entries (i, j) of the last two dims with j - i >= diagonal; others 0.")
generate_function(TRIL, method=True, out=True, inplace=True, doc="""\
tril(input, diagonal=0, out=None) -> Tensor

The lower triangle of the matrices in the last two dims: (i, j) kept where
j - i <= diagonal, else 0.

>>> minflow.ones(2, 2).tril().tolist()
[[1.0, 0.0], [1.0, 1.0]]
""")
generate_function(TRIU, method=True, out=True, inplace=True, doc="""\
triu(input, diagonal=0, out=None) -> Tensor

The upper triangle of the matrices in the last two dims: (i, j) kept where
j - i >= diagonal, else 0.

>>> minflow.ones(2, 2).triu(1).tolist()
[[0.0, 1.0], [0.0, 0.0]]
""")


# ---- pad (constant mode); negative pads crop -------------------------------------------

def _pad_infer(input, pad, value):
    shape = list(input._data.shape)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * len(shape):
        raise RuntimeError(f"Padding length should be less than or equal to two times the "
                           f"input dimension but got padding length {len(pad)} and input of "
                           f"dimension {len(shape)}")
    for i in range(len(pad) // 2):
        d, before, after = len(shape) - 1 - i, pad[2 * i], pad[2 * i + 1]
        if shape[d] + min(before, 0) + min(after, 0) < 0:
            raise RuntimeError(f"The input size {shape[d]}, plus negative padding {before} "
                               f"and {after} resulted in a negative output size, which is "
                               f"invalid. Check dimension {d} of your input.")
        shape[d] += before + after
    return tuple(shape), input.dtype


PAD = define_op("pad", ["input"], attrs=[Attr("pad", "ints"), Attr("value", "scalar", 0)],
                infer=_pad_infer, traits=("no_side_effect",),
                doc="Constant padding of the last len(pad) // 2 dims, (before, after) pairs "
                    "from the last dim; negative pads crop.")


def pad(input, pad, mode="constant", value=None):
    """pad(input, pad, mode='constant', value=None) -> Tensor

    ``pad`` = (last_before, last_after, second_last_before, ...) pads the last
    ``len(pad) // 2`` dims with ``value`` (0 if None); negative entries crop.

    >>> minflow.nn.functional.pad(minflow.ones(1, 2), (1, -1), value=5).tolist()
    [[5.0, 1.0]]
    """
    if mode != "constant":
        if mode in ("reflect", "replicate", "circular"):
            raise NotImplementedError(f"pad: mode '{mode}' is not implemented in minflow; "
                                      f"only mode='constant' is supported")
        raise NotImplementedError(f"pad: Unrecognised padding mode {mode}")
    pads = tuple(operator.index(p) for p in pad)
    return apply(PAD, (input,), {"pad": pads, "value": 0 if value is None else value})

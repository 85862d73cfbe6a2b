"""Join ops, with PyTorch's names and semantics: tensors cut into pieces (narrow, split,
chunk, unbind), pieces joined (cat, stack), borders padded or cropped (pad), triangles kept
(tril, triu).

Primitives (kernels in kernels/generic/join.py, grads in autograd/grads/join.py):
  narrow                 a view: the output shares the input's memory
  cat, tril, triu, pad   new tensors
Everything else is a composite of these (and of the shape ops in ops/shape.py) and needs
no gradient code of its own.
"""
import functools
import itertools

from ..core import dtype as dtypes
from ..core.dispatch import apply
from ..core.functional import generate_function, public
from ..core.namespace import F
from ..core.tensor import Tensor, wrap_dim
from .infer import check_int, check_tensor
from .registry import Attr, Input, define_op
from .shape import RESHAPE, VIEW, unsqueeze

__all__ = ["pad"]   # minflow.nn.functional names; top-level ones come through `public`


def _at_least_1d(input, where):
    if input.ndim == 0:
        raise RuntimeError(f"{where}: {where} expects at least a 1-dimensional tensor")


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
    along ``dim``; a negative ``start`` counts from the end. ``start`` may be a 0-dim integer
    tensor, as torch.

    >>> minflow.arange(5).narrow(0, 1, 3).tolist()
    [1, 2, 3]
    """
    if isinstance(start, Tensor):
        if start.ndim != 0 or start.dtype not in (dtypes.int32, dtypes.int64):
            raise RuntimeError(f"narrow: start must be an 0-dim integral Tensor, got a "
                               f"{start.ndim}-dim {start.dtype.name} tensor")
        start = start.item()
    return _narrow("narrow", input, dim, start, length)


@public(method=True)
def narrow_copy(input, dim, start, length):
    """narrow_copy(input, dim, start, length) -> Tensor, a copy (not a view) of
    ``input.narrow(dim, start, length)``.

    >>> minflow.arange(5).narrow_copy(0, -3, 2).tolist()
    [2, 3]
    """
    if isinstance(dim, int) and input.ndim and dim >= input.ndim:
        # NOTE: as torch, a RuntimeError for a dim too high (its check runs before wrapping
        # the dim) and narrow's IndexError for one too low
        raise RuntimeError(f"narrow_copy: Dimension out of range (expected to be in range of "
                           f"[{-input.ndim}, {input.ndim - 1}], but got {dim})")
    return F.clone(_narrow("narrow_copy", input, dim, start, length))


def _narrow(fn, input, dim, start, length):
    if input.ndim == 0:
        raise RuntimeError(f"{fn}: narrow() cannot be applied to a 0-dim tensor.")
    if isinstance(start, Tensor):                   # torch's narrow(Tensor start) overload
        raise TypeError(f"{fn}: expected start to be an int, got a Tensor")
    start, length = check_int(fn, "start", start), check_int(fn, "length", length)
    dim = wrap_dim(dim, input.ndim, fn)
    size = input.shape[dim]
    if not -size <= start <= size:
        raise IndexError(f"{fn}: start out of range (expected to be in range of [{-size}, "
                         f"{size}], but got {start})")
    if length < 0:
        raise RuntimeError(f"{fn}: narrow(): length must be non-negative.")
    start = start + size if start < 0 else start
    return apply(NARROW, (input,), {"dim": dim, "start": start, "length": length})


def _split_sizes(size, split_size_or_sections):
    if isinstance(split_size_or_sections, (tuple, list)):
        sections = [check_int("split", "split_size", s) for s in split_size_or_sections]
        if min(sections, default=0) < 0:
            raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative "
                               f"entries, but got split_sizes={sections}")
        return sections
    step = check_int("split", "split_size", split_size_or_sections)
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
    if check_int("chunk", "chunks", chunks) <= 0:
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
    if input.ndim == 0:
        raise IndexError(f"unbind: Dimension specified as {dim} but tensor has no dimensions")
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
    if isinstance(tensors, Tensor) or not isinstance(tensors, (tuple, list)):
        raise TypeError(f"{where}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {type(tensors).__name__}")
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
    ``len(pad) // 2`` dims; negative entries crop. ``mode``: 'constant' fills with
    ``value`` (0 if None); 'reflect' mirrors without repeating the edge, 'replicate'
    repeats the edge, 'circular' wraps around. The last three pad 1, 2 or 3 trailing dims
    of an input with one or two more dims than that, as in PyTorch.

    >>> minflow.nn.functional.pad(minflow.ones(1, 2), (1, -1), value=5).tolist()
    [[5.0, 1.0]]
    >>> x = minflow.tensor([[0, 1, 2]])
    >>> for mode in ("reflect", "replicate", "circular"):
    ...     print(mode, minflow.nn.functional.pad(x, (2, 1), mode=mode).tolist())
    reflect [[2, 1, 0, 1, 2, 1]]
    replicate [[0, 0, 0, 1, 2, 2]]
    circular [[1, 2, 0, 1, 2, 0]]
    """
    check_tensor("pad", "input", input)
    pads = tuple(check_int("pad", "pad", p) for p in pad)
    if mode == "constant":
        return apply(PAD, (input,), {"pad": pads, "value": 0 if value is None else value})
    if mode not in _PAD_INDEX:
        raise NotImplementedError(f"pad: Unrecognised padding mode {mode} (expected "
                                  f"'constant', 'reflect', 'replicate' or 'circular')")
    if value is not None:
        raise RuntimeError(f'pad: Padding mode "{mode}" doesn\'t take in value argument')
    dims = len(pads) // 2
    if len(pads) % 2 or dims not in (1, 2, 3) or input.ndim not in (dims + 1, dims + 2):
        raise NotImplementedError(f"pad: padding size {len(pads)} is not supported for "
                                  f"{input.ndim}D input with mode '{mode}': pad the last 1, 2 "
                                  f"or 3 dims (padding size 2, 4 or 6) of an input with 1 or "
                                  f"2 more dims")
    from .creation import tensor     # creation imports this module
    out = input
    for i in range(dims):
        d = input.ndim - 1 - i
        index = _PAD_INDEX[mode](input.shape[d], pads[2 * i], pads[2 * i + 1], d, input.shape)
        out = out.index_select(d, tensor(index, dtype=dtypes.int64, device=input.device))
    return out


def _reflect_index(n, before, after, dim, shape):
    if before >= n or after >= n:
        _too_wide("reflect", before, after, dim, n - 1, n)
    i = _pad_positions(n, before, after)
    return [-j if j < 0 else 2 * (n - 1) - j if j >= n else j for j in i]


def _replicate_index(n, before, after, dim, shape):
    return [min(max(j, 0), n - 1) for j in _pad_positions(n, before, after)]


def _circular_index(n, before, after, dim, shape):
    if before > n or after > n:
        _too_wide("circular", before, after, dim, n, n)
    lo, hi = max(-before, 0), n - max(-after, 0)        # wrap within what cropping keeps
    if hi <= lo:
        raise RuntimeError(f"pad: negative padding ({before}, {after}) at dimension {dim} "
                           f"crops all of input {list(shape)}: nothing is left to wrap")
    return [lo + (j - lo) % (hi - lo) for j in _pad_positions(n, before, after)]


def _too_wide(mode, before, after, dim, limit, n):
    raise RuntimeError(f"pad: with mode '{mode}', padding ({before}, {after}) at dimension "
                       f"{dim} should be at most {limit} for its size {n}")


def _pad_positions(n, before, after):
    """Source positions (possibly outside [0, n)) of the padded dim's entries."""
    if n + before + after < 0:
        raise RuntimeError(f"pad: the input size {n}, plus negative padding {before} and "
                           f"{after} resulted in a negative output size")
    return range(-before, n + after)


_PAD_INDEX = {"reflect": _reflect_index, "replicate": _replicate_index,
              "circular": _circular_index}


# torch's "unsafe" spellings: the same views (minflow has no unsafe variant to be)
public(split, name="unsafe_split", method=True)
public(chunk, name="unsafe_chunk", method=True)

"""Indexing, with PyTorch's semantics: ``x[index]``, ``x[index] = value``, index_put,
index_select, gather, scatter / scatter_add, masked_select, take_along_dim, nonzero.

``x[index]`` runs in two steps, as in PyTorch:
  1. ints, slices, None and ``...`` -> ``getitem``, a view of x (shares memory);
  2. integer tensors (bool masks first become integer tensors via ``nonzero``) ->
     ``index`` on that view, a copy; its grad sums duplicates (``index_put``, accumulate).
``x[index] = value`` runs the out-of-place ``getitem_scatter`` / ``index_put`` and writes
the result back through core.inplace, so views write through and autograd sees it.
The index is parsed into those two parts by ops/index_parse.py.
Kernels: kernels/generic/indexing.py; grad functions: autograd/grads/indexing.py.
"""
import numpy as np

from ..core import dtype as dtypes
from ..core.device import array_module
from ..core.dispatch import apply
from ..core.functional import make_inplace, public
from ..core.inplace import inplace as _inplace
from ..core.namespace import F
from ..core.tensor import Tensor, wrap_dim
from . import infer
from .index_parse import INDEX_DTYPES, parse_index
from .registry import Attr, Input, define_op

__all__ = ["getitem", "setitem_", "index_put", "index_put_", "index_select", "gather",
           "scatter", "scatter_", "scatter_add", "scatter_add_", "masked_select",
           "take_along_dim", "nonzero"]

OPAQUE = ("opaque", "no_side_effect")


# ---- shape rules (metadata only) -----------------------------------------------------

def _basic_shape(shape, index):
    """The shape of ``x[index]`` for a normalized basic index (ints, slices, None)."""
    out, dim = [], 0
    for item in index:
        if item is None:
            out.append(1)
            continue
        if isinstance(item, slice):
            out.append(len(range(*item.indices(shape[dim]))))
        dim += 1
    return tuple(out) + tuple(shape[dim:])


def _index_shape(shape, indices, dims):
    """The shape of advanced indexing with ``indices`` at view dims ``dims`` (numpy's rule:
    adjacent index dims are replaced in place, separated ones go first)."""
    try:
        bshape = infer.broadcast_shapes(*(i._data.shape for i in indices))
    except RuntimeError:
        raise IndexError(f"shape mismatch: indexing tensors could not be broadcast together "
                         f"with shapes {', '.join(str(list(i.shape)) for i in indices)}") from None
    if list(dims) == list(range(dims[0], dims[0] + len(dims))):
        return tuple(shape[:dims[0]]) + bshape + tuple(shape[dims[-1] + 1:])
    return bshape + tuple(s for d, s in enumerate(shape) if d not in dims)


def _check_fits(value_shape, shape, what="value tensor"):
    try:
        fits = infer.broadcast_shapes(value_shape, shape) == tuple(shape)
    except RuntimeError:
        fits = False
    if not fits:
        raise RuntimeError(f"shape mismatch: {what} of shape {list(value_shape)} cannot be "
                           f"broadcast to indexing result of shape {list(shape)}")


def _check_src_dtype(input, src):
    if src.dtype is not input.dtype:
        raise RuntimeError(f"expected src with the dtype of input ({input.dtype.name}), "
                           f"got {src.dtype.name}")


def _check_indices(input, indices, dims):
    if len(indices) != len(dims) or list(dims) != sorted(set(dims)) or dims[-1] >= input.ndim:
        raise IndexError(f"expected one index tensor per dim, dims increasing and < "
                         f"{input.ndim}; got {len(indices)} tensors for dims {list(dims)}")
    for i in indices:
        if i.dtype not in INDEX_DTYPES:
            raise IndexError(f"tensors used as indices must be long, int, byte or bool "
                             f"tensors, got {i.dtype.name}")


def _getitem_scatter_infer(input, src, index):
    _check_src_dtype(input, src)
    _check_fits(src._data.shape, _basic_shape(input._data.shape, index), "src")
    return input._data.shape, input.dtype


def _index_infer(input, indices, dims):
    _check_indices(input, indices, dims)
    return _index_shape(input._data.shape, indices, dims), input.dtype


def _index_put_infer(input, indices, values, dims, accumulate):
    _check_indices(input, indices, dims)
    if values.dtype is not input.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{input.dtype.name} for the destination and {values.dtype.name} "
                           f"for the source.")
    _check_fits(values._data.shape, _index_shape(input._data.shape, indices, dims))
    return input._data.shape, input.dtype


def _nonzero_infer(input):
    # NOTE: the one op whose inference reads data: its output shape is the count of
    # nonzeros. Everything data-dependent (bool masks) goes through here.
    if input.device.type == "meta":
        raise RuntimeError("the output shape depends on the data (e.g. x[mask] with a bool "
                           "mask), which a meta tensor does not have; index with integer "
                           "tensors instead")
    count = int(array_module(input.device.type).count_nonzero(input._data))
    return (count, input.ndim), dtypes.int64


def _check_index_dims(input, index, dim, src=None):
    """PyTorch's gather / scatter rules: int32/int64 index, same ndim, index no larger than
    input apart from ``dim`` and no larger than src anywhere; an empty index passes all."""
    if index._data.size == 0:
        return
    if index.dtype not in INDEX_DTYPES:
        raise RuntimeError(f"expected dtype int32 or int64 for index, got {index.dtype.name}")
    for name, x in (("input", input), ("src", src)):
        if x is not None and max(x.ndim, 1) != max(index.ndim, 1):
            raise RuntimeError(f"Index tensor must have the same number of dimensions as {name} "
                               f"tensor ({index.ndim} vs {x.ndim})")
    for d, n in enumerate(index.shape):
        if (d != dim and n > _size(input, d)) or (src is not None and n > _size(src, d)):
            raise RuntimeError(
                f"Size does not match at dimension {d}: expected index {list(index.shape)} to "
                f"be no larger than input {list(input.shape)} apart from dimension {dim}"
                + (f" and no larger than src {list(src.shape)}" if src is not None else ""))


def _size(x, d):
    return x.shape[d] if x.ndim else 1      # a 0-d tensor counts as 1-d, as in torch


def _gather_infer(input, index, dim):
    _check_index_dims(input, index, dim)
    return index._data.shape, input.dtype


def _scatter_infer(input, index, src, dim):
    _check_src_dtype(input, src)
    _check_index_dims(input, index, dim, src)
    return input._data.shape, input.dtype


_INDEXES = Input("indices", variadic=True, promote=False)
GETITEM = define_op("getitem", ["input"], attrs=[Attr("index", "any")],
                    infer=lambda input, index: (_basic_shape(input._data.shape, index),
                                                input.dtype),
                    traits=("view", "no_side_effect"),
                    doc="Basic indexing (a tuple of ints, slices, None): a view of input.")
GETITEM_SCATTER = define_op(
    "getitem_scatter", ["input", "src"], attrs=[Attr("index", "any")],
    infer=_getitem_scatter_infer, traits=OPAQUE,
    doc="A copy of input with src (broadcast) written into input[index], index basic.")
INDEX = define_op("index", ["input", _INDEXES], attrs=[Attr("dims", "ints")],
                  infer=_index_infer, traits=OPAQUE,
                  doc="Advanced indexing: integer tensors (broadcast together) at dims.")
INDEX_PUT = define_op(
    "index_put", ["input", _INDEXES, "values"],
    attrs=[Attr("dims", "ints"), Attr("accumulate", "bool", False)], infer=_index_put_infer,
    traits=OPAQUE, doc="A copy of input with values written (or added) at integer tensors.")
NONZERO = define_op("nonzero", ["input"], infer=_nonzero_infer, traits=OPAQUE + ("no_grad",),
                    doc="Coordinates of the nonzero elements, shape (count, ndim), int64.")
GATHER = define_op("gather", ["input", Input("index", promote=False)],
                   attrs=[Attr("dim", "int")], infer=_gather_infer, traits=OPAQUE,
                   doc="out[i][j] = input[index[i][j]][j] for dim=0, and so on.")
SCATTER = define_op("scatter", ["input", Input("index", promote=False), "src"],
                    attrs=[Attr("dim", "int")], infer=_scatter_infer, traits=OPAQUE,
                    doc="A copy of input with out[index[i][j]][j] = src[i][j] for dim=0.")
SCATTER_ADD = define_op("scatter_add", ["input", Input("index", promote=False), "src"],
                        attrs=[Attr("dim", "int")], infer=_scatter_infer, traits=OPAQUE,
                        doc="A copy of input with out[index[i][j]][j] += src[i][j] for dim=0.")


# ---- x[index] and x[index] = value ---------------------------------------------------

def _is_whole(shape, basic):
    """True when the basic index selects all of a tensor as it is (no view needed)."""
    return all(isinstance(b, slice) for b in basic) and _basic_shape(shape, basic) == tuple(shape)


@public
def getitem(input, index):
    """getitem(input, index) -> Tensor, as ``input[index]``

    Ints, slices (step > 0), None and ``...`` give a view; integer tensors / lists and
    bool masks give a copy (advanced indexing, numpy's placement rules).

    >>> x = minflow.arange(6).reshape(2, 3)
    >>> x[:, 1].tolist(), x[[1, 0], [2, 2]].tolist(), x[x > 3].tolist()
    ([1, 4], [5, 2], [4, 5])
    """
    basic, tensors, dims = parse_index(input, index, "getitem")
    if tensors and _is_whole(input.shape, basic):
        return apply(INDEX, (input, tensors), {"dims": dims})
    view = apply(GETITEM, (input,), {"index": basic})
    return apply(INDEX, (view, tensors), {"dims": dims}) if tensors else view


def _fit(value, shape, where):
    """``value`` without the leading size-1 dims ``shape`` lacks, checked to broadcast."""
    while value.ndim > len(shape) and value.shape[0] == 1:
        value = value.reshape(tuple(value.shape[1:]))
    try:
        _check_fits(value.shape, shape)
    except RuntimeError as err:
        raise RuntimeError(f"{where}: {err}") from None
    return value


def _put(input, index, value, accumulate, where):
    """Out of place: ``input`` with ``value`` written (or added) at ``input[index]``."""
    basic, tensors, dims = parse_index(input, index, where)
    if not tensors:
        value = _fit(value, _basic_shape(input.shape, basic), where)
        if accumulate:
            value = F.add(apply(GETITEM, (input,), {"index": basic}), value)
        return apply(GETITEM_SCATTER, (input, value), {"index": basic})
    whole = _is_whole(input.shape, basic)
    view = input if whole else apply(GETITEM, (input,), {"index": basic})
    value = _fit(value, _index_shape(tuple(view.shape), tensors, dims), where)
    put = apply(INDEX_PUT, (view, tensors, value), {"dims": dims, "accumulate": accumulate})
    return put if whole else apply(GETITEM_SCATTER, (input, put), {"index": basic})


def _value_tensor(input, value, where):
    if isinstance(value, Tensor):
        return F.to_device(F.cast(value, input.dtype), input.device)
    if isinstance(value, (complex, np.complexfloating)) and not input.dtype.is_complex:
        dtypes.checked_scalar(value, input.dtype, where)     # an imaginary part: refused
        value = value.real
    if isinstance(value, (bool, int, float, complex, np.bool_, np.number)):
        return F.tensor(value, dtype=input.dtype, device=input.device)
    raise TypeError(f"{where}: can't assign a {type(value).__name__} to a Tensor; expected "
                    f"a Tensor or a Python number")


def _setitem(input, index, value):
    # NOTE: torch sends ``x[mask] = number`` to masked_fill_, which refuses a uint8 mask
    # that ``x[mask]`` and ``x[mask] = tensor`` still take
    if isinstance(index, Tensor) and index.dtype is dtypes.uint8 and not isinstance(value,
                                                                                    Tensor):
        raise RuntimeError("setitem_: masked_fill_ only supports boolean masks, but got mask "
                           "with dtype uint8")
    value = _value_tensor(input, value, "setitem_")
    if isinstance(index, Tensor) and index.dtype is dtypes.bool and value.ndim == 0 \
            and tuple(index.shape) == tuple(input.shape):
        return F.where(F.to_device(index, input.device), value, input)   # no nonzero needed
    return _put(input, index, value, False, "setitem_")


@public
def setitem_(input, index, value):
    """setitem_(input, index, value) -> input, as ``input[index] = value``

    ``value`` (a tensor, broadcast and cast to input's dtype, or a number) is written in
    place; on a view it writes through. Under autograd gradients flow to the old input
    outside the written region and to ``value``.

    >>> x = minflow.zeros(2, 3)
    >>> x[0, 1:] = 5
    >>> x.tolist()
    [[0.0, 5.0, 5.0], [0.0, 0.0, 0.0]]
    """
    return _inplace(_setitem, "setitem_", input, index, value)


@public(method=True)
def index_put(input, indices, values, accumulate=False):
    """index_put(input, indices, values, accumulate=False) -> Tensor

    A copy of ``input`` with ``out[indices] = values`` (``+=`` with accumulate, duplicates
    summed); ``indices`` is a tuple of integer or bool tensors, ``values`` input's dtype.

    >>> minflow.zeros(3).index_put((minflow.tensor([0, 0]),), minflow.tensor(1.0),
    ...                            accumulate=True).tolist()
    [2.0, 0.0, 0.0]
    """
    if not isinstance(indices, (tuple, list)) or not isinstance(values, Tensor) \
            or not all(isinstance(i, Tensor) for i in indices):
        raise TypeError(f"index_put: expected indices to be a tuple of Tensors and values a "
                        f"Tensor, got {indices!r} and {type(values).__name__}")
    if values.dtype is not input.dtype:      # as torch: no implicit cast, unlike setitem
        raise RuntimeError(f"index_put: Index put requires the source and destination dtypes "
                           f"match, got {input.dtype.name} for the destination and "
                           f"{values.dtype.name} for the source.")
    return _put(input, tuple(indices), values, accumulate, "index_put")


index_put_ = make_inplace(index_put, "index_put_")


# ---- index_select, gather, scatter, masked_select, take_along_dim, nonzero ------------

def _expect_index(index, where):
    if not isinstance(index, Tensor):
        raise TypeError(f"{where}: expected index to be a Tensor, got {type(index).__name__}")


@public(method=True)
def index_select(input, dim, index):
    """index_select(input, dim, index) -> Tensor

    The entries of ``input`` along ``dim`` at the 1-D integer ``index`` (repeats allowed),
    as a new contiguous tensor.

    >>> minflow.tensor([[1, 2], [3, 4]]).index_select(0, minflow.tensor([1, 1])).tolist()
    [[3, 4], [3, 4]]
    """
    _expect_index(index, "index_select")
    if index.dtype not in INDEX_DTYPES:
        raise RuntimeError(f"index_select(): Expected dtype int32 or int64 for index, got "
                           f"{index.dtype.name}")
    if index.ndim > 1:
        raise IndexError(f"index_select(): Index is supposed to be a vector, got shape "
                         f"{list(index.shape)}")
    dim = wrap_dim(dim, input.ndim, "index_select")
    if input.ndim == 0:
        return apply(INDEX, (input.reshape(1), [index.reshape(-1)]), {"dims": (0,)}).reshape(())
    return apply(INDEX, (input, [index.reshape(-1)]), {"dims": (dim,)}).contiguous()


@public(method=True)
def gather(input, dim, index):
    """gather(input, dim, index) -> Tensor, shaped like ``index``

    out[i][j] = input[index[i][j]][j] (dim=0), out[i][j] = input[i][index[i][j]] (dim=1).

    >>> minflow.tensor([[1, 2], [3, 4]]).gather(1, minflow.tensor([[0, 0], [1, 0]])).tolist()
    [[1, 1], [4, 3]]
    """
    _expect_index(index, "gather")
    return apply(GATHER, (input, index), {"dim": wrap_dim(dim, input.ndim, "gather")})


@public(method=True)
def scatter_add(input, dim, index, src):
    """scatter_add(input, dim, index, src) -> Tensor

    A copy of ``input`` with out[index[i][j]][j] += src[i][j] (dim=0); repeats add up.

    >>> minflow.zeros(3).scatter_add(0, minflow.tensor([0, 0, 2]), minflow.ones(3)).tolist()
    [2.0, 0.0, 1.0]
    """
    _expect_index(index, "scatter_add")
    return apply(SCATTER_ADD, (input, index, src),
                 {"dim": wrap_dim(dim, input.ndim, "scatter_add")})


@public(method=True)
def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    """scatter(input, dim, index, src, *, reduce=None) or scatter(input, dim, index, value=v)

    A copy of ``input`` with out[index[i][j]][j] = src[i][j] (dim=0), or ``value``.
    ``reduce`` ("add" or "multiply", deprecated in torch) combines them with input's
    values instead: scatter_reduce with "sum" or "prod".

    >>> minflow.zeros(3).scatter(0, minflow.tensor([2]), minflow.tensor([7.0])).tolist()
    [0.0, 0.0, 7.0]
    >>> minflow.ones(3).scatter(0, minflow.tensor([2, 2]), 3.0, reduce="multiply").tolist()
    [1.0, 1.0, 9.0]
    """
    _expect_index(index, "scatter")
    if value is None and not isinstance(src, Tensor):
        src, value = None, src              # scatter(input, dim, index, 2.0), as torch
    if (src is None) == (value is None):
        raise TypeError(f"scatter: expected either src (a Tensor) or value (a number), got "
                        f"src={src!r}, value={value!r}")
    if src is None:
        src = F.full(tuple(index.shape), value, dtype=input.dtype, device=input.device)
    if reduce is not None:
        if reduce not in ("add", "multiply"):
            raise RuntimeError(f"scatter: reduce argument must be either add or multiply, "
                               f"got {reduce!r}")
        return F.scatter_reduce(input, dim, index, src,
                                "sum" if reduce == "add" else "prod")
    return apply(SCATTER, (input, index, src), {"dim": wrap_dim(dim, input.ndim, "scatter")})


scatter_ = make_inplace(scatter, "scatter_")
scatter_add_ = make_inplace(scatter_add, "scatter_add_")


@public(method=True)
def masked_select(input, mask):
    """masked_select(input, mask) -> 1-D Tensor of the elements where the bool ``mask``
    (broadcast with input) is True.

    >>> x = minflow.tensor([[1, 2], [3, 4]])
    >>> x.masked_select(minflow.tensor([True, False])).tolist()
    [1, 3]
    """
    infer.check_tensor("masked_select", "mask", mask)
    if mask.dtype is not dtypes.bool:
        raise RuntimeError(f"masked_select: expected BoolTensor for mask, got "
                           f"{getattr(mask, 'dtype', type(mask).__name__)}")
    try:
        shape = infer.broadcast_shapes(tuple(input.shape), tuple(mask.shape))
    except RuntimeError as err:
        raise RuntimeError(f"masked_select: {err}") from None
    return getitem(F.expand(input, shape), F.expand(mask, shape))


@public(method=True)
def take_along_dim(input, indices, dim=None):
    """take_along_dim(input, indices, dim=None) -> Tensor

    gather along ``dim`` after broadcasting input and indices in the other dims; with
    dim=None, both are flattened first.

    >>> x = minflow.tensor([[10, 30, 20]])
    >>> x.take_along_dim(minflow.tensor([[0, 2, 1]]), 1).tolist()
    [[10, 20, 30]]
    """
    _expect_index(indices, "take_along_dim")
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    dim = wrap_dim(dim, input.ndim, "take_along_dim")
    if input.ndim != indices.ndim:
        raise RuntimeError(f"take_along_dim(): input and indices should have the same number "
                           f"of dimensions, but got {input.ndim} dimensions for input, and "
                           f"{indices.ndim} dimensions for indices")
    others = [tuple(1 if d == dim else n for d, n in enumerate(t.shape)) for t in (input, indices)]
    try:
        shape = infer.broadcast_shapes(*others)
    except RuntimeError as err:
        raise RuntimeError(f"take_along_dim: input and indices {err}") from None
    sizes = [shape[:dim] + (t.shape[dim],) + shape[dim + 1:] for t in (input, indices)]
    return gather(F.expand(input, sizes[0]), dim, F.expand(indices, sizes[1]))


@public
def nonzero_static(input, *, size, fill_value=-1):
    """nonzero_static(input, *, size, fill_value=-1) -> Tensor of shape (size, ndim)

    nonzero's coordinates cut or padded with ``fill_value`` rows to exactly ``size`` rows
    (a shape known in advance).

    >>> minflow.nonzero_static(minflow.tensor([0, 1, 0, 2]), size=3).tolist()
    [[1], [3], [-1]]
    """
    if infer.check_int("nonzero_static", "size", size) < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be a non-negative int, got {size!r}")
    coords = nonzero(input)[:size]
    missing = size - coords.shape[0]
    if missing:
        pad = F.full((missing, coords.shape[1]), fill_value, dtype=coords.dtype,
                     device=coords.device)
        coords = F.cat([coords, pad])
    return coords


@public(method=True)
def nonzero(input, *, as_tuple=False):
    """nonzero(input, *, as_tuple=False) -> Tensor of shape (count, ndim), int64

    The coordinates of the nonzero elements in row-major order; ``as_tuple`` gives one
    1-D tensor per dim instead. Not available on the meta device (data-dependent shape).

    >>> minflow.tensor([[0, 1], [2, 0]]).nonzero().tolist()
    [[0, 1], [1, 0]]
    """
    if as_tuple and input.ndim == 0:
        input = input.reshape(1)
    coords = apply(NONZERO, (input,), {})
    return tuple(coords[:, j] for j in range(input.ndim)) if as_tuple else coords

"""Index updates along one dim, with PyTorch's semantics: index_add, index_copy and
index_fill, index_reduce, each with its in-place variant and Tensor methods; select_scatter,
slice_scatter, diagonal_scatter and masked_scatter (with masked_scatter_); scatter_reduce.

index_add and index_copy are ``index_put`` (ops/indexing.py) with the index at ``dim``
(accumulating or not); index_fill is ``where`` over a mask of the indexed slices, so a
repeated index fills once and the value's gradient counts each filled element once, as
torch's. select_scatter and slice_scatter are ``getitem_scatter``, the out-of-place
``x[index] = src``; masked_scatter gathers source at the running count of the mask (a
cumsum), so its shapes never depend on the data and it runs in graph mode too.
diagonal_scatter writes src into zeros with ``diagonal_grad`` (ops/matrix.py) and picks it
with ``where``; index_reduce is scatter_reduce with the index spread over source's shape.
They need no kernels or grad code of their own. scatter_reduce is an op (kernels:
kernels/generic/index_update.py, grad function: autograd/grads/index_update.py).
"""
import numbers

from ..core import dtype as dtypes
from ..core.dispatch import apply
from ..core.functional import make_inplace, public
from ..core.namespace import F
from ..core.tensor import Tensor, wrap_dim
from .index_parse import INDEX_DTYPES, parse_index
from .indexing import GETITEM, GETITEM_SCATTER, INDEX_PUT, _scatter_infer
from .matrix import DIAGONAL_GRAD
from .infer import broadcast_shapes, check_int, check_tensor
from .registry import Attr, Input, define_op

__all__ = ["index_add", "index_add_", "index_copy", "index_copy_", "index_fill", "index_fill_",
           "select_scatter", "slice_scatter", "masked_scatter", "masked_scatter_",
           "scatter_reduce", "scatter_reduce_", "diagonal_scatter", "index_reduce",
           "index_reduce_"]


def _index(fn, input, dim, index, error, negative_ok=False):
    """(dim, index as a 1-D tensor) checked as torch checks them; out-of-range values
    raise ``error`` where the index has values (not meta, not traced)."""
    if not isinstance(index, Tensor):
        raise TypeError(f"{fn}: expected index to be a Tensor, got {type(index).__name__}")
    if index.dtype not in INDEX_DTYPES or index.dtype is dtypes.bool:
        # NOTE: torch's index_fill raises an IndexError here, the others a RuntimeError
        raise (IndexError if fn == "index_fill" else RuntimeError)(
            f"{fn}: Expected dtype int32/int64 for index but got: {index.dtype.name}")
    if index.ndim > 1:
        raise IndexError(f"{fn}: Index is supposed to be a vector, but got dim: {index.ndim} "
                         f"with size {list(index.shape)}")
    dim = wrap_dim(dim, input.ndim, fn)
    size = input.shape[dim] if input.ndim else 1
    data = index._data
    if index.device.type != "meta" and not getattr(data, "is_lazy", False) and data.size:
        low, high = int(data.min()), int(data.max())
        for bad in (low, high):
            if bad >= size or bad < (-size if negative_ok else 0):
                raise error(f"{fn}: index {bad} is out of bounds for dimension {dim} with "
                            f"size {size}")
    return dim, F.reshape(index, (-1,))


def _update(fn, input, dim, index, source, accumulate, error):
    dim, index = _index(fn, input, dim, index, error)
    if not isinstance(source, Tensor):
        raise TypeError(f"{fn}: expected source to be a Tensor, got {type(source).__name__}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"{fn}: self and source expected to have the same dtype, but got "
                           f"(self) {input.dtype.name} and (source) {source.dtype.name}")
    if input.ndim == 0:
        flat = _update(fn, F.reshape(input, (1,)), 0, index, F.reshape(source, (-1,)),
                       accumulate, error)
        return F.reshape(flat, ())
    expected = tuple(index.shape[0] if d == dim else s for d, s in enumerate(input.shape))
    if tuple(source.shape) != expected:
        raise RuntimeError(f"{fn}: expected source of shape {list(expected)} (input's, with "
                           f"the number of indices ({index.shape[0]}) at dim {dim}), got "
                           f"{list(source.shape)}")
    return apply(INDEX_PUT, (input, [index], source), {"dims": (dim,),
                                                      "accumulate": accumulate})


@public(method=True)
def index_add(input, dim, index, source, *, alpha=1):
    """index_add(input, dim, index, source, *, alpha=1) -> Tensor

    A copy of ``input`` with ``alpha * source[..., i, ...]`` added at ``index[i]`` along
    ``dim`` (repeated indices add up); ``source`` is input's shape with ``len(index)`` at
    ``dim``, and input's dtype. As torch, alpha is truncated to an int for integer tensors
    and taken as a bool for bool ones (where adding is a logical or).

    >>> minflow.zeros(3).index_add(0, minflow.tensor([0, 2, 0]), minflow.ones(3), alpha=2)
    tensor([4., 0., 2.])
    """
    if not isinstance(alpha, numbers.Number):
        raise TypeError(f"index_add: expected alpha to be a number, got {type(alpha).__name__}")
    if isinstance(source, Tensor) and source.dtype is not input.dtype:   # before alpha's cast
        raise RuntimeError(f"index_add: self and source expected to have the same dtype, but "
                           f"got (self) {input.dtype.name} and (source) {source.dtype.name}")
    if not input.dtype.is_floating_point:
        alpha = bool(alpha) if input.dtype is dtypes.bool else int(alpha)
    if isinstance(source, Tensor) and alpha != 1:
        source = F.mul(source, alpha)
        source = F.cast(source, input.dtype) if source.dtype is not input.dtype else source
    return _update("index_add", input, dim, index, source, True, RuntimeError)


@public(method=True)
def index_copy(input, dim, index, source):
    """index_copy(input, dim, index, source) -> Tensor

    A copy of ``input`` with ``source[..., i, ...]`` written at ``index[i]`` along ``dim``
    (with repeated indices, which one wins is unspecified, as in torch).

    >>> minflow.zeros(2, 3).index_copy(1, minflow.tensor([2, 0]),
    ...                                minflow.tensor([[1.0, 2.0], [3.0, 4.0]])).tolist()
    [[2.0, 0.0, 1.0], [4.0, 0.0, 3.0]]
    """
    if isinstance(source, Tensor) and source.ndim != input.ndim and source.ndim and input.ndim:
        raise IndexError(f"index_copy: When source and destination are not scalars, their "
                         f"dimensionality must match. Source dimensionality ({source.ndim}), "
                         f"destination dimensionality ({input.ndim})")
    return _update("index_copy", input, dim, index, source, False, IndexError)


@public(method=True)
def index_fill(input, dim, index, value):
    """index_fill(input, dim, index, value) -> Tensor

    A copy of ``input`` with every slice ``index[i]`` along ``dim`` set to ``value`` (a
    number or a 0-d tensor, cast to input's dtype); negative indices count from the end.

    >>> minflow.zeros(2, 3).index_fill(1, minflow.tensor([0, -1]), 5.0).tolist()
    [[5.0, 0.0, 5.0], [5.0, 0.0, 5.0]]
    """
    dim, index = _index("index_fill", input, dim, index, IndexError, negative_ok=True)
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(f"index_fill: index_fill_ only supports a 0-dimensional value "
                               f"tensor, but got tensor with {value.ndim} dimension(s).")
        value = F.cast(F.to_device(value, input.device), input.dtype)
    elif isinstance(value, (numbers.Number, bool)):
        try:
            value = F.full((), value, dtype=input.dtype, device=input.device)
        except RuntimeError as err:         # out of the dtype's range
            raise RuntimeError(f"index_fill: {str(err).partition(': ')[2]}") from None
    else:
        raise TypeError(f"index_fill: expected value to be a number or a 0-d Tensor, got "
                        f"{type(value).__name__}")
    size = input.shape[dim] if input.ndim else 1
    hit = apply(INDEX_PUT, (F.zeros(size, dtype=dtypes.bool, device=input.device), [index],
                            F.ones((), dtype=dtypes.bool, device=input.device)),
                {"dims": (0,), "accumulate": False})
    hit = F.reshape(hit, tuple(-1 if d == dim else 1 for d in range(input.ndim)))
    return F.where(hit, value, input)


index_add_ = make_inplace(index_add, "index_add_")
index_copy_ = make_inplace(index_copy, "index_copy_")
index_fill_ = make_inplace(index_fill, "index_fill_")


def _scatter_at(fn, input, src, index):
    """A copy of ``input`` with ``src`` (exactly the shape of input[index], cast to
    input's dtype) written at the basic ``index``."""
    if not isinstance(src, Tensor):
        raise TypeError(f"{fn}: expected src to be a Tensor, got {type(src).__name__}")
    basic = parse_index(input, index, fn)[0]
    target = tuple(apply(GETITEM, (input,), {"index": basic}).shape)
    if tuple(src.shape) != target:
        raise RuntimeError(f"{fn}: expected src to have a size equal to the slice of self. "
                           f"src size = {list(src.shape)}, slice size = {list(target)}")
    src = F.cast(src, input.dtype) if src.dtype is not input.dtype else src
    return apply(GETITEM_SCATTER, (input, F.to_device(src, input.device)), {"index": basic})


@public(method=True)
def select_scatter(input, src, dim, index):
    """select_scatter(input, src, dim, index) -> Tensor

    A copy of ``input`` with ``src`` written at ``input.select(dim, index)``; ``src`` has
    that slice's shape.

    >>> minflow.zeros(2, 3).select_scatter(minflow.ones(2), 1, -1).tolist()
    [[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]]
    """
    dim = wrap_dim(dim, input.ndim, "select_scatter")
    size = input.shape[dim]
    if isinstance(index, bool) or not isinstance(index, numbers.Integral):
        raise TypeError(f"select_scatter: expected index to be an int, got "
                        f"{type(index).__name__}")
    if not -size <= index < size:
        raise IndexError(f"select_scatter: select(): index {index} out of range for tensor of "
                         f"size {list(input.shape)} at dimension {dim}")
    return _scatter_at("select_scatter", input, src, (slice(None),) * dim + (int(index),))


@public(method=True)
def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """slice_scatter(input, src, dim=0, start=None, end=None, step=1) -> Tensor

    A copy of ``input`` with ``src`` written at input[start:end:step] along ``dim``
    (Python slice bounds); ``src`` has that slice's shape.

    >>> minflow.zeros(2, 4).slice_scatter(minflow.ones(2, 2), 1, step=2).tolist()
    [[1.0, 0.0, 1.0, 0.0], [1.0, 0.0, 1.0, 0.0]]
    """
    dim = wrap_dim(dim, input.ndim, "slice_scatter")
    if step is None or check_int("slice_scatter", "step", step) <= 0:
        raise RuntimeError(f"slice_scatter: slice step must be positive, got {step}")
    return _scatter_at("slice_scatter", input, src,
                       (slice(None),) * dim + (slice(start, end, step),))


@public(method=True)
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """diagonal_scatter(input, src, offset=0, dim1=0, dim2=1) -> Tensor

    A copy of ``input`` with ``src`` written at ``input.diagonal(offset, dim1, dim2)``;
    ``src`` has that diagonal's shape (cast to input's dtype).

    >>> minflow.zeros(2, 3).diagonal_scatter(minflow.ones(2), 1).tolist()
    [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """
    if not isinstance(src, Tensor):
        raise TypeError(f"diagonal_scatter: expected src to be a Tensor, got "
                        f"{type(src).__name__}")
    if isinstance(offset, bool) or not isinstance(offset, numbers.Integral):
        raise TypeError(f"diagonal_scatter: expected offset to be an int, got "
                        f"{type(offset).__name__}")
    dim1 = wrap_dim(dim1, input.ndim, "diagonal_scatter")
    dim2 = wrap_dim(dim2, input.ndim, "diagonal_scatter")
    if dim1 == dim2:
        raise RuntimeError(f"diagonal_scatter: diagonal dimensions cannot be identical "
                           f"{dim1}, {dim2}")
    target = tuple(F.diagonal(input, offset, dim1, dim2).shape)
    if tuple(src.shape) != target:
        raise RuntimeError(f"diagonal_scatter: expected src to have a size equal to the slice "
                           f"of self. src size = {list(src.shape)}, slice size = "
                           f"{list(target)}")
    src = F.to_device(F.cast(src, input.dtype) if src.dtype is not input.dtype else src,
                      input.device)
    attrs = {"input_size": tuple(input.shape), "offset": int(offset), "dim1": dim1,
             "dim2": dim2}
    on_diagonal = apply(DIAGONAL_GRAD, (F.ones(target, dtype=dtypes.bool,
                                               device=input.device),), attrs)
    return F.where(on_diagonal, apply(DIAGONAL_GRAD, (src,), attrs), input)


def _has_values(t):
    return t.device.type != "meta" and not getattr(t._data, "is_lazy", False)


@public(method=True)
def masked_scatter(input, mask, source):
    """masked_scatter(input, mask, source) -> Tensor

    A copy of ``input`` (broadcast with the bool ``mask``) whose elements where ``mask``
    is True are, in row-major order, the first elements of ``source`` (flattened; it must
    have at least as many elements as the mask has True values).

    >>> minflow.zeros(2, 3).masked_scatter(minflow.tensor([True, False, True]),
    ...                                    minflow.arange(1.0, 7.0)).tolist()
    [[1.0, 0.0, 2.0], [3.0, 0.0, 4.0]]
    """
    check_tensor("masked_scatter", "mask", mask)
    if mask.dtype is not dtypes.bool:
        raise RuntimeError(f"masked_scatter: masked_scatter_ only supports boolean masks, but "
                           f"got mask with dtype "
                           f"{getattr(getattr(mask, 'dtype', None), 'name', type(mask).__name__)}")
    if not isinstance(source, Tensor):
        raise TypeError(f"masked_scatter: expected source to be a Tensor, got "
                        f"{type(source).__name__}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but "
                           f"got {input.dtype.name} and {source.dtype.name}")
    try:
        shape = broadcast_shapes(tuple(input.shape), tuple(mask.shape))
    except RuntimeError as err:
        raise RuntimeError(f"masked_scatter: {err}") from None
    mask = F.expand(F.to_device(mask, input.device), shape)
    count = source.numel()
    if _has_values(mask) and int(F.sum(mask).item()) > count:
        raise RuntimeError(f"masked_scatter: Number of elements of source < number of ones in "
                           f"mask: {count} < {int(F.sum(mask).item())}")
    input = F.expand(input, shape)
    if count == 0:
        return F.clone(input)
    flat = F.reshape(mask, (-1,))
    position = F.clamp(F.sub(F.cumsum(flat, 0), 1), 0, count - 1)
    picked = F.reshape(F.gather(F.reshape(source, (-1,)), 0, position), shape)
    return F.where(mask, picked, input)


masked_scatter_ = make_inplace(masked_scatter, "masked_scatter_")


REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")
SCATTER_REDUCE = define_op(
    "scatter_reduce", ["input", Input("index", promote=False), "src"],
    attrs=[Attr("dim", "int"), Attr("reduce", "str", choices=REDUCTIONS),
           Attr("include_self", "bool", True)],
    infer=lambda input, index, src, dim, reduce, include_self: _scatter_infer(input, index,
                                                                               src, dim),
    traits=("opaque", "no_side_effect"),
    doc="A copy of input with the src values scattered to each index reduced together "
        "(and with input's value there, include_self).")


@public(method=True)
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """scatter_reduce(input, dim, index, src, reduce, *, include_self=True) -> Tensor

    A copy of ``input`` where out[index[i][j]][j] (dim=0) is the ``reduce`` ("sum",
    "prod", "mean", "amax" or "amin") of all src[i][j] sent there, and of input's value
    there too with ``include_self``; places nothing is sent to keep input's value. An
    integer "mean" rounds down; on bools "sum" and "amax" are a logical or, "prod" and
    "amin" a logical and. Ties of amax / amin share the gradient evenly, as torch.

    >>> x = minflow.tensor([1.0, 2.0, 3.0])
    >>> x.scatter_reduce(0, minflow.tensor([0, 0, 2]), minflow.tensor([5.0, 4.0, 1.0]),
    ...                  "amax").tolist()
    [5.0, 2.0, 3.0]
    >>> x.scatter_reduce(0, minflow.tensor([0, 0]), minflow.tensor([5.0, 4.0]), "mean",
    ...                  include_self=False).tolist()
    [4.5, 2.0, 3.0]
    """
    if not isinstance(index, Tensor) or not isinstance(src, Tensor):
        raise TypeError(f"scatter_reduce: expected index and src to be Tensors, got "
                        f"{type(index).__name__} and {type(src).__name__}")
    if reduce == "mean" and input.dtype is dtypes.bool:
        raise NotImplementedError("scatter_reduce: reduce='mean' is not implemented for bool "
                                  "tensors, as in torch")
    dim = wrap_dim(dim, input.ndim, "scatter_reduce")
    size = input.shape[dim] if input.ndim else 1
    data = index._data
    if index.dtype in INDEX_DTYPES and _has_values(index) and data.size and \
            not bool(((data >= 0) & (data < size)).all()):
        bad = int(data.max()) if int(data.max()) >= size else int(data.min())
        raise RuntimeError(f"scatter_reduce: index {bad} is out of bounds for dimension {dim} "
                           f"with size {size}")
    return apply(SCATTER_REDUCE, (input, index, src),
                 {"dim": dim, "reduce": reduce, "include_self": include_self})


scatter_reduce_ = make_inplace(scatter_reduce, "scatter_reduce_")


INDEX_REDUCTIONS = ("prod", "mean", "amax", "amin")


@public(method=True)
def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """index_reduce(input, dim, index, source, reduce, *, include_self=True) -> Tensor

    A copy of ``input`` where each slice ``index[i]`` along ``dim`` is the ``reduce``
    ("prod", "mean", "amax" or "amin") of the source slices ``source[..., i, ...]`` sent
    there, and of input's slice too with ``include_self``; slices nothing is sent to keep
    input's values. An integer "mean" rounds down. Gradients are scatter_reduce's.

    >>> x = minflow.ones(3, 2)
    >>> x.index_reduce(0, minflow.tensor([0, 2, 0]),
    ...                minflow.tensor([[2.0, 3.0], [4.0, 5.0], [6.0, 7.0]]), "prod").tolist()
    [[12.0, 21.0], [1.0, 1.0], [4.0, 5.0]]
    """
    if reduce not in INDEX_REDUCTIONS:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    if input.dtype is dtypes.bool:
        raise NotImplementedError("index_reduce: not implemented for bool tensors, as in torch")
    dim, index = _index("index_reduce", input, dim, index, IndexError)
    if not isinstance(source, Tensor):
        raise TypeError(f"index_reduce: expected source to be a Tensor, got "
                        f"{type(source).__name__}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"index_reduce_(): self ({input.dtype.name}) and source "
                           f"({source.dtype.name}) must have the same scalar type")
    if input.ndim == 0:
        if source.ndim or index.shape[0] != 1:
            raise RuntimeError(f"index_reduce_(): source tensor shape must match self tensor "
                               f"shape, excluding the specified dimension. Got self.shape = "
                               f"[] source.shape = {list(source.shape)}")
        flat = index_reduce(F.reshape(input, (1,)), 0, index, F.reshape(source, (-1,)),
                            reduce, include_self=include_self)
        return F.reshape(flat, ())
    expected = tuple(index.shape[0] if d == dim else s for d, s in enumerate(input.shape))
    if tuple(source.shape) != expected:
        raise RuntimeError(f"index_reduce_(): expected source of shape {list(expected)} "
                           f"(input's, with the number of indices ({index.shape[0]}) at dim "
                           f"{dim}), got {list(source.shape)}")
    along = tuple(-1 if d == dim else 1 for d in range(input.ndim))
    spread = F.expand(F.reshape(F.cast(index, dtypes.int64), along), expected)
    return scatter_reduce(input, dim, spread, source, reduce, include_self=include_self)


index_reduce_ = make_inplace(index_reduce, "index_reduce_")

"""Sorting and reordering: sort, argsort, msort, topk, flip, roll, unique,
unique_consecutive, bincount.

sort and topk are composites: an index op (``argsort``, ``topk``; no grad) then
``gather`` for the values, so their gradient is gather's and needs no code of its own.
unique, unique_consecutive and bincount have data-dependent output shapes (as nonzero):
their inference reads the data, so meta tensors and graph mode refuse them.
Kernels: kernels/generic/sorting.py; grad functions (flip, roll): autograd/grads/sorting.py.
"""
import collections

from ..core import dtype as dtypes
from ..core.device import array_module
from ..core.dispatch import apply
from ..core.functional import public
from ..core.namespace import F
from ..core.tensor import Tensor, wrap_dim
from .registry import Attr, Input, define_op

__all__ = ["sort", "argsort", "msort", "topk", "flip", "roll", "unique", "unique_consecutive",
           "bincount"]

OPAQUE = ("opaque", "no_side_effect")


def _index_infer(input, **attrs):
    return input._data.shape, dtypes.int64


def _topk_infer(input, k, dim, largest, sorted):
    size = input._data.shape[dim] if input.ndim else 1
    if k > size:
        raise RuntimeError(f"selected index k out of range: expected k <= {size} (the size of "
                           f"dim {dim}), got k={k}")
    shape = list(input._data.shape)
    if shape:
        shape[dim] = k
    return tuple(shape), dtypes.int64


ARGSORT = define_op("argsort", ["input"], attrs=[Attr("dim", "int"),
                                                  Attr("descending", "bool", False)],
                    infer=_index_infer, traits=OPAQUE + ("no_grad",),
                    doc="Indices that sort ``input`` along ``dim`` (a stable sort).")
TOPK = define_op("topk", ["input"], attrs=[Attr("k", "int", min=0), Attr("dim", "int"),
                                            Attr("largest", "bool", True),
                                            Attr("sorted", "bool", True)],
                 infer=_topk_infer, traits=OPAQUE + ("no_grad",),
                 doc="Indices of the k largest (or smallest) elements along ``dim``.")


def _return_type(name):
    """A (values, indices) named tuple that prints as torch's ``return_types.<name>``."""
    base = collections.namedtuple(name, ["values", "indices"])

    def __repr__(self):
        return (f"minflow.return_types.{name}(\nvalues={self.values!r},\n"
                f"indices={self.indices!r})")
    return type(name, (base,), {"__slots__": (), "__repr__": __repr__})


_SORT, _TOPK = _return_type("sort"), _return_type("topk")


def _values(input, dim, indices):
    return F.gather(input, dim, indices) if input.ndim else F.clone(input)


@public(method=True)
def argsort(input, dim=-1, descending=False, *, stable=False):
    """argsort(input, dim=-1, descending=False, *, stable=False) -> Tensor (int64)

    The indices that sort ``input`` along ``dim``. The sort is always stable (equal
    elements keep their order, also when descending); NaN sorts as the largest value.

    >>> minflow.argsort(minflow.tensor([3, 1, 2])).tolist()
    [1, 2, 0]
    """
    if input.dtype is dtypes.bool:
        input = F.cast(input, dtypes.int32)
    return apply(ARGSORT, (input,), {"dim": wrap_dim(dim, input.ndim, "argsort"),
                                     "descending": descending})


@public(method=True)
def sort(input, dim=-1, descending=False, *, stable=False):
    """sort(input, dim=-1, descending=False, *, stable=False) -> (values, indices)

    ``input`` sorted along ``dim`` and the indices that sort it (see :func:`argsort`);
    the values' gradient flows back to the elements they came from.

    >>> minflow.sort(minflow.tensor([3.0, 1.0, 2.0]), descending=True).indices.tolist()
    [0, 2, 1]
    """
    d = wrap_dim(dim, input.ndim, "sort")
    indices = argsort(input, d, descending)
    return _SORT(_values(input, d, indices), indices)


@public(method=True)
def msort(input):
    """msort(input) -> Tensor, ``input`` sorted along dim 0 (values only).

    >>> minflow.msort(minflow.tensor([[2, 1], [1, 3]])).tolist()
    [[1, 1], [2, 3]]
    """
    return sort(input, 0).values


@public(method=True)
def topk(input, k, dim=None, largest=True, sorted=True):
    """topk(input, k, dim=None, largest=True, sorted=True) -> (values, indices)

    The ``k`` largest (``largest=False``: smallest) elements along ``dim`` (the last
    when None), in sorted order (always: ``sorted=False`` allows any order, this is one);
    NaN counts as the largest value.

    >>> minflow.topk(minflow.tensor([1.0, 3.0, 2.0]), 2)
    minflow.return_types.topk(
    values=tensor([3., 2.]),
    indices=tensor([1, 2]))
    """
    d = wrap_dim(-1 if dim is None else dim, input.ndim, "topk")
    source = F.cast(input, dtypes.int32) if input.dtype is dtypes.bool else input
    indices = apply(TOPK, (source,), {"k": k, "dim": d, "largest": largest, "sorted": sorted})
    return _TOPK(_values(input, d, indices), indices)


def _dims_attr(name, dims, ndim):
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    out = tuple(wrap_dim(d, ndim, name) for d in dims)
    if len(set(out)) != len(out):
        raise RuntimeError(f"{name}: dims has duplicates: {list(dims)}")
    return out


FLIP = define_op("flip", ["input"], attrs=[Attr("dims", "ints")],
                 infer=lambda input, dims: (input._data.shape, input.dtype), traits=OPAQUE,
                 doc="A copy with the order of elements reversed along ``dims``.")
ROLL = define_op("roll", ["input"], attrs=[Attr("shifts", "ints"), Attr("dims", "ints")],
                 infer=lambda input, shifts, dims: (input._data.shape, input.dtype),
                 check=lambda input, shifts, dims: len(shifts) == len(dims) or _raise(
                     RuntimeError(f"shifts and dims must align: got {len(shifts)} shifts "
                                  f"and {len(dims)} dims")),
                 traits=OPAQUE,
                 doc="Elements shifted cyclically by ``shifts[i]`` along ``dims[i]``.")


def _raise(err):
    raise err


@public(method=True)
def flip(input, dims):
    """flip(input, dims) -> Tensor, a copy with the order reversed along ``dims``.

    >>> minflow.flip(minflow.tensor([[1, 2], [3, 4]]), [1]).tolist()
    [[2, 1], [4, 3]]
    """
    return apply(FLIP, (input,), {"dims": _dims_attr("flip", dims, input.ndim)})


@public(method=True)
def fliplr(input):
    """fliplr(input) -> Tensor, ``flip(input, [1])`` (at least 2-D).

    >>> minflow.fliplr(minflow.tensor([[1, 2]])).tolist()
    [[2, 1]]
    """
    if input.ndim < 2:
        raise RuntimeError(f"fliplr: expected input of at least 2 dims, got {input.ndim}")
    return flip(input, [1])


@public(method=True)
def flipud(input):
    """flipud(input) -> Tensor, ``flip(input, [0])`` (at least 1-D).

    >>> minflow.flipud(minflow.tensor([1, 2])).tolist()
    [2, 1]
    """
    if input.ndim < 1:
        raise RuntimeError("flipud: expected input of at least 1 dim, got 0")
    return flip(input, [0])


@public(method=True)
def roll(input, shifts, dims=None):
    """roll(input, shifts, dims=None) -> Tensor

    Shift elements cyclically by ``shifts`` along ``dims`` (int or tuples of one length);
    with no dims, over the flattened input, then restore the shape.

    >>> minflow.roll(minflow.tensor([1, 2, 3, 4]), 1).tolist()
    [4, 1, 2, 3]
    """
    shifts = (shifts,) if isinstance(shifts, int) else shifts
    if not (isinstance(shifts, (tuple, list)) and
            all(isinstance(s, int) and not isinstance(s, bool) for s in shifts)):
        raise TypeError(f"roll: expected shifts to be an int or a sequence of ints, got "
                        f"{shifts!r}")
    shifts = tuple(shifts)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"roll: with dims=None expected one shift, got {list(shifts)}")
        flat = apply(ROLL, (F.reshape(input, (-1,)),), {"shifts": shifts, "dims": (0,)})
        return F.reshape(flat, tuple(input.shape))
    if not isinstance(dims, (int, tuple, list)):
        raise TypeError(f"roll: expected dims to be an int or a sequence of ints, got {dims!r}")
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if input.ndim == 0 and dims:
        raise IndexError(f"roll: Dimension specified as {dims[0]} but tensor has no "
                         f"dimensions")
    return apply(ROLL, (input,), {"shifts": shifts,
                                  "dims": tuple(wrap_dim(d, input.ndim, "roll") for d in dims)})


def _values_of(input, name):
    """The array of a tensor whose values decide an output shape (not meta, not traced)."""
    if input.device.type == "meta":
        raise RuntimeError(f"the output shape of {name} depends on the data, which a meta "
                           f"tensor does not have")
    if getattr(input._data, "is_lazy", False):
        raise input._data.error(f"numpy.{name}")
    return input._data


def _unique_infer(input, sorted, dim):
    # NOTE: reads data (the number of distinct values); the kernel finds them again
    data = _values_of(input, "unique")
    xp = array_module(input.device.type)
    if dim is None:
        n = int(xp.unique(data.reshape(-1)).size)
        shape, inverse = (n,), input._data.shape
    else:
        n = int(xp.unique(data, axis=dim).shape[dim])
        shape = tuple(n if i == dim else s for i, s in enumerate(data.shape))
        inverse = (data.shape[dim],)
    return [(shape, input.dtype), (inverse, dtypes.int64), ((n,), dtypes.int64)]


UNIQUE = define_op("unique", ["input"], outputs=("values", "inverse", "counts"),
                   attrs=[Attr("sorted", "bool", True), Attr("dim", "int", None, optional=True)],
                   infer=_unique_infer, traits=OPAQUE + ("no_grad",),
                   doc="The distinct values (sorted), each element's index among them, and "
                       "their counts; the output shape depends on the data.")


@public(method=True)
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None)

    The distinct elements of ``input`` in ascending order (or distinct slices along
    ``dim``), with the inverse indices (where each element went) and the counts when asked.
    Not differentiable; not on meta tensors or in graph mode (data-dependent shape).

    >>> minflow.unique(minflow.tensor([3, 1, 3, 2]), return_counts=True)[1].tolist()
    [1, 1, 2]
    """
    d = None if dim is None else wrap_dim(dim, input.ndim, "unique")
    values, inverse, counts = apply(UNIQUE, (input,), {"sorted": sorted, "dim": d})
    extra = ((inverse,) if return_inverse else ()) + ((counts,) if return_counts else ())
    return (values,) + extra if extra else values


def run_starts(xp, data, dim):
    """Whether each element (each slice along ``dim``) starts a run of equal ones."""
    rows = data.reshape(-1) if dim is None else xp.moveaxis(data, dim, 0).reshape(
        data.shape[dim], data.size // data.shape[dim] if data.shape[dim] else 0)
    starts = xp.ones(rows.shape[0], bool)
    if rows.shape[0] > 1:
        change = rows[1:] != rows[:-1]          # NaN != NaN: each NaN its own run, as torch
        starts[1:] = change if dim is None else change.any(axis=1)
    return starts


def _unique_consecutive_infer(input, dim):
    data = _values_of(input, "unique_consecutive")
    if dim is not None and data.size == 0 and data.shape[dim] != 0:
        raise RuntimeError(f"There are 0 sized dimensions, and they aren't selected, so "
                           f"unique cannot be applied (shape {list(data.shape)}, dim {dim})")
    xp = array_module(input.device.type)
    n = int(run_starts(xp, data, dim).sum())
    if dim is None:
        shape, inverse = (n,), input._data.shape
    else:
        shape = tuple(n if i == dim else s for i, s in enumerate(data.shape))
        inverse = (data.shape[dim],)
    return [(shape, input.dtype), (inverse, dtypes.int64), ((n,), dtypes.int64)]


UNIQUE_CONSECUTIVE = define_op(
    "unique_consecutive", ["input"], outputs=("values", "inverse", "counts"),
    attrs=[Attr("dim", "int", None, optional=True)], infer=_unique_consecutive_infer,
    traits=OPAQUE + ("no_grad",),
    doc="The first element of each run of equal consecutive elements (or slices along "
        "dim), each element's run index and the run lengths; data-dependent shape.")


@public(method=True)
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """unique_consecutive(input, return_inverse=False, return_counts=False, dim=None)

    One element of each run of equal consecutive elements (or equal consecutive slices
    along ``dim``), with each element's run index and each run's length when asked.
    Not differentiable; not on meta tensors or in graph mode (data-dependent shape).

    >>> minflow.unique_consecutive(minflow.tensor([1, 1, 2, 2, 3, 1]), return_counts=True)
    (tensor([1, 2, 3, 1]), tensor([2, 2, 1, 1]))
    """
    d = None if dim is None else wrap_dim(dim, input.ndim, "unique_consecutive")
    values, inverse, counts = apply(UNIQUE_CONSECUTIVE, (input,), {"dim": d})
    extra = ((inverse,) if return_inverse else ()) + ((counts,) if return_counts else ())
    return (values,) + extra if extra else values


def _bincount_infer(input, weights, minlength):
    if input.ndim != 1 or input.dtype not in dtypes.INTS:
        raise RuntimeError(f"expected a 1-D integer input, got {input.ndim}-D "
                           f"{input.dtype.name}")
    if weights is not None and tuple(weights._data.shape) != tuple(input._data.shape):
        raise RuntimeError(f"expected weights of input's shape {list(input._data.shape)}, "
                           f"got {list(weights._data.shape)}")
    data = _values_of(input, "bincount")
    size = int(data.max()) + 1 if data.size else 0
    if data.size and int(data.min()) < 0:
        raise RuntimeError(f"expected non-negative values in input, got {int(data.min())}")
    if weights is None:
        dtype = dtypes.int64
    else:
        dtype = dtypes.float32 if weights.dtype is dtypes.float32 else dtypes.float64
    return (max(size, minlength),), dtype


BINCOUNT = define_op("bincount", [Input("input"), Input("weights", optional=True,
                                                         promote=False)],
                     attrs=[Attr("minlength", "int", 0, min=0)], infer=_bincount_infer,
                     traits=OPAQUE + ("no_grad",),
                     doc="The count (or summed weight) of each value in a 1-D int tensor; "
                         "the output length depends on the data.")


@public(method=True)
def bincount(input, weights=None, minlength=0):
    """bincount(input, weights=None, minlength=0) -> Tensor

    out[v] = number of times v occurs in the 1-D non-negative int ``input`` (or the sum
    of ``weights`` there), length max(input) + 1 or ``minlength``, whichever is larger.

    >>> minflow.bincount(minflow.tensor([1, 1, 3])).tolist()
    [0, 2, 0, 1]
    """
    if weights is not None and not isinstance(weights, Tensor):
        raise TypeError(f"bincount: expected weights to be a Tensor, got "
                        f"{type(weights).__name__}")
    return apply(BINCOUNT, (input, weights), {"minlength": minlength})

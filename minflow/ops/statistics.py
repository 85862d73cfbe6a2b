"""Order statistics, with PyTorch's semantics: median / nanmedian, kthvalue, mode,
quantile / nanquantile, and histc.

Along a dim each is an index computation (no grad) then ``gather`` for the values, as
sort and topk are, so the gradient goes to the element a value came from. The indices come
from the stable ``argsort`` (NaN sorts last) or, for mode, from the ``mode`` op. The
global median (no dim) is an op of its own: its gradient is shared evenly among the
elements equal to the median, as torch's. Kernels: kernels/generic/statistics.py; grad
function: autograd/grads/statistics.py.
"""
import numbers

from ..core import dtype as dtypes
from ..core.dispatch import apply
from ..core.functional import public
from ..core.namespace import F
from ..core.tensor import Tensor, wrap_dim
from .registry import Attr, define_op
from .sorting import _return_type

__all__ = ["median", "nanmedian", "kthvalue", "mode", "quantile", "nanquantile", "histc"]

OPAQUE = ("opaque", "no_side_effect")

MEDIAN = define_op("median", ["input"], attrs=[Attr("ignore_nan", "bool", False)],
                   infer=lambda input, ignore_nan: ((), input.dtype), traits=OPAQUE,
                   doc="The lower median of all elements (NaN if any is NaN, unless "
                       "ignore_nan); the gradient is shared among the elements equal to it.")


def _mode_infer(input, dim, keepdim):
    shape = list(input._data.shape)
    if shape and shape[dim] == 0:
        raise IndexError(f"mode(): Expected reduction dim {dim} to have non-zero size.")
    if shape:
        shape[dim] = 1
    return tuple(shape), dtypes.int64


MODE = define_op("mode", ["input"], attrs=[Attr("dim", "int")], infer=lambda input, dim:
                 _mode_infer(input, dim, True), traits=OPAQUE + ("no_grad",),
                 doc="Index (keepdim) of the most frequent value along ``dim``: the smallest "
                     "such value, at its last occurrence.")

_MEDIAN, _NANMEDIAN = _return_type("median"), _return_type("nanmedian")
_KTHVALUE, _MODE = _return_type("kthvalue"), _return_type("mode")


def _reduced(name, input, dim):
    """``dim`` wrapped for ``input`` (a 0-d tensor has dim 0 or -1), checked non-empty."""
    dim = wrap_dim(dim, input.ndim, name)
    if input.ndim and input.shape[dim] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")
    return dim


def _select(name, input, dim, keepdim, position):
    """(values, indices) of the element at sorted ``position`` (an int64 tensor, keepdim
    shape) along ``dim``."""
    if input.ndim == 0:
        return F.clone(input), F.zeros((), dtype=dtypes.int64, device=input.device)
    indices = F.gather(F.argsort(input, dim), dim, position)
    values = F.gather(input, dim, indices)
    if not keepdim:
        values, indices = F.squeeze(values, dim), F.squeeze(indices, dim)
    return values, indices


def _median_position(input, dim, ignore_nan):
    """The sorted position of the lower median along ``dim`` (keepdim): of the non-NaN
    elements with ``ignore_nan``; else of the first NaN where there is one."""
    n = input.shape[dim]
    if not input.dtype.is_floating_point:
        shape = tuple(1 if d == dim else s for d, s in enumerate(input.shape))
        return F.full(shape, (n - 1) // 2, dtype=dtypes.int64, device=input.device)
    nans = F.sum(F.isnan(input), dim, keepdim=True)
    valid = F.add(F.neg(nans), n)
    if ignore_nan:
        return F.clamp(F.div(F.sub(valid, 1), 2, rounding_mode="floor"), min=0)
    return F.where(F.gt(nans, 0), valid, (n - 1) // 2)


def _median(name, ignore_nan, input, dim, keepdim):
    if input.dtype is dtypes.bool:
        raise TypeError(f"{name}: expected a numeric input, got bool")
    if dim is None:
        return apply(MEDIAN, (input,), {"ignore_nan": ignore_nan})
    dim = _reduced(name, input, dim)
    values, indices = _select(name, input, dim, keepdim,
                              _median_position(input, dim, ignore_nan) if input.ndim else None)
    return (_NANMEDIAN if ignore_nan else _MEDIAN)(values, indices)


@public(method=True)
def median(input, dim=None, keepdim=False):
    """median(input) -> Tensor | median(input, dim, keepdim=False) -> (values, indices)

    The lower median: of n values, the ((n - 1) // 2)-th smallest (no averaging). NaN
    when any is NaN (its index: the first NaN). Without ``dim``, over all elements (an
    empty input gives NaN) and the gradient is shared evenly among the elements equal to
    the median; along ``dim`` it goes to the element at the returned index.

    >>> minflow.median(minflow.tensor([4.0, 1.0, 3.0, 2.0]))
    tensor(2.)
    >>> minflow.tensor([[4, 1, 3], [0, 9, 5]]).median(1).indices.tolist()
    [2, 2]
    """
    return _median("median", False, input, dim, keepdim)


@public(method=True)
def nanmedian(input, dim=None, keepdim=False):
    """nanmedian(input) | nanmedian(input, dim, keepdim=False): :func:`median` of the
    non-NaN values (NaN only where all are NaN).

    >>> minflow.nanmedian(minflow.tensor([1.0, float("nan"), 3.0, 2.0]))
    tensor(2.)
    """
    return _median("nanmedian", True, input, dim, keepdim)


@public(method=True)
def kthvalue(input, k, dim=-1, keepdim=False):
    """kthvalue(input, k, dim=-1, keepdim=False) -> (values, indices)

    The k-th smallest element (k from 1) along ``dim`` and its index; NaN counts as the
    largest value, equal values keep their order.

    >>> minflow.tensor([3.0, 1.0, 2.0]).kthvalue(2)
    minflow.return_types.kthvalue(
    values=tensor(2.),
    indices=tensor(2))
    """
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"kthvalue: expected k to be an int, got {type(k).__name__}")
    dim = wrap_dim(dim, input.ndim, "kthvalue")
    size = input.shape[dim] if input.ndim else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue: kthvalue(): selected number k out of range for "
                           f"dimension {dim}: expected 1 <= k <= {size}, got k={k}")
    if input.dtype is dtypes.bool:
        raise TypeError("kthvalue: expected a numeric input, got bool")
    if input.ndim == 0:
        return _KTHVALUE(*_select("kthvalue", input, dim, keepdim, None))
    shape = tuple(1 if d == dim else s for d, s in enumerate(input.shape))
    position = F.full(shape, k - 1, dtype=dtypes.int64, device=input.device)
    return _KTHVALUE(*_select("kthvalue", input, dim, keepdim, position))


@public(method=True)
def mode(input, dim=-1, keepdim=False):
    """mode(input, dim=-1, keepdim=False) -> (values, indices)

    The most frequent value along ``dim`` (the smallest of those tied) and the index of
    its last occurrence. NaNs never count as equal to each other (torch's result for rows
    with NaN depends on its sort order and is not reproduced).

    >>> minflow.tensor([2, 1, 2, 1, 3]).mode()
    minflow.return_types.mode(
    values=tensor(1),
    indices=tensor(3))
    """
    dim = wrap_dim(dim, input.ndim, "mode")
    if input.ndim == 0:
        return _MODE(F.clone(input), F.zeros((), dtype=dtypes.int64, device=input.device))
    indices = apply(MODE, (input,), {"dim": dim})
    values = F.gather(input, dim, indices)
    if not keepdim:
        values, indices = F.squeeze(values, dim), F.squeeze(indices, dim)
    return _MODE(values, indices)


# ---- quantile ---------------------------------------------------------------------------

INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _check_q(name, input, q):
    """q as a float tensor of input's dtype (0-d or 1-D), checked to lie in [0, 1]."""
    if input.dtype not in (dtypes.float32, dtypes.float64):
        raise RuntimeError(f"{name}: quantile() input tensor must be either float or double "
                           f"dtype, got {input.dtype.name}")
    if input.numel() == 0:
        raise RuntimeError(f"{name}: quantile() input tensor must be non-empty")
    if isinstance(q, Tensor):
        if q.ndim > 1:
            raise RuntimeError(f"{name}: quantile() q must be a scalar or 1D tensor, got a "
                               f"{q.ndim}-D tensor")
        if q.dtype is not input.dtype:
            raise RuntimeError(f"{name}: quantile() q tensor must be same dtype as the input "
                               f"tensor: got {q.dtype.name} and {input.dtype.name}")
        data = q._data      # checked where it has values (not meta, not traced), as torch
        if q.device.type != "meta" and not getattr(data, "is_lazy", False) and \
                data.size and not bool(((data >= 0) & (data <= 1)).all()):
            raise RuntimeError(f"{name}: quantile() q values must be in the range [0, 1], "
                               f"got {q.tolist()}")
        return q        # as torch, differentiable: through the "linear" weights
    if isinstance(q, bool) or not isinstance(q, numbers.Real):
        raise TypeError(f"{name}: expected q to be a float or a Tensor, got "
                        f"{type(q).__name__}")
    if not 0 <= q <= 1:
        raise RuntimeError(f"{name}: quantile() q must be in the range [0, 1] but got {q}")
    return F.tensor(float(q), dtype=input.dtype, device=input.device)


def _ranks(name, sorted_values, q, ignore_nan):
    """The fractional sorted positions of q along the last dim, shape (len(q),) + batch
    + (1,), as torch computes them (NaN rows rank last unless ignore_nan)."""
    n = sorted_values.shape[-1]
    q = F.reshape(q, (-1,) + (1,) * sorted_values.ndim)
    if ignore_nan:
        valid = F.sum(F.logical_not(F.isnan(sorted_values)), -1, keepdim=True)
        return F.clamp(F.mul(q, F.cast(F.sub(valid, 1), q.dtype)), min=0)
    ranks = F.mul(q, float(n - 1))
    has_nan = F.isnan(F.narrow(sorted_values, -1, n - 1, 1))
    return F.where(has_nan, float(n - 1), ranks)


def _quantile(name, ignore_nan, input, q, dim, keepdim, interpolation):
    if interpolation not in INTERPOLATIONS:
        raise RuntimeError(f"{name}: quantile() interpolation must be one of linear, lower, "
                           f"higher, midpoint or nearest, but got {interpolation}")
    q_tensor = _check_q(name, input, q)
    if dim is None:
        flat, out_shape = F.reshape(input, (-1,)), (1,) * input.ndim if keepdim else ()
    else:
        dim = wrap_dim(dim, input.ndim, name)
        flat = F.movedim(input, dim, -1) if input.ndim else F.reshape(input, (1,))
        out_shape = tuple(1 if d == dim else s for d, s in enumerate(input.shape)
                          if keepdim or d != dim)
    sorted_values = F.sort(flat, -1).values
    ranks = _ranks(name, sorted_values, q_tensor, ignore_nan)
    if interpolation in ("lower", "higher", "nearest"):
        ranks = {"lower": F.floor, "higher": F.ceil, "nearest": F.round}[interpolation](ranks)
    batch = tuple(ranks.shape[:1]) + tuple(sorted_values.shape[:-1]) + (1,)
    below = F.cast(F.floor(ranks), dtypes.int64)
    expanded = F.expand(F.unsqueeze(sorted_values, 0), batch[:-1] + (sorted_values.shape[-1],))
    values = F.gather(expanded, -1, F.expand(below, batch))
    if interpolation in ("linear", "midpoint"):
        above = F.expand(F.cast(F.ceil(ranks), dtypes.int64), batch)
        weights = 0.5 if interpolation == "midpoint" else F.sub(ranks, F.floor(ranks))
        values = F.lerp(values, F.gather(expanded, -1, above), F.expand(
            weights if isinstance(weights, Tensor) else F.full_like(ranks, weights), batch))
    shape = tuple(ranks.shape[:1]) + out_shape if q_tensor.ndim else out_shape
    return F.reshape(values, shape)


@public(method=True)
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """quantile(input, q, dim=None, keepdim=False, *, interpolation="linear") -> Tensor

    The q-th quantiles (q a float or a 1-D tensor in [0, 1], input's dtype) of ``input``
    along ``dim`` (all elements when None). With sorted values v_0..v_{n-1}, the rank is
    r = q (n - 1) and the result v_floor(r) + (r - floor(r)) (v_ceil(r) - v_floor(r))
    ("linear"), or v_floor(r), v_ceil(r), v_round(r) (half to even), or the mean of the
    two ("lower", "higher", "nearest", "midpoint"). A 1-D q adds a first dim. NaN where a
    reduced row has a NaN. float32 and float64 only.

    >>> x = minflow.tensor([[0.0, 1.0, 2.0, 3.0], [4.0, 6.0, 8.0, 10.0]])
    >>> x.quantile(0.5, dim=1).tolist()
    [1.5, 7.0]
    >>> minflow.quantile(x, minflow.tensor([0.25, 1.0]), interpolation="lower").tolist()
    [1.0, 10.0]
    """
    return _quantile("quantile", False, input, q, dim, keepdim, interpolation)


@public(method=True)
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear") -> Tensor

    :func:`quantile` of the non-NaN values (NaN only where a row is all NaN).

    >>> minflow.tensor([1.0, float("nan"), 3.0]).nanquantile(0.5)
    tensor(2.)
    """
    return _quantile("nanquantile", True, input, q, dim, keepdim, interpolation)


# ---- histc ----------------------------------------------------------------------------

def _histc_check(input, bins, min, max):
    if max < min:
        raise RuntimeError(f"torch.histc: max must be larger than min, got min={min}, "
                           f"max={max}")


HISTC = define_op("histc", ["input"], attrs=[Attr("bins", "int", 100, min=1),
                                             Attr("min", "float", 0.0),
                                             Attr("max", "float", 0.0)],
                  infer=lambda input, bins, min, max: ((bins,), input.dtype),
                  check=_histc_check, traits=OPAQUE + ("no_grad",),
                  doc="Counts of the elements in ``bins`` equal-width bins over [min, max] "
                      "(the data's range where min == max).")


@public(method=True)
def histc(input, bins=100, min=0, max=0):
    """histc(input, bins=100, min=0, max=0) -> Tensor of shape (bins,), input's dtype

    The histogram of ``input`` in ``bins`` equal bins from ``min`` to ``max`` (the data's
    smallest and largest values when min == max); elements outside are ignored, ``max``
    falls in the last bin. Floating inputs only; not differentiable.

    >>> minflow.histc(minflow.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3)
    tensor([0., 2., 1., 0.])
    """
    return apply(HISTC, (input,), {"bins": bins, "min": min, "max": max})

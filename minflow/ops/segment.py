"""segment_reduce, as torch.segment_reduce: reductions over consecutive segments of one dim.

A composite: each element's segment is found by searchsorted on the segment ends, and one
scatter_reduce per call reduces into the segments, so gradients (ties of max / min split
evenly, prod with zeros) are scatter_reduce's own.
"""
from ..core import dtype as dtypes
from ..core.functional import public
from ..core.namespace import F
from ..core.tensor import Tensor, wrap_dim

__all__ = ["segment_reduce"]

# reduce -> (scatter_reduce's name, the value of an empty segment without ``initial``)
_REDUCTIONS = {"sum": ("sum", 0.0), "prod": ("prod", 1.0), "max": ("amax", float("-inf")),
               "min": ("amin", float("inf")), "mean": ("sum", float("nan"))}


def _has_values(t):
    return not getattr(t._data, "is_lazy", False)


def _bounds(lengths, offsets, axis, size):
    """(starts, ends) of the segments, shaped like lengths: data's dims before ``axis``, then
    one entry per segment."""
    given = lengths if lengths is not None else offsets
    name = "lengths" if lengths is not None else "offsets"
    if not isinstance(given, Tensor) or given.dtype not in (dtypes.int32, dtypes.int64):
        got = given.dtype.name if isinstance(given, Tensor) else type(given).__name__
        raise RuntimeError(f"segment_reduce(): expected {name} to be an int32 or int64 "
                           f"tensor, got {got}")
    if given.ndim != axis + 1:
        raise RuntimeError(f"segment_reduce(): expected {name} to have {axis + 1} dims "
                           f"(data's dims before axis {axis}, then the segments), got "
                           f"{given.ndim}")
    given = F.cast(given, dtypes.int64)
    if lengths is not None:
        ends = F.cumsum(given, -1)
        return F.sub(ends, given), ends
    return given[..., :-1], given[..., 1:]


def _check_lengths(starts, ends, size, unsafe, by_lengths):
    """torch's checks (unless ``unsafe``): no negative length, and lengths (not offsets)
    covering the axis."""
    lengths = F.sub(ends, starts)
    if not _has_values(lengths) or unsafe:
        return
    if bool(F.any(F.lt(lengths, 0))):
        raise RuntimeError("segment_reduce(): lengths contains negative value!")
    if by_lengths and lengths.numel() and bool(F.any(F.ne(F.sum(lengths, -1), size))):
        raise RuntimeError(f"segment_reduce(): Expected all rows of lengths along axis to sum "
                           f"to data.size(lengths.dim()-1) ({size}) when !unsafe.")


@public
def segment_reduce(data, reduce, *, lengths=None, indices=None, offsets=None, axis=0,
                   unsafe=False, initial=None):
    """segment_reduce(data, reduce, *, lengths=None, indices=None, offsets=None, axis=0,
    unsafe=False, initial=None) -> Tensor

    Reduce ("sum", "mean", "max", "min" or "prod") each segment of consecutive elements
    along ``axis``: segments of ``lengths`` (data's dims before axis, then one length per
    segment), or from ``offsets[i]`` to ``offsets[i + 1]``. ``initial`` joins every
    segment (mean: (initial + sum) / length); an empty segment without it is 0, 1, -inf,
    inf or nan. ``unsafe`` skips the checks of the lengths. Floating data only.

    >>> data = minflow.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    >>> minflow.segment_reduce(data, "max", lengths=minflow.tensor([2, 0, 3, 1])).tolist()
    [2.0, -inf, 5.0, 6.0]
    """
    if not isinstance(data, Tensor) or not data.dtype.is_floating_point:
        got = data.dtype.name if isinstance(data, Tensor) else type(data).__name__
        raise NotImplementedError(f"segment_reduce(): expected floating point data, got {got}")
    if reduce not in _REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    axis = wrap_dim(axis, data.ndim, "segment_reduce")
    size = data.shape[axis]
    starts, ends = _bounds(lengths, offsets, axis, size)
    _check_lengths(starts, ends, size, unsafe, lengths is not None)
    segment, count = _segments(starts, ends, size, data.device)
    how, empty = _REDUCTIONS[reduce]
    fill = empty if initial is None or reduce == "mean" else float(initial)
    shape = tuple(data.shape)
    segments = starts.shape[-1]
    index = F.reshape(segment, shape[:axis + 1] + (1,) * (data.ndim - axis - 1))
    out_shape = shape[:axis] + (segments + 1,) + shape[axis + 1:]
    out = F.full(out_shape, 0.0 if reduce == "mean" else fill, dtype=data.dtype,
                 device=data.device)
    out = F.scatter_reduce(out, axis, F.expand(index, *shape), data, how,
                           include_self=initial is not None and reduce != "mean")
    out = F.narrow(out, axis, 0, segments)     # the last one gathered what no segment holds
    if reduce == "mean":
        out = _mean(out, count, axis, initial)
    return out


def _segments(starts, ends, size, device):
    """Each position's segment along the axis (one past the last: in none) and each
    segment's element count (int64, shaped like starts)."""
    positions = F.arange(size, device=device)
    positions = F.expand(positions, *(tuple(ends.shape[:-1]) + (size,))).contiguous()
    segment = F.searchsorted(ends.contiguous(), positions, right=True)
    segments = ends.shape[-1]
    start = F.gather(F.cat([starts, F.full_like(starts[..., :1], size)], -1), -1, segment)
    segment = F.where(F.ge(positions, start), segment, segments)
    count = F.scatter_add(F.zeros(tuple(ends.shape[:-1]) + (segments + 1,), dtype=dtypes.int64,
                                  device=device), -1, segment, F.ones_like(segment))
    return segment, count[..., :segments]


def _mean(total, count, axis, initial):
    """(initial + sum) / count, and ``initial`` (nan without) for an empty segment."""
    count = F.reshape(count, tuple(count.shape) + (1,) * (total.ndim - axis - 1))
    count = F.cast(count, total.dtype)
    nonempty = F.gt(count, 0)
    if initial is not None:
        total = F.add(total, float(initial))
    mean = F.div(total, F.where(nonempty, count, 1.0))
    return F.where(nonempty, mean, float("nan") if initial is None else float(initial))

"""Reductions written with reduce.py's ops (no kernels or grad code of their own):
nansum, nanmean, count_nonzero, aminmax."""
import collections

from ..core.functional import public
from ..core.namespace import F
from .reduce import _checked_dims


def _without_nan(input):
    return F.where(F.isnan(input), 0, input) if input.dtype.is_floating_point else input


@public(method=True)
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """nansum(input, dim=None, keepdim=False, *, dtype=None) -> Tensor

    :func:`sum` with NaN counted as zero (the gradient there is 0).

    >>> minflow.nansum(minflow.tensor([[1.0, float("nan")], [2.0, 3.0]]), dim=1).tolist()
    [1.0, 5.0]
    """
    _checked_dims("nansum", dim, input.ndim)
    if input.dtype.is_complex:
        raise RuntimeError("nansum does not support complex inputs (as torch's)")
    return F.sum(_without_nan(input), dim, keepdim, dtype=dtype)


@public(method=True)
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """nanmean(input, dim=None, keepdim=False, *, dtype=None) -> Tensor

    The mean of the elements that are not NaN (NaN where all are); floating inputs only,
    as torch.

    >>> minflow.nanmean(minflow.tensor([[1.0, float("nan")], [2.0, 3.0]]), dim=1).tolist()
    [1.0, 2.5]
    """
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"nanmean(): expected input to have floating point dtype but got "
                           f"{input.dtype.name}")
    count = F.sum(F.logical_not(F.isnan(input)), dim, keepdim)
    return F.div(nansum(input, dim, keepdim, dtype=dtype), count)


@public(method=True)
def count_nonzero(input, dim=None):
    """count_nonzero(input, dim=None) -> Tensor

    The number of nonzero elements (NaN counts) over ``dim`` (an int, a tuple, or None
    for all), as int64.

    >>> minflow.count_nonzero(minflow.tensor([[0, 1, 2], [3, 0, 0]]), dim=0).tolist()
    [1, 1, 1]
    """
    _checked_dims("count_nonzero", dim, input.ndim)
    return F.sum(F.ne(input, 0), dim)


class _AminmaxResult(collections.namedtuple("aminmax", ["min", "max"])):
    """(min, max), printed as torch's ``return_types.aminmax``."""

    __slots__ = ()

    def __repr__(self):
        return f"minflow.return_types.aminmax(\nmin={self.min!r},\nmax={self.max!r})"


@public(method=True)
def aminmax(input, *, dim=None, keepdim=False):
    """aminmax(input, *, dim=None, keepdim=False) -> (min, max)

    :func:`amin` and :func:`amax` at once, over one ``dim`` or over all elements; ties
    share the gradient evenly.

    >>> minflow.aminmax(minflow.tensor([[1, 5], [3, 0]]), dim=1)
    minflow.return_types.aminmax(
    min=tensor([1, 0]),
    max=tensor([5, 3]))
    """
    if dim is not None and (not isinstance(dim, int) or isinstance(dim, bool)):
        raise TypeError(f"aminmax: expected dim to be an int or None, got {dim!r}")
    dims = () if dim is None else _checked_dims("aminmax", dim, input.ndim)
    if dim is None and 0 in input.shape:
        raise RuntimeError(f"aminmax(): cannot compute aminmax over an empty dimension as "
                           f"the operation has no identity; got shape {list(input.shape)}")
    if dim is not None and 0 in [input.shape[d] for d in dims]:
        raise IndexError(f"aminmax: Expected reduction dim {dim} to have non-zero size; got "
                         f"shape {list(input.shape)}")
    return _AminmaxResult(F.amin(input, dims, keepdim), F.amax(input, dims, keepdim))


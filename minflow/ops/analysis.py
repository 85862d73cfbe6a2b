"""Data analysis functions with PyTorch's semantics: argwhere, cov, corrcoef, histogram,
histogramdd.

All are composites of existing ops: cov and corrcoef are differentiable through them,
argwhere and histogram are index computations with no gradient.
"""
import collections
import math
import numbers
import warnings

from ..core import dtype as dtypes
from ..core.functional import public
from ..core.grad_mode import no_grad
from ..core.namespace import F
from ..core.tensor import Tensor

__all__ = ["argwhere", "cov", "corrcoef", "histogram", "histogramdd"]


@public(method=True)
def argwhere(input):
    """argwhere(input) -> Tensor

    The indices of the nonzero elements, one row per element (int64, shape (n, ndim)),
    as ``nonzero(input)``.

    >>> minflow.argwhere(minflow.tensor([[0, 1], [2, 0]])).tolist()
    [[0, 1], [1, 0]]
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"argwhere: expected input to be a Tensor, got {type(input).__name__}")
    return F.nonzero(input)


def _has_values(t):
    """False for a graph-mode tensor, whose values are not known while the graph is built
    (value checks are then left out)."""
    return not getattr(t._data, "is_lazy", False)


def _check_weights(name, weights, n, integral):
    if weights is None:
        return None
    if not isinstance(weights, Tensor):
        raise TypeError(f"cov: expected {name} to be a Tensor, got {type(weights).__name__}")
    if weights.ndim > 1:
        raise RuntimeError(f"cov: expected {name} to have one or fewer dimensions, got "
                           f"{weights.ndim}-D")
    if weights.numel() != n:
        raise RuntimeError(f"cov: expected {name} to have the same numel as there are "
                           f"observations in the input ({n}), got {weights.numel()}")
    if integral != (weights.dtype in dtypes.INTS):
        kind = "an integral" if integral else "a floating point"
        raise RuntimeError(f"cov: expected {name} to have {kind} dtype, got "
                           f"{weights.dtype.name}")
    negative = F.any(F.lt(weights, 0))
    if _has_values(negative) and bool(negative):
        raise RuntimeError(f"cov: {name} cannot be negative")
    return weights


@public(method=True)
def cov(input, *, correction=1, fweights=None, aweights=None):
    """cov(input, *, correction=1, fweights=None, aweights=None) -> Tensor

    The covariance matrix of the variables in the rows of ``input`` (a 1-D input is one
    variable), observations in the columns:
    C = sum_i w_i (x_i - mean)(x_i - mean)^T / (sum_i w_i - correction * ...), with
    ``w = fweights * aweights`` (integer frequencies, float importance weights).
    Integer inputs give the default float dtype.

    >>> minflow.cov(minflow.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])).tolist()
    [[1.0, -1.0], [-1.0, 1.0]]
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"cov: expected input to be a Tensor, got {type(input).__name__}")
    if input.ndim > 2:
        raise RuntimeError(f"cov: expected input to have two or fewer dimensions but got "
                           f"an input with {input.ndim} dimensions")
    if not isinstance(correction, numbers.Integral) or isinstance(correction, bool):
        raise TypeError(f"cov: expected correction to be an int, got "
                        f"{type(correction).__name__}")
    if input.dtype.is_complex:      # torch's conjugating complex cov is not written here
        raise dtypes.DTypeError(f"cov: expected a real input, got {input.dtype.name} "
                                f"(complex covariance is not implemented)")
    x = input if input.ndim == 2 else F.reshape(input, (1, -1))
    if not x.dtype.is_floating_point:
        x = F.cast(x, dtypes.get_default_dtype())
    n = x.shape[1]
    fweights = _check_weights("fweights", fweights, n, True)
    aweights = _check_weights("aweights", aweights, n, False)
    w = fweights if aweights is None else (aweights if fweights is None
                                           else F.mul(fweights, aweights))
    if w is None:
        w_sum = n
        mean = F.mean(x, 1, keepdim=True)
        norm = n - correction
    else:
        w = F.cast(F.reshape(w, (-1,)), x.dtype)
        w_sum = F.sum(w)
        mean = F.div(F.sum(F.mul(x, w), 1, keepdim=True), w_sum)
        if correction == 0:
            norm = w_sum
        elif aweights is None:
            norm = F.sub(w_sum, correction)
        else:
            a = F.cast(F.reshape(aweights, (-1,)), x.dtype)
            norm = F.sub(w_sum, F.div(F.mul(F.sum(F.mul(w, a)), correction), w_sum))
    if not isinstance(norm, Tensor) or _has_values(norm):
        if float(norm) <= 0:
            warnings.warn("cov: degrees of freedom is <= 0. Correction should be strictly "
                          "less than the number of observations.", UserWarning, stacklevel=2)
    norm = F.clamp_min(norm, 0) if isinstance(norm, Tensor) else max(norm, 0)
    centered = F.sub(x, mean)
    weighted = centered if w is None else F.mul(centered, w)
    c = F.div(F.matmul(weighted, F.transpose(centered, 0, 1)), norm)
    # one variable (a 1-D input or a single row): a 0-d result, as torch
    return F.reshape(c, ()) if input.ndim < 2 or input.shape[0] == 1 else c


@public(method=True)
def corrcoef(input):
    """corrcoef(input) -> Tensor

    Pearson correlation coefficients of the variables in the rows of ``input``:
    R_ij = C_ij / sqrt(C_ii C_jj) with C = cov(input), clipped to [-1, 1].

    >>> minflow.corrcoef(minflow.tensor([[1.0, 2.0, 4.0], [2.0, 4.0, 8.0]])).tolist()
    [[1.0, 1.0], [1.0, 1.0]]
    """
    c = cov(input)
    if c.ndim == 0:
        return F.div(c, c)
    std = F.sqrt(F.diagonal(c))
    c = F.div(F.div(c, F.reshape(std, (-1, 1))), F.reshape(std, (1, -1)))
    return F.clamp(c, -1, 1)


class _Histogram(collections.namedtuple("histogram", ["hist", "bin_edges"])):
    __slots__ = ()

    def __repr__(self):
        return (f"minflow.return_types.histogram(\nhist={self.hist!r},\n"
                f"bin_edges={self.bin_edges!r})")


def _bin_edges(input, bins, range):
    """The bin edges: ``bins`` itself, or ``bins`` equal bins over ``range`` (default: the
    data's min and max, widened by 0.5 each way when they are equal, as torch)."""
    if isinstance(bins, Tensor):
        if bins.ndim != 1 or bins.numel() < 2:
            raise RuntimeError(f"histogram: expected bins to be a 1-D tensor of at least 2 "
                               f"edges, got shape {list(bins.shape)}")
        if bins.dtype is not input.dtype or bins.device is not input.device:
            raise RuntimeError(f"histogram: expected bins of input's dtype and device "
                               f"({input.dtype.name}, {input.device}), got "
                               f"{bins.dtype.name}, {bins.device}")
        return bins
    if bins <= 0:
        raise RuntimeError(f"histogram: bins must be > 0, but got {bins}")
    if range is not None:
        low, high = (float(v) for v in range)
        if low > high:
            raise RuntimeError(f"histogram: min should not exceed max, but got min {low:g} "
                               f"max {high:g}")
    elif input.numel():
        low, high = float(F.amin(input)), float(F.amax(input))
    else:
        low, high = 0.0, 1.0                # no data: [0, 1], as torch (and numpy)
    if low == high:
        low, high = low - 0.5, high + 0.5
    return F.linspace(low, high, bins + 1, dtype=input.dtype, device=input.device)


@public(method=True)
def histogram(input, bins=100, *, range=None, weight=None, density=False):  # noqa: A002
    """histogram(input, bins, *, range=None, weight=None, density=False) -> (hist, bin_edges)

    The histogram of all elements of ``input``: ``bins`` equal bins over ``range`` (default
    the data's min and max) or the edges in the tensor ``bins``. Bins are [left, right),
    the last one closed; elements outside are ignored. Each element counts ``weight`` (1
    without), and ``density`` divides by the total and the bin widths. Floating inputs
    only; not differentiable.

    >>> hist, edges = minflow.histogram(minflow.tensor([1.0, 2.0, 1.0]), bins=4,
    ...                                 range=(0.0, 3.0), weight=minflow.tensor([1.0, 2.0, 4.0]))
    >>> hist.tolist(), edges.tolist()
    ([0.0, 5.0, 2.0, 0.0], [0.0, 0.75, 1.5, 2.25, 3.0])
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"histogram: expected input to be a Tensor, got {type(input).__name__}")
    if not isinstance(bins, (Tensor, numbers.Integral)) or isinstance(bins, bool):
        raise TypeError(f"histogram: expected bins to be an int or a Tensor, got "
                        f"{type(bins).__name__}")
    if not input.dtype.is_floating_point:
        raise dtypes.DTypeError(f"histogram: expected input with dtype in [float16, float32, "
                                f"float64], got {input.dtype.name}")
    if weight is not None and (not isinstance(weight, Tensor) or
                               tuple(weight.shape) != tuple(input.shape)):
        got = list(weight.shape) if isinstance(weight, Tensor) else type(weight).__name__
        raise RuntimeError(f"histogram: expected weight to be a tensor of input's shape "
                           f"{list(input.shape)}, got {got}")
    with no_grad():
        edges = _bin_edges(input, bins, range)
        x = F.reshape(input, (-1,))
        nbins = edges.shape[0] - 1
        index = F.sub(F.searchsorted(edges, x, right=True), 1)
        index = F.where(F.eq(x, edges[-1]), nbins - 1, index)    # the last bin is closed
        inside = F.logical_and(F.ge(index, 0), F.lt(index, nbins))
        w = F.ones_like(x) if weight is None else F.cast(F.reshape(weight, (-1,)), x.dtype)
        w = F.where(inside, w, 0)
        hist = F.scatter_add(F.zeros(nbins, dtype=x.dtype, device=x.device), 0,
                             F.clamp(index, 0, nbins - 1), w)
        if density:
            hist = F.div(hist, F.mul(F.sum(hist), F.diff(edges)))
    return _Histogram(hist, edges)


class _HistogramDD(collections.namedtuple("histogramdd", ["hist", "bin_edges"])):
    __slots__ = ()

    def __repr__(self):
        return (f"minflow.return_types.histogramdd(\nhist={self.hist!r},\n"
                f"bin_edges={self.bin_edges!r})")


def _dd_bins(bins, dims):
    """``bins`` as one int or edges tensor per dimension."""
    if isinstance(bins, numbers.Integral) and not isinstance(bins, bool):
        return [bins] * dims
    if not isinstance(bins, (list, tuple)) or not bins or \
            len({isinstance(b, Tensor) for b in bins}) != 1:
        raise TypeError(f"histogramdd: expected bins to be an int, a sequence of ints or a "
                        f"sequence of Tensors, got {bins!r:.60}")
    if len(bins) != dims:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost "
                           "dimension of the input.")
    return list(bins)


def _dd_edges(column, bins, low_high, dim):
    """The edges of dimension ``dim``: the tensor ``bins``, or ``bins`` equal bins over
    ``low_high`` (default the column's min and max, widened by 0.5 when equal)."""
    if isinstance(bins, Tensor):
        if bins.ndim != 1:
            raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, but "
                               f"got {bins.ndim} dimensions in the bins tensor for dimension "
                               f"{dim}")
        return F.cast(bins, column.dtype)
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for "
                           f"dimension {dim}")
    if low_high is not None:
        low, high = low_high
    elif column.numel():
        low, high = float(F.amin(column)), float(F.amax(column))
    else:
        low, high = 0.0, 1.0
    if low > high:
        raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {low:g} "
                           f"max {high:g} for dimension {dim}")
    if low == high:
        low, high = low - 0.5, high + 0.5
    return F.linspace(low, high, bins + 1, dtype=column.dtype, device=column.device)


def _bin_index(column, edges):
    """Each value's bin among ``edges`` ([left, right), the last one closed); -1 outside.
    As torch's kernel: values outside [edges[0], edges[-1]] (and NaN) are out, the others
    binary-searched, the last edge in the last bin (so unsorted edges bin as torch's)."""
    nbins = edges.shape[0] - 1
    index = F.sub(F.searchsorted(edges, column, right=True), 1)
    index = F.where(F.eq(index, nbins), nbins - 1, index)
    inside = F.logical_and(F.ge(column, edges[0]), F.le(column, edges[-1]))
    inside = F.logical_and(inside, F.logical_and(F.ge(index, 0), F.lt(index, nbins)))
    return F.where(inside, index, -1)


@public
def histogramdd(input, bins, *, range=None, weight=None, density=False):  # noqa: A002
    """histogramdd(input, bins, *, range=None, weight=None, density=False)
    -> (hist, bin_edges)

    The D-dimensional histogram of the points in the rows of ``input`` (its last dim is
    D): ``bins`` an int (each dim), D ints, or D tensors of edges; ``range`` D (min, max)
    pairs flattened (default each column's min and max). Bins are [left, right), the last
    one in each dim closed; points outside are ignored. ``weight`` (input's shape without
    the last dim) weighs each point; ``density`` divides by the total and the bin volumes.
    ``bin_edges`` is a tuple of D tensors. Not differentiable.

    >>> points = minflow.tensor([[0.0, 0.0], [1.0, 1.0], [2.0, 0.5], [1.0, 2.0]])
    >>> hist, edges = minflow.histogramdd(points, bins=[2, 2])
    >>> hist.tolist(), [e.tolist() for e in edges]
    ([[1.0, 0.0], [1.0, 2.0]], [[0.0, 1.0, 2.0], [0.0, 1.0, 2.0]])
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"histogramdd: expected input to be a Tensor, got "
                        f"{type(input).__name__}")
    if not input.dtype.is_floating_point:
        raise dtypes.DTypeError(f"histogramdd: expected input with dtype in [float16, "
                                f"float32, float64], got {input.dtype.name}")
    if input.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    dims = input.shape[-1]
    if weight is not None and (not isinstance(weight, Tensor) or
                               tuple(weight.shape) != tuple(input.shape[:-1])):
        got = list(weight.shape) if isinstance(weight, Tensor) else type(weight).__name__
        raise RuntimeError(f"torch.histogramdd: if weight tensor is provided it should have "
                           f"the same shape as the input tensor excluding its innermost "
                           f"dimension, but got input with shape {list(input.shape)} and "
                           f"weight with shape {got}")
    if range is not None and len(range) != 2 * dims:
        raise RuntimeError(f"torch.histogramdd: for a {dims}-dimensional histogram range "
                           f"should have {2 * dims} elements, but got {len(range)}")
    with no_grad():
        points = F.reshape(input, (-1, dims))
        edges = [_dd_edges(points[:, d], b, None if range is None else
                           (float(range[2 * d]), float(range[2 * d + 1])), d)
                 for d, b in enumerate(_dd_bins(bins, dims))]
        shape = tuple(e.shape[0] - 1 for e in edges)
        flat = F.zeros(points.shape[0], dtype=dtypes.int64, device=input.device)
        inside = F.ones(points.shape[0], dtype=dtypes.bool, device=input.device)
        for d, e in enumerate(edges):
            index = _bin_index(points[:, d], e)
            inside = F.logical_and(inside, F.ge(index, 0))
            flat = F.add(F.mul(flat, shape[d]), index)
        w = F.ones_like(points[:, 0]) if weight is None else \
            F.cast(F.reshape(weight, (-1,)), input.dtype)
        hist = F.scatter_add(F.zeros(math.prod(shape), dtype=input.dtype, device=input.device),
                             0, F.where(inside, flat, 0), F.where(inside, w, 0))
        hist = F.reshape(hist, shape)
        if density:
            volume = F.ones((), dtype=input.dtype, device=input.device)
            for e in edges:
                volume = F.unsqueeze(volume, -1) * F.diff(e)
            hist = F.div(hist, F.mul(F.sum(hist), volume))
    return _HistogramDD(hist, tuple(edges))

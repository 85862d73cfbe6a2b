"""Tensors built from others, with PyTorch's signatures: ravel, rot90, take, diagflat,
diag_embed, block_diag, cartesian_prod, combinations, vander, unravel_index, and the
creation functions tril_indices, triu_indices, logspace and the deprecated range.

All are composites of existing ops (reshape, flip, transpose, gather, diagonal's
backward, pad, cat, cumprod, pow...), so they need no kernels or grad code of their own;
index patterns that depend only on shapes are computed in Python.
"""
import itertools
import math
import numbers
import warnings

import numpy as np

from ..core import dtype as dtypes
from ..core.dispatch import apply
from ..core.functional import public
from ..core.inplace import write_out
from ..core.namespace import F
from ..core.tensor import Tensor, wrap_dim
from ..core.tensor_options import tensor_options
from .index_parse import INDEX_DTYPES
from .infer import check_tensor
from .join import pad
from .matrix import DIAGONAL_GRAD

__all__ = ["ravel", "rot90", "take", "diagflat", "diag_embed", "block_diag", "cartesian_prod",
           "combinations", "vander", "unravel_index", "tril_indices", "triu_indices",
           "logspace"]


def _int(fn, name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{fn}: expected {name} to be an int, got {type(value).__name__}")
    return int(value)


def _vector(fn, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}: expected a Tensor, got {type(input).__name__}")
    if input.ndim != 1:
        raise RuntimeError(f"{fn}: Expect a 1D vector, but got shape {list(input.shape)}")
    return input


@public(method=True)
def ravel(input):
    """ravel(input) -> Tensor, ``input`` flattened to 1-D (a view where one exists).

    >>> minflow.tensor([[1, 2], [3, 4]]).ravel().tolist()
    [1, 2, 3, 4]
    """
    return F.reshape(input, (-1,))


@public(method=True)
def rot90(input, k=1, dims=(0, 1)):
    """rot90(input, k=1, dims=(0, 1)) -> Tensor

    ``input`` rotated by 90 degrees ``k`` times in the plane ``dims``, from the first
    dim's direction towards the second's (counter-clockwise for a matrix).

    >>> minflow.tensor([[1, 2], [3, 4]]).rot90().tolist()
    [[2, 4], [1, 3]]
    """
    k = _int("rot90", "k", k) % 4
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"rot90: expected total rotation dims == 2, but got dims = "
                           f"{len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"rot90: expected total dims >= 2, but got total dims = "
                           f"{input.ndim}")
    d0, d1 = (wrap_dim(d, input.ndim, "rot90") for d in dims)
    if d0 == d1:
        raise RuntimeError(f"rot90: expected rotation dims to be different, but got dim0 = "
                           f"{d0} and dim1 = {d1}")
    if k == 1:
        return F.transpose(F.flip(input, [d1]), d0, d1)
    if k == 2:
        return F.flip(input, [d0, d1])
    if k == 3:
        return F.transpose(F.flip(input, [d0]), d0, d1)
    return F.clone(input)


def _checked_indices(fn, index, size, error):
    """Where ``index`` has values (not meta, not traced): every value in [-size, size)."""
    data = index._data
    if index.device.type == "meta" or getattr(data, "is_lazy", False) or not data.size:
        return
    for bad in (int(data.min()), int(data.max())):
        if not -size <= bad < size:
            raise error(f"{fn}: out of range: tried to access index {bad} on a tensor of "
                        f"{size} elements.")


@public(method=True)
def take(input, index):
    """take(input, index) -> Tensor, shaped like ``index``

    The elements of the flattened ``input`` at ``index`` (negative ones count from the
    end); the gradient adds up at repeated indices.

    >>> minflow.tensor([[4, 5], [6, 7]]).take(minflow.tensor([[0, -1]])).tolist()
    [[4, 7]]
    """
    check_tensor("take", "index", index)
    if index.dtype not in INDEX_DTYPES:
        raise RuntimeError(f"take: expected index to be an int64 Tensor, got "
                           f"{getattr(index, 'dtype', type(index).__name__)}")
    n = input.numel()
    _checked_indices("take", index, n, IndexError)
    flat = F.reshape(index, (-1,))
    flat = F.where(F.lt(flat, 0), F.add(flat, n), flat)
    return F.reshape(F.gather(F.reshape(input, (-1,)), 0, flat), tuple(index.shape))


@public(method=True)
def diagflat(input, offset=0):
    """diagflat(input, offset=0) -> Tensor, the square matrix with the flattened ``input``
    on diagonal ``offset``.

    >>> minflow.diagflat(minflow.tensor([[1, 2]])).tolist()
    [[1, 0], [0, 2]]
    """
    return F.diag(F.reshape(input, (-1,)), _int("diagflat", "offset", offset))


@public(method=True)
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """diag_embed(input, offset=0, dim1=-2, dim2=-1) -> Tensor

    A tensor with one more dim whose (dim1, dim2) planes hold input's last dim on diagonal
    ``offset`` and zeros elsewhere (diagonal's inverse).

    >>> minflow.diag_embed(minflow.tensor([[1, 2]])).tolist()
    [[[1, 0], [0, 2]]]
    """
    offset = _int("diag_embed", "offset", offset)
    ndim = input.ndim + 1
    d1, d2 = wrap_dim(dim1, ndim, "diag_embed"), wrap_dim(dim2, ndim, "diag_embed")
    if d1 == d2:
        raise RuntimeError(f"diag_embed: diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = (input.shape[-1] if input.ndim else 1) + abs(offset)
    rest = iter(tuple(input.shape[:-1]))
    size = tuple(n if d in (d1, d2) else next(rest) for d in range(ndim))
    source = input if input.ndim else F.reshape(input, (1,))
    return apply(DIAGONAL_GRAD, (source,), {"input_size": size, "offset": offset,
                                            "dim1": d1, "dim2": d2})


@public
def block_diag(*tensors):
    """block_diag(*tensors) -> Tensor

    The block diagonal matrix of ``tensors`` (each 0-, 1- or 2-D; a 1-D one is a row),
    zeros elsewhere, in their promoted dtype.

    >>> minflow.block_diag(minflow.tensor([[1, 2]]), minflow.tensor(3)).tolist()
    [[1, 2, 0], [0, 0, 3]]
    """
    for k, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"block_diag: expected Tensors, got {type(t).__name__} as input {k}")
        if t.ndim > 2:
            raise RuntimeError(f"block_diag: Input tensors must have 2 or fewer dimensions. "
                               f"Input {k} has {t.ndim} dimensions")
    if not tensors:
        return F.zeros(1, 0)
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = dtypes.promote_types(dtype, t.dtype)
    blocks = [F.cast(F.reshape(t, (1, -1)) if t.ndim < 2 else t, dtype) for t in tensors]
    width = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        rows.append(pad(b, (left, width - left - b.shape[1])))
        left += b.shape[1]
    return F.cat(rows, 0)


@public
def cartesian_prod(*tensors):
    """cartesian_prod(*tensors) -> Tensor, the rows (a, b, ...) of every combination of
    elements of the 1-D ``tensors`` (itertools.product order); one tensor comes back as is.

    >>> minflow.cartesian_prod(minflow.tensor([1, 2]), minflow.tensor([3, 4])).tolist()
    [[1, 3], [1, 4], [2, 3], [2, 4]]
    """
    for t in tensors:
        _vector("cartesian_prod", t)
    if len(tensors) == 1:
        return tensors[0]
    grids = F.meshgrid(*tensors, indexing="ij")
    return F.stack([F.reshape(g, (-1,)) for g in grids], 1)


@public
def combinations(input, r=2, with_replacement=False):
    """combinations(input, r=2, with_replacement=False) -> Tensor of shape (count, r)

    The length-r combinations of the 1-D ``input``'s elements, as itertools.combinations
    (or combinations_with_replacement); r=0 gives an empty 1-D tensor.

    >>> minflow.combinations(minflow.tensor([1, 2, 3])).tolist()
    [[1, 2], [1, 3], [2, 3]]
    """
    _vector("combinations", input)
    r = _int("combinations", "r", r)
    if r < 0:
        raise RuntimeError(f"combinations: Expect a non-negative number, but got {r}")
    if r == 0:
        return F.zeros(0, dtype=input.dtype, device=input.device)
    make = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    index = np.array(list(make(range(input.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    picked = F.index_select(input, 0, F.tensor(index.reshape(-1), device=input.device))
    return F.reshape(picked, (-1, r))


@public
def vander(x, N=None, increasing=False):
    """vander(x, N=None, increasing=False) -> Tensor

    The Vandermonde matrix of the 1-D ``x``: column j is x ** (N - 1 - j) (x ** j with
    ``increasing``), N columns (default len(x)). Integer and bool x give int64.

    >>> minflow.vander(minflow.tensor([1, 2, 3]), 3).tolist()
    [[1, 1, 1], [4, 2, 1], [9, 3, 1]]
    """
    check_tensor("vander", "x", x)
    if x.ndim != 1:
        raise RuntimeError(f"vander: x must be a one-dimensional tensor, got {list(x.shape)}")
    n = x.shape[0] if N is None else _int("vander", "N", N)
    if n < 0:
        raise RuntimeError(f"vander: N must be non-negative, got {n}")
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        x = F.cast(x, dtypes.int64)
    ones = F.ones(x.shape[0], 1, dtype=x.dtype, device=x.device)
    if n <= 1:
        return F.narrow(ones, 1, 0, n)
    powers = F.cumprod(F.expand(F.unsqueeze(x, 1), (x.shape[0], n - 1)), 1)
    out = F.cat([ones, powers], 1)          # torch's formula: ones, then running products
    return out if increasing else F.flip(out, [1])


@public
def unravel_index(indices, shape):
    """unravel_index(indices, shape) -> tuple of int64 Tensors, one per dim of ``shape``

    The coordinates of flat (row-major) ``indices`` in a tensor of ``shape``; indices are
    taken modulo the number of elements, as torch's (so -1 is the last element).

    >>> [c.tolist() for c in minflow.unravel_index(minflow.tensor([4, -1]), (2, 3))]
    [[1, 1], [1, 2]]
    """
    if not isinstance(indices, Tensor) or indices.dtype not in dtypes.INTS:
        raise TypeError(f"unravel_index: expected 'indices' to be integer dtype, but got "
                        f"{getattr(indices, 'dtype', type(indices).__name__)}")
    shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
    if any(_int("unravel_index", "shape", s) < 0 for s in shape):
        raise ValueError(f"unravel_index: 'shape' cannot have negative values, but got "
                         f"{shape}")
    rest, coords = F.cast(indices, dtypes.int64), []
    for size in reversed(shape):
        coords.append(F.remainder(rest, size))
        rest = F.div(rest, size, rounding_mode="floor")
    return tuple(reversed(coords))


def _tri_indices(fn, keep, row, col, offset, dtype, device):
    row, col, offset = (_int(fn, n, v) for n, v in (("row", row), ("col", col),
                                                    ("offset", offset)))
    for name, value in (("row", row), ("col", col)):
        if value < 0:
            raise RuntimeError(f"{fn}: {name} must be non-negative, got {value}")
    if dtype not in (None, dtypes.int32, dtypes.int64):
        raise RuntimeError(f"{fn}: expected dtype int32 or int64, got {dtype}")
    rows, cols = np.nonzero(keep(np.ones((row, col), bool), offset))
    return F.tensor(np.stack([rows, cols]).astype(np.int64).reshape(2, -1),
                    dtype=dtype or dtypes.int64, device=device)


@public
@tensor_options
def tril_indices(row, col, offset=0, *, dtype=None, device=None):
    """tril_indices(row, col, offset=0, *, dtype=int64, device=None) -> Tensor (2, N)

    The (row, column) coordinates of the lower triangle (on and below diagonal
    ``offset``) of a row x col matrix, in row-major order.

    >>> minflow.tril_indices(3, 3).tolist()
    [[0, 1, 1, 2, 2, 2], [0, 0, 1, 0, 1, 2]]
    """
    return _tri_indices("tril_indices", np.tril, row, col, offset, dtype, device)


@public
@tensor_options
def triu_indices(row, col, offset=0, *, dtype=None, device=None):
    """triu_indices(row, col, offset=0, *, dtype=int64, device=None) -> Tensor (2, N)

    The coordinates of the upper triangle (on and above diagonal ``offset``).

    >>> minflow.triu_indices(2, 3, 1).tolist()
    [[0, 0, 1], [1, 2, 2]]
    """
    return _tri_indices("triu_indices", np.triu, row, col, offset, dtype, device)


@public
@tensor_options
def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    """logspace(start, end, steps, base=10.0, *, dtype=None, device=None,
    requires_grad=False) -> Tensor

    ``steps`` values base ** e for e evenly spaced from ``start`` to ``end``. As torch,
    ``start`` and ``end`` are first rounded to ``dtype`` (the default float dtype when None;
    integer dtypes truncate them; not for a single step), then the powers are computed in
    float64 and cast.

    >>> minflow.logspace(0, 2, 3).tolist()
    [1.0, 10.0, 100.0]
    >>> minflow.logspace(0, 1.9, 2, dtype=minflow.int64).tolist()
    [1, 10]
    """
    dtype = dtypes.as_dtype(dtype or dtypes.get_default_dtype())
    steps = _int("logspace", "steps", steps)
    start, end = (v.item() if isinstance(v, Tensor) else v for v in (start, end))
    for name, value in (("start", start), ("end", end)):
        if not isinstance(value, numbers.Number):
            raise TypeError(f"logspace: expected {name} to be a number or a 0-d Tensor, got "
                            f"{type(value).__name__}")
    if steps != 1:      # NOTE: torch's one value is base ** start, start not rounded
        start, end = (float(np.asarray(v).astype(dtype.np)) for v in (start, end))
    exponents = F.linspace(start, end, steps, dtype=dtypes.float64, device=device)
    out = F.cast(F.pow(float(base), exponents), dtype)
    return out.requires_grad_(True) if requires_grad else out


@public(name="range")
@tensor_options(name="range", with_pin_memory=False)
def range_(start, end, step=1, *, dtype=None, device=None, requires_grad=False,
           out=None):
    """range(start=0, end, step=1, *, out=None, dtype=None, device=None,
    requires_grad=False) -> Tensor

    Deprecated, as in torch (it warns): floor((end - start) / step) + 1 values from
    ``start`` to ``end`` inclusive, start + i step computed in float64; the default float
    dtype unless ``dtype`` is given, even for int arguments. Use ``arange`` (end excluded).

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     minflow.range(1, 2, 0.25).tolist()
    [1.0, 1.25, 1.5, 1.75, 2.0]
    """
    warnings.warn("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=4)     # the user, past the public wrapper and tensor_options
    start, end, step = (v.item() if isinstance(v, Tensor) else v for v in (start, end, step))
    if step == 0:
        raise RuntimeError("range: step must be nonzero")
    if (step > 0 and start > end) or (step < 0 and start < end):
        raise RuntimeError(f"range: upper bound and lower bound inconsistent with step sign, "
                           f"got start={start}, end={end}, step={step}")
    length = int(math.floor((end - start) / step)) + 1
    dtype = dtypes.as_dtype(dtype or dtypes.get_default_dtype())
    steps = F.arange(length, dtype=dtypes.float64, device=device)
    result = F.cast(F.add(F.mul(steps, float(step)), float(start)), dtype)
    if out is not None:
        return write_out(result, out, "range")
    return result.requires_grad_(True) if requires_grad else result

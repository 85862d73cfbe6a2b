"""Finite differences and integrals along a dim, with PyTorch's signatures: diff,
trapezoid (trapz) and cumulative_trapezoid, written with narrow, cat, sub, sum and cumsum,
so they need no kernels or grad code of their own (the formulas are torch's, term by term,
so results round as torch's do).
"""
import numbers

from ..core import dtype as dtypes
from ..core.functional import public
from ..core.namespace import F
from ..core.tensor import Tensor, wrap_dim
from .infer import broadcast_shapes

__all__ = ["diff", "trapezoid", "trapz", "cumulative_trapezoid"]


def _edge(fn, name, edge, input, dim):
    """``prepend`` / ``append`` checked against input: a tensor of input's ndim and shape
    apart from ``dim``."""
    if not isinstance(edge, Tensor):
        raise TypeError(f"{fn}: expected {name} to be a Tensor or None, got "
                        f"{type(edge).__name__}")
    if edge.ndim != input.ndim:
        raise RuntimeError(f"{fn}: diff expects prepend or append to be the same dimension as "
                           f"input: input is {input.ndim}-D, {name} is {edge.ndim}-D")
    for d, (a, b) in enumerate(zip(input.shape, edge.shape)):
        if d != dim and a != b:
            raise RuntimeError(f"{fn}: diff expects the shape of tensor to prepend or append "
                               f"to match that of input except along the differencing "
                               f"dimension; input.size({d}) = {a}, but got {name}.size({d}) "
                               f"= {b}")
    return edge


@public(method=True)
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """diff(input, n=1, dim=-1, prepend=None, append=None) -> Tensor

    The n-th forward difference along ``dim``: out[i] = x[i + 1] - x[i], applied ``n``
    times, after ``prepend`` and ``append`` are joined to ``input`` along ``dim``. Bool
    tensors give x[i + 1] != x[i]. Each step shortens ``dim`` by one (down to zero);
    n=0 gives a copy of ``input`` alone.

    >>> minflow.tensor([1, 3, 6, 10]).diff().tolist()
    [2, 3, 4]
    >>> minflow.diff(minflow.tensor([1.0, 3.0, 6.0]), n=2, prepend=minflow.tensor([0.0])).tolist()
    [1.0, 1.0]
    """
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"diff: expected n to be an int, got {type(n).__name__}")
    if input.ndim == 0:
        raise RuntimeError("diff: diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"diff: order must be non-negative but got {n}")
    dim = wrap_dim(dim, input.ndim, "diff")
    parts = [_edge("diff", "prepend", prepend, input, dim)] if prepend is not None else []
    parts.append(input)
    if append is not None:
        parts.append(_edge("diff", "append", append, input, dim))
    if n == 0:             # NOTE: as torch, prepend and append are then left out
        return F.clone(input)
    out = F.cat(parts, dim) if len(parts) > 1 else input
    for _ in range(n):
        size = out.shape[dim]
        if size == 0:
            break
        head, tail = F.narrow(out, dim, 0, size - 1), F.narrow(out, dim, 1, size - 1)
        out = F.ne(tail, head) if out.dtype is dtypes.bool else F.sub(tail, head)
    return out


def _check_y(fn, y, dim):
    if not isinstance(y, Tensor):
        raise TypeError(f"{fn}: expected y to be a Tensor, got {type(y).__name__}")
    if y.dtype is dtypes.bool:
        raise RuntimeError(f"{fn}: received a bool input for `y`, but bool is not supported")
    if y.ndim == 0:
        raise IndexError(f"{fn}: Dimension specified as {dim} but tensor has no dimensions")
    return wrap_dim(dim, y.ndim, fn)


def _spacing(fn, y, x, dx, dim):
    """The spacing tensor (differences of ``x``, shaped to broadcast with y's pieces along
    ``dim``), or the number ``dx`` (1 when neither is given)."""
    if x is None:
        if dx is None:
            return 1
        if isinstance(dx, bool) or not isinstance(dx, numbers.Number):
            raise TypeError(f"{fn}: expected dx to be a number, got {type(dx).__name__}")
        return dx
    if dx is not None:
        raise TypeError(f"{fn}: expected x or dx, not both")
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}: expected x to be a Tensor, got {type(x).__name__}")
    if x.ndim == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError(f"{fn}: There must be one `x` value for each sample point: "
                               f"got {x.shape[0]} x values and {y.shape[dim]} samples along "
                               f"dim {dim}")
        x = F.reshape(x, tuple(-1 if d == dim else 1 for d in range(y.ndim)))
    try:
        broadcast_shapes(tuple(x.shape), tuple(y.shape))
    except RuntimeError as err:
        raise RuntimeError(f"{fn}: expected x to be 1-D or to broadcast with y: {err}") from None
    return diff(x, dim=dim - y.ndim)


def _pairs(y, dim):
    size = y.shape[dim]
    return F.narrow(y, dim, 0, size - 1), F.narrow(y, dim, 1, size - 1)


@public
def trapezoid(y, x=None, *, dx=None, dim=-1):
    """trapezoid(y, x=None, *, dx=None, dim=-1) -> Tensor

    The trapezoidal rule along ``dim``: sum_i (x[i+1] - x[i]) * (y[i+1] + y[i]) / 2, with
    sample points ``x`` (1-D along ``dim``, or broadcasting with y) or a constant spacing
    ``dx`` (default 1). Integer ``y`` gives a float result.

    >>> minflow.trapezoid(minflow.tensor([1.0, 2.0, 4.0]), minflow.tensor([0.0, 1.0, 3.0]))
    tensor(7.5000)
    """
    dim = _check_y("trapezoid", y, dim)
    spacing = _spacing("trapezoid", y, x, dx, dim)
    if y.shape[dim] == 0:
        shape = tuple(s for d, s in enumerate(y.shape) if d != dim)
        dtype = y.dtype if y.dtype.is_floating_point else dtypes.get_default_dtype()
        return F.zeros(shape, dtype=dtype, device=y.device)
    if isinstance(spacing, Tensor):
        left, right = _pairs(y, dim)
        return F.div(F.sum(F.mul(F.add(left, right), spacing), dim), 2.0)
    ends = F.add(F.select(y, dim, 0), F.select(y, dim, -1))
    return F.mul(F.sub(F.sum(y, dim), F.mul(ends, 0.5)), spacing)


@public
def trapz(y, x=None, *, dx=None, dim=-1):
    """trapz(y, x=None, *, dx=None, dim=-1) -> Tensor, the older name of :func:`trapezoid`.

    >>> minflow.trapz(minflow.tensor([1.0, 2.0, 4.0]), dx=2.0)
    tensor(9.)
    """
    if x is not None and not isinstance(x, Tensor) and dx is None:
        x, dx = None, x           # trapz(y, dx, dim) as an old positional call
    return trapezoid(y, x, dx=dx, dim=dim)


@public
def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """cumulative_trapezoid(y, x=None, *, dx=None, dim=-1) -> Tensor

    The running trapezoidal rule along ``dim``: out[k] = integral from sample 0 to sample
    k + 1 (one value fewer than y along ``dim``), with ``x`` or ``dx`` as in
    :func:`trapezoid`.

    >>> minflow.cumulative_trapezoid(minflow.tensor([1.0, 2.0, 4.0])).tolist()
    [1.5, 4.5]
    """
    dim = _check_y("cumulative_trapezoid", y, dim)
    spacing = _spacing("cumulative_trapezoid", y, x, dx, dim)
    if y.shape[dim] == 0:
        dtype = y.dtype if y.dtype.is_floating_point else dtypes.get_default_dtype()
        return F.zeros(tuple(y.shape), dtype=dtype, device=y.device)
    left, right = _pairs(y, dim)
    if isinstance(spacing, Tensor):
        return F.div(F.cumsum(F.mul(F.add(left, right), spacing), dim), 2.0)
    return F.cumsum(F.mul(F.add(left, right), spacing / 2.0), dim)

"""Finite differences and integrals along a dim, with PyTorch's signatures: diff,
gradient, trapezoid (trapz) and cumulative_trapezoid, written with narrow, cat, sub, sum
and cumsum,
so they need no kernels or grad code of their own (the formulas are torch's, term by term,
so results round as torch's do).
"""
import numbers

from ..core import dtype as dtypes
from ..core.functional import public
from ..core.namespace import F
from ..core.tensor import Tensor, wrap_dim
from .infer import broadcast_shapes

__all__ = ["diff", "gradient", "trapezoid", "trapz", "cumulative_trapezoid"]


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


def _gradient_args(input, spacing, dim, edge_order):
    """(dims, spacings): the wrapped dims and, per dim, a number or a 1-D coordinate
    tensor, checked as torch checks them."""
    if isinstance(edge_order, bool) or not isinstance(edge_order, int):
        raise TypeError(f"gradient: expected edge_order to be an int, got {edge_order!r}")
    if edge_order not in (1, 2):
        raise RuntimeError(f"gradient: torch.gradient only supports edge_order=1 and "
                           f"edge_order=2, got {edge_order}")
    dims = list(range(input.ndim)) if dim is None else \
        [dim] if isinstance(dim, numbers.Integral) else list(dim)
    dims = [wrap_dim(d, input.ndim, "gradient") for d in dims]
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"gradient: dim {dims} has repeated dims")
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError(f"gradient: torch.gradient expected each dimension size to be "
                               f"at least edge_order+1, got size {input.shape[d]} at dim {d}")
    if isinstance(spacing, (numbers.Number, Tensor)) and \
            not (isinstance(spacing, Tensor) and spacing.ndim):
        spacing = [spacing.item() if isinstance(spacing, Tensor) else spacing] * len(dims)
    spacing = list(spacing)
    if len(spacing) != len(dims):
        raise RuntimeError(f"gradient: torch.gradient expected spacing to be unspecified, a "
                           f"scalar, or a list of length equal to the number of dims "
                           f"({len(dims)}), but got a list of length {len(spacing)}")
    for d, h in zip(dims, spacing):
        if isinstance(h, Tensor) and (h.ndim != 1 or h.shape[0] != input.shape[d]):
            raise RuntimeError(f"gradient: expected the coordinates of dim {d} to be a 1-D "
                               f"tensor of size {input.shape[d]}, got shape {list(h.shape)}")
    return dims, spacing


def _slice(x, dim, start, stop):
    """x[start:stop] along ``dim``, Python's bounds, stop=0 meaning the end."""
    n = x.shape[dim]
    start = start + n if start < 0 else start
    stop = n if stop == 0 else stop + n if stop < 0 else stop
    return F.narrow(x, dim, start, stop - start)


def _along(coefficient, dim, ndim):
    """A 1-D coefficient tensor shaped to broadcast along ``dim`` of an ndim tensor."""
    return F.reshape(coefficient, tuple(-1 if d == dim else 1 for d in range(ndim)))


def _uniform_gradient(f, dim, h, edge_order):
    center = F.div(F.sub(_slice(f, dim, 2, 0), _slice(f, dim, 0, -2)), h)
    if edge_order == 1:
        first = F.div(F.sub(_slice(f, dim, 1, 2), _slice(f, dim, 0, 1)), h)
        last = F.div(F.sub(_slice(f, dim, -1, 0), _slice(f, dim, -2, -1)), h)
    else:
        first = F.div(F.add(F.add(F.mul(_slice(f, dim, 0, 1), -1.5),
                                  F.mul(_slice(f, dim, 1, 2), 2.0)),
                            F.mul(_slice(f, dim, 2, 3), -0.5)), h)
        last = F.div(F.add(F.add(F.mul(_slice(f, dim, -3, -2), 0.5),
                                 F.mul(_slice(f, dim, -2, -1), -2.0)),
                           F.mul(_slice(f, dim, -1, 0), 1.5)), h)
    return F.cat([first, F.div(center, 2.0), last], dim)


def _coordinate_gradient(f, dim, x, edge_order):
    """torch's (and numpy's) second-order differences for uneven sample points ``x``."""
    dx = diff(x)
    dx1, dx2 = F.narrow(dx, 0, 0, dx.shape[0] - 1), F.narrow(dx, 0, 1, dx.shape[0] - 1)
    a = _along(F.div(F.neg(dx2), F.mul(dx1, F.add(dx1, dx2))), dim, f.ndim)
    b = _along(F.div(F.sub(dx2, dx1), F.mul(dx1, dx2)), dim, f.ndim)
    c = _along(F.div(dx1, F.mul(dx2, F.add(dx1, dx2))), dim, f.ndim)
    center = F.add(F.add(F.mul(a, _slice(f, dim, 0, -2)), F.mul(b, _slice(f, dim, 1, -1))),
                   F.mul(c, _slice(f, dim, 2, 0)))
    d0, d1, dn, dm = (F.select(dx, 0, i) for i in (0, 1, -1, -2))
    if edge_order == 1:
        first = F.div(F.sub(_slice(f, dim, 1, 2), _slice(f, dim, 0, 1)), d0)
        last = F.div(F.sub(_slice(f, dim, -1, 0), _slice(f, dim, -2, -1)), dn)
    else:
        s01, snm = F.add(d0, d1), F.add(dn, dm)
        first = _combine(f, dim, (0, 1, 2), (
            F.div(F.neg(F.add(F.mul(d0, 2.0), d1)), F.mul(d0, s01)),
            F.div(s01, F.mul(d0, d1)), F.div(F.neg(d0), F.mul(d1, s01))))
        last = _combine(f, dim, (-3, -2, -1), (
            F.div(dn, F.mul(dm, snm)), F.div(F.neg(snm), F.mul(dn, dm)),
            F.div(F.add(F.mul(dn, 2.0), dm), F.mul(dn, snm))))
    return F.cat([first, center, last], dim)


def _combine(f, dim, positions, weights):
    total = None
    for p, w in zip(positions, weights):
        term = F.mul(w, _slice(f, dim, p, p + 1 if p != -1 else 0))
        total = term if total is None else F.add(total, term)
    return total


@public
def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """gradient(input, *, spacing=1, dim=None, edge_order=1) -> tuple of Tensors

    The derivative estimate of ``input`` along each of ``dim`` (all dims when None):
    central differences (f[i+1] - f[i-1]) / 2h inside, one-sided differences of order
    ``edge_order`` (1 or 2) at the ends. ``spacing`` is a number, one number per dim, or
    one 1-D tensor of sample coordinates per dim (uneven steps). Integer input gives
    floats.

    >>> minflow.gradient(minflow.tensor([1.0, 2.0, 4.0, 8.0]))
    (tensor([1.0000, 1.5000, 3.0000, 4.0000]),)
    """
    spacing = 1 if spacing is None else spacing         # torch takes an explicit None
    dims, spacings = _gradient_args(input, spacing, dim, edge_order)
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        input = F.cast(input, dtypes.get_default_dtype())
    return tuple(_coordinate_gradient(input, d, h, edge_order) if isinstance(h, Tensor) else
                 _uniform_gradient(input, d, h, edge_order) for d, h in zip(dims, spacings))


def _check_y(fn, y, x, dim):
    """``dim`` wrapped, after the checks of y and of x's type."""
    if not isinstance(y, Tensor):
        raise TypeError(f"{fn}: expected y to be a Tensor, got {type(y).__name__}")
    if x is not None and not isinstance(x, Tensor):
        raise TypeError(f"{fn}: expected x to be a Tensor, got {type(x).__name__} (a number "
                        f"is the keyword argument dx)")
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
    dim = _check_y("trapezoid", y, x, dim)
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
    _check_y("trapz", y, x, dim)
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
    dim = _check_y("cumulative_trapezoid", y, x, dim)
    spacing = _spacing("cumulative_trapezoid", y, x, dx, dim)
    if y.shape[dim] == 0:
        dtype = y.dtype if y.dtype.is_floating_point else dtypes.get_default_dtype()
        return F.zeros(tuple(y.shape), dtype=dtype, device=y.device)
    left, right = _pairs(y, dim)
    if isinstance(spacing, Tensor):
        return F.div(F.cumsum(F.mul(F.add(left, right), spacing), dim), 2.0)
    return F.cumsum(F.mul(F.add(left, right), spacing / 2.0), dim)

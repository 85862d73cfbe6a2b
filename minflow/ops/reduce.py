"""Reductions: sum, mean, prod, max/min, var/std, logsumexp, all/any, cumsum, norm."""
import builtins
import collections

from ..core import dtype as dtypes
from ..core.dispatch import apply
from ..core.functional import public
from ..core.namespace import F
from ..core.tensor import Tensor
from . import infer
from .registry import Attr, define_op, get_op

RED = ("reduce", "no_side_effect")


def _reduced_shape(shape, dims, keepdim):
    if keepdim:
        return tuple(1 if i in dims else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in dims)


def _sum_dtype(x, dtype):
    if dtype is not None:
        return dtype
    return dtypes.int64 if x.dtype.category < 2 else x.dtype     # ints sum in int64


def _sum_infer(input, dim, keepdim, dtype):
    dims = infer.normalize_dims(dim, input.ndim)
    return _reduced_shape(input._data.shape, dims, keepdim), _sum_dtype(input, dtype)


define_op("sum", ["input"], attrs=[Attr("dim", "ints"), Attr("keepdim", "bool", False),
                                   Attr("dtype", "dtype", None, optional=True)],
          infer=_sum_infer, traits=RED, doc="Sum over the dims in ``dim`` (all when empty).")


def _dims(dim, ndim):
    """Public ``dim`` (None, int, list) as the op's tuple of non-negative dims."""
    if dim is not None and not isinstance(dim, (int, list, tuple)):
        raise TypeError(f"expected dim to be an int, a tuple of ints or None, got "
                        f"{type(dim).__name__}")
    return infer.normalize_dims(dim, ndim, "dim")


@public(method=True)
def sum(input, dim=None, keepdim=False, *, dtype=None):
    """sum(input, dim=None, keepdim=False, *, dtype=None) -> Tensor

    Sum of elements over ``dim`` (an int, a tuple, or None for all). Integer and bool
    inputs sum in int64, as PyTorch.

    >>> minflow.sum(minflow.tensor([[1, 2], [3, 4]]), dim=0).tolist()
    [4, 6]
    """
    try:
        dims = _dims(dim, input.ndim)
    except (IndexError, TypeError, RuntimeError) as err:
        raise type(err)(f"sum: {err}") from None
    return apply(_SUM, (input,), {"dim": dims, "keepdim": keepdim,
                                  "dtype": None if dtype is None else dtypes.as_dtype(dtype)})


_SUM = get_op("sum")


def _checked_dims(name, dim, ndim):
    """``_dims`` with errors prefixed by the public function's name."""
    try:
        return _dims(dim, ndim)
    except (IndexError, TypeError, RuntimeError) as err:
        raise type(err)(f"{name}: {err}") from None


def _one_dim(name, dim, ndim):
    """A single int ``dim`` as a non-negative axis (0 for a 0-d tensor)."""
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(f"{name}: expected dim to be an int, got {dim!r}")
    dims = _checked_dims(name, dim, ndim)
    return dims[0] if dims else 0


def _reduce_infer(dtype_fn):
    def infer_fn(input, dim, keepdim, **attrs):
        dims = infer.normalize_dims(dim, input.ndim)
        return _reduced_shape(input._data.shape, dims, keepdim), dtype_fn(input, **attrs)
    return infer_fn


def _check_nonempty(input, dims, what):
    shape = input._data.shape
    for d in dims:
        if shape[d] == 0:
            raise IndexError(f"Expected reduction dim {d} to have non-zero size ({what} of "
                             f"an empty dimension has no identity); got shape {list(shape)}")


def _check_all_nonempty(name, input):
    """A reduction over all elements by default: torch raises RuntimeError (not the
    IndexError of a named empty dim) for an empty input."""
    if input.numel() == 0:
        raise RuntimeError(f"{name}: Expected reduction dim to be specified for "
                           f"input.numel() == 0. Specify the reduction dim with the 'dim' "
                           f"argument; got shape {list(input.shape)}")


def _minmax_infer(input, dim, keepdim):
    dims = infer.normalize_dims(dim, input.ndim)
    _check_nonempty(input, dims, "max/min")
    return _reduced_shape(input._data.shape, dims, keepdim), input.dtype


_DIM_KEEP = [Attr("dim", "ints"), Attr("keepdim", "bool", False)]
define_op("prod", ["input"], attrs=_DIM_KEEP + [Attr("dtype", "dtype", None, optional=True)],
          infer=_reduce_infer(_sum_dtype), traits=RED,
          doc="Product over the dims in ``dim`` (all when empty).")
for _name in ("amax", "amin"):
    define_op(_name, ["input"], attrs=_DIM_KEEP, infer=_minmax_infer, traits=RED,
              doc=f"{'Maximum' if _name == 'amax' else 'Minimum'} over the dims in ``dim``; "
                  f"the gradient is shared evenly among ties.")
def _logical_dtype(input):
    return dtypes.uint8 if input.dtype is dtypes.uint8 else dtypes.bool


for _name in ("all", "any"):
    define_op(_name, ["input"], attrs=_DIM_KEEP, traits=RED + ("no_grad",),
              infer=_reduce_infer(_logical_dtype),
              doc=f"Whether {_name} elements over ``dim`` are nonzero (bool; uint8 for "
                  f"uint8 input, as torch).")


def _dim_keep_infer(input, dim, keepdim):
    _check_nonempty(input, (dim,) if input.ndim else (), "max/min")
    return _reduced_shape(input._data.shape, (dim,) if input.ndim else (), keepdim)


for _name in ("max_dim", "min_dim"):
    define_op(_name, ["input"], outputs=("values", "indices"),
              attrs=[Attr("dim", "int"), Attr("keepdim", "bool", False)],
              infer=lambda input, dim, keepdim: [
                  (_dim_keep_infer(input, dim, keepdim), input.dtype),
                  (_dim_keep_infer(input, dim, keepdim), dtypes.int64)],
              traits=RED, doc="Max/min along ``dim`` with the index of the first extreme.")


def _arg_infer(input, dim, keepdim):
    if input.dtype is dtypes.bool:
        raise RuntimeError("does not support bool input")
    if dim is None:
        _check_nonempty(input, (), "argmax/argmin")
        return (tuple(1 for _ in input._data.shape) if keepdim else ()), dtypes.int64
    return _dim_keep_infer(input, dim, keepdim), dtypes.int64


for _name in ("argmax", "argmin"):
    define_op(_name, ["input"], attrs=[Attr("dim", "int", None, optional=True),
                                        Attr("keepdim", "bool", False)],
              infer=_arg_infer, traits=RED + ("no_grad",),
              doc="Index of the first extreme along ``dim`` (of the flattened input if None).")


def _cumsum_infer(input, dim, dtype):
    return input._data.shape, _sum_dtype(input, dtype)


define_op("cumsum", ["input"], attrs=[Attr("dim", "int"),
                                      Attr("dtype", "dtype", None, optional=True)],
          infer=_cumsum_infer, traits=("no_side_effect",),
          doc="Running sum along ``dim``; ints accumulate in int64.")
define_op("cumprod", ["input"], attrs=[Attr("dim", "int"),
                                       Attr("dtype", "dtype", None, optional=True)],
          infer=_cumsum_infer, traits=("no_side_effect",),
          doc="Running product along ``dim``; ints accumulate in int64.")

_PROD, _AMAX, _AMIN, _ALL, _ANY, _CUMSUM = (get_op(n) for n in
                                            ("prod", "amax", "amin", "all", "any", "cumsum"))
_MAX_DIM, _MIN_DIM, _ARGMAX, _ARGMIN = (get_op(n) for n in
                                        ("max_dim", "min_dim", "argmax", "argmin"))


def _as_dtype(dtype):
    return None if dtype is None else dtypes.as_dtype(dtype)


@public(method=True)
def prod(input, dim=None, keepdim=False, *, dtype=None):
    """prod(input, dim=None, keepdim=False, *, dtype=None) -> Tensor

    Product of elements (all, or along the int ``dim``). Ints and bools give int64.

    >>> minflow.prod(minflow.tensor([[1, 2], [3, 4]]), 1).tolist()
    [2, 12]
    """
    dims = _checked_dims("prod", dim, input.ndim) if dim is not None else tuple(
        range(input.ndim))
    keep = keepdim if dim is not None else False
    return apply(_PROD, (input,), {"dim": dims, "keepdim": keep, "dtype": _as_dtype(dtype)})


@public(method=True)
def mean(input, dim=None, keepdim=False, *, dtype=None):
    """mean(input, dim=None, keepdim=False, *, dtype=None) -> Tensor

    Arithmetic mean over ``dim``: sum(x) / n. Needs a floating or complex input (or
    ``dtype``).

    >>> minflow.mean(minflow.tensor([[1., 2.], [3., 4.]]), dim=-1).tolist()
    [1.5, 3.5]
    """
    out_dtype = _as_dtype(dtype) or input.dtype
    if not out_dtype.is_differentiable:
        raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either "
                           f"a floating point or complex dtype. Got: {out_dtype.name}")
    dims = _checked_dims("mean", dim, input.ndim)
    count = _count(input, dims)
    acc = _accumulate_dtype(out_dtype)
    total = apply(_SUM, (input,), {"dim": dims, "keepdim": keepdim, "dtype": acc})
    out = F.div(total, count) if count else F.mul(total, float("nan"))
    return F.cast(out, out_dtype)


def _accumulate_dtype(dtype):
    # NOTE: float16 sums and squares overflow at 65504, bfloat16 ones lose digits; torch
    # accumulates both in float32
    return dtypes.float32 if dtype in (dtypes.float16, dtypes.bfloat16) else dtype


def _count(input, dims):
    shape, n = input._data.shape, 1
    for d in dims:
        n *= shape[d]
    return n


def _minmax(name, op, dim_op, input, dim, keepdim, other):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}: expected input to be a Tensor, got {type(input).__name__}")
    if isinstance(dim, Tensor):                 # max(input, other)
        dim, other = None, dim
    if other is not None:
        return (F.maximum if name == "max" else F.minimum)(input, other)
    if dim is None:
        _check_all_nonempty(name, input)
        return apply(op, (input,), {"dim": _checked_dims(name, None, input.ndim),
                                    "keepdim": False})
    d = _one_dim(name, dim, input.ndim)
    values, indices = apply(dim_op, (input,), {"dim": d, "keepdim": keepdim})
    return _RETURN_TYPES[name](values, indices)


def _return_type(name):
    """A (values, indices) named tuple that prints as torch's ``return_types.max(...)``."""
    base = collections.namedtuple(name, ["values", "indices"])

    def __repr__(self):
        return (f"minflow.return_types.{name}(\nvalues={self.values!r},\n"
                f"indices={self.indices!r})")
    return type(name, (base,), {"__slots__": (), "__repr__": __repr__})


_RETURN_TYPES = {n: _return_type(n) for n in ("max", "min")}


@public(method=True)
def max(input, dim=None, keepdim=False, *, other=None):
    """max(input) | max(input, dim, keepdim=False) | max(input, other)

    With no ``dim``: the largest element. With ``dim``: ``(values, indices)`` of the
    maxima along ``dim``. With a tensor ``other``: the elementwise maximum.

    >>> minflow.max(minflow.tensor([[1, 5], [7, 2]]), 1).indices.tolist()
    [1, 0]
    """
    return _minmax("max", _AMAX, _MAX_DIM, input, dim, keepdim, other)


@public(method=True)
def min(input, dim=None, keepdim=False, *, other=None):
    """min(input) | min(input, dim, keepdim=False) | min(input, other)

    As :func:`max` for the minimum.

    >>> minflow.min(minflow.tensor([[1, 5], [7, 2]]), 1).values.tolist()
    [1, 2]
    """
    return _minmax("min", _AMIN, _MIN_DIM, input, dim, keepdim, other)


def _amax_amin(name, op, input, dim, keepdim):
    if dim == () or dim is None:
        _check_all_nonempty(name, input)
    return apply(op, (input,), {"dim": _checked_dims(name, None if dim == () else dim,
                                                     input.ndim), "keepdim": keepdim})


@public(method=True)
def amax(input, dim=(), keepdim=False):
    """amax(input, dim=(), keepdim=False) -> Tensor

    Maximum over the dims in ``dim`` (all when empty); ties share the gradient evenly.

    >>> minflow.amax(minflow.tensor([[1, 5], [7, 2]]), dim=(0, 1)).item()
    7
    """
    return _amax_amin("amax", _AMAX, input, dim, keepdim)


@public(method=True)
def amin(input, dim=(), keepdim=False):
    """amin(input, dim=(), keepdim=False) -> Tensor

    Minimum over the dims in ``dim`` (all when empty); ties share the gradient evenly.

    >>> minflow.amin(minflow.tensor([[1, 5], [7, 2]]), dim=0).tolist()
    [1, 2]
    """
    return _amax_amin("amin", _AMIN, input, dim, keepdim)


def _arg(name, op, input, dim, keepdim):
    d = None if dim is None else _one_dim(name, dim, input.ndim)
    return apply(op, (input,), {"dim": d, "keepdim": keepdim})


@public(method=True)
def argmax(input, dim=None, keepdim=False):
    """argmax(input, dim=None, keepdim=False) -> Tensor

    int64 index of the first maximum along ``dim`` (of the flattened input if None).

    >>> minflow.argmax(minflow.tensor([[1, 5], [7, 2]])).item()
    2
    """
    return _arg("argmax", _ARGMAX, input, dim, keepdim)


@public(method=True)
def argmin(input, dim=None, keepdim=False):
    """argmin(input, dim=None, keepdim=False) -> Tensor

    int64 index of the first minimum along ``dim`` (of the flattened input if None).

    >>> minflow.argmin(minflow.tensor([[1, 5], [7, 2]]), dim=1).tolist()
    [0, 1]
    """
    return _arg("argmin", _ARGMIN, input, dim, keepdim)


def _logical(name, op, input, dim, keepdim):
    dims = _checked_dims(name, dim, input.ndim)
    return apply(op, (input,), {"dim": dims, "keepdim": keepdim})


@public(method=True)
def all(input, dim=None, keepdim=False):
    """all(input, dim=None, keepdim=False) -> Tensor

    True where every element over ``dim`` is nonzero (bool; uint8 input gives uint8 0/1).

    >>> minflow.all(minflow.tensor([[1, 0], [2, 3]]), dim=1).tolist()
    [False, True]
    """
    return _logical("all", _ALL, input, dim, keepdim)


@public(method=True)
def any(input, dim=None, keepdim=False):
    """any(input, dim=None, keepdim=False) -> Tensor

    True where some element over ``dim`` is nonzero (bool; uint8 input gives uint8 0/1).

    >>> minflow.any(minflow.tensor([[1, 0], [0, 0]]), dim=1).tolist()
    [True, False]
    """
    return _logical("any", _ANY, input, dim, keepdim)


@public(method=True)
def cumsum(input, dim, *, dtype=None):
    """cumsum(input, dim, *, dtype=None) -> Tensor

    out[..., i, ...] = sum of input[..., :i+1, ...] along ``dim``. Ints accumulate in int64.

    >>> minflow.cumsum(minflow.tensor([1, 2, 3]), dim=0).tolist()
    [1, 3, 6]
    """
    d = _one_dim("cumsum", dim, input.ndim)
    return apply(_CUMSUM, (input,), {"dim": d, "dtype": _as_dtype(dtype)})


@public(method=True)
def cumprod(input, dim, *, dtype=None):
    """cumprod(input, dim, *, dtype=None) -> Tensor

    out[..., i, ...] = product of input[..., :i+1, ...] along ``dim``. Ints accumulate in
    int64; the gradient is exact with zeros in the input too.

    >>> minflow.cumprod(minflow.tensor([1, 2, 3]), dim=0).tolist()
    [1, 2, 6]
    """
    d = _one_dim("cumprod", dim, input.ndim)
    return apply(get_op("cumprod"), (input,), {"dim": d, "dtype": _as_dtype(dtype)})


def _correction(name, unbiased, correction):
    if unbiased is not None and correction is not None:
        raise RuntimeError(f"{name}: pass only one of 'unbiased' and 'correction'")
    if correction is not None:
        return correction
    return 0 if unbiased is False else 1


def _var(name, input, dim, unbiased, keepdim, correction):
    if isinstance(dim, bool):               # var(x, False): the old (input, unbiased) form
        dim, unbiased = None, dim
    if not input.dtype.is_differentiable:
        raise RuntimeError(f"{name}: std and var only support floating point and complex "
                           f"dtypes, got {input.dtype.name}")
    if input.dtype.is_complex:      # as torch: the variances of the two parts, added (real)
        return F.add(_var(name, F.real(input), dim, unbiased, keepdim, correction),
                     _var(name, F.imag(input), dim, unbiased, keepdim, correction))
    dims = _checked_dims(name, dim, input.ndim)
    dof = _count(input, dims) - _correction(name, unbiased, correction)
    input = F.cast(input, _accumulate_dtype(input.dtype))
    centered = F.sub(input, F.mean(input, dims, keepdim=True))
    squares = F.sum(F.mul(centered, centered), dims, keepdim=keepdim)
    # NOTE: dof <= 0 gives inf/nan, as torch (which also only warns)
    return F.div(squares, builtins.max(dof, 0))


@public(method=True)
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """var(input, dim=None, *, correction=1, keepdim=False) -> Tensor

    Variance over ``dim``: sum((x - mean)^2) / (N - correction). ``unbiased=False`` is
    ``correction=0``. Of complex values: sum(|x - mean|^2) / (N - correction), real.

    >>> minflow.var(minflow.tensor([1., 2., 3., 4.])).item()
    1.6666666269302368
    """
    return F.cast(_var("var", input, dim, unbiased, keepdim, correction),
                  dtypes.to_real(input.dtype))


@public(method=True)
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """std(input, dim=None, *, correction=1, keepdim=False) -> Tensor

    Standard deviation over ``dim``: sqrt(var(input, dim, correction=correction)).

    >>> minflow.std(minflow.tensor([[1., 3.], [2., 2.]]), dim=1).tolist()
    [1.4142135381698608, 0.0]
    """
    return F.cast(F.sqrt(_var("std", input, dim, unbiased, keepdim, correction)),
                  dtypes.to_real(input.dtype))


@public
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """var_mean(input, dim=None, *, correction=1, keepdim=False) -> (var, mean)

    :func:`var` and :func:`mean` over ``dim`` in one call.

    >>> [t.item() for t in minflow.var_mean(minflow.tensor([1., 2., 3.]))]
    [1.0, 2.0]
    """
    v = var(input, dim, unbiased, keepdim, correction=correction)
    return v, F.mean(input, None if isinstance(dim, bool) else dim, keepdim)


@public
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """std_mean(input, dim=None, *, correction=1, keepdim=False) -> (std, mean)

    :func:`std` and :func:`mean` over ``dim`` in one call.

    >>> [t.item() for t in minflow.std_mean(minflow.tensor([1., 3.]))]
    [1.4142135381698608, 2.0]
    """
    s = std(input, dim, unbiased, keepdim, correction=correction)
    return s, F.mean(input, None if isinstance(dim, bool) else dim, keepdim)


@public(method=True)
def logsumexp(input, dim, keepdim=False):
    """logsumexp(input, dim, keepdim=False) -> Tensor

    log(sum(exp(x))) over ``dim``, computed as m + log(sum(exp(x - m))) with m the
    maximum so that large inputs do not overflow.

    >>> round(minflow.logsumexp(minflow.tensor([1000., 1000.]), 0).item(), 2)
    1000.69
    """
    dims = _checked_dims("logsumexp", None if dim == () else dim, input.ndim)
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        input = F.cast(input, dtypes.get_default_dtype())
    if _count(input, dims) == 0:
        return F.log(F.sum(F.exp(input), dims, keepdim=keepdim))
    # the shift is a constant for autograd: its gradient contributions cancel exactly. Of
    # complex values, the real parts' maximum: exp's modulus is that of the real part
    shift = F.amax(F.real(input.detach()) if input.dtype.is_complex else input.detach(), dims,
                   keepdim=True)
    shift = F.where(F.isinf(shift), 0.0, shift)
    out = F.add(F.log(F.sum(F.exp(F.sub(input, shift)), dims, keepdim=True)), shift)
    return out if keepdim else F.reshape(out, _reduced_shape(out.shape, dims, False))


@public(method=True)
def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """norm(input, p="fro", dim=None, keepdim=False, dtype=None) -> Tensor

    Vector p-norm over ``dim`` (all elements when None): (sum |x|^p)^(1/p); "fro" and 2
    are the Euclidean norm, inf / -inf the max / min of |x|, 0 the count of nonzeros;
    "nuc" the nuclear norm (linalg.matrix_norm) of the matrices in two dims (``dim``, or
    all of a 2-D input).

    >>> minflow.norm(minflow.tensor([3., 4.])).item()
    5.0
    >>> minflow.norm(minflow.tensor([[3., 0.], [0., -4.]]), "nuc").item()
    7.0
    """
    if input.dtype.is_complex and p != "nuc":
        input, dtype = moduli("norm", input, dtype), None
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"norm: expected a floating point or complex input, got "
                           f"{input.dtype.name}")
    if p == "nuc":
        from ..linalg import matrix_norm
        dims = tuple(range(input.ndim)) if dim is None else \
            (dim,) if isinstance(dim, int) else tuple(dim)
        if len(dims) != 2:
            raise RuntimeError(f"norm: linalg.matrix_norm: dim must be a 2-tuple, got {dims}")
        return matrix_norm(input, "nuc", dims, keepdim, dtype=dtype)
    out_dtype = input.dtype if dtype is None else dtypes.as_dtype(dtype)
    if p == "fro":
        p = 2
    if isinstance(p, str):
        raise RuntimeError(f"norm: expected p to be 'fro', 'nuc' or a number, got {p!r}")
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        raise TypeError(f"norm: expected p to be 'fro', 'nuc' or a number, got {p!r}")
    dims = _checked_dims("norm", dim, input.ndim)
    x = F.cast(input, _accumulate_dtype(out_dtype))
    return F.cast(_vector_norm(x, p, dims, keepdim), out_dtype)


def moduli(name, x, dtype):
    """|x| of a complex x, in ``dtype`` (a complex one, as torch) where given: what a norm
    of complex values is the norm of (real)."""
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
        if not dtype.is_complex:
            raise RuntimeError(f"{name}: dtype should be complex for a complex input, got "
                               f"{dtype.name}")
        x = F.cast(x, dtype)
    return F.abs(x)


def _abs_pow(x, p):
    """|x|^p; for p < 1 the zeros of x get a zero gradient, as torch's norm backward,
    instead of the infinite (p > 0) or NaN (p < 0) derivative of the power there."""
    if p > 1:
        return F.pow(F.abs(x), p)
    nonzero = F.ne(x, 0)
    safe = F.where(nonzero, F.abs(x), 1.0)
    return F.where(nonzero, F.pow(safe, p), 0.0 if p > 0 else float("inf"))


def _vector_norm(x, p, dims, keepdim):
    if p == float("inf"):
        return F.amax(F.abs(x), dims, keepdim=keepdim)
    if p == float("-inf"):
        return F.amin(F.abs(x), dims, keepdim=keepdim)
    if p == 0:
        # sign(|x|) counts nonzeros and has a zero gradient, as torch (NaN counts as nonzero)
        return F.sum(F.where(F.isnan(x), 1.0, F.sign(F.abs(x))), dims, keepdim=keepdim)
    if p == 1:
        return F.sum(F.abs(x), dims, keepdim=keepdim)
    total = F.sum(F.mul(x, x) if p == 2 else _abs_pow(x, p), dims, keepdim=keepdim)
    # NOTE: the root of a zero sum has an infinite derivative (0 * inf = NaN in backward);
    # torch's norm gives a zero gradient there, so the root skips zero sums
    zero = F.eq(total, 0)
    safe = F.where(zero, 1.0, total)
    root = F.sqrt(safe) if p == 2 else F.pow(safe, 1.0 / p)
    return F.where(zero, 0.0, root)

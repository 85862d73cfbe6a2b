"""In-place variants torch has that the op families do not define themselves, and a few
small functions beside them: rsub, renorm, fill_diagonal_.

Value-changing variants (``cumsum_``, ``logical_and_``, ``clip_``...) are the out-of-place
function written back with ``make_inplace``. Shape-changing ones (``squeeze_``, ``t_``,
``transpose_``...) make the view and let ``self`` take its shape, strides and history, as
torch's: the data is not touched.
"""
import numbers

from ..core import dtype as dtypes
from ..core.dispatch import current_interpreter
from ..core.functional import make_inplace, public
from ..core.grad_mode import state as grad_state
from ..core.inplace import _refuse_lazy, inplace
from ..core.namespace import F
from ..core.tensor import Tensor
from .infer import check_int, check_tensor
from .reduce import _vector_norm

for _name in ("cumsum", "cumprod", "logical_and", "logical_or", "logical_xor", "logical_not",
              "bitwise_not", "clamp_min", "clamp_max", "addmm"):
    make_inplace(getattr(F, _name), _name + "_")
public(F.clamp_, name="clip_", method=True)
public(F.trunc_, name="fix_", method=True)
public(F.atan2_, name="arctan2_", method=True)


def _restride(name, view_fn):
    """The in-place form of a view op: self becomes ``view_fn(self, ...)``, sharing data."""
    def method(self, *args, **kwargs):
        if not isinstance(self, Tensor):
            raise TypeError(f"{name}: expected a Tensor, got {type(self).__name__}")
        _refuse_lazy(self, args, name)
        if getattr(current_interpreter(), "inplace", None) is not None:
            raise RuntimeError(f"{name}: changing a tensor's shape in place is not supported "
                               f"in graph mode; use {name[:-1]}() instead")
        if grad_state.grad_enabled and self._requires_grad and self._grad_fn is None:
            raise RuntimeError(f"{name}: a leaf Variable that requires grad is being used in "
                               f"an in-place operation.")
        view = view_fn(self, *args, **kwargs)
        self._data = view._data
        if view._requires_grad:
            self._grad_fn, self._output_nr = view._grad_fn, view._output_nr
        if self._version is not None:
            self._version[0] += 1
        return self
    method.__name__ = method.__qualname__ = name
    method.__doc__ = (f"In-place version of :func:`{view_fn.__name__}`: self takes the "
                      f"new shape (its data is not copied).")
    return public(method, name=name, method=True)


for _name in ("squeeze", "unsqueeze", "t", "transpose", "swapaxes", "swapdims"):
    _restride(_name + "_", getattr(F, _name))


@public(method=True)
def rsub(input, other, *, alpha=1):
    """rsub(input, other, *, alpha=1) -> Tensor

    other - alpha * input: subtraction with the operands swapped.

    >>> minflow.rsub(minflow.tensor([1.0, 2.0]), 5).tolist()
    [4.0, 3.0]
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"rsub: expected input to be a Tensor, got {type(input).__name__}")
    if isinstance(other, Tensor):
        return F.sub(other, input, alpha=alpha)
    if not isinstance(other, numbers.Number):
        raise TypeError(f"rsub: expected other to be a Tensor or a number, got "
                        f"{type(other).__name__}")
    if isinstance(other, bool):         # as torch: a bool number counts as a bool tensor
        raise RuntimeError("rsub: subtraction, the `-` operator, with a bool tensor is not "
                           "supported; use the `^` or logical_xor() operator instead")
    scalar = F.full((), other, dtype=dtypes.result_type(input, other), device=input.device)
    return F.sub(scalar, input, alpha=alpha)


@public(method=True)
def renorm(input, p, dim, maxnorm):
    """renorm(input, p, dim, maxnorm) -> Tensor

    Each slice ``input.select(dim, i)`` whose p-norm exceeds ``maxnorm`` scaled down to
    norm ``maxnorm``: x * maxnorm / (norm + 1e-7) there, the others unchanged.

    >>> minflow.renorm(minflow.tensor([[3.0, 4.0], [0.3, 0.4]]), 2, 0, 1.0).tolist()
    [[0.6000000238418579, 0.800000011920929], [0.30000001192092896, 0.4000000059604645]]
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"renorm: expected input to be a Tensor, got {type(input).__name__}")
    if not input.dtype.is_floating_point:
        raise dtypes.DTypeError(f"renorm: expected input with dtype in [float16, float32, "
                                f"float64], got {input.dtype.name}")
    if input.ndim < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} "
                           f"dimensions")
    if isinstance(p, bool) or not isinstance(p, numbers.Real):
        raise TypeError(f"renorm: expected p to be a number, got {p!r}")
    if p <= 0:
        raise RuntimeError(f"renorm: non-positive-norm not supported: expected p > 0, got "
                           f"{p!r}")
    if not isinstance(maxnorm, numbers.Real) or maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm!r}")
    dim = check_int("renorm", "dim", dim)
    dim = dim + input.ndim if dim < 0 else dim
    if not 0 <= dim < input.ndim:
        raise IndexError(f"renorm: Dimension out of range (expected to be in range of "
                         f"[{-input.ndim}, {input.ndim - 1}], but got {dim!r})")
    others = tuple(d for d in range(input.ndim) if d != dim)
    norm = _vector_norm(input, p, others, True)
    factor = F.where(F.gt(norm, maxnorm), F.div(maxnorm, F.add(norm, 1e-7)), 1.0)
    return F.mul(input, factor)


make_inplace(renorm, "renorm_")


def _diagonal_positions(shape, wrap):
    """Flat indices of the main diagonal of a matrix (wrapping down a tall one when
    ``wrap``) or of a cube of equal sides."""
    if len(shape) == 2:
        rows, cols = shape
        return range(0, rows * cols if wrap else min(rows, cols) * cols, cols + 1)
    n = shape[0]
    step = sum(n ** k for k in range(len(shape)))
    return range(0, n * step, step)


@public(method=True)
def fill_diagonal_(input, fill_value, wrap=False):
    """fill_diagonal_(input, fill_value, wrap=False) -> Tensor (input, filled)

    Write ``fill_value`` on the main diagonal of ``input`` (a matrix, or a tensor whose
    dims are all equal); ``wrap`` restarts the diagonal below a tall matrix's first
    square block, every cols + 1 rows.

    >>> minflow.zeros(3, 2).fill_diagonal_(5.0).tolist()
    [[5.0, 0.0], [0.0, 5.0], [0.0, 0.0]]
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"fill_diagonal_: expected input to be a Tensor, got "
                        f"{type(input).__name__}")
    if input.ndim < 2:
        raise RuntimeError(f"fill_diagonal_: dimensions must larger than 1, got {input.ndim}")
    if input.ndim > 2 and len(set(input.shape)) != 1:
        raise RuntimeError(f"fill_diagonal_: all dimensions of input must be of equal length, "
                           f"got {list(input.shape)}")
    if not isinstance(fill_value, numbers.Number):
        raise TypeError(f"fill_diagonal_: expected fill_value to be a number, got "
                        f"{type(fill_value).__name__}")
    positions = list(_diagonal_positions(tuple(input.shape), wrap))

    def filled(target):
        flat = F.reshape(target, (-1,))
        index = F.tensor(positions, dtype=dtypes.int64, device=target.device)
        value = F.full((), fill_value, dtype=target.dtype, device=target.device)
        return F.reshape(F.index_put(flat, (index,), value), tuple(target.shape))
    return inplace(filled, "fill_diagonal_", input)


@public(method=True)
def put(input, index, source, accumulate=False):
    """put(input, index, source, accumulate=False) -> Tensor

    ``input`` with the elements at ``index`` (positions in input read as 1-D, row-major;
    negative from the end) replaced by ``source``'s (summed into them with accumulate).

    >>> minflow.put(minflow.zeros(2, 2), minflow.tensor([0, 3]), minflow.tensor([1.0, 2.0]))
    tensor([[1., 0.],
            [0., 2.]])
    """
    check_tensor("put", "index", index)
    check_tensor("put", "source", source)
    if index.dtype is not dtypes.int64:
        raise RuntimeError(f"put(): Expected a long tensor for index, but got "
                           f"{index.dtype.name}")
    if source.numel() != index.numel():
        raise IndexError(f"put(): Expected source and index to have the same number of "
                         f"elements, but got source.numel() = {source.numel()}, "
                         f"index.numel() = {index.numel()}")
    flat = F.reshape(input, (-1,))
    return F.reshape(F.index_put(flat, (F.reshape(index, (-1,)),), F.reshape(source, (-1,)),
                                 accumulate), tuple(input.shape))


make_inplace(put, "put_")

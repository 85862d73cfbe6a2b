"""Reductions: sum, mean, prod, max/min, var/std, logsumexp, all/any, cumsum, norm."""
from ..core import dtype as dtypes
from ..core.dispatch import apply
from ..core.functional import public
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

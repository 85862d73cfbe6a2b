"""Scans beyond cumsum / cumprod: logcumsumexp, cummax, cummin.

Kernels: kernels/generic/scan.py; grad functions: autograd/grads/scan.py.
"""
from ..core import dtype as dtypes
from ..core.dispatch import apply
from ..core.functional import public
from ..core.inplace import write_out
from .reduce import _one_dim, _return_type
from .registry import Attr, define_op


def _logcumsumexp_infer(input, dim):
    return input._data.shape, input.dtype


LOGCUMSUMEXP = define_op("logcumsumexp", ["input"], attrs=[Attr("dim", "int")],
                         infer=_logcumsumexp_infer, traits=("no_side_effect",),
                         doc="Running ln(sum(e^x)) along ``dim``, without overflow.")


def _cumulative_infer(input, dim):
    return [(input._data.shape, input.dtype), (input._data.shape, dtypes.int64)]


CUMMAX, CUMMIN = (define_op(name, ["input"], outputs=("values", "indices"),
                            attrs=[Attr("dim", "int")], infer=_cumulative_infer,
                            traits=("no_side_effect",),
                            doc=f"Running {kind} along ``dim`` and the index where it was "
                                f"taken (the last one among ties; NaN propagates).")
                  for name, kind in (("cummax", "maximum"), ("cummin", "minimum")))
_RETURN_TYPES = {"cummax": _return_type("cummax"), "cummin": _return_type("cummin")}


@public(method=True)
def logcumsumexp(input, dim, *, out=None):
    """logcumsumexp(input, dim, *, out=None) -> Tensor

    out[..., i, ...] = ln(sum_{j <= i} e^input[..., j, ...]) along ``dim``, computed
    without overflow; floating inputs only, as torch.

    >>> minflow.logcumsumexp(minflow.tensor([0.0, 0.0, 1000.0]), dim=0).tolist()
    [0.0, 0.6931471824645996, 1000.0]
    """
    d = _one_dim("logcumsumexp", dim, input.ndim)
    result = apply(LOGCUMSUMEXP, (input,), {"dim": d})
    return result if out is None else write_out(result, out, "logcumsumexp")


def _cumulative(name, op, input, dim):
    values, indices = apply(op, (input,), {"dim": _one_dim(name, dim, input.ndim)})
    return _RETURN_TYPES[name](values, indices)


@public(method=True)
def cummax(input, dim):
    """cummax(input, dim) -> (values, indices)

    Running maximum along ``dim`` and the index it came from: the last index among ties,
    and once a NaN is met, NaN with the index of the latest NaN (as torch). The gradient
    goes to the element each maximum came from.

    >>> minflow.cummax(minflow.tensor([1, 3, 2, 3]), dim=0)
    minflow.return_types.cummax(
    values=tensor([1, 3, 3, 3]),
    indices=tensor([0, 1, 1, 3]))
    """
    return _cumulative("cummax", CUMMAX, input, dim)


@public(method=True)
def cummin(input, dim):
    """cummin(input, dim) -> (values, indices)

    As :func:`cummax`, for the running minimum.

    >>> minflow.cummin(minflow.tensor([3.0, 1.0, 2.0]), dim=0).indices.tolist()
    [0, 1, 1]
    """
    return _cumulative("cummin", CUMMIN, input, dim)

"""Activations, with PyTorch's signatures (minflow.nn.functional takes ``__all__``).

leaky_relu is the model op of the code base, end to end:
  op here (``leaky_relu`` and its grad op ``leaky_relu_grad``)
  -> kernels: kernels/generic/activation.py (cpu), kernels/cupy/activation.py (cuda)
  -> grad functions: autograd/grads/activation.py
Others are ops where that pays (relu, gelu, softmax, log_softmax) or composites of
differentiable ops (elu, silu, softplus, hardtanh, relu6, hardsigmoid, hardswish, mish,
logsigmoid, softsign, prelu, glu, gelu with approximate='tanh').
"""
import math

from ..core import dtype as dtypes
from ..core.dispatch import apply
from ..core.functional import make_inplace, public
from ..core.inplace import inplace as _inplace
from ..core.namespace import F
from ..core.tensor import Tensor, wrap_dim
from . import infer
from .opmath import in_float32, rounded_from_float64
from .registry import Attr, define_op

__all__ = ["relu", "relu_", "leaky_relu", "leaky_relu_", "elu", "elu_", "gelu", "silu",
           "softplus", "hardtanh", "hardtanh_", "relu6", "hardsigmoid", "hardswish", "mish",
           "logsigmoid", "softsign", "softmax", "log_softmax", "sigmoid", "tanh", "prelu", "glu"]

EW = ("elementwise", "no_side_effect")


def _float_input(input, **attrs):
    infer.check_dtype(input, dtypes.FLOATS)
    return input._data.shape, input.dtype


def _grad_infer(grad_out, input, **attrs):
    if grad_out._data.shape != input._data.shape or grad_out.dtype is not input.dtype:
        raise RuntimeError(f"expected grad_out like input (shape {list(input._data.shape)}, "
                           f"dtype {input.dtype.name}), got shape "
                           f"{list(grad_out._data.shape)}, dtype {grad_out.dtype.name}")
    return _float_input(input)


# ---- leaky_relu: out = x if x > 0 else negative_slope * x ----------------------------

LEAKY_RELU = define_op("leaky_relu", ["input"], infer=_float_input, traits=EW,
                       attrs=[Attr("negative_slope", "float", 0.01)],
                       doc="x if x > 0 else negative_slope * x.")
LEAKY_RELU_GRAD = define_op("leaky_relu_grad", ["grad_out", "input"], infer=_grad_infer,
                            traits=EW, attrs=[Attr("negative_slope", "float")],
                            doc="grad_out if input > 0 else negative_slope * grad_out.")


@public
def leaky_relu(input, negative_slope=0.01, inplace=False):
    """leaky_relu(input, negative_slope=0.01, inplace=False) -> Tensor

    out = x if x > 0 else negative_slope * x.

    >>> minflow.nn.functional.leaky_relu(minflow.tensor([-2.0, 3.0]), 0.5).tolist()
    [-1.0, 3.0]
    """
    if inplace:
        return F.leaky_relu_(input, negative_slope)
    return apply(LEAKY_RELU, (input,), {"negative_slope": negative_slope})


leaky_relu_ = make_inplace(leaky_relu, "leaky_relu_")


# ---- relu: max(x, 0); ints too, as torch ---------------------------------------------

def _relu_infer(input):
    infer.check_dtype(input, dtypes.NUMERIC)
    return input._data.shape, input.dtype


RELU = define_op("relu", ["input"], infer=_relu_infer, traits=EW, doc="max(x, 0).")
# one kernel where mul(grad_out, gt(out, 0)) would run two and cast the mask to float
RELU_GRAD = define_op("relu_grad", ["grad_out", "output"], infer=_grad_infer, traits=EW,
                      doc="grad_out * (output > 0), output = relu(x): relu's backward.")


@public(method=True)
def relu(input, inplace=False):
    """relu(input, inplace=False) -> Tensor

    out = max(x, 0); the gradient at 0 is 0, as PyTorch.

    >>> minflow.relu(minflow.tensor([-1.0, 2.0])).tolist()
    [0.0, 2.0]
    """
    if inplace:
        return F.relu_(input)
    return apply(RELU, (input,), {})


relu_ = make_inplace(relu, "relu_")


# ---- gelu: x * Phi(x), Phi the standard normal CDF -----------------------------------

GELU = define_op("gelu", ["input"], infer=_float_input, traits=EW,
                 doc="x * Phi(x) with Phi the standard normal CDF (exact, erf based).")
GELU_GRAD = define_op("gelu_grad", ["grad_out", "input"], infer=_grad_infer, traits=EW,
                      doc="grad_out * (Phi(x) + x * phi(x)), phi the normal density.")


@public
def gelu(input, approximate="none"):
    """gelu(input, approximate='none') -> Tensor

    out = x * Phi(x), Phi the standard normal CDF; with approximate='tanh',
    out = 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).

    >>> round(minflow.nn.functional.gelu(minflow.tensor([1.0])).item(), 4)
    0.8413
    """
    if approximate == "none":
        return apply(GELU, (input,), {})
    if approximate != "tanh":
        raise RuntimeError(f"gelu: approximate argument must be either none or tanh, got "
                           f"{approximate!r}")
    if input.dtype is dtypes.float16:   # torch's kernel: in float32, rounded once
        return in_float32(_gelu_tanh, input, _sleef_tanh)
    return _gelu_tanh(input, F.tanh)


def _gelu_tanh(input, tanh):
    """0.5 x (1 + tanh(beta (x + kappa x^3))), in the order of torch's cpu kernel."""
    inner = F.mul(F.add(input, F.mul(F.mul(F.mul(input, input), input), 0.044715)),
                  math.sqrt(2 / math.pi))
    return F.mul(F.mul(input, 0.5), F.add(tanh(inner), 1))


def _sleef_tanh(x):
    """The float32 tanh of torch's vectorized cpu kernels (Sleef): correctly rounded, and
    exactly +-1 where |x| > 8.664339742.

    NOTE: gelu's 1 + tanh cancels, so that last ulp of tanh shows in float16 results near
    x = -5, where torch gives -0.0 and a correctly rounded tanh would not.
    """
    saturated = F.gt(F.abs(x), 8.664339742)
    return F.where(saturated, F.sign(x), rounded_from_float64(F.tanh, x))


# ---- softmax / log_softmax along one dim (stable: the max is subtracted first) ----------

def _dim_infer(input, dim):
    _float_input(input)
    return input._data.shape, input.dtype


SOFTMAX = define_op("softmax", ["input"], infer=_dim_infer, attrs=[Attr("dim", "int")],
                    traits=("opaque", "no_side_effect"), doc="exp(x) / sum(exp(x)) along dim.")
LOG_SOFTMAX = define_op("log_softmax", ["input"], infer=_dim_infer, attrs=[Attr("dim", "int")],
                        traits=("opaque", "no_side_effect"),
                        doc="x - log(sum(exp(x))) along dim.")


def _along(op, name, input, dim, dtype):
    if dim is None:     # torch's legacy implicit choice, kept for compatibility
        dim = 0 if input.ndim in (0, 1, 3) else 1
    try:
        (dim,) = infer.normalize_dims(dim, input.ndim, name) or (0,)
    except (IndexError, TypeError, RuntimeError) as err:
        raise type(err)(str(err) if str(err).startswith(name) else f"{name}: {err}") from None
    if dtype is not None:
        input = input.to(dtype=dtypes.as_dtype(dtype))
    return apply(op, (input,), {"dim": dim})


@public(method=True)
def softmax(input, dim=None, dtype=None):
    """softmax(input, dim, dtype=None) -> Tensor

    out_i = exp(x_i) / sum_j exp(x_j) along ``dim``; ``dtype`` casts the input first.

    >>> minflow.softmax(minflow.tensor([[1.0, 1.0]]), dim=1).tolist()
    [[0.5, 0.5]]
    """
    return _along(SOFTMAX, "softmax", input, dim, dtype)


@public(method=True)
def log_softmax(input, dim=None, dtype=None):
    """log_softmax(input, dim, dtype=None) -> Tensor

    out_i = x_i - log(sum_j exp(x_j)) along ``dim``, computed stably.

    >>> minflow.log_softmax(minflow.tensor([0.0, 0.0]), dim=0).exp().tolist()
    [0.5, 0.5]
    """
    return _along(LOG_SOFTMAX, "log_softmax", input, dim, dtype)


# ---- composites, differentiable through their parts --------------------------------
# inplace=True runs them via core.inplace: on a snapshot, then written into input.

@public
def elu(input, alpha=1.0, inplace=False):
    """elu(input, alpha=1.0, inplace=False) -> Tensor

    out = x if x > 0 else alpha * (exp(x) - 1).

    >>> minflow.nn.functional.elu(minflow.tensor([0.0, 2.0])).tolist()
    [0.0, 2.0]
    """
    infer.check_floating("elu", input)
    if inplace:
        return _inplace(elu, "elu", input, alpha)
    if input.dtype is dtypes.float16:   # torch's kernel: in float32, rounded once
        return in_float32(_elu, input, alpha, _expm1_as_torch)
    return _elu(input, alpha, F.expm1)


def _elu(input, alpha, expm1):
    # NOTE: expm1 sees min(x, 0): on the unused branch a huge x would give inf * 0 = nan
    neg = F.mul(expm1(F.clamp(input, max=0)), alpha)
    return F.where(F.gt(input, 0), input, neg)


def _expm1_as_torch(x):
    return rounded_from_float64(F.expm1, x)


@public
def elu_(input, alpha=1.0):
    """In-place version of :func:`elu`: elu_(input, alpha=1.0)."""
    return elu(input, alpha, inplace=True)


@public
def silu(input, inplace=False):
    """silu(input, inplace=False) -> Tensor

    out = x * sigmoid(x).

    >>> minflow.nn.functional.silu(minflow.tensor([0.0])).tolist()
    [0.0]
    """
    infer.check_floating("silu", input)
    if inplace:
        return _inplace(silu, "silu", input)
    if input.dtype is dtypes.float16:   # torch's kernel: x / (1 + exp(-x)) in float32
        return in_float32(lambda x: F.div(x, F.add(rounded_from_float64(F.exp, F.neg(x)),
                                                   1.0)), input)
    return F.mul(input, F.sigmoid(input))


@public
def softplus(input, beta=1.0, threshold=20.0):
    """softplus(input, beta=1.0, threshold=20.0) -> Tensor

    out = log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold.

    >>> round(minflow.nn.functional.softplus(minflow.tensor([0.0])).item(), 4)
    0.6931
    """
    infer.check_floating("softplus", input)
    if input.dtype is dtypes.float16:   # torch's kernel: in float32, rounded once
        return in_float32(softplus, input, beta, threshold)
    scaled = F.mul(input, beta)
    # NOTE: clamping keeps exp finite on the branch where() discards (no inf * 0 = nan)
    soft = F.div(F.log1p(F.exp(F.clamp(scaled, max=threshold))), beta)
    return F.where(F.gt(scaled, threshold), input, soft)


@public
def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False) -> Tensor

    out = min(max(x, min_val), max_val).

    >>> minflow.nn.functional.hardtanh(minflow.tensor([-3.0, 0.5, 3.0])).tolist()
    [-1.0, 0.5, 1.0]
    """
    if min_val > max_val:
        raise ValueError(f"hardtanh: min_val cannot be greater than max_val, got "
                         f"min_val={min_val}, max_val={max_val}")
    if inplace:
        return _inplace(hardtanh, "hardtanh", input, min_val, max_val)
    if not input.dtype.is_floating_point:      # torch casts the bounds to the input's type
        min_val, max_val = int(min_val), int(max_val)
    return F.clamp(input, min_val, max_val)


@public
def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """In-place version of :func:`hardtanh`: hardtanh_(input, min_val=-1.0,
    max_val=1.0)."""
    return hardtanh(input, min_val, max_val, inplace=True)


# NOTE: relu6, hardsigmoid and hardswish pick their branches with where() on constants, not
# clamp: torch's gradient is 0 at the kinks of relu6 and hardsigmoid (hardswish: 0 at -3,
# 1 at 3), where clamp's would be 1; NaN falls through to the last branch and stays NaN.

@public
def relu6(input, inplace=False):
    """relu6(input, inplace=False) -> Tensor

    out = min(max(x, 0), 6); the gradient is 0 at 0 and 6, as torch.

    >>> minflow.nn.functional.relu6(minflow.tensor([-1.0, 3.0, 7.0])).tolist()
    [0.0, 3.0, 6.0]
    """
    if inplace:
        return _inplace(relu6, "relu6", input)
    zero, six = (0.0, 6.0) if input.dtype.is_floating_point else (0, 6)     # keep int dtypes
    return F.where(F.le(input, zero), zero, F.where(F.ge(input, six), six, input))


@public
def hardsigmoid(input, inplace=False):
    """hardsigmoid(input, inplace=False) -> Tensor

    out = 0 if x <= -3, 1 if x >= 3, else x / 6 + 1 / 2.

    >>> minflow.nn.functional.hardsigmoid(minflow.tensor([-4.0, 0.0, 4.0])).tolist()
    [0.0, 0.5, 1.0]
    """
    infer.check_floating("hardsigmoid", input)
    if inplace:
        return _inplace(hardsigmoid, "hardsigmoid", input)
    if input.dtype is dtypes.float16:   # torch's kernel: in float32, rounded once
        return in_float32(hardsigmoid, input)
    middle = F.add(F.div(input, 6.0), 0.5)
    return F.where(F.le(input, -3.0), 0.0, F.where(F.ge(input, 3.0), 1.0, middle))


@public
def hardswish(input, inplace=False):
    """hardswish(input, inplace=False) -> Tensor

    out = 0 if x <= -3, x if x >= 3, else x * (x + 3) / 6.

    >>> minflow.nn.functional.hardswish(minflow.tensor([-4.0, 0.0, 4.0])).tolist()
    [-0.0, 0.0, 4.0]
    """
    infer.check_floating("hardswish", input)
    if inplace:
        return _inplace(hardswish, "hardswish", input)
    if input.dtype is dtypes.float16:   # torch's kernel: in float32, rounded once
        return in_float32(hardswish, input)
    middle = F.div(F.mul(input, F.add(input, 3.0)), 6.0)
    low = F.mul(input, 0.0)             # -0.0 there, as torch's x * min(max(x + 3, 0), 6) / 6
    return F.where(F.le(input, -3.0), low, F.where(F.ge(input, 3.0), input, middle))


@public
def mish(input, inplace=False):
    """mish(input, inplace=False) -> Tensor

    out = x * tanh(softplus(x)).

    >>> round(minflow.nn.functional.mish(minflow.tensor([1.0])).item(), 4)
    0.8651
    """
    infer.check_floating("mish", input)
    if inplace:
        return _inplace(mish, "mish", input)
    if input.dtype is dtypes.float16:   # torch's kernel: in float32, rounded once
        return in_float32(_mish_as_torch, input)
    return F.mul(input, F.tanh(softplus(input)))


def _mish_as_torch(x):
    """x tanh(log1p(exp(x))) in float32, as torch's kernel; exp sees min(x, 20), where
    tanh is 1 already, so that the gradient stays finite."""
    soft = rounded_from_float64(F.log1p, rounded_from_float64(F.exp, F.clamp(x, max=20.0)))
    return F.mul(x, rounded_from_float64(F.tanh, soft))


@public
def logsigmoid(input):
    """logsigmoid(input) -> Tensor

    out = log(1 / (1 + exp(-x))) = -softplus(-x), computed stably.

    >>> round(minflow.nn.functional.logsigmoid(minflow.tensor([0.0])).item(), 4)
    -0.6931
    """
    infer.check_floating("logsigmoid", input)
    if input.dtype is dtypes.float16:   # torch's kernel: in float32, rounded once
        return in_float32(logsigmoid, input)
    return F.neg(softplus(F.neg(input)))


@public
def softsign(input):
    """softsign(input) -> Tensor

    out = x / (1 + |x|).

    >>> minflow.nn.functional.softsign(minflow.tensor([-3.0, 1.0])).tolist()
    [-0.75, 0.5]
    """
    return F.div(input, F.add(F.abs(input), 1.0))


@public(method=True)
def prelu(input, weight):
    """prelu(input, weight) -> Tensor

    out = x if x > 0 else weight * x, ``weight`` one slope or one per channel (dim 1).

    >>> minflow.nn.functional.prelu(minflow.tensor([[-2.0, 3.0]]), minflow.tensor([0.25])).tolist()
    [[-0.5, 3.0]]
    >>> minflow.tensor([-4.0, 1.0]).prelu(minflow.tensor(0.5)).tolist()
    [-2.0, 1.0]
    """
    if not isinstance(weight, Tensor):
        raise TypeError(f"prelu: expected weight to be a Tensor, got {type(weight).__name__}")
    infer.check_same_dtype("prelu", input=input, weight=weight)
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.ndim}")
    channels = input.shape[1] if input.ndim >= 2 else 1
    if weight.numel() not in (1, channels):
        raise RuntimeError(f"prelu: Mismatch of parameter numbers and input channel size. "
                           f"Found parameter numbers = {weight.numel()} and channel size = "
                           f"{channels}.")
    # one slope acts as a scalar (a 0-d input stays 0-d), else one per channel along dim 1
    shape = () if weight.numel() == 1 else (channels,) + (1,) * (input.ndim - 2)
    return F.where(F.gt(input, 0), input, F.mul(F.reshape(weight, shape), input))


@public
def glu(input, dim=-1):
    """glu(input, dim=-1) -> Tensor

    Gated linear unit: a * sigmoid(b), where a and b are the two halves of ``input`` along
    ``dim``.

    >>> minflow.nn.functional.glu(minflow.tensor([2.0, 0.0])).tolist()
    [1.0]
    """
    infer.check_floating("glu", input)
    if input.ndim == 0:
        raise RuntimeError("glu: glu does not support scalars because halving size must be "
                           "even")
    dim = wrap_dim(dim, input.ndim, "glu")
    if input.shape[dim] % 2:
        raise RuntimeError(f"glu: Halving dimension must be even, but dimension {dim} is size "
                           f"{input.shape[dim]}")
    first, second = F.chunk(input, 2, dim)
    return F.mul(first, F.sigmoid(second))


sigmoid, tanh = F.sigmoid, F.tanh

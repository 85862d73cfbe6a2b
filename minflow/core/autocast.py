"""Autocast's casting policy, applied by the dispatcher to every op (see minflow.amp).

Inside ``minflow.autocast(device_type, dtype=float16 or bfloat16)`` an op on that device type
runs with its floating inputs cast by the op's policy, as torch's autocast does:

- lower precision (matmul, linear, conv...): float32 (and the other half type's) inputs are
  cast to the autocast dtype;
- float32 (reductions, exp/log, losses... where float16 loses too much): float16 and
  bfloat16 inputs are cast to float32;
- banned: the op refuses to run (binary_cross_entropy on cuda, as torch).

float64 inputs are never cast; ops on no list run in their inputs' dtypes. The lists follow
torch's per device type (cpu's float32 list is shorter than cuda's). Casts are ordinary ops,
so autograd sends gradients back through them in the parameters' dtypes. Backward runs
without autocast: grad ops run in the dtypes the forward chose.

``state.active`` is None outside every autocast region, so the dispatcher's cost is one
attribute check per op.
"""
import functools

from . import dtype as dtypes

__all__ = ["state", "cast_inputs", "wrap_composite", "suspended", "LOWER_PRECISION", "FLOAT32",
           "BANNED", "COMPOSITE_LOWER", "COMPOSITE_FLOAT32", "COMPOSITE_OPAQUE", "COMPOSITES"]

# op names (minflow's primitive ops), per device type
_LOWER_BOTH = frozenset({"matmul", "linear", "conv2d", "conv2d_grad_input", "einsum"})
LOWER_PRECISION = {"cpu": _LOWER_BOTH, "cuda": _LOWER_BOTH}
FLOAT32 = {
    "cpu": frozenset({"prod", "nll_loss", "cross_entropy", "binary_cross_entropy", "ctc_loss",
                      "binary_cross_entropy_with_logits", "inverse", "linalg_pinv",
                      "linalg_qr", "linalg_svd", "linalg_eigh", "linalg_solve",
                      "linalg_cholesky_ex", "linalg_solve_triangular"}),
    "cuda": frozenset({"pow", "exp", "expm1", "log", "log10", "log1p", "log2", "acos", "asin",
                       "cosh", "sinh", "tan", "erfinv", "reciprocal", "rsqrt", "softmax",
                       "log_softmax", "cumsum", "cumprod", "prod", "sum", "layer_norm",
                       "nll_loss", "cross_entropy", "binary_cross_entropy_with_logits"}),
}
BANNED = {"cpu": frozenset(), "cuda": frozenset({"binary_cross_entropy"})}

# public functions written as composites, by the name torch lists them under: their tensor
# arguments are cast by the list they are on, then the body runs with autocast off, so the
# whole function runs in one precision as torch's single op does. OPAQUE ones run in their
# inputs' dtypes (torch does not autocast them, though minflow builds them on matmul).
_LOSSES = {"mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "kl_div",
           "margin_ranking_loss", "soft_margin_loss", "hinge_embedding_loss",
           "cosine_embedding_loss", "poisson_nll_loss", "multilabel_margin_loss",
           "multi_margin_loss", "triplet_margin_loss"}
COMPOSITE_LOWER = {
    "cpu": frozenset({"mm", "bmm", "addmm", "baddbmm", "addbmm", "prelu", "conv1d",
                      "conv_transpose1d", "conv_transpose2d", "tensordot"}),
    "cuda": frozenset({"mm", "bmm", "addmm", "baddbmm", "addbmm", "addmv", "addr", "mv",
                       "chain_matmul", "multi_dot", "prelu", "conv1d", "conv_transpose1d",
                       "conv_transpose2d", "tensordot"}),
}
COMPOSITE_FLOAT32 = {
    "cpu": frozenset(_LOSSES | {"cdist"}),
    "cuda": frozenset(_LOSSES | {"cdist", "pdist", "cosine_similarity", "dist", "group_norm",
                                 "normalize", "softmin", "softplus", "renorm", "norm"}),
}
COMPOSITE_OPAQUE = {
    "cpu": frozenset({"mv", "dot", "vdot", "inner", "outer", "ger", "addmv", "addr"}),
    "cuda": frozenset({"dot", "vdot", "inner", "outer", "ger"}),
}
COMPOSITES = frozenset().union(*COMPOSITE_LOWER.values(), *COMPOSITE_FLOAT32.values(),
                               *COMPOSITE_OPAQUE.values())


class _State:
    __slots__ = ("active",)

    def __init__(self):
        self.active = None      # {device type: autocast dtype} while a region is on


state = _State()


def cast_inputs(op_name, inputs):
    """``inputs`` with the floating tensors (also those in a list input) cast by
    ``op_name``'s policy: a new tuple, or ``inputs`` itself where nothing changes."""
    result = [_cast(op_name, x, LOWER_PRECISION, FLOAT32) for x in inputs]
    return inputs if all(a is b for a, b in zip(result, inputs)) else tuple(result)


def _cast(name, x, lower, float32):
    """``x`` cast by ``name``'s place in the ``lower`` / ``float32`` lists (recursing into
    lists and tuples), or ``x`` itself."""
    from .tensor import Tensor
    if isinstance(x, (list, tuple)):
        items = [_cast(name, item, lower, float32) for item in x]
        return x if all(a is b for a, b in zip(items, x)) else type(x)(items)
    if not isinstance(x, Tensor):
        return x
    device_type = x.device.type
    target = state.active.get(device_type)
    if target is None:
        return x
    if name in BANNED[device_type]:
        raise RuntimeError(
            f"{name}: unsafe to autocast on {device_type}; use "
            f"binary_cross_entropy_with_logits (BCEWithLogitsLoss) instead, which is safe "
            f"to autocast, or leave the autocast region for this op")
    if x.dtype in _WIDE_OR_OTHER_LOW and x.dtype is not target and name in lower[device_type]:
        return x.to(target)
    if x.dtype in _LOW and name in float32[device_type]:
        return x.to(dtypes.float32)
    return x


_LOW = (dtypes.float16, dtypes.bfloat16)
_WIDE_OR_OTHER_LOW = (dtypes.float32,) + _LOW       # what a lower-precision op casts (no float64)


def wrap_composite(fn, name):
    """``fn`` (a composite public function on a list above) following its list inside
    autocast regions; outside them, one check more than ``fn``."""
    @functools.wraps(fn)
    def autocast_aware(*args, **kwargs):
        if state.active is None:
            return fn(*args, **kwargs)
        if not any(_on_device(a) for a in (*args, *kwargs.values())):
            return fn(*args, **kwargs)
        args = tuple(_cast(name, a, COMPOSITE_LOWER, COMPOSITE_FLOAT32) for a in args)
        kwargs = {k: _cast(name, v, COMPOSITE_LOWER, COMPOSITE_FLOAT32)
                  for k, v in kwargs.items()}
        with suspended():
            return fn(*args, **kwargs)
    return autocast_aware


def _on_device(x):
    """Whether ``x`` is a tensor on a device type an autocast region is on for."""
    from .tensor import Tensor
    return isinstance(x, Tensor) and x.device.type in state.active


class suspended:
    """Autocast off for the block (backward passes run under it), restored after."""

    __slots__ = ("_saved",)

    def __enter__(self):
        self._saved, state.active = state.active, None

    def __exit__(self, *exc):
        state.active = self._saved

"""nn ops with PyTorch's signatures (minflow.nn.functional takes ``__all__``): normalisation,
dropout, embedding, one_hot and scaled_dot_product_attention.

Fused ops, each with one kernel and a grad op that computes every input grad in one pass:
  batch_norm -> batch_norm_grad        layer_norm -> layer_norm_grad
  dropout    -> dropout_grad           (the mask is an output, saved for backward)
  embedding  -> embedding_grad         (duplicates accumulate; zero at padding_idx)
  one_hot, embedding_renorm            (no grad)
Kernels: kernels/generic/nn.py, plus numpy/nn.py and cupy/nn.py for embedding_grad's
scatter-add. Grad functions: autograd/grads/nn.py (double backward of the norms runs a
composite of differentiable ops; see there). dropout2d and attention are composites.
"""
import math
import warnings

from ..core import dtype as dtypes
from ..core.dispatch import apply
from ..core.functional import public
from ..core.grad_mode import no_grad
from ..core.inplace import inplace as _inplace
from ..core.namespace import F
from . import infer
from .registry import Attr, Input, define_op, get_op

__all__ = ["batch_norm", "layer_norm", "dropout", "dropout2d", "embedding", "one_hot",
           "scaled_dot_product_attention"]

OPAQUE = ("opaque", "no_side_effect")


def _check_params(params, input, shape, what):
    """weight, bias and running stats ({name: tensor or None}): ``shape``, and the input's
    dtype, or all float32 for a float16 input (mixed precision, as torch); that dtype."""
    given = {name: t for name, t in params.items() if t is not None}
    mixed = input.dtype is dtypes.float16 and any(t.dtype is dtypes.float32
                                                 for t in given.values())
    expected = dtypes.float32 if mixed else input.dtype
    for name, t in given.items():
        if tuple(t._data.shape) != shape:
            raise RuntimeError(f"expected {name} of shape {list(shape)} ({what}), got "
                               f"{list(t._data.shape)}")
        if t.dtype is not expected:
            also = " (float32 for all of them with a float16 input)" if mixed else ""
            raise RuntimeError(f"expected {name} of dtype {expected.name} (as input{also}), "
                               f"got {t.dtype.name}")
    return expected


def _grad_metas(grad_out, input, param_shape, param_dtype):
    if tuple(grad_out._data.shape) != tuple(input._data.shape):
        raise RuntimeError(f"expected grad_out of the input's shape {list(input._data.shape)}, "
                           f"got {list(grad_out._data.shape)}")
    return [(input._data.shape, input.dtype), (param_shape, param_dtype),
            (param_shape, param_dtype)]


# ---- batch_norm: y = (x - mean) / sqrt(var + eps) * weight + bias, stats per channel --------

def _batch_norm_infer(input, running_mean, running_var, weight, bias, training, eps):
    infer.check_dtype(input, dtypes.FLOATS)
    shape = tuple(input._data.shape)
    if len(shape) < 2:
        raise RuntimeError(f"expected input of shape (N, C), (N, C, L) or (N, C, H, W), got "
                           f"{list(shape)}")
    channels = (shape[1],)
    stats = _check_params({"running_mean": running_mean, "running_var": running_var,
                           "weight": weight, "bias": bias}, input, channels, "one per channel")
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError("running_mean and running_var must be defined in evaluation mode "
                           "(training=False)")
    if training and math.prod(shape) // max(shape[1], 1) == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input "
                         f"size {list(shape)}")
    return [(shape, input.dtype), (channels, stats), (channels, stats)]


BATCH_NORM = define_op(
    "batch_norm", ["input", Input("running_mean", optional=True),
                   Input("running_var", optional=True), Input("weight", optional=True),
                   Input("bias", optional=True)],
    outputs=("out", "mean", "var"), infer=_batch_norm_infer, traits=OPAQUE,
    attrs=[Attr("training", "bool"), Attr("eps", "float", min=0.0)],
    doc="(x - mean) / sqrt(var + eps) * weight + bias per channel (dim 1); mean and the "
        "biased var are the batch's when training, else the running stats (also outputs).")
BATCH_NORM_GRAD = define_op(
    "batch_norm_grad", ["grad_out", "input", Input("weight", optional=True), "mean", "var"],
    outputs=("grad_input", "grad_weight", "grad_bias"), traits=OPAQUE,
    infer=lambda grad_out, input, weight, mean, var, **_: _grad_metas(
        grad_out, input, tuple(mean._data.shape), mean.dtype),
    attrs=[Attr("training", "bool"), Attr("eps", "float", min=0.0)],
    doc="Grads of batch_norm in one pass; with training, through the batch statistics.")


@public
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
    momentum=0.1, eps=1e-05) -> Tensor

    y = (x - E[x]) / sqrt(Var[x] + eps) * weight + bias, per channel (dim 1) of an
    (N, C, *) input. Training normalises with the batch's statistics (biased variance) and
    updates the running stats in place: running = (1 - momentum) * running + momentum * stat,
    with the unbiased variance. Evaluation normalises with the running stats.

    >>> x = minflow.tensor([[1.0], [3.0]])
    >>> minflow.nn.functional.batch_norm(x, None, None, training=True, eps=1e-12).tolist()
    [[-1.0], [1.0]]
    """
    if isinstance(momentum, bool) or not isinstance(momentum, (int, float)):
        raise TypeError(f"batch_norm: expected momentum to be a float, got {momentum!r}")
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    out, mean, var = apply(BATCH_NORM, (input, running_mean, running_var, weight, bias),
                           {"training": training, "eps": eps})
    # NOTE: checked after the op's own shape checks, in torch's order
    if training and (running_mean is None) != (running_var is None):
        raise ValueError("batch_norm: running_mean and running_var must either both be None "
                         "or neither be None")
    # an empty batch has no statistics: torch leaves the running ones as they are
    if training and input.numel() and (running_mean is not None or running_var is not None):
        n = input.numel() // max(input.shape[1], 1)
        with no_grad():
            _blend(running_mean, mean, momentum)
            _blend(running_var, var, momentum, n / (n - 1))
    return out


def _blend(running, stat, momentum, correction=1.0):
    if running is not None:
        running.copy_(F.add(F.mul(running, 1.0 - momentum), F.mul(stat, momentum * correction)))


# ---- layer_norm: the same over the trailing normalized_shape dims, per sample -------------

def _layer_norm_infer(input, weight, bias, normalized_shape, eps):
    infer.check_dtype(input, dtypes.FLOATS)
    shape, k = tuple(input._data.shape), len(normalized_shape)
    if not k:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    if shape[len(shape) - k:] != normalized_shape:
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input "
                           f"with shape [*, {str(list(normalized_shape))[1:-1]}], but got "
                           f"input of size {list(shape)}")
    param_dtype = _check_params({"weight": weight, "bias": bias}, input, normalized_shape,
                                "normalized_shape")
    stats = shape[:len(shape) - k] + (1,) * k
    return [(shape, input.dtype), (stats, param_dtype), (stats, param_dtype)]


LAYER_NORM = define_op(
    "layer_norm", ["input", Input("weight", optional=True), Input("bias", optional=True)],
    outputs=("out", "mean", "rstd"), infer=_layer_norm_infer, traits=OPAQUE,
    attrs=[Attr("normalized_shape", "ints"), Attr("eps", "float")],     # torch: any eps
    doc="(x - mean) * rstd * weight + bias over the trailing normalized_shape dims; "
        "mean and rstd = 1 / sqrt(biased var + eps) are outputs too (kept dims).")
LAYER_NORM_GRAD = define_op(
    "layer_norm_grad", ["grad_out", "input", Input("weight", optional=True), "mean", "rstd"],
    outputs=("grad_input", "grad_weight", "grad_bias"), traits=OPAQUE,
    infer=lambda grad_out, input, weight, mean, rstd, normalized_shape: _grad_metas(
        grad_out, input, normalized_shape, mean.dtype),
    attrs=[Attr("normalized_shape", "ints")], doc="Grads of layer_norm in one pass.")


@public
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05) -> Tensor

    y = (x - E[x]) / sqrt(Var[x] + eps) * weight + bias, with mean and biased variance over
    the trailing dims given by ``normalized_shape`` (an int is taken as one dim).

    >>> x = minflow.tensor([[1.0, 3.0]])
    >>> minflow.nn.functional.layer_norm(x, (2,), eps=0.0).tolist()
    [[-1.0, 1.0]]
    """
    normalized_shape = infer.check_shape("layer_norm", "normalized_shape", normalized_shape)
    out, _, _ = apply(LAYER_NORM, (input, weight, bias),
                      {"normalized_shape": normalized_shape, "eps": eps})
    return out


# ---- dropout: zero with probability p, scale the rest by 1 / (1 - p) ------------------------

def dropout_scale(p):
    """The factor kept elements are multiplied by (0 when everything is dropped)."""
    return 1.0 / (1.0 - p) if p < 1.0 else 0.0


def _dropout_infer(input, p, generator):
    infer.check_dtype(input, dtypes.FLOATS)
    return [(input._data.shape, input.dtype), (input._data.shape, dtypes.bool)]


# NOTE: "random" without "no_side_effect": graph passes must not merge two dropouts
DROPOUT = define_op(
    "dropout", ["input"], outputs=("out", "mask"), infer=_dropout_infer,
    attrs=[Attr("p", "float", 0.5, min=0.0, max=1.0), Attr("generator", "any", None,
                                                            optional=True)],
    traits=("elementwise", "random"),
    doc="mask = U[0, 1) >= p from the generator (the device's default if None); "
        "out = x * mask / (1 - p), 0 where dropped; x * 0 when p = 1.")
DROPOUT_GRAD = define_op(
    "dropout_grad", ["grad_out", "mask"], traits=("elementwise", "no_side_effect"),
    infer=lambda grad_out, mask, scale: (grad_out._data.shape, grad_out.dtype),
    attrs=[Attr("scale", "float")], doc="grad_out * scale where mask, else 0.")


def _check_p(p):
    if not 0.0 <= infer.check_number("dropout", "p", p) <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


@public
def dropout(input, p=0.5, training=True, inplace=False):
    """dropout(input, p=0.5, training=True, inplace=False) -> Tensor

    Zeroes each element with probability ``p`` (drawn from the default generator, so
    ``minflow.manual_seed`` makes it reproducible) and scales the rest by 1 / (1 - p);
    the identity when not training. With p=1 the result is input * 0, as PyTorch: NaN
    where input is inf or NaN.

    >>> x = minflow.ones(4)
    >>> minflow.nn.functional.dropout(x, 0.5, training=False) is x
    True
    """
    _check_p(p)
    if not training:
        return input
    if inplace:
        return _inplace(dropout, "dropout", input, p)
    out, _ = apply(DROPOUT, (input,), {"p": p})
    return out


@public
def dropout2d(input, p=0.5, training=True, inplace=False):
    """dropout2d(input, p=0.5, training=True, inplace=False) -> Tensor

    Zeroes whole channels: each (n, c) plane of an (N, C, H, W) input is dropped with
    probability ``p``, the rest scaled by 1 / (1 - p). A 3-D input is taken as (N, C, L).

    >>> minflow.nn.functional.dropout2d(minflow.ones(2, 3, 4, 4), 0.5).shape
    minflow.Size([2, 3, 4, 4])
    """
    _check_p(p)
    if input.ndim < 2:
        raise RuntimeError(f"dropout2d: Feature dropout requires at least 2 dimensions in the "
                           f"input, got shape {list(input.shape)}")
    if input.ndim == 3:
        warnings.warn("dropout2d: received a 3-D input, taken as (N, C, L) with its channels "
                      "dropped, as torch does for now (torch will take it as one unbatched "
                      "(C, H, W) sample); use dropout1d for channel-wise 1-D dropout",
                      stacklevel=2)
    elif input.ndim != 4:
        warnings.warn(f"dropout2d: received a {input.ndim}-D input; dropout2d drops channels "
                      f"of 3-D or 4-D inputs (use dropout instead)", stacklevel=2)
    if not training:
        return input
    if inplace:
        return _inplace(dropout2d, "dropout2d", input, p)
    noise_shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
    keep = F.ge(F.rand(*noise_shape, dtype=input.dtype, device=input.device), p)
    return F.mul(input, F.mul(F.cast(keep, input.dtype), dropout_scale(p)))


# ---- embedding: rows of weight picked by integer indices -----------------------------------

def _indices(input, name):
    if input.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(f"expected {name} (indices) of dtype int64 or int32, got "
                           f"{input.dtype.name}")


def _embedding_infer(input, weight, padding_idx, scale_grad_by_freq):
    _indices(input, "input")
    if weight.ndim != 2:
        raise RuntimeError(f"expected weight of 2 dims (num_embeddings, embedding_dim), got "
                           f"shape {list(weight._data.shape)}")
    return tuple(input._data.shape) + tuple(weight._data.shape[1:]), weight.dtype


_EMBED_ATTRS = [Attr("padding_idx", "int", None, optional=True),
                Attr("scale_grad_by_freq", "bool", False)]
EMBEDDING = define_op(
    "embedding", ["input", "weight"], infer=_embedding_infer, attrs=_EMBED_ATTRS,
    traits=OPAQUE, dtype_from="weight",
    doc="weight[input]: one row per index; padding_idx and scale_grad_by_freq shape the grad.")
EMBEDDING_GRAD = define_op(
    "embedding_grad", ["grad_out", "input"], attrs=[Attr("num_weights", "int", min=0)]
    + _EMBED_ATTRS, traits=OPAQUE,
    infer=lambda grad_out, input, num_weights, **_: (
        (num_weights,) + tuple(grad_out._data.shape[input.ndim:]), grad_out.dtype),
    doc="Rows of grad_out summed into row input[i] (duplicates accumulate), divided by the "
        "index counts with scale_grad_by_freq; zero at padding_idx.")


def _renorm_infer(weight, input, max_norm, norm_type):
    _indices(input, "input")
    infer.check_dtype(weight, dtypes.FLOATS, "weight")
    return weight._data.shape, weight.dtype


EMBEDDING_RENORM = define_op(
    "embedding_renorm", ["weight", "input"], infer=_renorm_infer,
    attrs=[Attr("max_norm", "float"), Attr("norm_type", "float")], traits=("no_grad",),
    doc="weight with each row indexed by input scaled to norm <= max_norm.")


@public
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
    scale_grad_by_freq=False, sparse=False) -> Tensor

    out[...] = weight[input[...]] for integer indices of any shape. Repeated indices sum
    their grads; row ``padding_idx`` gets none. ``max_norm`` renormalises the rows used, in
    place, to a ``norm_type`` norm of at most max_norm.

    >>> w = minflow.tensor([[0.0, 0.0], [1.0, 2.0]])
    >>> minflow.nn.functional.embedding(minflow.tensor([1, 0]), w).tolist()
    [[1.0, 2.0], [0.0, 0.0]]
    """
    if sparse:
        raise NotImplementedError("embedding: sparse=True is not supported (minflow has no "
                                  "sparse tensors); use sparse=False for a dense grad")
    if padding_idx is not None and weight.ndim == 2:
        rows = weight.shape[0]
        if not -rows <= padding_idx < rows:
            # AssertionError, as torch's (a Python assert there)
            raise AssertionError(f"embedding: padding_idx must be within num_embeddings "
                                 f"[{-rows}, {rows}), got {padding_idx}")
        padding_idx %= rows
    if max_norm is not None:
        with no_grad():
            weight.copy_(apply(EMBEDDING_RENORM, (weight, input),
                               {"max_norm": max_norm, "norm_type": norm_type}))
    return apply(EMBEDDING, (input, weight), {"padding_idx": padding_idx,
                                              "scale_grad_by_freq": scale_grad_by_freq})


# ---- one_hot: int64 indicator rows ------------------------------------------------------

def _check_one_hot_dtype(input):
    if input.dtype is not dtypes.int64:
        raise RuntimeError(f"one_hot: expected input of dtype int64 (class indices), got "
                           f"{input.dtype.name}")


def _one_hot_infer(input, num_classes):
    _check_one_hot_dtype(input)
    return tuple(input._data.shape) + (num_classes,), dtypes.int64


ONE_HOT = define_op("one_hot", ["input"], infer=_one_hot_infer,
                    attrs=[Attr("num_classes", "int", min=0)], traits=OPAQUE + ("no_grad",),
                    doc="out[..., c] = 1 where input[...] == c, else 0 (int64).")


@public
def one_hot(tensor, num_classes=-1):
    """one_hot(tensor, num_classes=-1) -> Tensor

    int64 indicators of the int64 class indices in ``tensor``, in a new last dim of size
    ``num_classes`` (-1: one more than the largest index).

    >>> minflow.nn.functional.one_hot(minflow.tensor([0, 2])).tolist()
    [[1, 0, 0], [0, 0, 1]]
    """
    _check_one_hot_dtype(tensor)
    if num_classes == -1:
        if tensor.numel() == 0:
            raise RuntimeError("one_hot: Can not infer total number of classes from empty "
                               "tensor; pass num_classes")
        num_classes = max(int(F.amax(tensor)) + 1, 0)
    elif isinstance(num_classes, int) and num_classes < 0:
        raise RuntimeError(f"one_hot: num_classes must be -1 (inferred) or >= 0, got "
                           f"{num_classes}")
    return apply(ONE_HOT, (tensor,), {"num_classes": num_classes})


# ---- attention ---------------------------------------------------------------------------

# The sdpa backends (torch's SDPBackend values: 0 math, 1 flash, 2 memory-efficient,
# 3 cuDNN) that nn.attention.sdpa_kernel and backends.cuda.enable_*_sdp leave on. minflow has
# one implementation; it stands for those torch has on the device (cpu: math and flash).
SDPA_ENABLED = {0, 1, 2, 3}
_SDPA_MATH = frozenset({0})
_SDPA_SERVED = {"cpu": frozenset({0, 1}), "cuda": frozenset({0, 1, 2, 3})}


def _check_attention(query, key, value, attn_mask, is_causal):
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise RuntimeError(f"scaled_dot_product_attention: expected query, key and value of at "
                           f"least 2 dims, got shapes {list(query.shape)}, {list(key.shape)}, "
                           f"{list(value.shape)}")
    if query.shape[-1] != key.shape[-1] or key.shape[-2] != value.shape[-2]:
        raise RuntimeError(f"scaled_dot_product_attention: query {list(query.shape)} and key "
                           f"{list(key.shape)} must share the last dim, key and value "
                           f"{list(value.shape)} the sequence dim")
    if is_causal and attn_mask is not None:
        raise RuntimeError("scaled_dot_product_attention: attn_mask must be None when "
                           "is_causal=True")


@public
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
    is_causal=False, scale=None, enable_gqa=False) -> Tensor

    softmax(Q K^T * scale + mask) V over (..., L, E) queries and (..., S, E) keys, with
    scale = 1/sqrt(E) by default. A bool ``attn_mask`` keeps the positions where it is
    True; a float one is added to the scores; ``is_causal`` keeps key j <= query i. A query
    row that every key is masked from gets zeros (not NaN), as torch's. ``dropout_p`` drops
    attention weights (always: pass 0.0 in evaluation, as in PyTorch). ``enable_gqa``:
    grouped-query attention, key and value with fewer heads (dim -3) than query, each
    shared by query heads // kv heads consecutive query heads.

    >>> q, kv = minflow.ones(1, 4, 2, 8), minflow.ones(1, 2, 3, 8)
    >>> minflow.nn.functional.scaled_dot_product_attention(q, kv, kv, enable_gqa=True).shape
    minflow.Size([1, 4, 2, 8])
    """
    _check_attention(query, key, value, attn_mask, is_causal)
    if not SDPA_ENABLED & _SDPA_SERVED.get(query.device.type, _SDPA_MATH):
        raise RuntimeError("No viable backend for scaled_dot_product_attention was found. "
                           "This is likely due to turning off both the math kernel and the "
                           "fused kernels (minflow.nn.attention.sdpa_kernel).")
    if enable_gqa:
        key, value = _grouped(query, key, "key"), _grouped(query, value, "value")
    if scale is None:
        scale = 1.0 / math.sqrt(query.shape[-1])
    scores = F.mul(apply(get_op("matmul"), (query, key), {"transpose_other": True}), scale)
    if is_causal:
        length, source = query.shape[-2], key.shape[-2]
        rows = F.reshape(F.arange(length, device=query.device), (length, 1))
        attn_mask = F.le(F.arange(source, device=query.device), rows)
    if attn_mask is not None:
        if attn_mask.dtype is dtypes.bool:
            scores = F.masked_fill(scores, F.logical_not(attn_mask), float("-inf"))
        else:
            scores = F.add(scores, attn_mask)
    if attn_mask is None:
        weights = F.softmax(scores, -1)
    else:       # rows with every key masked: 0 (and no NaN grads), as torch's safe softmax
        unseen = F.all(F.eq(scores, float("-inf")), -1, True)
        weights = F.masked_fill(F.softmax(F.masked_fill(scores, unseen, 0.0), -1), unseen, 0.0)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p)
    return F.matmul(weights, value)


def _grouped(query, kv, name):
    """``kv`` with each of its heads (dim -3) repeated for the query heads that share it."""
    if query.ndim < 3 or kv.ndim < 3:
        return kv
    heads, kv_heads = query.shape[-3], kv.shape[-3]
    if kv_heads == 0 or heads % kv_heads:
        raise RuntimeError(f"scaled_dot_product_attention: number of heads in {name} "
                           f"({kv_heads}) must divide the number of heads in query ({heads}) "
                           f"with enable_gqa=True")
    return kv if heads == kv_heads else F.repeat_interleave(kv, heads // kv_heads, -3)

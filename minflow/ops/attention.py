"""multi_head_attention_forward, torch.nn.functional's: the computation of
nn.MultiheadAttention with its weights as arguments, in the (L, N, E) layout.

A composite, step for step torch's: in-projection (packed or separate weights), bias_k /
bias_v and zero-attention keys appended, masks merged into one additive float mask, then
either explicit weights (need_weights: softmax of the scaled scores plus mask, averaged
over heads unless asked not to) or scaled_dot_product_attention, and the out-projection.
"""
import math

from ..core import dtype as dtypes
from ..core.functional import public
from ..core.namespace import F
from .join import pad
from .nn import scaled_dot_product_attention

__all__ = ["multi_head_attention_forward"]


def _shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """torch's _mha_shape_check: True for batched (3-D) inputs."""
    if query.ndim not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received "
                             f"{query.ndim}-D query tensor")
    batched = query.ndim == 3
    kind = "batched (3-D)" if batched else "unbatched (2-D)"
    if key.ndim != query.ndim or value.ndim != query.ndim:
        raise AssertionError(f"For {kind} `query`, expected `key` and `value` to be "
                             f"{query.ndim}-D but found {key.ndim}-D and {value.ndim}-D tensors "
                             f"respectively")
    if key_padding_mask is not None and key_padding_mask.ndim != query.ndim - 1:
        raise AssertionError(f"For {kind} `query`, expected `key_padding_mask` to be `None` or "
                             f"{query.ndim - 1}-D but found {key_padding_mask.ndim}-D tensor "
                             f"instead")
    if attn_mask is not None:
        if attn_mask.ndim not in (2, 3):
            raise AssertionError(f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D "
                                 f"or 3-D but found {attn_mask.ndim}-D tensor instead")
        expected = (num_heads, query.shape[0], key.shape[0])
        if not batched and attn_mask.ndim == 3 and tuple(attn_mask.shape) != expected:
            raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                 f"{tuple(attn_mask.shape)}")
    return batched


def _float_mask(mask, name, dtype):
    """A bool mask (True = may not attend) as 0 / -inf in ``dtype``; a float one as is."""
    if mask is None:
        return None
    if mask.dtype is dtypes.bool:
        return F.masked_fill(F.zeros(*mask.shape, dtype=dtype, device=mask.device), mask,
                             float("-inf"))
    if not mask.dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {name} are supported, got "
                             f"{mask.dtype.name}")
    return mask


def _in_projection(query, key, value, weights, biases):
    """q, k, v: each input through its (E, E_in) weight; one linear when all three are the
    same tensor and the weights are packed."""
    if weights[0] is None:
        packed, bias = weights[1], biases
        if query is key and key is value:
            return F.chunk(F.linear(query, packed, bias), 3, -1)
        w_q, w_k, w_v = F.chunk(packed, 3)
        b_q, b_k, b_v = (None,) * 3 if bias is None else F.chunk(bias, 3)
    else:
        w_q, w_k, w_v = weights
        b_q, b_k, b_v = (None,) * 3 if biases is None else F.chunk(biases, 3)
    return F.linear(query, w_q, b_q), F.linear(key, w_k, b_k), F.linear(value, w_v, b_v)


def _check_attn_mask(attn_mask, tgt_len, src_len, heads):
    if attn_mask.ndim == 2:
        if tuple(attn_mask.shape) != (tgt_len, src_len):
            raise RuntimeError(f"The shape of the 2D attn_mask is {tuple(attn_mask.shape)}, but "
                               f"should be {(tgt_len, src_len)}.")
        return F.unsqueeze(attn_mask, 0)
    if tuple(attn_mask.shape) != (heads, tgt_len, src_len):
        raise RuntimeError(f"The shape of the 3D attn_mask is {tuple(attn_mask.shape)}, but "
                           f"should be {(heads, tgt_len, src_len)}.")
    return attn_mask


def _heads(t, length, heads, head_dim, static, name):
    """(length, N, E) -> (N * heads, length, head_dim), or ``static`` (checked) instead."""
    if static is None:
        return F.transpose(F.reshape(t, (length, heads, head_dim)), 0, 1)
    if static.shape[0] != heads:
        raise AssertionError(f"expecting {name}.size(0) of {heads}, but got {static.shape[0]}")
    if static.shape[2] != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got "
                             f"{static.shape[2]}")
    return static


@public
def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
    in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn, dropout_p,
    out_proj_weight, out_proj_bias, training=True, key_padding_mask=None,
    need_weights=True, attn_mask=None, use_separate_proj_weight=False, q_proj_weight=None,
    k_proj_weight=None, v_proj_weight=None, static_k=None, static_v=None,
    average_attn_weights=True, is_causal=False) -> (output, weights or None)

    nn.MultiheadAttention's computation: query (L, N, E), key and value (S, N, E) (or
    unbatched (L, E), (S, E)); per head softmax(Q K^T / sqrt(head_dim) + mask) V, heads
    concatenated, then out_proj. Masks: bool (True = may not attend) or float (added).
    ``static_k`` / ``static_v`` ((N * num_heads, S, head_dim)) replace the projected keys
    / values. Weights (N, L, S) averaged over heads, or (N, num_heads, L, S).

    >>> x, w = minflow.ones(3, 2, 4), minflow.eye(4).repeat(3, 1)
    >>> out, weights = minflow.nn.functional.multi_head_attention_forward(
    ...     x, x, x, 4, 2, w, None, None, None, False, 0.0, minflow.eye(4), None)
    >>> out.shape, weights.shape
    (minflow.Size([3, 2, 4]), minflow.Size([2, 3, 3]))
    """
    batched = _shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = (F.unsqueeze(t, 1) for t in (query, key, value))
        if key_padding_mask is not None:
            key_padding_mask = F.unsqueeze(key_padding_mask, 0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _float_mask(key_padding_mask, "key_padding_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None        # scaled_dot_product_attention's is_causal does it
    else:
        attn_mask = _float_mask(attn_mask, "attn_mask", query.dtype)
        is_causal = is_causal and key_padding_mask is None
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    _check_projection(key, value, use_separate_proj_weight, in_proj_weight,
                      (q_proj_weight, k_proj_weight, v_proj_weight))
    weights = (q_proj_weight, k_proj_weight, v_proj_weight) if use_separate_proj_weight \
        else (None, in_proj_weight, None)
    q, k, v = _in_projection(query, key, value, weights, in_proj_bias)
    if attn_mask is not None:
        attn_mask = _check_attn_mask(attn_mask, tgt_len, src_len, bsz * num_heads)
    if (bias_k is None) != (bias_v is None):
        raise AssertionError(f"bias_{'k' if bias_v is None else 'v'} is set but "
                             f"bias_{'v' if bias_v is None else 'k'} is None")
    if bias_k is not None:
        if static_k is not None or static_v is not None:
            raise AssertionError(f"bias cannot be added to static "
                                 f"{'key' if static_k is not None else 'value'}.")
        k = F.cat([k, bias_k.repeat(1, bsz, 1)])
        v = F.cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask, key_padding_mask = _pad_masks(attn_mask, key_padding_mask)
    heads = bsz * num_heads
    q = _heads(q, tgt_len, heads, head_dim, None, "")
    k = _heads(k, k.shape[0], heads, head_dim, static_k, "static_k")
    v = _heads(v, v.shape[0], heads, head_dim, static_v, "static_v")
    if add_zero_attn:
        zeros = F.zeros(heads, 1, head_dim, dtype=k.dtype, device=k.device)
        k, v = F.cat([k, zeros], 1), F.cat([v, zeros], 1)
        attn_mask, key_padding_mask = _pad_masks(attn_mask, key_padding_mask)
    src_len = k.shape[1]
    if key_padding_mask is not None:
        for dim, size in enumerate((bsz, src_len)):
            if key_padding_mask.shape[dim] != size:
                raise AssertionError(f"Expected key_padding_mask.shape[{dim}] to be {size}, but "
                                     f"got {key_padding_mask.shape[dim]}")
        padding = F.reshape(F.expand(F.reshape(key_padding_mask, (bsz, 1, 1, src_len)),
                                     bsz, num_heads, 1, src_len), (heads, 1, src_len))
        attn_mask = padding if attn_mask is None else F.add(attn_mask, padding)
    if not training:
        dropout_p = 0.0
    shape = (tgt_len, bsz, num_heads, head_dim, src_len)
    out, attn = (_explicit if need_weights else _fused)(q, k, v, attn_mask, dropout_p,
                                                        is_causal, shape)
    out = F.reshape(F.linear(out, out_proj_weight, out_proj_bias), (tgt_len, bsz, -1))
    if attn is not None and average_attn_weights:
        attn = F.mean(attn, 1)
    if not batched:
        out = F.squeeze(out, 1)
        attn = None if attn is None else F.squeeze(attn, 0)
    return out, attn


def _check_projection(key, value, separate, in_proj_weight, weights):
    if separate:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {tuple(key.shape[:2])} do not "
                                 f"match value's {tuple(value.shape[:2])}")
        for name, w in zip("qkv", weights):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight "
                                     f"is None")
    else:
        if tuple(key.shape) != tuple(value.shape):
            raise AssertionError(f"key shape {tuple(key.shape)} does not match value shape "
                                 f"{tuple(value.shape)}")
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")


def _pad_masks(attn_mask, key_padding_mask):
    """Both masks with one more key position, which every query may attend to."""
    return tuple(None if m is None else pad(m, (0, 1)) for m in (attn_mask, key_padding_mask))


def _explicit(q, k, v, attn_mask, dropout_p, is_causal, shape):
    """need_weights: softmax(q k^T / sqrt(head_dim) + mask) as torch computes it, and the
    weights (N, num_heads, L, S)."""
    tgt_len, bsz, num_heads, head_dim, src_len = shape
    q_scaled = F.mul(q, math.sqrt(1.0 / float(head_dim)))
    k_t = F.transpose(k, -2, -1)
    scores = F.bmm(q_scaled, k_t) if attn_mask is None else F.baddbmm(attn_mask, q_scaled, k_t)
    weights = F.softmax(scores, -1)
    if dropout_p > 0.0:
        weights = F.dropout(weights, dropout_p)
    out = F.reshape(F.transpose(F.bmm(weights, v), 0, 1), (tgt_len * bsz, num_heads * head_dim))
    return out, F.reshape(weights, (bsz, num_heads, tgt_len, src_len))


def _fused(q, k, v, attn_mask, dropout_p, is_causal, shape):
    """Without weights: scaled_dot_product_attention on (N, num_heads, L or S, head_dim)."""
    tgt_len, bsz, num_heads, head_dim, src_len = shape
    if attn_mask is not None:
        attn_mask = F.unsqueeze(attn_mask, 0) if attn_mask.shape[0] == 1 else \
            F.reshape(attn_mask, (bsz, num_heads, -1, src_len))
    q, k, v = (F.reshape(t, (bsz, num_heads, t.shape[1], head_dim)) for t in (q, k, v))
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    return F.reshape(F.permute(out, 2, 0, 1, 3), (bsz * tgt_len, num_heads * head_dim)), None

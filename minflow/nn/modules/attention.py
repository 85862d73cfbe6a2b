"""MultiheadAttention with PyTorch's parameters, masks and (seq, batch, embed) default layout.

softmax(Q K^T / sqrt(head_dim) + mask) V per head, with Q, K, V the input projections
(``in_proj_weight`` packs the three when query, key and value share embed_dim) and the
heads' outputs concatenated and projected by ``out_proj``.
"""
import math

from ...core import dtype as dtypes
from ...core.namespace import F
from ...ops.infer import check_int
from ...ops.join import pad
from .. import init
from ..parameter import Parameter
from .linear import NonDynamicallyQuantizableLinear
from .module import Module

__all__ = ["MultiheadAttention"]


class MultiheadAttention(Module):
    """Multi-head attention: ``forward(query, key, value)`` -> (output, weights or None).

    Inputs are (L, N, E) (or (N, L, E) with batch_first; (L, E) unbatched). ``attn_mask``
    (L, S) or (N * num_heads, L, S) and ``key_padding_mask`` (N, S) are bool (True = may
    NOT attend) or float (added to the scores). Weights are (N, L, S), averaged over heads,
    or (N, num_heads, L, S) with average_attn_weights=False.

    >>> mha = minflow.nn.MultiheadAttention(8, 2, batch_first=True)
    >>> x = minflow.randn(3, 5, 8)
    >>> out, weights = mha(x, x, x)
    >>> out.shape, weights.shape
    (minflow.Size([3, 5, 8]), minflow.Size([3, 5, 5]))
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        super().__init__()
        check_int("MultiheadAttention", "embed_dim", embed_dim)
        check_int("MultiheadAttention", "num_heads", num_heads)
        if embed_dim <= 0 or num_heads <= 0 or embed_dim % num_heads:
            raise ValueError(f"MultiheadAttention: embed_dim ({embed_dim}) must be positive "
                             f"and divisible by num_heads ({num_heads})")
        self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, dropout
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.head_dim, self.batch_first = embed_dim // num_heads, batch_first
        kw = {"device": device, "dtype": dtype}
        packed = self._qkv_same_embed_dim
        for name, cols in (("q_proj_weight", embed_dim), ("k_proj_weight", self.kdim),
                           ("v_proj_weight", self.vdim)):
            self.register_parameter(name, None if packed else
                                    Parameter(F.empty(embed_dim, cols, **kw)))
        self.register_parameter("in_proj_weight", Parameter(F.empty(3 * embed_dim, embed_dim,
                                                                    **kw)) if packed else None)
        self.register_parameter("in_proj_bias", Parameter(F.empty(3 * embed_dim, **kw))
                                if bias else None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias, **kw)
        if add_bias_kv:     # one more key and value, learned, appended to every sequence
            self.bias_k = Parameter(F.empty(1, 1, embed_dim, **kw))
            self.bias_v = Parameter(F.empty(1, 1, embed_dim, **kw))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn      # and a zero key and value after those
        self._reset_parameters()

    def _reset_parameters(self):
        for weight in (self.in_proj_weight, self.q_proj_weight, self.k_proj_weight,
                       self.v_proj_weight):
            if weight is not None:
                init.xavier_uniform_(weight)
        if self.in_proj_bias is not None:
            init.zeros_(self.in_proj_bias)
            init.zeros_(self.out_proj.bias)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        batched = self._check_inputs(query, key, value, key_padding_mask)
        if not batched:
            query, key, value = query.unsqueeze(0), key.unsqueeze(0), value.unsqueeze(0)
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
            if attn_mask is not None and attn_mask.ndim == 3:
                attn_mask = attn_mask.unsqueeze(0)
        elif not self.batch_first:
            query, key, value = (t.transpose(0, 1) for t in (query, key, value))
        if is_causal and attn_mask is None:
            raise RuntimeError("MultiheadAttention: is_causal=True is a hint that attn_mask "
                               "is the causal mask; pass that mask as attn_mask too")
        if is_causal and key_padding_mask is None and not need_weights:
            attn_mask = _causal_mask(query.shape[1], key.shape[1], query.device)
        mask = self._merged_mask(attn_mask, key_padding_mask, query)
        q, k, v = self._project(query, key, value)
        extra = k.shape[2] - key.shape[1]       # keys added by add_bias_kv / add_zero_attn
        if mask is not None and extra:
            mask = pad(mask, (0, extra))        # which every query may attend to
        out, weights = self._attend(q, k, v, mask)
        if not batched:
            out = out.squeeze(0)
        elif not self.batch_first:
            out = out.transpose(0, 1)
        if not need_weights:
            return out, None
        if average_attn_weights:
            weights = weights.mean(dim=1)
        return out, (weights if batched else weights.squeeze(0))

    def _check_inputs(self, query, key, value, key_padding_mask):
        """Shapes as PyTorch's _mha_shape_check; True when the inputs are batched (3-D)."""
        if query.ndim not in (2, 3) or key.ndim != query.ndim or value.ndim != query.ndim:
            raise RuntimeError(f"MultiheadAttention: expected query, key and value all 3-D "
                               f"(batched) or all 2-D (unbatched), got shapes "
                               f"{tuple(query.shape)}, {tuple(key.shape)}, {tuple(value.shape)}")
        for name, t, dim in (("query", query, self.embed_dim), ("key", key, self.kdim),
                             ("value", value, self.vdim)):
            if t.shape[-1] != dim:
                raise RuntimeError(f"MultiheadAttention: expected {name} with last dimension "
                                   f"{dim}, got shape {tuple(t.shape)}")
        batch_dim = 0 if self.batch_first else 1
        if key.shape[:-1] != value.shape[:-1] or (
                query.ndim == 3 and key.shape[batch_dim] != query.shape[batch_dim]):
            raise RuntimeError(f"MultiheadAttention: key {tuple(key.shape)} and value "
                               f"{tuple(value.shape)} must match in sequence and batch dims, "
                               f"and share the batch dim with query {tuple(query.shape)}")
        if key_padding_mask is not None and key_padding_mask.ndim != query.ndim - 1:
            raise RuntimeError(f"MultiheadAttention: expected key_padding_mask of "
                               f"{query.ndim - 1} dims (batch, source), got shape "
                               f"{tuple(key_padding_mask.shape)}")
        return query.ndim == 3

    def _project(self, query, key, value):
        """(N, L, E) inputs -> q, k, v split into heads: (N, num_heads, L or S, head_dim)."""
        if self._qkv_same_embed_dim:
            w_q, w_k, w_v = F.chunk(self.in_proj_weight, 3)
        else:
            w_q, w_k, w_v = self.q_proj_weight, self.k_proj_weight, self.v_proj_weight
        b_q = b_k = b_v = None
        if self.in_proj_bias is not None:
            b_q, b_k, b_v = F.chunk(self.in_proj_bias, 3)
        if self._qkv_same_embed_dim and query is key and key is value:
            q, k, v = F.chunk(F.linear(query, self.in_proj_weight, self.in_proj_bias), 3, -1)
        else:
            q, k, v = F.linear(query, w_q, b_q), F.linear(key, w_k, b_k), F.linear(value, w_v,
                                                                                  b_v)
        n, heads, head_dim = query.shape[0], self.num_heads, self.head_dim
        if self.bias_k is not None:
            k = F.cat([k, self.bias_k.expand(n, 1, self.embed_dim)], 1)
            v = F.cat([v, self.bias_v.expand(n, 1, self.embed_dim)], 1)
        q, k, v = (t.reshape(n, t.shape[1], heads, head_dim).transpose(1, 2)
                   for t in (q, k, v))
        if self.add_zero_attn:
            zeros = F.zeros(n, heads, 1, head_dim, dtype=k.dtype, device=k.device)
            k, v = F.cat([k, zeros], 2), F.cat([v, zeros], 2)
        return q, k, v

    def _merged_mask(self, attn_mask, key_padding_mask, query):
        """attn_mask and key_padding_mask as one additive float mask (None if neither),
        broadcastable to the (N, num_heads, L, S) scores."""
        n, length = query.shape[0], query.shape[1]
        mask = None
        if attn_mask is not None:
            mask = _additive(attn_mask, "attn_mask", query.dtype)
            if mask.ndim == 3:
                if mask.shape[0] != n * self.num_heads:
                    raise RuntimeError(f"MultiheadAttention: the shape of the 3D attn_mask is "
                                       f"{tuple(mask.shape)}, but should be "
                                       f"({n * self.num_heads}, {length}, S)")
                mask = mask.reshape(n, self.num_heads, *mask.shape[1:])
            elif mask.ndim != 2 and mask.ndim != 4:
                raise RuntimeError(f"MultiheadAttention: attn_mask's dimension {mask.ndim} "
                                   f"is not supported (expected 2-D or 3-D)")
            if mask.shape[-2] != length:
                raise RuntimeError(f"MultiheadAttention: attn_mask of shape "
                                   f"{tuple(attn_mask.shape)} does not fit {length} queries")
        if key_padding_mask is not None:
            padding = _additive(key_padding_mask, "key_padding_mask", query.dtype)
            padding = padding.reshape(n, 1, 1, padding.shape[-1])
            mask = padding if mask is None else mask + padding
        return mask

    def _attend(self, q, k, v, mask):
        """Per-head attention; returns (N, L, E) projected output and (N, H, L, S) weights."""
        scores = F.matmul(q * (1.0 / math.sqrt(self.head_dim)), k.transpose(-2, -1))
        if mask is not None:
            if mask.shape[-1] != scores.shape[-1]:
                raise RuntimeError(f"MultiheadAttention: masks must have {scores.shape[-1]} "
                                   f"source positions (key length), got {mask.shape[-1]}")
            scores = scores + mask
        weights = F.softmax(scores, -1)
        if self.training and self.dropout > 0.0:
            weights = F.dropout(weights, self.dropout)
        out = F.matmul(weights, v).transpose(1, 2)
        out = out.reshape(out.shape[0], out.shape[1], self.embed_dim)
        return F.linear(out, self.out_proj.weight, self.out_proj.bias), weights


def _additive(mask, name, dtype):
    """A bool mask (True = masked out) as 0 / -inf, or a float mask in the scores' dtype."""
    if mask.dtype is dtypes.bool:
        zeros = F.zeros(*mask.shape, dtype=dtype, device=mask.device)
        return F.masked_fill(zeros, mask, float("-inf"))
    if not mask.dtype.is_floating_point:
        raise RuntimeError(f"MultiheadAttention: only bool and floating types of {name} are "
                           f"supported, got {mask.dtype.name}")
    return mask.to(dtype)


def _causal_mask(length, source, device):
    """True above the diagonal: query i may not attend to key j > i."""
    rows = F.reshape(F.arange(length, device=device), (length, 1))
    return F.gt(F.arange(source, device=device), rows)

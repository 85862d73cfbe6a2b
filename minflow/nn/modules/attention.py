"""MultiheadAttention with PyTorch's parameters, masks and (seq, batch, embed) default layout.

softmax(Q K^T / sqrt(head_dim) + mask) V per head, with Q, K, V the input projections
(``in_proj_weight`` packs the three when query, key and value share embed_dim) and the
heads' outputs concatenated and projected by ``out_proj``: computed, as torch's, by
nn.functional.multi_head_attention_forward (ops/attention.py).
"""
from ...core.namespace import F
from ...ops.attention import multi_head_attention_forward
from ...ops.infer import check_int
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
        if batched and self.batch_first:     # keeping which of them are the same tensor
            moved = {}
            query, key, value = (moved.setdefault(id(t), t.transpose(0, 1))
                                 for t in (query, key, value))
        separate = not self._qkv_same_embed_dim
        out, weights = multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            use_separate_proj_weight=separate, q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal)
        if batched and self.batch_first:
            out = out.transpose(0, 1)
        return out, weights

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

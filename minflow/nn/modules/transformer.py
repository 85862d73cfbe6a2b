"""TransformerEncoderLayer and TransformerEncoder (PyTorch's post-norm or pre-norm block).

post-norm (default): x = norm1(x + SA(x)); x = norm2(x + FF(x))
pre-norm (norm_first): x = x + SA(norm1(x)); x = x + FF(norm2(x))
with SA = dropout1(self_attn(x, x, x)) and FF = dropout2(linear2(dropout(act(linear1(x))))).
"""
import copy

from ...core import dtype as dtypes
from ...core.namespace import F
from .. import functional as nnF
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm
from .attention import MultiheadAttention

__all__ = ["TransformerEncoderLayer", "TransformerEncoder"]

_ACTIVATIONS = {"relu": nnF.relu, "gelu": nnF.gelu}


class TransformerEncoderLayer(Module):
    """Self-attention then a feed-forward block, each with a residual and a LayerNorm.

    ``activation`` is "relu", "gelu" or a callable (a Module passed here becomes the child
    ``activation``). Inputs are (S, N, E), or (N, S, E) with batch_first.

    >>> layer = minflow.nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16)
    >>> layer(minflow.randn(5, 3, 8)).shape
    minflow.Size([5, 3, 8])
    """

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1,
                 activation=nnF.relu, layer_norm_eps=1e-5, batch_first=False,
                 norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, **kw)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if isinstance(activation, str):
            if activation not in _ACTIVATIONS:
                raise RuntimeError(f"TransformerEncoderLayer: activation should be relu/gelu "
                                   f"or a callable, not {activation!r}")
            activation = _ACTIVATIONS[activation]
        elif not callable(activation):
            raise TypeError(f"TransformerEncoderLayer: activation should be relu/gelu or a "
                            f"callable, got {type(activation).__name__}")
        self.activation = activation

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
        return self.norm2(x + self._ff_block(x))

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


class TransformerEncoder(Module):
    """``num_layers`` copies of ``encoder_layer`` (deep copies: they start equal, as in
    PyTorch), applied in turn, then ``norm`` if given.

    ``enable_nested_tensor`` and ``mask_check`` are accepted for PyTorch compatibility;
    minflow has no nested tensors, so padded positions are computed (PyTorch's training path).

    >>> layer = minflow.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
    >>> encoder = minflow.nn.TransformerEncoder(layer, num_layers=2)
    >>> encoder(minflow.randn(3, 5, 8)).shape, len(encoder.layers)
    (minflow.Size([3, 5, 8]), 2)
    """

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        super().__init__()
        if not isinstance(encoder_layer, Module):
            raise TypeError(f"TransformerEncoder: expected encoder_layer to be a Module, got "
                            f"{type(encoder_layer).__name__}")
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm
        self.enable_nested_tensor, self.mask_check = enable_nested_tensor, mask_check

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        if is_causal is None:
            is_causal = mask is not None and _is_causal_mask(mask)
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=mask, src_key_padding_mask=src_key_padding_mask,
                           is_causal=is_causal)
        return self.norm(output) if self.norm is not None else output


def _is_causal_mask(mask):
    """True if ``mask`` (bool or additive float) is exactly the square causal mask."""
    size = mask.shape[-1]
    if tuple(mask.shape) != (size, size):
        return False
    rows = F.reshape(F.arange(size, device=mask.device), (size, 1))
    above = F.gt(F.arange(size, device=mask.device), rows)
    if mask.dtype is dtypes.bool:
        return bool(F.all(F.eq(mask, above)))
    causal = F.masked_fill(F.zeros(size, size, dtype=mask.dtype, device=mask.device), above,
                           float("-inf"))
    return bool(F.all(F.eq(mask, causal)))

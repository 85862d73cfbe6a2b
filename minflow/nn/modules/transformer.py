"""Transformer encoder and decoder layers and stacks, and nn.Transformer (PyTorch's
post-norm or pre-norm blocks).

encoder, post-norm (default): x = norm1(x + SA(x)); x = norm2(x + FF(x))
encoder, pre-norm (norm_first): x = x + SA(norm1(x)); x = x + FF(norm2(x))
with SA = dropout1(self_attn(x, x, x)) and FF = dropout2(linear2(dropout(act(linear1(x))))).
The decoder adds cross-attention to the encoder's output between the two:
x = norm2(x + MHA(x, memory)) (post-norm), with norm3 and dropout3 around FF.
"""
import copy

from ...amp import is_autocast_enabled
from ...core import dtype as dtypes
from ...core.grad_mode import is_grad_enabled
from ...core.namespace import F
from .. import functional as nnF
from .. import init
from .activation import GELU, ReLU
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm
from .attention import MultiheadAttention

__all__ = ["TransformerEncoderLayer", "TransformerEncoder", "TransformerDecoderLayer",
           "TransformerDecoder", "Transformer"]

_ACTIVATIONS = {"relu": nnF.relu, "gelu": nnF.gelu}


def _activation(layer, activation):
    """"relu", "gelu" or a callable, as the function to call."""
    if isinstance(activation, str):
        if activation not in _ACTIVATIONS:
            raise RuntimeError(f"{layer}: activation should be relu/gelu or a callable, not "
                               f"{activation!r}")
        return _ACTIVATIONS[activation]
    if not callable(activation):
        raise TypeError(f"{layer}: activation should be relu/gelu or a callable, got "
                        f"{type(activation).__name__}")
    return activation


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
        self.activation = _activation("TransformerEncoderLayer", activation)

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

    With ``enable_nested_tensor`` PyTorch runs inference on nested tensors (only the
    tokens that are not padding), so there the padded positions come out as zeros (before
    ``norm``); minflow gives those zeros in the same cases: a post-norm batch_first layer
    with an even number of heads, relu or gelu, eval mode, no grad needed, a left-aligned
    ``src_key_padding_mask`` and no ``mask``. Elsewhere padded positions are computed.

    >>> layer = minflow.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
    >>> encoder = minflow.nn.TransformerEncoder(layer, num_layers=2)
    >>> encoder(minflow.randn(3, 5, 8)).shape, len(encoder.layers)
    (minflow.Size([3, 5, 8]), 2)
    >>> padding = minflow.tensor([[False, False, True, True, True]])
    >>> with minflow.no_grad():
    ...     out = encoder.eval()(minflow.randn(1, 5, 8), src_key_padding_mask=padding)
    >>> out[0, 2:].abs().sum().item()
    0.0
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
        self.use_nested_tensor = enable_nested_tensor and _nests(encoder_layer)

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        if is_causal is None:
            is_causal = mask is not None and _is_causal_mask(mask)
        nested = self._runs_nested(src, mask, src_key_padding_mask)
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=mask, src_key_padding_mask=src_key_padding_mask,
                           is_causal=is_causal)
        if nested:          # PyTorch's to_padded_tensor(0.0)
            output = F.masked_fill(output, F.unsqueeze(_padding(src_key_padding_mask), -1),
                                   0.0)
        return self.norm(output) if self.norm is not None else output

    def _runs_nested(self, src, mask, padding_mask):
        """Whether PyTorch would run this call on nested tensors (its sparsity fast path)."""
        first = self.layers[0]
        if not self.use_nested_tensor or first.training or src.ndim != 3 or \
                padding_mask is None or mask is not None or is_autocast_enabled() or \
                getattr(src._data, "is_lazy", False) or src.device.type not in ("cpu", "cuda"):
            return False
        if self.mask_check and not _left_aligned(_padding(padding_mask)):
            return False
        weights = [src, first.self_attn.in_proj_weight, first.self_attn.in_proj_bias,
                   first.self_attn.out_proj.weight, first.self_attn.out_proj.bias,
                   first.norm1.weight, first.norm1.bias, first.norm2.weight, first.norm2.bias,
                   first.linear1.weight, first.linear1.bias, first.linear2.weight,
                   first.linear2.bias]
        return not (is_grad_enabled() and any(t.requires_grad for t in weights))


def _nests(layer):
    """Whether PyTorch's TransformerEncoder may run ``layer`` on nested tensors."""
    attn = getattr(layer, "self_attn", None)
    return (isinstance(layer, TransformerEncoderLayer) and not layer.norm_first
            and attn.batch_first and attn._qkv_same_embed_dim and attn.in_proj_bias is not None
            and (layer.activation in (nnF.relu, nnF.gelu)
                 or isinstance(layer.activation, (ReLU, GELU)))
            and layer.norm1.eps == layer.norm2.eps and attn.num_heads % 2 == 0)


def _padding(padding_mask):
    """Where a key padding mask (bool, or additive float) marks padding."""
    return padding_mask if padding_mask.dtype is dtypes.bool else F.ne(padding_mask, 0.0)


def _left_aligned(padding):
    """Whether every row is its tokens then its padding (no token after a pad)."""
    tokens = F.logical_not(padding).to(dtypes.int64)
    return bool(F.all(F.ge(tokens[:, :-1], tokens[:, 1:])))


class TransformerDecoderLayer(Module):
    """Self-attention, cross-attention to ``memory`` (the encoder's output), then a
    feed-forward block, each with a residual and a LayerNorm. Inputs are (T, N, E) and
    (S, N, E), or batch first.

    >>> layer = minflow.nn.TransformerDecoderLayer(d_model=8, nhead=2, dim_feedforward=16)
    >>> layer(minflow.randn(4, 3, 8), minflow.randn(5, 3, 8)).shape
    minflow.Size([4, 3, 8])
    """

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1,
                 activation=nnF.relu, layer_norm_eps=1e-5, batch_first=False,
                 norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, **kw)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                                 batch_first=batch_first, **kw)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _activation("TransformerDecoderLayer", activation)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None, tgt_is_causal=False,
                memory_is_causal=False):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask,
                                   tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask,
                                    memory_key_padding_mask, memory_is_causal)
            return x + self._ff_block(self.norm3(x))
        x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
        x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask,
                                           memory_is_causal))
        return self.norm3(x + self._ff_block(x))

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           is_causal=is_causal, need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, memory, attn_mask, key_padding_mask, is_causal):
        x = self.multihead_attn(x, memory, memory, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, is_causal=is_causal,
                                need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout3(x)


class TransformerDecoder(Module):
    """``num_layers`` copies of ``decoder_layer`` applied in turn to (tgt, memory), then
    ``norm`` if given.

    >>> layer = minflow.nn.TransformerDecoderLayer(8, 2, 16, batch_first=True)
    >>> decoder = minflow.nn.TransformerDecoder(layer, num_layers=2)
    >>> decoder(minflow.randn(3, 4, 8), minflow.randn(3, 5, 8)).shape
    minflow.Size([3, 4, 8])
    """

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        if not isinstance(decoder_layer, Module):
            raise TypeError(f"TransformerDecoder: expected decoder_layer to be a Module, got "
                            f"{type(decoder_layer).__name__}")
        self.layers = ModuleList([copy.deepcopy(decoder_layer) for _ in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None, tgt_is_causal=None,
                memory_is_causal=False):
        if tgt_is_causal is None:
            tgt_is_causal = tgt_mask is not None and _is_causal_mask(tgt_mask)
        output = tgt
        for layer in self.layers:
            output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                           tgt_key_padding_mask=tgt_key_padding_mask,
                           memory_key_padding_mask=memory_key_padding_mask,
                           tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        return self.norm(output) if self.norm is not None else output


class Transformer(Module):
    """An encoder-decoder transformer: ``encoder`` (num_encoder_layers layers and a final
    LayerNorm) over src, ``decoder`` over tgt attending to the encoder's output. Weights
    with more than one dim start xavier-uniform, as PyTorch's.

    >>> model = minflow.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1,
    ...                                num_decoder_layers=1, dim_feedforward=16)
    >>> model(minflow.randn(5, 2, 8), minflow.randn(4, 2, 8)).shape
    minflow.Size([4, 2, 8])
    >>> minflow.nn.Transformer.generate_square_subsequent_mask(2)
    tensor([[0., -inf],
            [0., 0.]])
    """

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation=nnF.relu, custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False,
                 norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        layer = dict(d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward,
                     dropout=dropout, activation=activation, layer_norm_eps=layer_norm_eps,
                     batch_first=batch_first, norm_first=norm_first, bias=bias, **kw)
        self.encoder = custom_encoder if custom_encoder is not None else TransformerEncoder(
            TransformerEncoderLayer(**layer), num_encoder_layers,
            LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw))
        self.decoder = custom_decoder if custom_decoder is not None else TransformerDecoder(
            TransformerDecoderLayer(**layer), num_decoder_layers,
            LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw))
        for p in self.parameters():
            if p.ndim > 1:
                init.xavier_uniform_(p)
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                src_key_padding_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        batch = 0 if self.batch_first else 1
        if src.ndim == 3 and src.shape[batch] != tgt.shape[batch]:
            raise RuntimeError(f"Transformer: the batch number of src and tgt must be equal, "
                               f"got {src.shape[batch]} and {tgt.shape[batch]}")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError(f"Transformer: the feature number of src and tgt must be equal "
                               f"to d_model ({self.d_model}), got {src.shape[-1]} and "
                               f"{tgt.shape[-1]}")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """The (sz, sz) causal mask: -inf above the diagonal, 0 elsewhere."""
        return F.triu(F.full((sz, sz), float("-inf"), dtype=dtype, device=device), 1)


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

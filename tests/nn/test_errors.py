"""Bad input to minflow.nn layers: each error names the layer, the argument, and
expected vs got."""
import pytest

import minflow
import minflow.nn as nn


@pytest.mark.parametrize("call, error, message", [
    (lambda: nn.Linear(784, 256)(minflow.ones(32, 100)), RuntimeError,
     r"Linear: expected input with last dimension 784 \(in_features\), got shape \(32, 100\)"),
    (lambda: nn.Conv2d(3, 4, 3)(minflow.ones(1, 2, 5, 5)), RuntimeError,
     r"conv2d: .*expected input\[1, 2, 5, 5\] to have 3 channels, but got 2 channels"),
    (lambda: nn.Conv2d(3, 4, 3, groups=2), ValueError,
     r"Conv2d: in_channels \(3\) and out_channels \(4\) must be divisible by groups \(2\)"),
    (lambda: nn.Conv2d(3, 4, 3, padding_mode="mirror"), ValueError,
     r"Conv2d: padding_mode must be one of \['zeros', 'reflect', 'replicate', 'circular'\], "
     r"but got padding_mode='mirror'"),
    (lambda: nn.Conv2d(3, 4, 3, padding="full"), ValueError, r"invalid padding string"),
    (lambda: nn.Conv1d(3, 4, (3, 3)), ValueError,
     r"Conv1d: expected kernel_size to be an int or a tuple of 1 ints, got \(3, 3\)"),
    (lambda: nn.BatchNorm2d(3)(minflow.ones(2, 3, 4)), ValueError,
     r"BatchNorm2d: expected 4D input, got 3D input of shape \(2, 3, 4\)"),
    (lambda: nn.BatchNorm1d(3)(minflow.ones(2, 4)), RuntimeError,
     r"BatchNorm1d: expected input with 3 channels \(num_features\) in dim 1, got shape "
     r"\(2, 4\)"),
    (lambda: nn.LayerNorm(5)(minflow.ones(2, 4)), RuntimeError,
     r"normalized_shape=\[5\], expected input with shape \[\*, 5\], but got input of size"),
    (lambda: nn.Dropout(1.5), ValueError,
     r"Dropout: dropout probability has to be between 0 and 1, but got 1.5"),
    (lambda: nn.Embedding(5, 2, padding_idx=5), AssertionError,
     r"Embedding: padding_idx must be within num_embeddings \[-5, 5\), got 5"),
    (lambda: nn.Embedding(5, 2)(minflow.ones(3)), RuntimeError,
     r"embedding: expected input \(indices\) of dtype int64 or int32, got float32"),
    (lambda: nn.Embedding(5, 2, sparse=True), NotImplementedError, r"sparse=True"),
    (lambda: nn.GELU("fast"), ValueError, r"GELU: approximate must be 'none' or 'tanh'"),
    (lambda: nn.Hardtanh(1.0, -1.0), ValueError, r"Hardtanh: expected max_val > min_val"),
    (lambda: nn.MSELoss(reduction="avg"), ValueError,
     r"MSELoss: reduction must be one of 'none', 'mean' or 'sum', got 'avg'"),
    (lambda: nn.MultiheadAttention(10, 3), ValueError,
     r"embed_dim \(10\) must be positive and divisible by num_heads \(3\)"),
    (lambda: nn.BatchNorm1d(3, eps=0.0)(minflow.ones(2, 3)), ValueError,
     r"batch_norm eps must be positive during training, but got 0.0"),
    (lambda: nn.RNN(3, 4, bias=1), TypeError, r"RNN: bias should be of type bool, got: int"),
    (lambda: nn.GRU(3, 4, batch_first="yes"), TypeError,
     r"GRU: batch_first should be of type bool, got: str"),
    (lambda: nn.RNNCell(3, 4)(minflow.ones(2, 3), minflow.ones(2, 1, 1, 4)), ValueError,
     r"RNNCell: Expected hidden to be 1D or 2D, got 4D instead"),
    (lambda: nn.LSTMCell(3, 4)(minflow.ones(2, 3), (minflow.ones(2, 1, 4), minflow.ones(2, 4))),
     ValueError, r"LSTMCell: Expected hx\[0\] to be 1D or 2D, got 3D instead"),
    (lambda: nn.CircularPad1d(1)(minflow.ones(1, 1, 1, 3)), ValueError,
     r"CircularPad1d: expected 2D or 3D input \(got 4D input\)"),
    (lambda: nn.HuberLoss(delta="1"), TypeError,
     r"HuberLoss: delta must be a float or int, got: <class 'str'>"),
    (lambda: _mha()(minflow.ones(3, 2, 6), minflow.ones(3, 2, 6), minflow.ones(3, 2, 6)),
     RuntimeError, r"MultiheadAttention: expected query with last dimension 8, got shape "
                   r"\(3, 2, 6\)"),
    (lambda: _mha()(minflow.ones(3, 8), minflow.ones(3, 2, 8), minflow.ones(3, 2, 8)),
     RuntimeError, r"all 3-D \(batched\) or all 2-D \(unbatched\)"),
    (lambda: _self_attn(attn_mask=minflow.ones(4, 4, dtype=minflow.int64)), AssertionError,
     r"only bool and floating types of attn_mask are supported, got int64"),
    (lambda: _self_attn(attn_mask=minflow.zeros(5, 4, 4)), RuntimeError,
     r"The shape of the 3D attn_mask is \(5, 4, 4\), but should be \(4, 4, 4\)"),
    (lambda: _self_attn(is_causal=True), RuntimeError,
     r"Need attn_mask if specifying the is_causal hint"),
    (lambda: _self_attn(key_padding_mask=minflow.zeros(2, 3, dtype=minflow.bool)),
     AssertionError, r"Expected key_padding_mask.shape\[1\] to be 4, but got 3"),
    (lambda: nn.TransformerEncoderLayer(8, 2, activation="swish"), RuntimeError,
     r"activation should be relu/gelu or a callable, not 'swish'"),
    (lambda: nn.CrossEntropyLoss()(minflow.ones(2, 3), minflow.ones(2)), RuntimeError,
     r"cross_entropy: probability targets must have the shape of input"),
    (lambda: nn.Sequential(nn.ReLU())[3], IndexError,
     r"Sequential: index 3 is out of range for length 1"),
])
def test_error_messages(call, error, message):
    with pytest.raises(error, match=message):
        call()


def _mha():
    return nn.MultiheadAttention(8, 2)


def _self_attn(**kwargs):
    x = minflow.ones(4, 2, 8)
    return _mha()(x, x, x, **kwargs)


def test_hardtanh_takes_the_deprecated_keyword_names():
    with pytest.warns(FutureWarning, match="`min_value` is deprecated and renamed to `min_val`"):
        layer = nn.Hardtanh(min_value=-2.0, max_val=2.0)
    assert (layer.min_val, layer.max_val) == (-2.0, 2.0)

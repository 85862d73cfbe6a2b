"""TransformerDecoderLayer, TransformerDecoder and Transformer against torch.nn: state_dict
layout, repr, outputs and grads with causal and padding masks, post-norm and pre-norm."""
import numpy as np
import pytest

import minflow

torch = pytest.importorskip("torch")


def _copy(ours, theirs):
    ours.load_state_dict({k: minflow.tensor(v.detach().numpy())
                          for k, v in theirs.state_dict().items()})


@pytest.mark.parametrize("kwargs", [{}, {"batch_first": True, "norm_first": True,
                                         "activation": "gelu"}], ids=["post_norm", "pre_norm"])
def test_transformer_matches_torch(kwargs):
    build = dict(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=2,
                 dim_feedforward=16, dropout=0.0, **kwargs)
    theirs, ours = torch.nn.Transformer(**build).double(), minflow.nn.Transformer(**build).double()
    assert list(ours.state_dict()) == list(theirs.state_dict()) and repr(ours) == repr(theirs)
    _copy(ours, theirs)
    rng = np.random.RandomState(0)
    src, tgt = rng.randn(5, 3, 8), rng.randn(4, 3, 8)
    if kwargs.get("batch_first"):
        src, tgt = src.transpose(1, 0, 2).copy(), tgt.transpose(1, 0, 2).copy()
    pad = np.zeros((3, 5), dtype=bool)
    pad[1, -1] = True
    grad = rng.randn(*tgt.shape)
    results = []
    for lib, model in ((minflow, ours), (torch, theirs)):
        s, t = lib.tensor(src, requires_grad=True), lib.tensor(tgt, requires_grad=True)
        mask = lib.nn.Transformer.generate_square_subsequent_mask(4, dtype=lib.float64)
        out = model(s, t, tgt_mask=mask, src_key_padding_mask=lib.tensor(pad),
                    memory_key_padding_mask=lib.tensor(pad))
        (out * lib.tensor(grad)).sum().backward()
        results.append([out.detach().numpy(), s.grad.numpy(), t.grad.numpy()]
                       + [p.grad.numpy() for p in model.parameters()])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, atol=1e-12)


def test_decoder_layer_and_mask():
    layer = minflow.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0)
    decoder = minflow.nn.TransformerDecoder(layer, 2, norm=minflow.nn.LayerNorm(8))
    assert decoder(minflow.randn(4, 2, 8), minflow.randn(6, 2, 8)).shape == (4, 2, 8)
    mask = minflow.nn.Transformer.generate_square_subsequent_mask(3)
    assert mask.tolist() == [[0.0, float("-inf"), float("-inf")], [0.0, 0.0, float("-inf")],
                             [0.0, 0.0, 0.0]]
    with pytest.raises(RuntimeError, match="Transformer: the batch number of src and tgt"):
        minflow.nn.Transformer(8, 2, 1, 1, 16)(minflow.randn(5, 2, 8), minflow.randn(4, 3, 8))
    with pytest.raises(RuntimeError, match="the feature number of src and tgt must be equal "
                                           "to d_model \\(8\\)"):
        minflow.nn.Transformer(8, 2, 1, 1, 16)(minflow.randn(5, 2, 8), minflow.randn(4, 2, 6))
    with pytest.raises(TypeError, match="TransformerDecoder: expected decoder_layer"):
        minflow.nn.TransformerDecoder("layer", 2)

"""TransformerEncoder with a key padding mask: where PyTorch runs inference on nested
tensors, padded positions come out as zeros; elsewhere they are computed. Both against
PyTorch from the same weights."""
import numpy as np
import pytest

import minflow

torch = pytest.importorskip("torch")

PADDING = [[False, False, True, True], [False, False, False, False],
           [False, True, True, True]]


def _encoders(layer_kwargs, norm=False):
    """(minflow encoder, torch encoder) with the same weights."""
    pair = []
    for lib in (minflow, torch):
        layer = lib.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **layer_kwargs)
        with pytest.warns(UserWarning) if lib is torch and not _nested_ok(layer_kwargs) \
                else _no_check():
            encoder = lib.nn.TransformerEncoder(
                layer, 2, norm=lib.nn.LayerNorm(8) if norm else None)
        pair.append(encoder)
    state = {k: v.detach().numpy() for k, v in pair[1].state_dict().items()}
    pair[0].load_state_dict({k: minflow.tensor(v) for k, v in state.items()})
    return pair


def _nested_ok(layer_kwargs):
    return layer_kwargs.get("batch_first") and not layer_kwargs.get("norm_first")


class _no_check:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _run(encoder, lib, padding, train=False, grad=False, mask=None):
    x = np.random.default_rng(0).standard_normal((3, 4, 8)).astype(np.float32)
    if not encoder.layers[0].self_attn.batch_first:
        x = x.transpose(1, 0, 2).copy()
    encoder.train(train)
    with lib.set_grad_enabled(grad):
        out = encoder(lib.tensor(x), mask=mask, src_key_padding_mask=lib.tensor(padding))
    return out.detach().numpy()


@pytest.mark.parametrize("norm", [False, True])
def test_eval_without_grad_zeroes_padded_positions_as_torch(norm):
    ours, theirs = _encoders(dict(batch_first=True), norm=norm)
    got, expected = _run(ours, minflow, PADDING), _run(theirs, torch, PADDING)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    if not norm:
        assert not got[0, 2:].any() and not got[2, 1:].any()


@pytest.mark.parametrize("case", ["train", "grad", "right-aligned", "float mask",
                                  "norm_first", "seq first", "attn mask"])
def test_padded_positions_computed_where_torch_computes_them(case):
    layer_kwargs = dict(batch_first=case != "seq first", norm_first=case == "norm_first")
    ours, theirs = _encoders(layer_kwargs)
    padding, kwargs = PADDING, {}
    if case == "right-aligned":
        padding = [[True, False, False, False]] + PADDING[1:]
    if case == "train":
        kwargs = dict(train=True)
    if case == "grad":
        kwargs = dict(grad=True)
    results = []
    for lib, encoder in ((minflow, ours), (torch, theirs)):
        pad = padding
        if case == "float mask":
            pad = np.where(np.array(padding), -np.inf, 0.0).astype(np.float32)
        mask = lib.zeros(4, 4) if case == "attn mask" else None
        results.append(_run(encoder, lib, pad, mask=mask, **kwargs))
    got, expected = results
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    first = got[0] if layer_kwargs["batch_first"] else got[:, 0]
    padded = first[np.array(padding[0])]
    if case == "float mask":
        assert not padded.any()             # an additive mask nests as torch's does
    else:
        assert np.abs(padded).min() > 0


def test_odd_heads_disable_nesting_as_torch():
    pair = []
    for lib in (minflow, torch):
        layer = lib.nn.TransformerEncoderLayer(9, 3, 16, dropout=0.0, batch_first=True)
        with pytest.warns(UserWarning) if lib is torch else _no_check():
            pair.append(lib.nn.TransformerEncoder(layer, 1))
    assert not pair[0].use_nested_tensor and not pair[1].use_nested_tensor
    assert minflow.nn.TransformerEncoder(
        minflow.nn.TransformerEncoderLayer(8, 2, batch_first=True), 1).use_nested_tensor

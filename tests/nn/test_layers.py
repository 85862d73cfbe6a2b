"""Layer forwards against independent numpy formulas (on every device), gradient checks
on small float64 layers, and the behaviour of modes (dropout, batch norm running stats)."""
import math

import numpy as np
import pytest

import minflow
import minflow.nn as nn
from minflow.autograd import gradcheck

rng = np.random.RandomState(0)


def t(a, device="cpu", dtype=minflow.float64, grad=False):
    return minflow.tensor(np.asarray(a), dtype=dtype, device=device, requires_grad=grad)


def npy(x):
    return x.detach().cpu().numpy()


def params(m):
    return {n: npy(p) for n, p in m.named_parameters()}


def conv2d_ref(x, w, b, stride, pad):
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, _, h, wd = x.shape
    co, _, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, co, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = x[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            out[:, :, i, j] = np.einsum("nchw,ochw->no", patch, w)
    return out + b[None, :, None, None]


def pool_ref(x, k, reduce):
    n, c, h, w = x.shape
    blocks = x[:, :, :h // k * k, :w // k * k].reshape(n, c, h // k, k, w // k, k)
    return reduce(blocks, axis=(3, 5))


def mha_ref(x, p, heads, mask):
    """Self-attention of (L, N, E) x with parameters ``p`` and an additive (L, L) mask."""
    e = x.shape[-1]
    qkv = x @ p["in_proj_weight"].T + p["in_proj_bias"]
    q, k, v = (a.reshape(x.shape[0], x.shape[1], heads, e // heads).transpose(1, 2, 0, 3)
               for a in np.split(qkv, 3, axis=-1))
    scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(e // heads) + mask
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    out = (weights @ v).transpose(2, 0, 1, 3).reshape(x.shape)
    return out @ p["out_proj.weight"].T + p["out_proj.bias"], weights.mean(1)


def test_linear_matches_formula(device):
    m = nn.Linear(5, 3).double().to(device)
    x = rng.randn(2, 4, 5)
    p = params(m)
    np.testing.assert_allclose(npy(m(t(x, device))), x @ p["weight"].T + p["bias"], 1e-12)


def test_conv2d_matches_loops(device):
    m = nn.Conv2d(3, 4, 3, stride=2, padding=1).double().to(device)
    x = rng.randn(2, 3, 7, 6)
    p = params(m)
    np.testing.assert_allclose(npy(m(t(x, device))), conv2d_ref(x, p["weight"], p["bias"],
                                                                 2, 1), 1e-10)


def test_conv1d_matches_conv2d_with_height_one(device):
    m = nn.Conv1d(2, 3, 3).double().to(device)
    x = rng.randn(2, 2, 8)
    p = params(m)
    ref = conv2d_ref(x[:, :, None], p["weight"][:, :, None], p["bias"], 1, 0)[:, :, 0]
    np.testing.assert_allclose(npy(m(t(x, device))), ref, 1e-10)


def test_pools_match_numpy(device):
    x = rng.randn(2, 3, 6, 7)
    np.testing.assert_allclose(npy(nn.MaxPool2d(2)(t(x, device))), pool_ref(x, 2, np.max))
    np.testing.assert_allclose(npy(nn.AvgPool2d(3)(t(x, device))), pool_ref(x, 3, np.mean),
                               1e-12)
    np.testing.assert_allclose(npy(nn.AdaptiveAvgPool2d(1)(t(x, device))),
                               x.mean((2, 3), keepdims=True), 1e-12)


def test_batchnorm_training_eval_and_running_stats(device):
    bn = nn.BatchNorm2d(3, momentum=0.2).double().to(device)
    x = rng.randn(4, 3, 2, 2) * 3 + 1
    mean, var = x.mean((0, 2, 3)), x.var((0, 2, 3))
    y = npy(bn(t(x, device)))
    np.testing.assert_allclose(y, (x - mean[:, None, None]) / np.sqrt(var[:, None, None] + 1e-5),
                               1e-10)
    np.testing.assert_allclose(npy(bn.running_mean), 0.2 * mean, 1e-12)
    np.testing.assert_allclose(npy(bn.running_var), 0.8 + 0.2 * x.var((0, 2, 3), ddof=1),
                               1e-12)
    assert bn.num_batches_tracked.item() == 1
    bn.eval()
    rm, rv = npy(bn.running_mean), npy(bn.running_var)
    np.testing.assert_allclose(npy(bn(t(x, device))),
                               (x - rm[:, None, None]) / np.sqrt(rv[:, None, None] + 1e-5),
                               1e-10)
    assert bn.num_batches_tracked.item() == 1


def test_batchnorm_momentum_none_is_a_cumulative_average():
    bn = nn.BatchNorm1d(2, momentum=None).double()
    batches = [rng.randn(5, 2) + k for k in range(3)]
    for b in batches:
        bn(t(b))
    np.testing.assert_allclose(npy(bn.running_mean), np.mean([b.mean(0) for b in batches], 0),
                               1e-12)


def test_batchnorm_without_running_stats_uses_the_batch_in_eval():
    bn = nn.BatchNorm1d(2, track_running_stats=False).double().eval()
    x = rng.randn(6, 2)
    assert bn.running_mean is None and list(bn.state_dict()) == ["weight", "bias"]
    np.testing.assert_allclose(npy(bn(t(x))), (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5),
                               1e-10)


def test_layernorm_matches_formula(device):
    ln = nn.LayerNorm((3, 4)).double().to(device)
    x = rng.randn(2, 3, 4)
    mean, var = x.mean((1, 2), keepdims=True), x.var((1, 2), keepdims=True)
    np.testing.assert_allclose(npy(ln(t(x, device))), (x - mean) / np.sqrt(var + 1e-5), 1e-10)


def test_embedding_lookup_and_padding_grad(device):
    emb = nn.Embedding(5, 3, padding_idx=1).to(device)
    idx = minflow.tensor([[1, 2], [2, 4]], device=device)
    np.testing.assert_array_equal(npy(emb(idx)), npy(emb.weight)[[[1, 2], [2, 4]]])
    emb(idx).sum().backward()
    np.testing.assert_array_equal(npy(emb.weight.grad)[:, 0], [0, 0, 2, 0, 1])
    assert npy(emb.weight)[1].tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("layer, ref", [
    (nn.ReLU(), lambda x: np.maximum(x, 0)),
    (nn.LeakyReLU(0.2), lambda x: np.where(x >= 0, x, 0.2 * x)),
    (nn.ELU(0.5), lambda x: np.where(x > 0, x, 0.5 * np.expm1(x))),
    (nn.GELU(), lambda x: 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))),
    (nn.SiLU(), lambda x: x / (1 + np.exp(-x))),
    (nn.Sigmoid(), lambda x: 1 / (1 + np.exp(-x))),
    (nn.Tanh(), np.tanh),
    (nn.Softmax(dim=1), lambda x: np.exp(x) / np.exp(x).sum(1, keepdims=True)),
    (nn.LogSoftmax(dim=1), lambda x: x - np.log(np.exp(x).sum(1, keepdims=True))),
    (nn.Softplus(beta=2.0), lambda x: np.log1p(np.exp(2 * x)) / 2),
    (nn.Hardtanh(-0.5, 0.5), lambda x: np.clip(x, -0.5, 0.5)),
    (nn.Flatten(0), lambda x: x.reshape(-1)),
    (nn.Unflatten(1, (2, 2)), lambda x: x.reshape(3, 2, 2)),
    (nn.Identity(), lambda x: x),
], ids=lambda v: type(v).__name__ if isinstance(v, nn.Module) else "")
def test_activations_and_shape_layers(layer, ref, device):
    x = rng.randn(3, 4)
    np.testing.assert_allclose(npy(layer(t(x, device))), ref(x), 1e-10, 1e-12)


def test_losses_match_formulas(device):
    logits, target = rng.randn(5, 3), np.array([0, 2, 1, 1, 0])
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    ce = nn.CrossEntropyLoss()(t(logits, device), minflow.tensor(target, device=device))
    np.testing.assert_allclose(ce.item(), -logp[range(5), target].mean(), 1e-12)
    nll = nn.NLLLoss(reduction="sum")(t(logp, device), minflow.tensor(target, device=device))
    np.testing.assert_allclose(nll.item(), -logp[range(5), target].sum(), 1e-12)
    a, b = rng.randn(4), rng.randn(4)
    np.testing.assert_allclose(nn.MSELoss()(t(a, device), t(b, device)).item(),
                               ((a - b) ** 2).mean(), 1e-12)
    np.testing.assert_allclose(npy(nn.L1Loss(reduction="none")(t(a, device), t(b, device))),
                               np.abs(a - b), 1e-12)
    p, y = rng.rand(4), (rng.rand(4) > 0.5).astype(float)
    bce = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    np.testing.assert_allclose(nn.BCELoss()(t(p, device), t(y, device)).item(), bce.mean(),
                               1e-12)
    z = np.log(p / (1 - p))
    np.testing.assert_allclose(nn.BCEWithLogitsLoss()(t(z, device), t(y, device)).item(),
                               bce.mean(), 1e-10)


def test_loss_weight_is_a_buffer_moving_with_to():
    loss = nn.CrossEntropyLoss(weight=minflow.ones(3))
    assert list(loss.state_dict()) == ["weight"]
    assert loss.double().weight.dtype is minflow.float64


def test_legacy_size_average_maps_to_reduction():
    with pytest.warns(UserWarning, match="size_average and reduce"):
        assert nn.MSELoss(size_average=False).reduction == "sum"


def test_multihead_attention_matches_numpy(device):
    mha = nn.MultiheadAttention(8, 2).double().to(device)
    with minflow.no_grad():
        mha.in_proj_bias.copy_(t(rng.randn(24), device))
    x = rng.randn(4, 3, 8)
    mask = np.triu(np.full((4, 4), -np.inf), 1)
    out, weights = mha(t(x, device), t(x, device), t(x, device), attn_mask=t(mask, device))
    ref_out, ref_weights = mha_ref(x, params(mha), 2, mask)
    np.testing.assert_allclose(npy(out), ref_out, 1e-10, 1e-12)
    np.testing.assert_allclose(npy(weights), ref_weights, 1e-10, 1e-12)


def test_mha_bias_kv_and_zero_attn_append_keys(device):
    """add_bias_kv appends a learned key and value to every sequence, add_zero_attn a zero
    one per head after them; every query may attend to both (the mask is padded)."""
    mha = nn.MultiheadAttention(8, 2, add_bias_kv=True, add_zero_attn=True).double().to(device)
    p = params(mha)
    assert list(mha.state_dict())[:4] == ["in_proj_weight", "in_proj_bias", "bias_k", "bias_v"]
    assert p["bias_k"].shape == (1, 1, 8) and np.abs(p["bias_k"]).sum() > 0    # xavier_normal_
    x, (length, batch, e) = rng.randn(4, 3, 8), (4, 3, 8)
    mask = np.triu(np.full((4, 4), -np.inf), 1)
    out, weights = mha(t(x, device), t(x, device), t(x, device), attn_mask=t(mask, device),
                       average_attn_weights=False)
    q, k, v = np.split(x @ p["in_proj_weight"].T + p["in_proj_bias"], 3, axis=-1)
    k = np.concatenate([k, np.broadcast_to(p["bias_k"], (1, batch, e))])     # (L + 1, N, E)
    v = np.concatenate([v, np.broadcast_to(p["bias_v"], (1, batch, e))])
    q, k, v = (a.reshape(a.shape[0], batch, 2, 4).transpose(1, 2, 0, 3) for a in (q, k, v))
    zero = np.zeros((batch, 2, 1, 4))
    k, v = np.concatenate([k, zero], 2), np.concatenate([v, zero], 2)   # (N, H, L + 2, d)
    scores = q @ k.transpose(0, 1, 3, 2) / 2.0 + np.pad(mask, ((0, 0), (0, 2)))
    ref_weights = np.exp(scores - scores.max(-1, keepdims=True))
    ref_weights /= ref_weights.sum(-1, keepdims=True)
    ref = (ref_weights @ v).transpose(2, 0, 1, 3).reshape(length, batch, e)
    ref = ref @ p["out_proj.weight"].T + p["out_proj.bias"]
    assert weights.shape == (batch, 2, length, length + 2)
    np.testing.assert_allclose(npy(weights), ref_weights, 1e-10, 1e-12)
    np.testing.assert_allclose(npy(out), ref, 1e-10, 1e-12)


def test_batchnorm_empty_batch_keeps_running_stats():
    bn = nn.BatchNorm2d(3)
    x = minflow.ones(0, 3, 2, 2, requires_grad=True)
    y = bn(x)
    y.sum().backward()
    assert y.shape == (0, 3, 2, 2) and x.grad.shape == (0, 3, 2, 2)
    # as torch: no statistics to blend in, though the batch is counted
    assert npy(bn.running_mean).tolist() == [0.0] * 3 and npy(bn.running_var).tolist() == [1.0] * 3
    assert bn.num_batches_tracked.item() == 1 and npy(bn.weight.grad).tolist() == [0.0] * 3


def test_mha_bool_mask_equals_float_mask_and_padding_mask():
    mha = nn.MultiheadAttention(4, 2, batch_first=True).double()
    x = t(rng.randn(2, 3, 4))
    bool_mask = minflow.tensor(np.triu(np.ones((3, 3), bool), 1))
    float_mask = t(np.triu(np.full((3, 3), -np.inf), 1))
    a, _ = mha(x, x, x, attn_mask=bool_mask)
    b, _ = mha(x, x, x, attn_mask=float_mask)
    np.testing.assert_allclose(npy(a), npy(b), 1e-12)
    kpm = minflow.tensor([[False, False, True], [False, False, False]])
    _, w = mha(x, x, x, key_padding_mask=kpm, average_attn_weights=False)
    assert w.shape == (2, 2, 3, 3) and np.all(npy(w)[0, :, :, 2] == 0)
    _, none = mha(x, x, x, need_weights=False)
    assert none is None


def test_dropout_modes_and_reproducibility():
    drop = nn.Dropout(0.25)
    x = minflow.ones(20000)
    minflow.manual_seed(3)
    y = npy(drop(x))
    assert abs((y == 0).mean() - 0.25) < 0.02 and np.allclose(y[y != 0], 1 / 0.75)
    minflow.manual_seed(3)
    np.testing.assert_array_equal(npy(drop(x)), y)
    assert drop.eval()(x) is x


def test_transformer_encoder_layer_eval_is_deterministic_and_train_drops():
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.5).double()
    x = t(rng.randn(5, 2, 8))
    a, b = layer(x), layer(x)
    assert not np.allclose(npy(a), npy(b))
    layer.eval()
    np.testing.assert_array_equal(npy(layer(x)), npy(layer(x)))


def test_transformer_encoder_layers_start_equal_and_are_independent():
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 3)
    w0, w1 = enc.layers[0].linear1.weight, enc.layers[1].linear1.weight
    assert w0 is not w1 and npy(w0).tolist() == npy(w1).tolist()
    assert len(list(enc.parameters())) == 3 * len(list(enc.layers[0].parameters()))


def test_encoder_detects_a_causal_mask():
    layer = nn.TransformerEncoderLayer(4, 1, 8, dropout=0.0).double()
    enc = nn.TransformerEncoder(layer, 1)
    x = t(rng.randn(3, 1, 4))
    mask = t(np.triu(np.full((3, 3), -np.inf), 1))
    np.testing.assert_allclose(npy(enc(x, mask=mask)),
                               npy(enc.layers[0](x, src_mask=mask)), 1e-12)


# ---- gradient checks (float64, small) ------------------------------------------------

GRAD_LAYERS = {
    "linear": (lambda: nn.Linear(3, 2), (2, 3)),
    "conv2d": (lambda: nn.Conv2d(2, 2, 2, stride=1, padding=1, groups=2), (1, 2, 3, 3)),
    "conv1d": (lambda: nn.Conv1d(2, 1, 2), (2, 2, 4)),
    "batchnorm2d": (lambda: nn.BatchNorm2d(2), (3, 2, 2, 1)),
    "layernorm": (lambda: nn.LayerNorm(3), (2, 3)),
    "mha": (lambda: nn.MultiheadAttention(4, 2, batch_first=True), (1, 3, 4)),
    "encoder_layer": (lambda: nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0,
                                                         norm_first=True), (3, 1, 4)),
    "avgpool": (lambda: nn.AvgPool2d(2), (1, 1, 4, 4)),
}


@pytest.mark.parametrize("name", GRAD_LAYERS)
def test_gradcheck(name):
    build, shape = GRAD_LAYERS[name]
    m = build().double()
    x = t(rng.randn(*shape), grad=True)
    ps = tuple(m.parameters())

    def fn(x, *_):
        out = m(x, x, x)[0] if isinstance(m, nn.MultiheadAttention) else m(x)
        return out
    assert gradcheck(fn, (x,) + ps, atol=1e-6, rtol=1e-4)


def test_embedding_gradcheck():
    emb = nn.Embedding(4, 2).double()
    idx = minflow.tensor([0, 3, 3])
    assert gradcheck(lambda w: emb(idx), (emb.weight,))

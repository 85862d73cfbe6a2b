import math

import numpy as np
import pytest

import minflow
import minflow.nn.functional as Fn
from minflow.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(0)
LOGITS = RNG.standard_normal((5, 4))
TARGET = np.array([0, 3, -100, 1, 3])
WEIGHT = np.array([0.5, 1.0, 2.0, 1.5])


def t64(a, device="cpu", grad=False):
    return minflow.tensor(np.asarray(a, dtype=np.float64), device=device, requires_grad=grad)


def idx(a, device="cpu"):
    return minflow.tensor(np.asarray(a, dtype=np.int64), device=device)


def out(t):
    return t.detach().cpu().numpy()


def _log_softmax_ref(x, axis):
    # log-sum-exp with the max taken out, independent of the kernels
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def _nll_ref(logp, target, weight=None, ignore_index=-100, reduction="mean"):
    """logp (N, C, ...) -> reduced loss, with the class dim moved last."""
    logp = np.moveaxis(logp, 1, -1) if logp.ndim > 1 else logp[None]
    target = np.asarray(target).reshape(logp.shape[:-1])
    w = np.ones(logp.shape[-1]) if weight is None else weight
    kept = target != ignore_index
    safe = np.where(kept, target, 0)
    picked = np.take_along_axis(logp, safe[..., None], -1)[..., 0]
    wt = np.where(kept, w[safe], 0.0)
    loss = np.where(kept, -picked * wt, 0.0)
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.sum() / wt.sum()


# ---- nll_loss / cross_entropy with class indices -----------------------------------------

@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_class_indices(reduction, weighted, device):
    w = WEIGHT if weighted else None
    x = t64(LOGITS, device, grad=True)
    wt = None if w is None else t64(w, device)

    def fn(x):
        return Fn.cross_entropy(x, idx(TARGET, device), wt, reduction=reduction)

    expected = _nll_ref(_log_softmax_ref(LOGITS, 1), TARGET, w, reduction=reduction)
    np.testing.assert_allclose(out(fn(x)), expected, rtol=1e-12, atol=1e-12)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_nll_loss_spatial_and_1d(reduction):
    logp = _log_softmax_ref(RNG.standard_normal((2, 3, 4, 2)), 1)
    target = RNG.integers(0, 3, (2, 4, 2))
    target[0, 1, 1] = 7      # ignored below
    x = t64(logp, grad=True)

    def fn(x):
        return Fn.nll_loss(x, idx(target), t64(WEIGHT[:3]), ignore_index=7,
                           reduction=reduction)

    expected = _nll_ref(logp, target, WEIGHT[:3], 7, reduction)
    np.testing.assert_allclose(out(fn(x)), expected, rtol=1e-12)
    assert gradcheck(fn, (x,))
    one = Fn.nll_loss(t64([-1.0, -2.0, -3.0]), idx(2), reduction=reduction)
    assert one.shape == () and one.item() == 3.0


def test_cross_entropy_is_stable_for_huge_logits():
    x = t64([[1000.0, 0.0], [-1000.0, 1000.0]])
    loss = Fn.cross_entropy(x, idx([1, 1]), reduction="none")
    np.testing.assert_allclose(out(loss), [1000.0, 0.0])


def test_mean_with_every_target_ignored_is_nan():
    x = t64(LOGITS[:2], grad=True)
    loss = Fn.cross_entropy(x, idx([-100, -100]))
    assert math.isnan(loss.item())
    loss.backward()         # as torch: ignored rows get no gradient, not 0 / 0
    np.testing.assert_array_equal(out(x.grad), np.zeros((2, 4)))


def test_label_smoothing_at_or_below_zero_is_none():
    # as torch: only a smoothing > 1 is an error; a negative (or nan) one smooths nothing
    plain = Fn.cross_entropy(t64(LOGITS), idx(TARGET)).item()
    for eps in (-0.5, float("nan")):
        assert Fn.cross_entropy(t64(LOGITS), idx(TARGET), label_smoothing=eps).item() == plain


def test_one_element_target_of_a_1d_input():
    logits = t64(LOGITS[0])
    loss = Fn.cross_entropy(logits, idx([2]), reduction="none")
    assert loss.shape == () and loss.item() == pytest.approx(-_log_softmax_ref(LOGITS[0], 0)[2])
    with pytest.raises(ValueError, match="For 1D input, 1D target must have size 1, but got "
                                         "target size: 2"):
        Fn.nll_loss(logits, idx([1, 2]))


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("weighted", [False, True])
def test_label_smoothing(reduction, weighted):
    eps, w = 0.2, (WEIGHT if weighted else None)
    x = t64(LOGITS, grad=True)

    def fn(x):
        return Fn.cross_entropy(x, idx(TARGET), None if w is None else t64(w),
                                reduction=reduction, label_smoothing=eps)

    logp, ww = _log_softmax_ref(LOGITS, 1), np.ones(4) if w is None else w
    kept = TARGET != -100
    smooth = np.where(kept, -(logp * ww).sum(1), 0.0)
    if reduction == "sum":
        smooth = smooth.sum()
    elif reduction == "mean":
        smooth = smooth.sum() / ww[TARGET[kept]].sum()
    expected = (1 - eps) * _nll_ref(logp, TARGET, w, reduction=reduction) + eps / 4 * smooth
    np.testing.assert_allclose(out(fn(x)), expected, rtol=1e-12)
    assert gradcheck(fn, (x,))


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_cross_entropy_probability_targets(reduction):
    probs = np.exp(_log_softmax_ref(RNG.standard_normal((5, 4)), 1))
    x, p = t64(LOGITS, grad=True), t64(probs, grad=True)

    def fn(x, p):
        return Fn.cross_entropy(x, p, t64(WEIGHT), reduction=reduction, label_smoothing=0.1)

    q = probs * 0.9 + 0.1 / 4
    per = -(_log_softmax_ref(LOGITS, 1) * q * WEIGHT).sum(1)
    expected = {"none": per, "sum": per.sum(), "mean": per.sum() / 5}[reduction]
    np.testing.assert_allclose(out(fn(x, p)), expected, rtol=1e-12)
    assert gradcheck(fn, (x, p))


@pytest.mark.parametrize("rows, classes", [(2, 2), (64, 10), (300, 32), (3, 33), (1, 10)])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_cross_entropy_short_rows_every_target_kept(rows, classes, reduction, device):
    """Up to 32 classes and several rows, every target kept: the kernels' short-row paths
    (max and sum across rows, one flat index per row in backward)."""
    rng = np.random.default_rng(rows * classes)
    logits = rng.standard_normal((rows, classes)) * 4
    target = rng.integers(0, classes, rows)
    x = t64(logits, device, grad=True)
    loss = Fn.cross_entropy(x, idx(target, device), reduction=reduction)
    logp = _log_softmax_ref(logits, 1)
    np.testing.assert_allclose(out(loss), _nll_ref(logp, target, reduction=reduction),
                               rtol=1e-12, atol=1e-12)
    grad_out = rng.standard_normal(rows) if reduction == "none" else np.array(1.5)
    loss.backward(t64(grad_out, device))
    onehot = np.eye(classes)[target]
    scale = grad_out[:, None] if reduction == "none" else grad_out / (
        rows if reduction == "mean" else 1)
    np.testing.assert_allclose(out(x.grad), (np.exp(logp) - onehot) * scale, rtol=1e-10,
                               atol=1e-12)


def test_cross_entropy_float32_short_rows_match_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    logits = rng.standard_normal((256, 10)).astype(np.float32) * 3
    target = rng.integers(0, 10, 256)
    x = minflow.tensor(logits, requires_grad=True)
    tx = torch.tensor(logits, requires_grad=True)
    loss = Fn.cross_entropy(x, idx(target))
    t_loss = torch.nn.functional.cross_entropy(tx, torch.tensor(target))
    loss.backward()
    t_loss.backward()
    np.testing.assert_allclose(loss.item(), t_loss.item(), rtol=1e-6)
    np.testing.assert_allclose(out(x.grad), tx.grad.numpy(), rtol=1e-5, atol=1e-8)


def test_class_index_errors():
    x = t64(LOGITS)
    with pytest.raises(IndexError, match=r"nll_loss: target 4 is out of bounds.*C = 4"):
        Fn.cross_entropy(x, idx([0, 1, 4, 2, 0]))
    with pytest.raises(IndexError, match=r"target -3 "):
        Fn.nll_loss(x, idx([0, 1, -3, 2, 0]))
    with pytest.raises(IndexError, match=r"nll_loss: target -1 is out of bounds"):
        Fn.cross_entropy(x, idx([0, 1, -1, 2, 0]))
    with pytest.raises(RuntimeError, match="nll_loss: expected target of dtype int64.*int32"):
        Fn.cross_entropy(x, minflow.tensor([0, 1, 2, 3, 0], dtype=minflow.int32))
    with pytest.raises(ValueError, match=r"nll_loss: Expected input batch_size \(5\) to "
                                         r"match target batch_size \(4\)"):
        Fn.nll_loss(x, idx([0, 1, 2, 3]))                               # ValueError, as torch
    with pytest.raises(RuntimeError, match=r"Expected target size \[5, 2\], got \[5\]"):
        Fn.nll_loss(minflow.reshape(x, (5, 2, 2)), idx(TARGET))
    with pytest.raises(RuntimeError, match="label_smoothing must be between 0.0 and 1.0"):
        Fn.cross_entropy(x, idx(TARGET), label_smoothing=1.5)
    with pytest.raises(RuntimeError, match="ignore_index is not supported for floating"):
        Fn.cross_entropy(x, t64(np.full((5, 4), 0.25)), ignore_index=0)
    with pytest.raises(RuntimeError, match=r"weight of shape \[4\].*got \[3\]"):
        Fn.nll_loss(x, idx(TARGET), t64([1.0, 2.0, 3.0]))
    with pytest.raises(RuntimeError, match=r"probability targets.*\[5, 4\].*\[5, 3\]"):
        Fn.cross_entropy(x, t64(np.ones((5, 3))))
    with pytest.raises(ValueError, match="cross_entropy: reduction must be one of.*'avg'"):
        Fn.cross_entropy(x, idx(TARGET), reduction="avg")


def test_deprecated_size_average_and_reduce():
    x, t = t64(LOGITS), idx([0, 1, 2, 3, 0])
    total = Fn.cross_entropy(x, t, reduction="sum").item()
    assert Fn.cross_entropy(x, t, size_average=False).item() == pytest.approx(total)
    assert Fn.nll_loss(x, t, reduce=False).shape == (5,)


# ---- binary cross entropy ------------------------------------------------------------------

P = RNG.uniform(0.05, 0.95, (3, 4))
Y = RNG.uniform(0, 1, (3, 4))


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_binary_cross_entropy(reduction, device):
    w = RNG.uniform(0.5, 2, (4,))
    x, y = t64(P, device, grad=True), t64(Y, device, grad=True)

    def fn(x, y):
        return Fn.binary_cross_entropy(x, y, t64(w, device), reduction=reduction)

    per = -w * (Y * np.log(P) + (1 - Y) * np.log(1 - P))
    expected = {"none": per, "sum": per.sum(), "mean": per.mean()}[reduction]
    np.testing.assert_allclose(out(fn(x, y)), expected, rtol=1e-12)
    assert gradcheck(fn, (x, y))
    assert gradgradcheck(fn, (x, y))


def test_binary_cross_entropy_clamps_log_and_checks_range():
    loss = Fn.binary_cross_entropy(t64([0.0, 1.0]), t64([1.0, 0.0]), reduction="none")
    np.testing.assert_allclose(out(loss), [100.0, 100.0])
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        Fn.binary_cross_entropy(t64([0.5, 1.5]), t64([1.0, 0.0]))
    with pytest.raises(ValueError, match=r"input's size \[2\].*target size \[3\]"):
        Fn.binary_cross_entropy(t64([0.5, 0.5]), t64([1.0, 0.0, 1.0]))


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("with_pos_weight", [False, True])
def test_binary_cross_entropy_with_logits(reduction, with_pos_weight, device):
    logits = RNG.standard_normal((3, 4)) * 3
    pw = RNG.uniform(0.5, 3, (4,))
    x, y = t64(logits, device, grad=True), t64(Y, device, grad=True)
    p = t64(pw, device, grad=True)
    w = t64(RNG.uniform(0.5, 2, (3, 1)), device)

    def fn(x, y, p):
        return Fn.binary_cross_entropy_with_logits(
            x, y, w, reduction=reduction, pos_weight=p if with_pos_weight else None)

    s = 1 / (1 + np.exp(-logits))
    pos = pw if with_pos_weight else 1.0
    per = -out(w) * (pos * Y * np.log(s) + (1 - Y) * np.log(1 - s))
    expected = {"none": per, "sum": per.sum(), "mean": per.mean()}[reduction]
    np.testing.assert_allclose(out(fn(x, y, p)), expected, rtol=1e-10)
    assert gradcheck(fn, (x, y, p))
    assert gradgradcheck(fn, (x, y, p))


def test_bce_with_logits_is_stable_and_exact_at_zero():
    x = t64([-1000.0, 1000.0, 0.0], grad=True)
    loss = Fn.binary_cross_entropy_with_logits(x, t64([1.0, 0.0, 1.0]), reduction="sum")
    np.testing.assert_allclose(loss.item(), 2000.0 + math.log(2))
    loss.backward()
    np.testing.assert_allclose(out(x.grad), [-1.0, 1.0, -0.5])    # sigmoid(x) - t


# ---- mse / l1 --------------------------------------------------------------------------

@pytest.mark.parametrize("name,ref", [("mse_loss", np.square), ("l1_loss", np.abs)])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_regression_losses(name, ref, reduction):
    fn_ = getattr(Fn, name)
    x, y = t64(LOGITS, grad=True), t64(LOGITS[::-1] + 0.25, grad=True)
    per = ref(LOGITS - (LOGITS[::-1] + 0.25))
    expected = {"none": per, "sum": per.sum(), "mean": per.mean()}[reduction]
    np.testing.assert_allclose(out(fn_(x, y, reduction=reduction)), expected, rtol=1e-12)
    assert gradcheck(lambda a, b: fn_(a, b, reduction=reduction), (x, y))
    w = RNG.uniform(0.5, 2, LOGITS.shape)
    weighted = fn_(x, y, reduction="mean", weight=t64(w))
    np.testing.assert_allclose(weighted.item(), (per * w).sum() / w.sum(), rtol=1e-12)


def test_regression_shape_errors():
    with pytest.warns(UserWarning, match="different to the input size"):
        Fn.mse_loss(t64(np.ones((2, 3))), t64(np.ones(3)))
    with pytest.raises(RuntimeError, match=r"l1_loss: target size \[4\].*input size \[2, 3\]"):
        Fn.l1_loss(t64(np.ones((2, 3))), t64(np.ones(4)))
    with pytest.raises(ValueError, match="mse_loss: reduction.*'bad'"):
        Fn.mse_loss(t64([1.0]), t64([1.0]), reduction="bad")


# ---- scaled_dot_product_attention ------------------------------------------------------

def _sdpa_ref(q, k, v, mask=None, scale=None):
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    s = q @ np.swapaxes(k, -1, -2) * scale
    if mask is not None:
        s = np.where(mask, s, -np.inf) if mask.dtype == bool else s + mask
    e = np.exp(s - s.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)) @ v


@pytest.mark.parametrize("case", ["plain", "bool", "float", "causal", "scale"])
def test_scaled_dot_product_attention(case, device):
    q, k, v = (RNG.standard_normal(s) for s in [(2, 3, 4), (2, 5, 4), (2, 5, 6)])
    bool_mask = RNG.uniform(size=(3, 5)) > 0.3
    bool_mask[:, 0] = True
    mask = {"bool": bool_mask, "float": RNG.standard_normal((3, 5)),
            "causal": np.tril(np.ones((3, 5), bool))}.get(case)
    scale = 0.3 if case == "scale" else None
    kw = {"is_causal": True} if case == "causal" else {
        "attn_mask": None if mask is None else minflow.tensor(mask, device=device),
        "scale": scale}
    args = tuple(t64(a, device, grad=True) for a in (q, k, v))

    def fn(q, k, v):
        return Fn.scaled_dot_product_attention(q, k, v, **kw)

    np.testing.assert_allclose(out(fn(*args)), _sdpa_ref(q, k, v, mask, scale), rtol=1e-10)
    assert gradcheck(fn, args)


def test_sdpa_dropout_and_errors():
    q = t64(np.ones((2, 3, 4)))
    assert Fn.scaled_dot_product_attention(q, q, q, dropout_p=0.5).shape == (2, 3, 4)
    with pytest.raises(RuntimeError, match="attn_mask must be None"):
        Fn.scaled_dot_product_attention(q, q, q, attn_mask=minflow.ones(3, 3) > 0,
                                        is_causal=True)
    with pytest.raises(RuntimeError, match=r"\[2, 3, 4\].*\[2, 3, 5\]"):
        Fn.scaled_dot_product_attention(q, t64(np.ones((2, 3, 5))), q)


# ---- torch cross-checks ----------------------------------------------------------------

def _torch_pair(torch, a):
    return torch.tensor(a, requires_grad=True), t64(a, grad=True)


def test_torch_cross_entropy_family():
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    target = torch.tensor(TARGET)
    for kwargs in ({}, {"label_smoothing": 0.3}, {"reduction": "sum"}):
        xt, xm = _torch_pair(torch, LOGITS)
        wt = torch.tensor(WEIGHT)
        lt = tf.cross_entropy(xt, target, wt, **kwargs)
        lm = Fn.cross_entropy(xm, idx(TARGET), t64(WEIGHT), **kwargs)
        lt.backward()
        lm.backward()
        np.testing.assert_allclose(out(lm), lt.detach().numpy(), rtol=1e-12)
        np.testing.assert_allclose(out(xm.grad), xt.grad.numpy(), rtol=1e-10, atol=1e-14)


def test_torch_binary_and_attention():
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    pt, pm = _torch_pair(torch, P)
    lt, lm = tf.binary_cross_entropy(pt, torch.tensor(Y)), Fn.binary_cross_entropy(pm, t64(Y))
    lt.backward()
    lm.backward()
    np.testing.assert_allclose(out(lm), lt.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(out(pm.grad), pt.grad.numpy(), rtol=1e-10)
    pw = np.array([0.5, 1.0, 2.0, 3.0])
    xt, xm = _torch_pair(torch, LOGITS[:3] * 10)
    lt = tf.binary_cross_entropy_with_logits(xt, torch.tensor(Y), pos_weight=torch.tensor(pw))
    lm = Fn.binary_cross_entropy_with_logits(xm, t64(Y), pos_weight=t64(pw))
    np.testing.assert_allclose(out(lm), lt.detach().numpy(), rtol=1e-12)
    q = RNG.standard_normal((2, 4, 3))
    at = tf.scaled_dot_product_attention(*(torch.tensor(q),) * 3, is_causal=True)
    am = Fn.scaled_dot_product_attention(*(t64(q),) * 3, is_causal=True)
    np.testing.assert_allclose(out(am), at.numpy(), rtol=1e-10)


def test_kl_div_is_xlogy_of_the_target():
    # as torch: t log t - t x, with 0 log 0 = 0 and nan (value and grads) where t < 0
    x, t = t64([0.1, 0.2, 0.3], grad=True), t64([-0.5, 0.0, 0.5], grad=True)
    loss = Fn.kl_div(x, t, reduction="none")
    np.testing.assert_array_equal(np.isnan(out(loss)), [True, False, False])
    np.testing.assert_allclose(out(loss)[1:], [0.0, 0.5 * math.log(0.5) - 0.15], 1e-12)
    loss.sum().backward()
    np.testing.assert_allclose(out(x.grad), [0.5, 0.0, -0.5], 1e-12)
    np.testing.assert_array_equal(np.isnan(out(t.grad)), [True, True, False])
    np.testing.assert_allclose(out(t.grad)[2], math.log(0.5) + 1 - 0.3, 1e-12)


def test_binary_cross_entropy_checks_the_target_range():
    with pytest.raises(RuntimeError, match="all elements of target should be between 0 and 1"):
        Fn.binary_cross_entropy(t64([0.5]), t64([2.0]))

"""ctc_loss: forward against a plain-loop numpy reference (the table also runs through
check_op in test_op_table.py), finite-difference gradients, values, gradients and dtypes
against PyTorch over targets, lengths, blanks, reductions and impossible alignments,
torch.ctc_loss's int reductions, nn.CTCLoss, and the toy recogniser learning."""
import math

import numpy as np
import pytest

import minflow
import minflow.nn.functional as Fn
from minflow.autograd import gradcheck

rng = np.random.RandomState(7)
T, N, C = 7, 4, 5
LOGITS = rng.randn(T, N, C)
PADDED = np.array([[1, 2, 2, 0], [3, 1, -1, -1], [4, 4, 4, 0], [1, 0, 0, 0]])
CONCATENATED = np.array([1, 2, 2, 3, 1, 4, 4, 4])
INPUT_LENGTHS = np.array([7, 6, 4, 7])
TARGET_LENGTHS = np.array([3, 2, 3, 0])     # sample 2: 4 frames cannot fit 4, 4, 4


def _log_softmax(x):
    shifted = x - x.max(-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))


def _targets_of(targets, target_lengths):
    """Each sample's labels, from padded or concatenated targets."""
    if targets.ndim == 2:
        return [list(row[:n]) for row, n in zip(targets, target_lengths)]
    ends = np.cumsum(target_lengths)
    return [list(targets[end - n:end]) for end, n in zip(ends, target_lengths)]


def _nll(log_probs, labels, frames, blank):
    """-log p(labels | log_probs[:frames]) by the alpha recursion, one position at a time."""
    ext = [blank]
    for label in labels:
        ext += [label, blank]
    alpha = np.full(len(ext), -np.inf)
    if frames == 0:
        return 0.0 if not labels else math.inf
    alpha[:2] = [log_probs[0, c] for c in ext[:2]]
    for t in range(1, frames):
        prev = alpha.copy()
        for s, c in enumerate(ext):
            terms = [prev[s]] + ([prev[s - 1]] if s > 0 else [])
            if s > 1 and ext[s - 2] != c:
                terms.append(prev[s - 2])
            alpha[s] = np.logaddexp.reduce(terms) + log_probs[t, c]
    return -np.logaddexp.reduce(alpha[-2:] if labels else alpha[-1:])


def ctc_reference(log_probs, targets, input_lengths, target_lengths, blank=0,
                  reduction="mean", zero_infinity=False):
    """The loss computed sample by sample in float64, reduced as torch reduces it."""
    lp = log_probs.astype(np.float64)
    losses = np.array([_nll(lp[:, n], labels, input_lengths[n], blank) for n, labels in
                       enumerate(_targets_of(targets, target_lengths))])
    if zero_infinity:
        losses[losses == np.inf] = 0.0
    if reduction == "mean":
        losses = (losses / np.maximum(target_lengths, 1)).mean()
    elif reduction == "sum":
        losses = losses.sum()
    return np.asarray(losses, dtype=log_probs.dtype)


def _on_log_softmax(**kwargs):
    """(minflow call on logits, numpy reference): the gradient torch defines is that of
    log_probs = log_softmax(logits) (see test_gradient_is_torchs_formula)."""
    def call(x, *args):
        return Fn.ctc_loss(x.log_softmax(2), *args, **kwargs)

    def reference(x, *args):
        return ctc_reference(_log_softmax(x).astype(x.dtype), *args, **kwargs)
    return call, reference


LENGTHS = [INPUT_LENGTHS, TARGET_LENGTHS]
# name: (minflow call, numpy reference, inputs); impossible alignments only with
# zero_infinity, so that the gradients are finite
REFERENCES = {
    "ctc_loss": (*_on_log_softmax(reduction="none"),
                 [LOGITS, PADDED, np.array([7, 6, 6, 7]), TARGET_LENGTHS]),
    "ctc_loss_concatenated_sum_zero_infinity": (
        *_on_log_softmax(reduction="sum", zero_infinity=True),
        [LOGITS, CONCATENATED, *LENGTHS]),
    "ctc_loss_mean_blank_2": (
        *_on_log_softmax(blank=2, zero_infinity=True),
        [LOGITS, np.where(PADDED == 2, 0, PADDED), *LENGTHS]),
    "ctc_loss_int32_short_inputs": (
        *_on_log_softmax(reduction="none"),
        [LOGITS, PADDED.astype(np.int32), np.array([7, 0, 7, 2], np.int32),
         np.array([3, 0, 3, 0], np.int32)]),
}


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_forward_matches_reference(name, device):
    fn, ref, inputs = REFERENCES[name]
    out = fn(*[minflow.tensor(a, device=device) for a in inputs])
    np.testing.assert_allclose(out.cpu().numpy(), ref(*inputs), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_gradcheck(name):
    """Finite differences through log_softmax: torch's gradient formula assumes
    normalised log-probabilities."""
    fn, _, inputs = REFERENCES[name]
    x = minflow.tensor(inputs[0], requires_grad=True)
    rest = [minflow.tensor(a) for a in inputs[1:]]
    assert gradcheck(lambda x: fn(x, *rest), (x,))


def test_gradient_is_torchs_formula():
    """As torch: d/d log_probs = exp(log_probs) - posterior (scaled by grad_out), not the
    plain -posterior; the two agree once they pass through log_softmax's backward."""
    lp = minflow.tensor(_log_softmax(LOGITS), requires_grad=True)
    args = [minflow.tensor(a) for a in (PADDED, *LENGTHS)]
    loss = Fn.ctc_loss(lp, *args, reduction="sum", zero_infinity=True)
    loss.backward()
    grad = lp.grad.numpy()
    frames = np.arange(T)[:, None] < INPUT_LENGTHS
    kept = frames & (np.arange(N) != 2)     # sample 2 is impossible: zeroed
    posterior = np.exp(lp.detach().numpy()) - grad
    np.testing.assert_allclose(posterior.sum(-1)[kept], 1.0, rtol=1e-12)
    assert (grad[~kept] == 0).all()


def test_double_backward_is_not_implemented():
    lp = minflow.tensor(_log_softmax(LOGITS), requires_grad=True)
    loss = Fn.ctc_loss(lp, *[minflow.tensor(a) for a in (PADDED, *LENGTHS)],
                       zero_infinity=True)
    (grad,) = minflow.autograd.grad(loss, lp, create_graph=True)
    with pytest.raises(RuntimeError, match="derivative for ctc_loss_grad is not implemented"):
        grad.sum().backward()


def test_recognizer_learns():
    """A bidirectional GRU + Linear + log_softmax trained with CTCLoss: the loss falls
    and greedy decoding reads more held-out sequences exactly."""
    from pytorch_scripts import ctc_recognizer
    result = ctc_recognizer.main(minflow, epochs=4)
    assert result["losses"][-1] < result["losses"][0] / 5
    assert result["test_correct"][-1] > 3 * max(result["test_correct"][0], 1)


# ---- PyTorch as the oracle --------------------------------------------------------------

def _run(lib, log_probs, targets, input_lengths, target_lengths, device="cpu", **kwargs):
    """(loss, grad of sum(loss * weights) w.r.t. log_probs) with ``lib``."""
    def as_lib(v):
        return lib.tensor(v) if isinstance(v, np.ndarray) else v
    lp = lib.tensor(log_probs, requires_grad=True)
    args = [as_lib(v) for v in (targets, input_lengths, target_lengths)]
    if lib is minflow:
        lp = lp.detach().to(device).requires_grad_()
        args = [a.to(device) if isinstance(a, minflow.Tensor) else a for a in args]
    loss = lib.nn.functional.ctc_loss(lp, *args, **kwargs)
    weights = np.linspace(0.5, 1.5, max(loss.numel(), 1)).reshape(tuple(loss.shape))
    (loss * lib.tensor(weights, dtype=loss.dtype, device=loss.device)).sum().backward()
    return loss, lp.grad


def _as_numpy(t):
    return t.detach().cpu().numpy() if isinstance(t, minflow.Tensor) else t.detach().numpy()


def _log_probs(dtype, neg_inf_class=None):
    lp = _log_softmax(LOGITS)
    if neg_inf_class is not None:
        lp[:, :, neg_inf_class] = -np.inf
    return lp.astype(dtype)


CASES = {
    "padded": (PADDED, *LENGTHS, {}),
    "concatenated": (CONCATENATED, *LENGTHS, {}),
    "zero_infinity": (PADDED, *LENGTHS, {"zero_infinity": True}),
    "blank_2": (np.where(PADDED == 2, 0, PADDED), *LENGTHS, {"blank": 2}),
    "blank_as_target": (np.array([[1, 0, 2, 0], [0, 1, -1, -1], [4, 0, 4, 0], [1, 0, 0, 0]]),
                        *LENGTHS, {}),
    "repeats_only": (np.full((N, 4), 3), INPUT_LENGTHS, np.array([4, 1, 2, 3]), {}),
    "lists": (PADDED, list(INPUT_LENGTHS), tuple(TARGET_LENGTHS), {}),
    "int32": (PADDED.astype(np.int32), INPUT_LENGTHS.astype(np.int32),
              TARGET_LENGTHS.astype(np.int32), {}),
    "uint8_lengths_float_targets": (PADDED.astype(np.float32), INPUT_LENGTHS.astype(np.uint8),
                                    TARGET_LENGTHS, {}),
    "empty_inputs": (PADDED, np.array([0, 6, 0, 7]), np.array([3, 2, 0, 0]), {}),
    "no_targets": (np.zeros((0,), np.int64), INPUT_LENGTHS, np.zeros(N, np.int64), {}),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_torch(case, reduction, dtype, device):
    torch = pytest.importorskip("torch")
    targets, input_lengths, target_lengths, kwargs = CASES[case]
    args = (_log_probs(dtype), targets, input_lengths, target_lengths)
    kwargs = dict(kwargs, reduction=reduction)
    expected, expected_grad = _run(torch, *args, **kwargs)
    got, grad = _run(minflow, *args, device=device, **kwargs)
    assert got.dtype.name == str(expected.dtype).split(".")[1]
    assert tuple(got.shape) == tuple(expected.shape) and grad.dtype == got.dtype
    tol = dict(rtol=1e-12, atol=1e-12) if dtype == "float64" else dict(rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(_as_numpy(got), _as_numpy(expected), equal_nan=True, **tol)
    np.testing.assert_allclose(_as_numpy(grad), _as_numpy(expected_grad), equal_nan=True, **tol)


@pytest.mark.parametrize("zero_infinity", [False, True])
@pytest.mark.parametrize("case", ["impossible", "neg_inf_log_prob"])
def test_infinite_losses_and_nan_grads_as_torch(case, zero_infinity):
    """An impossible alignment: inf loss and nan grads over its frames, or 0 and 0 with
    zero_infinity; a -inf log-probability: nan grads in its class, as torch's formula
    gives (exp(-inf + inf))."""
    torch = pytest.importorskip("torch")
    lp = _log_probs("float64", neg_inf_class=3 if case == "neg_inf_log_prob" else None)
    args = (lp, PADDED, *LENGTHS)
    kwargs = {"reduction": "none", "zero_infinity": zero_infinity}
    expected, expected_grad = _run(torch, *args, **kwargs)
    got, grad = _run(minflow, *args, **kwargs)
    if case == "impossible":
        assert np.isinf(_as_numpy(expected)).any() != zero_infinity
        assert np.isnan(_as_numpy(expected_grad)).any() != zero_infinity
    else:
        assert np.isnan(_as_numpy(expected_grad)[..., 3]).any()
    np.testing.assert_allclose(_as_numpy(got), _as_numpy(expected), rtol=1e-12, equal_nan=True)
    np.testing.assert_allclose(_as_numpy(grad), _as_numpy(expected_grad), rtol=1e-12,
                               atol=1e-12, equal_nan=True)


def test_blank_as_last_label():
    """A target ending in the blank class (which torch documents as invalid): torch's loss,
    and the exact gradient, where torch's cpu kernel drops the alignments that end in the
    final blank from that class's posterior at the last frame."""
    torch = pytest.importorskip("torch")
    targets = np.array([[1, 0, 0, 0], [3, 0, -1, -1], [4, 4, 0, 0], [2, 0, 0, 0]])
    args = (_log_probs("float64"), targets, np.array([7, 6, 6, 7]), np.array([3, 2, 3, 2]))
    expected, expected_grad = _run(torch, *args, reduction="none")
    got, grad = _run(minflow, *args, reduction="none")
    np.testing.assert_allclose(_as_numpy(got), _as_numpy(expected), rtol=1e-12)
    other = np.ones(grad.shape, bool)
    other[args[2] - 1, np.arange(N), 0] = False
    np.testing.assert_allclose(_as_numpy(grad)[other], _as_numpy(expected_grad)[other],
                               rtol=1e-12, atol=1e-12)
    x = minflow.tensor(LOGITS, requires_grad=True)
    rest = [minflow.tensor(a) for a in args[1:]]
    assert gradcheck(lambda x: Fn.ctc_loss(x.log_softmax(2), *rest, reduction="none"), (x,))


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("lengths", ["tensors", "lists"])
def test_unbatched_as_torch(reduction, lengths):
    torch = pytest.importorskip("torch")
    lp = _log_probs("float64")[:, 0]
    il, tl = (np.array(7), np.array(3)) if lengths == "tensors" else ([7], [3])
    for targets in (PADDED[0, :3], PADDED[:1]):
        expected, expected_grad = _run(torch, lp, targets, il, tl, reduction=reduction)
        got, grad = _run(minflow, lp, targets, il, tl, reduction=reduction)
        assert tuple(got.shape) == tuple(expected.shape)
        np.testing.assert_allclose(_as_numpy(got), _as_numpy(expected), rtol=1e-12)
        np.testing.assert_allclose(_as_numpy(grad), _as_numpy(expected_grad), rtol=1e-12,
                                   atol=1e-14)


@pytest.mark.parametrize("reduction", [None, 0, 1, 2, 5])
def test_torch_namespace_takes_int_reductions(reduction):
    """minflow.ctc_loss is torch.ctc_loss: an int reduction; without one, no reduction."""
    torch = pytest.importorskip("torch")
    outs = []
    for lib in (torch, minflow):
        lp = lib.tensor(_log_probs("float64"))
        args = [lp] + [lib.tensor(a) for a in (PADDED, *LENGTHS)]
        extra = () if reduction is None else (0, reduction, True)
        outs.append(lib.ctc_loss(*args, *extra))
    assert tuple(outs[1].shape) == tuple(outs[0].shape)
    np.testing.assert_allclose(_as_numpy(outs[1]), _as_numpy(outs[0]), rtol=1e-12)


def test_torch_namespace_refuses_string_reductions():
    lp = minflow.tensor(_log_probs("float64"))
    with pytest.raises(TypeError, match="ctc_loss: argument 'reduction' must be int, not str"):
        minflow.ctc_loss(lp, *[minflow.tensor(a) for a in (PADDED, *LENGTHS)], 0, "mean")


def test_ctc_loss_module_as_torch():
    torch = pytest.importorskip("torch")
    assert repr(minflow.nn.CTCLoss(blank=2, reduction="sum")) == repr(torch.nn.CTCLoss())
    module = minflow.nn.CTCLoss(blank=2, reduction="sum", zero_infinity=True)
    assert (module.blank, module.reduction, module.zero_infinity) == (2, "sum", True)
    targets = np.where(PADDED == 2, 0, PADDED)
    outs = []
    for lib in (torch, minflow):
        lp = lib.tensor(_log_probs("float32"), requires_grad=True)
        loss = lib.nn.CTCLoss(blank=2, reduction="sum", zero_infinity=True)(
            lp, *[lib.tensor(a) for a in (targets, *LENGTHS)])
        loss.backward()
        outs.append((loss, lp.grad))
    np.testing.assert_allclose(_as_numpy(outs[1][0]), _as_numpy(outs[0][0]), rtol=1e-5)
    np.testing.assert_allclose(_as_numpy(outs[1][1]), _as_numpy(outs[0][1]), rtol=1e-5,
                               atol=1e-6)
    assert outs[1][0].grad_fn is not None


def test_grad_fn_name_as_torch():
    lp = minflow.tensor(_log_probs("float64"), requires_grad=True)
    loss = Fn.ctc_loss(lp, *[minflow.tensor(a) for a in (PADDED, *LENGTHS)], reduction="none")
    assert loss.grad_fn.name() == "CtcLossBackward0"


def test_autocast_cpu_runs_in_float32():
    """As torch's cpu autocast: float16 log-probabilities are cast to float32."""
    lp = minflow.tensor(_log_probs("float32")).half()
    with minflow.autocast("cpu", dtype=minflow.float16):
        loss = Fn.ctc_loss(lp, *[minflow.tensor(a) for a in (PADDED, *LENGTHS)],
                           zero_infinity=True)
    expected = ctc_reference(_log_probs("float32").astype(np.float16).astype(np.float32),
                             PADDED, *LENGTHS, zero_infinity=True)
    assert loss.dtype is minflow.float32
    np.testing.assert_allclose(loss.item(), expected, rtol=1e-5)


def test_cuda_step_on_numpy(monkeypatch):
    """The cuda kernels' fused step (kernels/cupy/ctc_loss.py), its ElementwiseKernel body
    written again in numpy: the same losses and gradients as the cpu step."""
    from minflow.kernels.cupy import ctc_loss as cuda_kernels
    from minflow.kernels.generic import ctc_loss as generic

    def body(stay, step, jump, skip, lp, out):
        skipped = jump + skip
        top = np.where(step > stay, step, stay)
        top = np.where(skipped > top, skipped, top)
        top = np.where(np.isneginf(top), 0.0, top)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[...] = (np.log(np.exp(stay - top) + np.exp(step - top)
                               + np.exp(skipped - top)) + top + lp)
    monkeypatch.setattr(cuda_kernels, "_step_kernel", lambda: body)
    lp = _log_probs("float64", neg_inf_class=4)
    args = (lp, PADDED, INPUT_LENGTHS, TARGET_LENGTHS, 0, False)
    grad_out = np.linspace(0.5, 1.5, N)
    for run in (generic.forward, lambda *a: generic.backward(a[0], a[1], grad_out, *a[2:])):
        expected = run(np, generic.UfuncStep, *args)
        got = run(np, cuda_kernels.fused_step, *args)
        np.testing.assert_allclose(got, expected, rtol=1e-13, atol=1e-14, equal_nan=True)
        assert np.isinf(expected).any() or np.isnan(expected).any()

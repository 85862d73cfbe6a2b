"""PyTorch parity of minflow.nn layers: the same layer built in both libraries, torch's
weights copied in through ``load_state_dict``, the same float64 inputs; outputs, input
grads, parameter grads and buffers must agree. Also state_dict keys/shapes and repr.
"""
import inspect
from dataclasses import dataclass, field

import numpy as np
import pytest

import minflow

torch = pytest.importorskip("torch")

rng = np.random.RandomState(0)
# NOTE: BatchNorm's keyword-only ``bias``, and "bias=" in the reprs of BatchNorm and
# LayerNorm, are new in torch 2.13; minflow follows 2.13
NEW_NORMS = "bias" in inspect.signature(torch.nn.BatchNorm1d).parameters


def build_torch(build):
    """``build(torch)``, skipping where this torch lacks an argument minflow follows."""
    try:
        return build(torch)
    except TypeError as err:
        pytest.skip(f"this torch ({torch.__version__}) lacks the feature: {err}")


def same_repr(ours, theirs):
    if not NEW_NORMS and "Norm" in theirs:
        pytest.skip(f"torch {torch.__version__} prints BatchNorm / LayerNorm without bias=")
    assert ours == theirs


def randn(*shape):
    return rng.randn(*shape)


def causal(n):
    return np.triu(np.ones((n, n), dtype=bool), 1)


@dataclass
class Case:
    build: object                      # L -> module, L being minflow or torch
    inputs: list                       # numpy arrays (float ones get grads, see grad_idx)
    kwargs: dict = field(default_factory=dict)
    train: bool = True
    grad_idx: tuple = (0,)
    warmup: int = 0                    # train-mode forwards before the compared one
    same_input: bool = False           # call mod(x, x, x) with one tensor (self-attention)
    tol: float = 1e-7


X4 = randn(4, 5)
IMG = randn(2, 3, 7, 7)
SEQ, SEQ_B = randn(5, 3, 8), randn(3, 5, 8)
KPM = np.zeros((3, 5), dtype=bool)
KPM[0, 3:] = KPM[2, 4] = True
LOGITS, CLASSES = randn(6, 4), np.array([0, 3, 1, 1, 2, 0])
W4 = np.abs(randn(4)) + 0.5

CASES = {
    "linear": Case(lambda L: L.nn.Linear(5, 3), [X4]),
    "linear_3d_nobias": Case(lambda L: L.nn.Linear(5, 3, bias=False), [randn(2, 4, 5)]),
    "conv2d": Case(lambda L: L.nn.Conv2d(3, 4, 3, stride=2, padding=1), [IMG]),
    "conv2d_groups": Case(lambda L: L.nn.Conv2d(4, 6, (3, 2), groups=2, dilation=2,
                                                bias=False), [randn(2, 4, 8, 8)]),
    "conv2d_same": Case(lambda L: L.nn.Conv2d(3, 2, 3, padding="same"), [IMG]),
    "conv1d": Case(lambda L: L.nn.Conv1d(3, 5, 3, padding=1, stride=2), [randn(2, 3, 9)]),
    "maxpool": Case(lambda L: L.nn.MaxPool2d(2), [IMG]),
    "maxpool_pad": Case(lambda L: L.nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True),
                        [IMG]),
    "avgpool": Case(lambda L: L.nn.AvgPool2d(2), [IMG]),
    "avgpool_pad": Case(lambda L: L.nn.AvgPool2d(3, 2, 1, count_include_pad=False), [IMG]),
    "adaptive_avgpool": Case(lambda L: L.nn.AdaptiveAvgPool2d((2, 3)), [IMG]),
    "bn1d": Case(lambda L: L.nn.BatchNorm1d(5), [X4], warmup=2),
    "bn1d_3d": Case(lambda L: L.nn.BatchNorm1d(3), [randn(4, 3, 6)]),
    "bn1d_cumulative": Case(lambda L: L.nn.BatchNorm1d(5, momentum=None), [X4], warmup=3),
    "bn2d": Case(lambda L: L.nn.BatchNorm2d(3, momentum=0.3), [IMG], warmup=1),
    "bn2d_eval": Case(lambda L: L.nn.BatchNorm2d(3), [IMG], warmup=2, train=False),
    "bn2d_no_affine": Case(lambda L: L.nn.BatchNorm2d(3, affine=False), [IMG]),
    "bn2d_no_bias": Case(lambda L: L.nn.BatchNorm2d(3, bias=False), [IMG]),
    "bn2d_no_stats": Case(lambda L: L.nn.BatchNorm2d(3, track_running_stats=False), [IMG],
                          train=False),
    "layernorm": Case(lambda L: L.nn.LayerNorm(5), [X4]),
    "layernorm_2d": Case(lambda L: L.nn.LayerNorm((3, 5), eps=1e-3), [randn(2, 3, 5)]),
    "layernorm_plain": Case(lambda L: L.nn.LayerNorm(5, elementwise_affine=False), [X4]),
    "layernorm_no_bias": Case(lambda L: L.nn.LayerNorm(5, bias=False), [X4]),
    "dropout_eval": Case(lambda L: L.nn.Dropout(0.5), [X4], train=False),
    "dropout_p0": Case(lambda L: L.nn.Dropout(0.0), [X4]),
    "embedding": Case(lambda L: L.nn.Embedding(10, 4, padding_idx=2),
                      [np.array([[1, 2, 3], [2, 9, 1]])], grad_idx=()),
    "embedding_freq": Case(lambda L: L.nn.Embedding(6, 3, scale_grad_by_freq=True),
                           [np.array([1, 1, 4, 0])], grad_idx=()),
    "flatten": Case(lambda L: L.nn.Flatten(), [IMG]),
    "unflatten": Case(lambda L: L.nn.Unflatten(1, (3, -1)), [randn(2, 12)]),
    "identity": Case(lambda L: L.nn.Identity(), [X4]),
    "relu": Case(lambda L: L.nn.ReLU(), [X4]),
    "leaky_relu": Case(lambda L: L.nn.LeakyReLU(0.2), [X4]),
    "elu": Case(lambda L: L.nn.ELU(0.7), [X4]),
    "gelu": Case(lambda L: L.nn.GELU(), [X4]),
    "gelu_tanh": Case(lambda L: L.nn.GELU("tanh"), [X4]),
    "silu": Case(lambda L: L.nn.SiLU(), [X4]),
    "sigmoid": Case(lambda L: L.nn.Sigmoid(), [X4]),
    "tanh": Case(lambda L: L.nn.Tanh(), [X4]),
    "softmax": Case(lambda L: L.nn.Softmax(dim=1), [X4]),
    "log_softmax": Case(lambda L: L.nn.LogSoftmax(dim=0), [X4]),
    "softplus": Case(lambda L: L.nn.Softplus(beta=2.0, threshold=1.0), [X4]),
    "hardtanh": Case(lambda L: L.nn.Hardtanh(-0.5, 0.7), [X4]),
    "relu6": Case(lambda L: L.nn.ReLU6(), [X4 * 5]),
    "cross_entropy": Case(lambda L: L.nn.CrossEntropyLoss(), [LOGITS, CLASSES]),
    "cross_entropy_opts": Case(lambda L: L.nn.CrossEntropyLoss(
        weight=L.tensor(W4), ignore_index=1, label_smoothing=0.1), [LOGITS, CLASSES]),
    "cross_entropy_probs": Case(lambda L: L.nn.CrossEntropyLoss(reduction="sum"),
                                [LOGITS, np.abs(randn(6, 4))]),
    "nll": Case(lambda L: L.nn.NLLLoss(weight=L.tensor(W4), reduction="sum"),
                [LOGITS, CLASSES]),
    "nll_none": Case(lambda L: L.nn.NLLLoss(reduction="none", ignore_index=0),
                     [LOGITS, CLASSES]),
    "mse": Case(lambda L: L.nn.MSELoss(), [X4, randn(4, 5)], grad_idx=(0, 1)),
    "l1_sum": Case(lambda L: L.nn.L1Loss(reduction="sum"), [X4, randn(4, 5)]),
    "bce": Case(lambda L: L.nn.BCELoss(weight=L.tensor(W4)),
                [1 / (1 + np.exp(-LOGITS)), rng.rand(6, 4)]),
    "bce_logits": Case(lambda L: L.nn.BCEWithLogitsLoss(pos_weight=L.tensor(W4),
                                                        reduction="none"),
                       [LOGITS, rng.rand(6, 4)]),
    "mha": Case(lambda L: L.nn.MultiheadAttention(8, 2), [SEQ], same_input=True),
    "mha_batch_first_masks": Case(
        lambda L: L.nn.MultiheadAttention(8, 4, batch_first=True), [SEQ_B],
        {"key_padding_mask": KPM, "attn_mask": causal(5)}, same_input=True),
    "mha_float_mask_heads": Case(
        lambda L: L.nn.MultiheadAttention(8, 2), [SEQ],
        {"attn_mask": randn(6, 5, 5), "average_attn_weights": False}, same_input=True),
    "mha_cross": Case(lambda L: L.nn.MultiheadAttention(8, 2, bias=False),
                      [randn(4, 3, 8), SEQ, randn(5, 3, 8)], {"key_padding_mask": KPM},
                      grad_idx=(0, 1, 2)),
    "mha_kdim_vdim": Case(lambda L: L.nn.MultiheadAttention(8, 2, kdim=6, vdim=3,
                                                            batch_first=True),
                          [randn(3, 4, 8), randn(3, 5, 6), randn(3, 5, 3)],
                          grad_idx=(0, 1, 2)),
    "mha_unbatched": Case(lambda L: L.nn.MultiheadAttention(8, 2), [randn(5, 8)],
                          {"attn_mask": causal(5)}, same_input=True),
    "mha_no_weights_causal": Case(
        lambda L: L.nn.MultiheadAttention(8, 2), [SEQ],
        {"attn_mask": causal(5), "is_causal": True, "need_weights": False}, same_input=True),
    "encoder_layer_eval": Case(lambda L: L.nn.TransformerEncoderLayer(8, 2, 16), [SEQ],
                               {"src_key_padding_mask": KPM}, train=False),
    "encoder_layer_train_p0": Case(
        lambda L: L.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True),
        [SEQ_B], {"src_mask": causal(5), "is_causal": True}),
    "encoder_layer_norm_first": Case(
        lambda L: L.nn.TransformerEncoderLayer(8, 2, 16, norm_first=True, activation="gelu"),
        [SEQ], {"src_mask": causal(5)}, train=False),
    "encoder_layer_norm_first_bf": Case(
        lambda L: L.nn.TransformerEncoderLayer(8, 4, 12, dropout=0.0, norm_first=True,
                                               batch_first=True, layer_norm_eps=1e-3),
        [SEQ_B], {"src_key_padding_mask": KPM}),
    "encoder_layer_module_act": Case(
        lambda L: L.nn.TransformerEncoderLayer(8, 2, 16, activation=L.nn.GELU("tanh"),
                                               bias=False), [SEQ], train=False),
    "encoder": Case(lambda L: L.nn.TransformerEncoder(
        L.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2, norm=L.nn.LayerNorm(8),
        enable_nested_tensor=False), [SEQ_B], {"mask": causal(5)}, train=False),
    "sequential": Case(lambda L: L.nn.Sequential(
        L.nn.Conv2d(3, 4, 3), L.nn.BatchNorm2d(4), L.nn.ReLU(), L.nn.MaxPool2d(2),
        L.nn.Flatten(), L.nn.Linear(16, 5)), [IMG], warmup=1),
}


def to_lib(L, a, grad=False):
    if not isinstance(a, np.ndarray):
        return a
    t = L.tensor(a)
    return t.requires_grad_() if grad else t


def grad_of(t):
    return None if t.grad is None else t.grad.detach().cpu().numpy()


def numpy_of(t):
    return None if t is None else t.detach().cpu().numpy()


def run(L, case, state=None):
    """Build, (optionally) load ``state``, run; return everything worth comparing."""
    mod = case.build(L).double()
    if state is not None:
        result = mod.load_state_dict({k: minflow.tensor(v) for k, v in state.items()})
        assert result.missing_keys == [] and result.unexpected_keys == []
    inputs = [to_lib(L, a, i in case.grad_idx) for i, a in enumerate(case.inputs)]
    kwargs = {k: to_lib(L, v) for k, v in case.kwargs.items()}
    for step in range(case.warmup):
        with L.no_grad():
            mod([x * (step + 2) if x.is_floating_point() else x for x in inputs][0],
                *inputs[1:], **kwargs)
    mod.train(case.train)
    args = inputs * 3 if case.same_input else inputs
    outs = mod(*args, **kwargs)
    outs = outs if isinstance(outs, tuple) else (outs,)
    seeds = np.random.RandomState(1)
    loss = sum((o * L.tensor(seeds.randn(*o.shape))).sum() for o in outs
               if o is not None and o.requires_grad)
    if not isinstance(loss, int):
        loss.backward()
    return {"outputs": [numpy_of(o) for o in outs],
            "input_grads": [grad_of(x) for x in inputs if x.requires_grad],
            "param_grads": {n: grad_of(p) for n, p in mod.named_parameters()},
            "buffers": {n: numpy_of(b) for n, b in mod.named_buffers()}}


def assert_close(ours, theirs, tol, where):
    if isinstance(theirs, dict):
        assert list(ours) == list(theirs), where
        for key in theirs:
            assert_close(ours[key], theirs[key], tol, f"{where}.{key}")
    elif isinstance(theirs, list):
        assert len(ours) == len(theirs), where
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert_close(a, b, tol, f"{where}[{i}]")
    elif theirs is None:
        assert ours is None, where
    else:
        assert ours is not None and ours.shape == theirs.shape, where
        np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol, err_msg=where)


@pytest.mark.parametrize("name", CASES)
def test_layer_matches_torch(name):
    case = CASES[name]
    torch_mod = build_torch(case.build).double()
    state = {k: v.detach().numpy().copy() for k, v in torch_mod.state_dict().items()}
    ours = run(minflow, case, state)

    def build_again(L):                      # the very module whose weights we copied
        return torch_mod if L is torch else case.build(L)
    theirs = run(torch, Case(build_again, case.inputs, case.kwargs, case.train,
                             case.grad_idx, case.warmup, case.same_input))
    assert_close(ours, theirs, case.tol, name)


@pytest.mark.parametrize("name", CASES)
def test_state_dict_keys_and_shapes_match_torch(name):
    build = CASES[name].build
    ours = {k: tuple(v.shape) for k, v in build(minflow).state_dict().items()}
    theirs = {k: tuple(v.shape) for k, v in build_torch(build).state_dict().items()}
    assert list(ours.items()) == list(theirs.items())


@pytest.mark.parametrize("name", CASES)
def test_repr_matches_torch(name):
    build = CASES[name].build
    same_repr(repr(build(minflow)), repr(build_torch(build)))


def test_nested_model_repr_and_parameter_names_match_torch():
    def model(L):
        nn = L.nn
        block = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU())
        return nn.Sequential(block, nn.ModuleList([nn.Linear(4, 4) for _ in range(3)]),
                             nn.ModuleDict({"head": nn.Linear(4, 2, bias=False)}),
                             nn.Dropout(0.25), nn.Embedding(5, 2), nn.LeakyReLU(0.1, True))
    ours, theirs = model(minflow), model(torch)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_modules()] == [n for n, _ in theirs.named_modules()]
    same_repr(repr(ours), repr(theirs))


def test_parameter_containers_repr_match_torch():
    for L in (minflow, torch):
        L.manual_seed(0)
    build = [lambda L: L.nn.ParameterList([L.nn.Parameter(L.ones(2, 3)), L.ones(4)]),
             lambda L: L.nn.ParameterDict({"a": L.ones(2, 3), "b": L.zeros(1)})]
    for fn in build:
        assert repr(fn(minflow)).replace("minflow", "torch") == repr(fn(torch))
    assert repr(minflow.nn.Parameter(minflow.ones(2))) == repr(torch.nn.Parameter(
        torch.ones(2)))


def test_default_init_statistics_match_torch():
    cases = [lambda L: L.nn.Linear(1000, 1000), lambda L: L.nn.Conv2d(64, 32, 3),
             lambda L: L.nn.Embedding(300, 300), lambda L: L.nn.MultiheadAttention(256, 4),
             lambda L: L.nn.LayerNorm(10), lambda L: L.nn.BatchNorm2d(4)]
    for build in cases:
        ours, theirs = build(minflow), build(torch)
        for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
            a, b = p.detach().numpy().ravel(), q.detach().numpy().ravel()
            n, std = a.size, b.std()
            assert abs(a.std() - std) <= (5 / np.sqrt(2 * n)) * std + 1e-12, name
            assert abs(a.mean() - b.mean()) <= 10 * std / np.sqrt(n) + 1e-12, name
            if n >= 1000 and np.abs(b).max() < 2 * std:      # uniform: compare the bound
                assert abs(np.abs(a).max() - np.abs(b).max()) < 0.05 * np.abs(b).max(), name


def test_linear_init_bound_and_std_follow_the_formula():
    w = minflow.nn.Linear(1000, 1000).weight.detach().numpy()
    bound = 1 / np.sqrt(1000)        # kaiming_uniform_(a=sqrt(5)): gain sqrt(1/3) * sqrt(3/fan)
    assert 0.999 * bound < np.abs(w).max() <= bound
    assert abs(w.std() - bound / np.sqrt(3)) < 0.01 * bound / np.sqrt(3)

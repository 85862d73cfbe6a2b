"""Training parity: the same model and initial weights trained eagerly and through nn.Graph
give the same loss at every step and the same final parameters and buffers, for an MLP, a
CNN with BatchNorm and the Transformer of examples/train_char_lm.py, with SGD momentum and
with Adam, each under an lr scheduler, in float64 (rtol 1e-5) and float32 (rtol 1e-4)."""
import importlib.util
import pathlib

import numpy as np
import pytest

import minflow
from minflow import nn, optim
import minflow.nn.functional as F

ROOT = pathlib.Path(__file__).resolve().parents[2]
RTOL = {"float64": 1e-5, "float32": 1e-4}
STEPS = 5


def _char_lm():
    spec = importlib.util.spec_from_file_location(
        "train_char_lm", ROOT / "examples" / "train_char_lm.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _mlp():
    return nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 16), nn.ReLU(),
                         nn.Linear(16, 4))


def _cnn():
    return nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(4 * 3 * 3, 4))


def _transformer():
    return _char_lm().CharTransformer(vocab=7, context=6, d_model=16, nhead=2, layers=2)


def _batches(name, dtype, rng):
    """STEPS batches (input, target) for model ``name``."""
    out = []
    for _ in range(STEPS):
        if name == "transformer":
            idx = rng.integers(0, 7, (3, 7))
            out.append((minflow.tensor(idx[:, :-1]), minflow.tensor(idx[:, 1:])))
            continue
        shape = (8, 6) if name == "mlp" else (4, 2, 6, 6)
        x = minflow.tensor(rng.normal(size=shape), dtype=dtype)
        out.append((x, minflow.tensor(rng.integers(0, 4, shape[0]))))
    return out


MODELS = {"mlp": _mlp, "cnn_batchnorm": _cnn, "transformer": _transformer}
OPTIMIZERS = {
    "sgd_momentum": (lambda p: optim.SGD(p, lr=0.05, momentum=0.9),
                     lambda o: optim.lr_scheduler.StepLR(o, step_size=2, gamma=0.5)),
    "adam": (lambda p: optim.Adam(p, lr=0.01),
             lambda o: optim.lr_scheduler.CosineAnnealingLR(o, T_max=STEPS)),
}


def _loss(model, x, y):
    logits = model(x)
    return F.cross_entropy(logits.flatten(0, -2) if logits.ndim > 2 else logits, y.flatten())


class Train(nn.Graph):
    def __init__(self, model, optimizer, scheduler):
        super().__init__()
        self.model = model
        self.add_optimizer(optimizer, lr_sch=scheduler)

    def build(self, x, y):
        loss = _loss(self.model, x, y)
        loss.backward()
        return loss


def _setup(model_name, opt_name, dtype):
    minflow.manual_seed(0)
    model = MODELS[model_name]().to(dtype)
    make_opt, make_sched = OPTIMIZERS[opt_name]
    optimizer = make_opt(model.parameters())
    return model, optimizer, make_sched(optimizer)


def _eager_losses(model, optimizer, scheduler, data):
    losses = []
    for x, y in data:
        loss = _loss(model, x, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        losses.append(loss.item())
    return losses


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("opt_name", sorted(OPTIMIZERS))
@pytest.mark.parametrize("model_name", sorted(MODELS))
def test_graph_training_matches_eager_at_every_step(model_name, opt_name, dtype):
    dtype_ = getattr(minflow, dtype)
    data = _batches(model_name, dtype_, np.random.default_rng(1))
    eager_model, eager_opt, eager_sched = _setup(model_name, opt_name, dtype_)
    graph_model, graph_opt, graph_sched = _setup(model_name, opt_name, dtype_)
    expected = _eager_losses(eager_model, eager_opt, eager_sched, data)
    graph = Train(graph_model, graph_opt, graph_sched)
    got = [graph(x, y).item() for x, y in data]
    rtol = RTOL[dtype]
    np.testing.assert_allclose(got, expected, rtol=rtol)
    assert graph_sched.get_last_lr() == eager_sched.get_last_lr()
    eager_state, graph_state = eager_model.state_dict(), graph_model.state_dict()
    assert list(graph_state) == list(eager_state)
    for name, value in graph_state.items():
        np.testing.assert_allclose(value.numpy(), eager_state[name].numpy(), rtol=rtol,
                                   atol=rtol * 1e-2, err_msg=name)
    assert len(graph._plans) == 1


def test_one_cycle_momentum_changes_reach_the_graph():
    """OneCycleLR cycles Adam's beta1 as well as lr (as examples/train_char_lm.py uses it):
    fed at each call, without recompiling."""
    data = _batches("mlp", minflow.float64, np.random.default_rng(2))
    runs = []
    for _ in range(2):
        minflow.manual_seed(0)
        model = _mlp().double()
        opt = optim.Adam(model.parameters(), lr=0.01)
        runs.append((model, opt, optim.lr_scheduler.OneCycleLR(opt, max_lr=0.01,
                                                               total_steps=STEPS)))
    expected = _eager_losses(*runs[0], data)
    graph = Train(*runs[1])
    got = [graph(x, y).item() for x, y in data]
    np.testing.assert_allclose(got, expected, rtol=1e-5)
    for a, b in zip(runs[1][0].parameters(), runs[0][0].parameters()):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5)
    assert runs[1][1].param_groups[0]["betas"][0] != 0.95          # beta1 did cycle
    assert not any("compiling a new plan" in line for line in graph.compile_log)
    assert len(graph._plans) == 1


def test_a_hyperparameter_set_by_hand_reaches_the_graph():
    data = _batches("mlp", minflow.float64, np.random.default_rng(3))
    runs = []
    for _ in range(2):
        model, opt, _ = _setup("mlp", "sgd_momentum", minflow.float64)
        runs.append((model, opt))
    graph = Train(*runs[1], None)
    got, expected = [], []
    for step, (x, y) in enumerate(data):
        for _, opt in runs:
            opt.param_groups[0]["weight_decay"] = 0.1 * step
        expected += _eager_losses(*runs[0], None, [(x, y)])
        got.append(graph(x, y).item())
    np.testing.assert_allclose(got, expected, rtol=1e-5)
    for a, b in zip(runs[1][0].parameters(), runs[0][0].parameters()):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5)
    assert len(graph._plans) == 1
    assert not any("compiling a new plan" in line for line in graph.compile_log)


class _Encoder(nn.Module):
    """A Transformer encoder layer with dropout everywhere, and a classifier head."""

    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(6, 2, dim_feedforward=12, dropout=0.2,
                                                batch_first=True)
        self.head = nn.Linear(6, 4)

    def forward(self, x):
        return self.head(self.layer(x).mean(1))


@pytest.mark.parametrize("make, shape", [
    (lambda: nn.Sequential(nn.Linear(6, 16), nn.Dropout(0.3), nn.ReLU(), nn.Linear(16, 4)),
     (8, 6)),
    (_Encoder, (8, 5, 6))], ids=["mlp_dropout", "transformer_dropout"])
def test_dropout_with_a_shared_seed_matches_eager(make, shape):
    rng = np.random.default_rng(4)
    data = [(minflow.tensor(rng.normal(size=shape)), minflow.tensor(rng.integers(0, 4, 8)))
            for _ in range(STEPS)]
    runs = []
    for _ in range(2):
        minflow.manual_seed(0)
        model = make().double()
        runs.append((model, optim.Adam(model.parameters(), lr=0.01)))
    minflow.manual_seed(5)
    expected = _eager_losses(*runs[0], None, data)
    graph = Train(*runs[1], None)
    minflow.manual_seed(5)
    got = [graph(x, y).item() for x, y in data]
    np.testing.assert_allclose(got, expected, rtol=1e-5)
    for a, b in zip(runs[1][0].parameters(), runs[0][0].parameters()):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5)

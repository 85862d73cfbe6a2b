"""nn.Graph training: losses and parameters equal an eager loop (SGD momentum + weight
decay, Adam, AdamW, RMSprop, Adagrad), schedulers without recompiling, state shared with
the eager optimizer, BatchNorm running stats, clear errors."""
import numpy as np
import pytest

import minflow
from minflow import nn, optim
from minflow.graph import GraphBuildError
from _training import Train


def _mlp(seed=0, bn=False):
    minflow.manual_seed(seed)
    layers = [nn.Linear(6, 16)] + ([nn.BatchNorm1d(16)] if bn else []) + [
        nn.ReLU(), nn.Linear(16, 3)]
    return nn.Sequential(*layers)


def _data(steps=5):
    rng = np.random.default_rng(1)
    return [(minflow.tensor(rng.normal(size=(8, 6)), dtype=minflow.float32),
             minflow.tensor(rng.integers(0, 3, 8))) for _ in range(steps)]


def _eager(model, opt, data, sched=None):
    losses = []
    for x, y in data:
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if sched is not None:
            sched.step()
        losses.append(loss.item())
    return losses


OPTIMIZERS = {
    "sgd_momentum_wd": lambda p: optim.SGD(p, lr=0.1, momentum=0.9, weight_decay=1e-2),
    "sgd_nesterov": lambda p: optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True),
    "adam": lambda p: optim.Adam(p, lr=0.01, weight_decay=1e-3),
    "adamw_amsgrad": lambda p: optim.AdamW(p, lr=0.01, amsgrad=True),
    "rmsprop": lambda p: optim.RMSprop(p, lr=0.01, momentum=0.5, centered=True),
    "adagrad": lambda p: optim.Adagrad(p, lr=0.1, lr_decay=0.01),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_graph_training_equals_eager_training(name):
    data = _data()
    eager_model, graph_model = _mlp(), _mlp()
    eager_opt = OPTIMIZERS[name](eager_model.parameters())
    graph_opt = OPTIMIZERS[name](graph_model.parameters())
    expected = _eager(eager_model, eager_opt, data)
    graph = Train(graph_model, graph_opt)
    got = [graph(x, y).item() for x, y in data]
    np.testing.assert_allclose(got, expected, rtol=1e-5)
    for a, b in zip(graph_model.parameters(), eager_model.parameters()):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)
        assert a.grad is None
    assert graph.compiles == 1


def test_optimizer_state_is_shared_with_eager_steps():
    data = _data(6)
    eager_model, graph_model = _mlp(), _mlp()
    eager_opt = optim.Adam(eager_model.parameters(), lr=0.01)
    graph_opt = optim.Adam(graph_model.parameters(), lr=0.01)
    expected = _eager(eager_model, eager_opt, data)
    graph = Train(graph_model, graph_opt)
    got = [graph(x, y).item() for x, y in data[:3]]        # graph, then eager, then graph
    got += _eager(graph_model, graph_opt, data[3:5])
    got += [graph(*data[5]).item()]
    np.testing.assert_allclose(got, expected, rtol=1e-5)
    assert graph_opt.state[graph_model[0].weight]["step"].item() == 6.0


def test_schedulers_change_lr_without_recompiling():
    data = _data(6)
    eager_model, graph_model = _mlp(), _mlp()
    eager_opt = optim.SGD(eager_model.parameters(), lr=0.2, momentum=0.9)
    graph_opt = optim.SGD(graph_model.parameters(), lr=0.2, momentum=0.9)
    eager_sched = optim.lr_scheduler.StepLR(eager_opt, step_size=2, gamma=0.1)
    graph_sched = optim.lr_scheduler.StepLR(graph_opt, step_size=2, gamma=0.1)
    expected = _eager(eager_model, eager_opt, data, eager_sched)
    graph = Train(graph_model, graph_opt, graph_sched)
    got = [graph(x, y).item() for x, y in data]
    np.testing.assert_allclose(got, expected, rtol=1e-5)
    assert graph.compiles == 1 and graph_sched.get_last_lr() == eager_sched.get_last_lr()
    assert graph_opt.param_groups[0]["lr"] == pytest.approx(0.2 * 0.1 ** 3)
    for a, b in zip(graph_model.parameters(), eager_model.parameters()):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_batchnorm_running_stats_update_in_the_graph():
    data = _data(4)
    eager_model, graph_model = _mlp(bn=True), _mlp(bn=True)
    expected = _eager(eager_model, optim.SGD(eager_model.parameters(), lr=0.1), data)
    graph = Train(graph_model, optim.SGD(graph_model.parameters(), lr=0.1))
    got = [graph(x, y).item() for x, y in data]
    np.testing.assert_allclose(got, expected, rtol=1e-5)
    bn_g, bn_e = graph_model[1], eager_model[1]
    np.testing.assert_allclose(bn_g.running_mean.numpy(), bn_e.running_mean.numpy(), rtol=1e-5)
    np.testing.assert_allclose(bn_g.running_var.numpy(), bn_e.running_var.numpy(), rtol=1e-5)
    assert int(bn_g.num_batches_tracked) == 4


def test_dropout_draws_fresh_masks_in_a_training_graph():
    minflow.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 6), nn.Dropout(0.5))

    class Masks(nn.Graph):
        def __init__(self):
            super().__init__()
            self.model = model
            self.add_optimizer(optim.SGD(model.parameters(), lr=0.0))

        def build(self, x):
            out = self.model(x)
            out.sum().backward()
            return out
    graph, x = Masks(), minflow.ones(4, 6)
    assert (graph(x).numpy() == 0).tolist() != (graph(x).numpy() == 0).tolist()


def test_training_errors_are_clear():
    model = _mlp()

    class NoBackward(nn.Graph):
        def __init__(self):
            super().__init__()
            self.model = model
            self.add_optimizer(optim.SGD(model.parameters(), lr=0.1))

        def build(self, x):
            return self.model(x)

    class NotScalar(NoBackward):
        def build(self, x):
            out = self.model(x)
            out.backward()
            return out

    class NoOptimizer(nn.Graph):
        def __init__(self):
            super().__init__()
            self.model = model

        def build(self, x):
            self.model(x).sum().backward()

    x = minflow.randn(2, 6)
    with pytest.raises(GraphBuildError, match="must call loss.backward"):
        NoBackward()(x)
    with pytest.raises(GraphBuildError, match=r"needs a scalar loss .* got shape \[2, 3\]"):
        NotScalar()(x)
    with pytest.raises(GraphBuildError, match="needs an optimizer: call self.add_optimizer"):
        NoOptimizer()(x)
    damped = optim.SGD(model.parameters(), lr=0.1, momentum=0.9, dampening=0.1)
    with pytest.raises(GraphBuildError, match="dampening != 0 .* take one eager"):
        Train(model, damped)(x, minflow.tensor([0, 1]))


def test_training_graph_report_and_dot_export():
    model = _mlp()
    graph = Train(model, optim.SGD(model.parameters(), lr=0.1, momentum=0.9))
    with pytest.raises(RuntimeError, match="not compiled yet"):
        graph.to_dot()
    graph(*_data(1)[0])
    assert graph.compile_report().as_dict()["memory"]["peak_bytes"] > 0
    dot = graph.to_dot()
    assert dot.count("fillcolor=palegreen") == 4            # one sgd_update per parameter
    assert "scalars[0]" in dot and "sgd_update" in repr(graph)


def test_a_graph_class_chooses_its_passes():
    class WithoutCSE(Train):
        passes = tuple(p for p in Train.passes
                       if p is not minflow.graph.common_subexpression_elimination)

    data = _data(3)
    graphs = [cls(m, optim.SGD(m.parameters(), lr=0.1)) for cls, m in
              ((Train, _mlp()), (WithoutCSE, _mlp()))]
    losses = [[g(x, y).item() for x, y in data] for g in graphs]
    names = [[p["name"] for p in g.compile_report().passes] for g in graphs]
    assert "common_subexpression_elimination" in names[0]
    assert "common_subexpression_elimination" not in names[1] and len(names[1]) == 5
    np.testing.assert_allclose(losses[1], losses[0], rtol=1e-6)

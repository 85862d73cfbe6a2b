"""nn.Graph's debug levels, and its state_dict: modules, optimizer state and lr schedulers,
saved to a file and loaded into a fresh graph that then trains exactly as the first."""
import numpy as np
import pytest

import minflow
from minflow import nn, optim

HERE = __file__


class Train(nn.Graph):
    def __init__(self, model, opt, sched=None):
        super().__init__()
        self.model = model
        self.add_optimizer(opt, lr_sch=sched)

    def build(self, x, y):
        loss = nn.functional.cross_entropy(self.model(x), y)
        loss.backward()
        return loss


def _fresh(seed):
    minflow.manual_seed(seed)
    model = nn.Sequential(nn.Linear(5, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 3))
    opt = optim.Adam(model.parameters(), lr=0.02)
    return Train(model, opt, optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5))


def _data(n):
    rng = np.random.default_rng(0)
    return [(minflow.tensor(rng.normal(size=(6, 5)), dtype=minflow.float32),
             minflow.tensor(rng.integers(0, 3, 6))) for _ in range(n)]


def test_state_dict_saved_to_a_file_resumes_training_exactly(tmp_path):
    data = _data(6)
    graph = _fresh(0)
    for x, y in data[:3]:
        graph(x, y)
    minflow.save(graph.state_dict(), tmp_path / "ckpt.mf")
    expected = [graph(x, y).item() for x, y in data[3:]]

    resumed = _fresh(1)                     # other initial weights, no optimizer state
    resumed(*data[0])                       # compiled once before loading
    resumed.load_state_dict(minflow.load(tmp_path / "ckpt.mf"))
    opt = resumed._optimizers[0][0]
    assert opt.state[resumed.model[0].weight]["step"].item() == 3.0
    assert opt.param_groups[0]["lr"] == pytest.approx(0.02 * 0.5)
    got = [resumed(x, y).item() for x, y in data[3:]]
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    for (name, a), b in zip(resumed.model.state_dict().items(),
                            graph.model.state_dict().values()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, err_msg=name)
    assert resumed._optimizers[0][1].get_last_lr() == graph._optimizers[0][1].get_last_lr()


def test_load_state_dict_errors_name_what_does_not_match():
    graph = _fresh(0)
    state = graph.state_dict()
    with pytest.raises(KeyError, match=r"no module 'encoder' in Train \(has \['model'\]\)"):
        graph.load_state_dict({**state, "modules": {"encoder": {}}})
    with pytest.raises(ValueError, match="2 optimizers saved, the graph has 1"):
        graph.load_state_dict({**state, "optimizers": state["optimizers"] * 2,
                               "lr_schedulers": state["lr_schedulers"] * 2})


def test_debug_levels(capsys):
    x, y = _data(1)[0]
    for level in (0, 1, 2, 3):
        graph = _fresh(0)
        graph.debug(level)
        graph(x, y)
        printed = capsys.readouterr().out
        if level == 0:
            assert printed == "" and graph.compile_log      # logged, not printed
            continue
        assert "[Train] compiling for input 0: float32[6, 5] on cpu, input 1: int64[6] on cpu" \
            in printed
        assert "[Train] constant_folding: " in printed and "kernel calls in" in printed
        assert ("traced graph:" in printed) == (level >= 2)
        assert ("compiled graph:" in printed) == (level >= 2)
        assert (f"# {HERE}:" in printed) == (level >= 3)     # source lines at level 3
        assert ("# backward" in printed) == (level >= 2)


@pytest.mark.parametrize("make_opt", [lambda p: optim.SGD(p, lr=0.1, momentum=0.9),
                                      lambda p: optim.Adam(p, lr=0.02)], ids=["sgd", "adam"])
def test_optimizer_load_state_dict_between_calls_is_followed_by_the_graph(make_opt):
    """Loading an optimizer state dict replaces its state tensors and group dicts; the
    graph must train from the loaded state (and lr), exactly as the eager loop does."""
    data = _data(5)

    def run(use_graph):
        minflow.manual_seed(0)
        model = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 3))
        opt = make_opt(model.parameters())
        graph = Train(model, opt)

        def step(x, y):
            if use_graph:
                return graph(x, y).item()
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            return loss.item()
        losses = [step(x, y) for x, y in data[:2]]
        sd = opt.state_dict()
        for state in sd["state"].values():
            for key, value in state.items():
                if key != "step":
                    state[key] = value * 0.5 + 0.25     # a different, valid state
        sd["param_groups"][0]["lr"] *= 0.5
        opt.load_state_dict(sd)
        losses += [step(x, y) for x, y in data[2:]]
        log = graph.compile_log if use_graph else []
        return losses, [p.detach().numpy().copy() for p in model.parameters()], log

    eager, graphed = run(False), run(True)
    np.testing.assert_allclose(graphed[0], eager[0], rtol=1e-5)
    for g, e in zip(graphed[1], eager[1]):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)
    assert any("optimizer0 loaded a state dict" in line for line in graphed[2])

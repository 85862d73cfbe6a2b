"""Every optimizer of minflow.optim inside nn.Graph: the loss at every step and the final
parameters equal eager training (float64, rtol 1e-5); the float hyperparameters are fed at
each call, so OneCycleLR's momentum / beta cycling and edits of param_groups run the same
plan, while a flag (nesterov, amsgrad...) or momentum turning nonzero compiles a new one;
LBFGS is a clear error."""
import numpy as np
import pytest

import minflow
from minflow import nn, optim
from minflow.graph import GraphBuildError
from _training import Train

STEPS = 4


def _model():
    minflow.manual_seed(0)
    return nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 3)).double()


def _data(steps=STEPS, seed=1):
    rng = np.random.default_rng(seed)
    return [(minflow.tensor(rng.normal(size=(6, 5))), minflow.tensor(rng.integers(0, 3, 6)))
            for _ in range(steps)]


def _eager_step(model, opt, x, y, sched=None):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if sched is not None:
        sched.step()
    return loss.item()


def _recompiled(graph):
    return [line for line in graph.compile_log if "compiling a new plan" in line]


def _assert_same_params(graph_model, eager_model):
    for a, b in zip(graph_model.parameters(), eager_model.parameters()):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5,
                                   atol=1e-12)


OPTIMIZERS = {
    "sgd": lambda p: optim.SGD(p, lr=0.1),
    "sgd_momentum_wd_nesterov": lambda p: optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True,
                                                   weight_decay=1e-2),
    "sgd_foreach": lambda p: optim.SGD(p, lr=0.1, momentum=0.8, weight_decay=1e-2,
                                       foreach=True),
    "sgd_maximize": lambda p: optim.SGD(p, lr=0.05, momentum=0.5, maximize=True),
    "adam": lambda p: optim.Adam(p, lr=0.01, weight_decay=1e-2),
    "adam_amsgrad": lambda p: optim.Adam(p, lr=0.01, amsgrad=True),
    "adamw": lambda p: optim.AdamW(p, lr=0.01),
    "rmsprop": lambda p: optim.RMSprop(p, lr=0.01),
    "rmsprop_centered_momentum": lambda p: optim.RMSprop(p, lr=0.01, momentum=0.5,
                                                         centered=True, weight_decay=1e-2),
    "adagrad": lambda p: optim.Adagrad(p, lr=0.1, lr_decay=0.01,
                                       initial_accumulator_value=0.1),
    "adadelta": lambda p: optim.Adadelta(p, lr=1.0, weight_decay=1e-2),
    "adamax": lambda p: optim.Adamax(p, lr=0.02, weight_decay=1e-2),
    "rprop": lambda p: optim.Rprop(p, lr=0.02, etas=(0.4, 1.3), step_sizes=(1e-4, 0.1)),
    "rprop_maximize": lambda p: optim.Rprop(p, lr=0.01, maximize=True),
    "asgd": lambda p: optim.ASGD(p, lr=0.05, t0=2, lambd=0.01, weight_decay=1e-2),
    "nadam": lambda p: optim.NAdam(p, lr=0.02),
    "nadam_decoupled": lambda p: optim.NAdam(p, lr=0.02, weight_decay=1e-2,
                                             decoupled_weight_decay=True),
    "radam": lambda p: optim.RAdam(p, lr=0.02),
    "radam_decoupled": lambda p: optim.RAdam(p, lr=0.02, weight_decay=1e-2,
                                             decoupled_weight_decay=True),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_every_optimizer_trains_in_a_graph_as_eagerly(name):
    # RAdam's rectified step starts at step 6: enough steps to reach it
    data = _data(8 if name.startswith("radam") else STEPS)
    eager_model, graph_model = _model(), _model()
    eager_opt = OPTIMIZERS[name](eager_model.parameters())
    graph = Train(graph_model, OPTIMIZERS[name](graph_model.parameters()))
    expected = [_eager_step(eager_model, eager_opt, x, y) for x, y in data]
    got = [graph(x, y).item() for x, y in data]
    np.testing.assert_allclose(got, expected, rtol=1e-5)
    _assert_same_params(graph_model, eager_model)
    assert graph.compiles == 1
    ops = {node.op for node in graph.plan.graph.nodes if node.role == "optimizer"}
    assert ops == {type(eager_opt).update_op.name if name != "sgd_foreach"
                   else "sgd_update_foreach"}


@pytest.mark.parametrize("make", [
    lambda p: optim.SGD(p, lr=0.05, momentum=0.9),
    lambda p: optim.SGD(p, lr=0.05, momentum=0.9, foreach=True),
    lambda p: optim.Adam(p, lr=0.01),
    lambda p: optim.AdamW(p, lr=0.01, weight_decay=0.1),
    lambda p: optim.NAdam(p, lr=0.01)], ids=["sgd", "sgd_foreach", "adam", "adamw", "nadam"])
def test_one_cycle_cycling_momentum_or_betas_runs_one_plan(make):
    data = _data(6, seed=2)
    runs = []
    for _ in range(2):
        model = _model()
        opt = make(model.parameters())
        runs.append((model, opt, optim.lr_scheduler.OneCycleLR(
            opt, max_lr=0.05, total_steps=len(data), cycle_momentum=True)))
    (eager_model, eager_opt, eager_sched), (graph_model, graph_opt, graph_sched) = runs
    graph = Train(graph_model, graph_opt, graph_sched)
    key = "momentum" if "momentum" in graph_opt.defaults else "betas"
    seen = []
    for x, y in data:
        seen.append(graph_opt.param_groups[0][key])
        expected = _eager_step(eager_model, eager_opt, x, y, eager_sched)
        assert graph(x, y).item() == pytest.approx(expected, rel=1e-5)
        assert graph_opt.param_groups[0][key] == eager_opt.param_groups[0][key]
    assert all(a != b for a, b in zip(seen, seen[1:]))    # momentum / beta1: new every step
    _assert_same_params(graph_model, eager_model)
    assert graph.compiles == 1 and len(graph._plans) == 1 and not _recompiled(graph)


@pytest.mark.parametrize("make, edits", [
    (lambda p: optim.SGD(p, lr=0.1, momentum=0.9, weight_decay=0.01),
     [("weight_decay", 0.2), ("momentum", 0.5), ("dampening", 0.3), ("lr", 0.02)]),
    (lambda p: optim.Adam(p, lr=0.01),
     [("weight_decay", 0.1), ("betas", (0.5, 0.9)), ("eps", 1e-3), ("weight_decay", 0)]),
    (lambda p: optim.RMSprop(p, lr=0.01, momentum=0.2),
     [("alpha", 0.5), ("momentum", 0.7), ("weight_decay", 0.1), ("eps", 0.1)]),
    (lambda p: optim.Adagrad(p, lr=0.1), [("lr_decay", 0.5), ("weight_decay", 0.1),
                                          ("eps", 0.01), ("lr", 0.3)]),
    (lambda p: optim.Adadelta(p), [("rho", 0.5), ("weight_decay", 0.1), ("eps", 1e-3),
                                   ("lr", 0.5)])], ids=["sgd", "adam", "rmsprop", "adagrad",
                                                         "adadelta"])
def test_editing_a_group_mid_training_matches_eager_without_recompiling(make, edits):
    data = _data(len(edits) + 1, seed=3)
    eager_model, graph_model = _model(), _model()
    eager_opt, graph_opt = make(eager_model.parameters()), make(graph_model.parameters())
    graph = Train(graph_model, graph_opt)
    for step, (x, y) in enumerate(data):
        if step:
            name, value = edits[step - 1]
            eager_opt.param_groups[0][name] = graph_opt.param_groups[0][name] = value
        expected = _eager_step(eager_model, eager_opt, x, y)
        assert graph(x, y).item() == pytest.approx(expected, rel=1e-5)
    _assert_same_params(graph_model, eager_model)
    assert graph.compiles == 1 and not _recompiled(graph)


@pytest.mark.parametrize("make, name, value, logged", [
    (lambda p: optim.SGD(p, lr=0.1, momentum=0.9), "nesterov", True,
     "optimizer0 group 0 nesterov False -> True"),
    (lambda p: optim.SGD(p, lr=0.1), "momentum", 0.9,
     "optimizer0 group 0 momentum != 0 False -> True"),
    (lambda p: optim.SGD(p, lr=0.1, momentum=0.9), "foreach", True,
     "optimizer0 group 0 foreach None -> True"),
    (lambda p: optim.Adam(p, lr=0.01, weight_decay=0.1), "decoupled_weight_decay", True,
     "optimizer0 group 0 decoupled_weight_decay False -> True"),
    (lambda p: optim.Adam(p, lr=0.01), "maximize", True,
     "optimizer0 group 0 maximize False -> True")],
    ids=["nesterov", "momentum_from_zero", "foreach", "decoupled", "maximize"])
def test_a_structural_change_compiles_a_new_plan_and_matches_eager(make, name, value, logged):
    data = _data(4, seed=4)
    eager_model, graph_model = _model(), _model()
    eager_opt, graph_opt = make(eager_model.parameters()), make(graph_model.parameters())
    graph = Train(graph_model, graph_opt)
    for step, (x, y) in enumerate(data):
        if step == 2:
            eager_opt.param_groups[0][name] = graph_opt.param_groups[0][name] = value
        expected = _eager_step(eager_model, eager_opt, x, y)
        assert graph(x, y).item() == pytest.approx(expected, rel=1e-5)
    _assert_same_params(graph_model, eager_model)
    assert graph.compiles == 2
    assert _recompiled(graph) == [f"optimizer hyperparameters changed: {logged}; compiling a "
                                  f"new plan"]


def test_two_param_groups_feed_their_own_hyperparameters():
    data = _data(5, seed=5)
    runs = []
    for _ in range(2):
        model = _model()
        opt = optim.SGD([{"params": model[0].parameters(), "momentum": 0.5},
                         {"params": model[2].parameters(), "weight_decay": 0.1}],
                        lr=0.1, momentum=0.9)
        runs.append((model, opt))
    (eager_model, eager_opt), (graph_model, graph_opt) = runs
    graph = Train(graph_model, graph_opt)
    for step, (x, y) in enumerate(data):
        for opt in (eager_opt, graph_opt):
            opt.param_groups[1]["lr"] = 0.1 / (step + 1)
            opt.param_groups[0]["momentum"] = 0.5 + 0.1 * step
        expected = _eager_step(eager_model, eager_opt, x, y)
        assert graph(x, y).item() == pytest.approx(expected, rel=1e-5)
    _assert_same_params(graph_model, eager_model)
    assert graph.compiles == 1
    assert sorted(v.name for v in graph.plan.graph.inputs)[-2:] == ["scalars[0]", "scalars[1]"]


@pytest.mark.parametrize("name", ["LBFGS", "Adafactor", "Muon"])
def test_optimizers_without_an_update_op_are_a_clear_error(name):
    model = _model()
    # Muon takes matrices only
    params = [p for p in model.parameters() if p.ndim == 2 or name != "Muon"]
    with pytest.raises(TypeError, match=f"{name} is not supported in graphs: it has no update "
                                        "op .* supported: SGD, Adam"):
        Train(model, getattr(optim, name)(params))


def test_sgd_dampening_without_a_momentum_buffer_is_still_an_error():
    model = _model()
    graph = Train(model, optim.SGD(model.parameters(), lr=0.1, momentum=0.9, dampening=0.5))
    with pytest.raises(GraphBuildError, match="dampening != 0 .* take one eager"):
        graph(*_data(1)[0])


def test_the_scalars_input_is_checked():
    p = minflow.ones(3, dtype=minflow.float64)
    op = minflow.ops.get_op("sgd_update")
    bad = minflow.tensor([0.1, 0.9], dtype=minflow.float64)
    with pytest.raises(RuntimeError, match=r"sgd_update: expected scalars to be a float64 "
                                           r"tensor of shape \[4\] \(lr, momentum, "
                                           r"dampening, weight_decay\), got shape \[2\]"):
        minflow.core.dispatch.apply(op, (p, minflow.ones(3, dtype=minflow.float64), None,
                                         bad), {"lr": 0.1})


@pytest.mark.parametrize("make", [lambda p: optim.SGD(p, lr=0.05, momentum=0.9),
                                  lambda p: optim.Adam(p, lr=0.01)], ids=["sgd", "adam"])
def test_cycled_hyperparameters_on_each_device(device, make):
    data = [(x.to(device), y.to(device)) for x, y in _data(5, seed=6)]
    runs = []
    for _ in range(2):
        model = _model().to(device)
        opt = make(model.parameters())
        runs.append((model, opt, optim.lr_scheduler.OneCycleLR(opt, max_lr=0.05,
                                                               total_steps=len(data))))
    (eager_model, eager_opt, eager_sched), graph_run = runs
    graph = Train(*graph_run)
    for x, y in data:
        expected = _eager_step(eager_model, eager_opt, x, y, eager_sched)
        assert graph(x, y).item() == pytest.approx(expected, rel=1e-5)
    for a, b in zip(graph_run[0].parameters(), eager_model.parameters()):
        np.testing.assert_allclose(a.detach().cpu().numpy(), b.detach().cpu().numpy(),
                                   rtol=1e-5, atol=1e-12)
    assert graph.compiles == 1
    scalars = [v for v in graph.plan.graph.inputs if v.name == "scalars[0]"]
    assert [v.device.type for v in scalars] == ["cpu"]        # read on the host


SCHEDULERS = {
    "OneCycleLR": lambda lib, opt: lib.OneCycleLR(opt, 0.05, total_steps=6),
    "CyclicLR": lambda lib, opt: lib.CyclicLR(opt, 0.01, 0.05, step_size_up=2,
                                              mode="exp_range", gamma=0.9),
    "SequentialLR": lambda lib, opt: lib.SequentialLR(
        opt, [lib.ConstantLR(opt, factor=0.5, total_iters=2),
              lib.PolynomialLR(opt, total_iters=4, power=2.0)], milestones=[2]),
    "ChainedScheduler": lambda lib, opt: lib.ChainedScheduler(
        [lib.MultiplicativeLR(opt, lambda e: 0.9), lib.ConstantLR(opt, total_iters=3)]),
}


@pytest.mark.parametrize("scheduler", sorted(SCHEDULERS))
@pytest.mark.parametrize("name", ["SGD", "Adam"])
def test_scheduled_training_in_a_graph_matches_torch(name, scheduler):
    """lr (and CyclicLR's and OneCycleLR's momentum or beta1) fed at each call."""
    torch = pytest.importorskip("torch")
    kwargs = {"lr": 0.05, "momentum": 0.9} if name == "SGD" else {"lr": 0.01}
    data = _data(6, seed=7)
    model = nn.Linear(5, 3).double()
    ref = torch.nn.Linear(5, 3).double()
    with torch.no_grad():
        ref.weight.copy_(torch.tensor(model.weight.detach().numpy()))
        ref.bias.copy_(torch.tensor(model.bias.detach().numpy()))
    opt = getattr(optim, name)(model.parameters(), **kwargs)
    ref_opt = getattr(torch.optim, name)(ref.parameters(), **kwargs)
    graph = Train(model, opt, SCHEDULERS[scheduler](optim.lr_scheduler, opt))
    ref_sched = SCHEDULERS[scheduler](torch.optim.lr_scheduler, ref_opt)
    for x, y in data:
        loss = torch.nn.functional.cross_entropy(ref(torch.tensor(x.numpy())),
                                                 torch.tensor(y.numpy()))
        ref_opt.zero_grad()
        loss.backward()
        ref_opt.step()
        ref_sched.step()
        assert graph(x, y).item() == pytest.approx(loss.item(), rel=1e-12)
    np.testing.assert_allclose(model.weight.detach().numpy(), ref.weight.detach().numpy(),
                               rtol=1e-12)
    assert graph._optimizers[0][1].get_last_lr() == ref_sched.get_last_lr()
    assert graph.compiles == 1

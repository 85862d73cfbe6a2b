"""The passes on training graphs of an MLP and a CNN with BatchNorm (forward, backward and
SGD momentum updates): memory planning lowers the planned peak, and each pass (dead code
elimination, constant folding, common subexpression elimination, memory planning) leaves
the losses, the updated parameters, buffers and optimizer state exactly as without it."""
import numpy as np
import pytest

import minflow
import minflow.graph as mg
from minflow import nn, optim
import minflow.nn.functional as F
from minflow.graph.memory import MemoryPlan
from minflow.graph.passes import (common_subexpression_elimination, constant_folding,
                                  dead_code_elimination)


def _mlp():
    return nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Linear(32, 32), nn.Tanh(),
                         nn.Linear(32, 4)), (16, 6)


def _cnn():
    return nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(4 * 3 * 3, 4)), (4, 2, 6, 6)


MODELS = {"mlp": _mlp, "cnn_batchnorm": _cnn}


def _training_graph(name):
    """(graph IR, model, optimizer, inputs): the loss has a logit penalty that calls the
    model a second time on the same input, which CSE merges with the first call, and
    probabilities computed but not returned, which DCE removes."""
    minflow.manual_seed(0)
    model, shape = MODELS[name]()
    opt = optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    x, y = minflow.randn(*shape), minflow.randint(0, 4, (shape[0],))
    with mg.trace() as g:
        xp, yp = mg.placeholder(g, x.shape), mg.placeholder(g, y.shape, y.dtype)
        loss = F.cross_entropy(model(xp), yp) + 1e-2 * model(xp).square().mean()
        probabilities = model(xp).softmax(1)            # noqa: F841 (left unused)
        loss.backward()
        mg.set_outputs(g, loss)
    feeds = mg.optim.add_update_ops(g, opt)
    lrs = [mg.optim.scalars_tensor(group, op) for group, op, _ in feeds]
    return g, model, opt, (x, y, *lrs)


def _state(model, opt):
    """Every tensor the training steps write: parameters, buffers, optimizer state."""
    tensors = list(model.state_dict(keep_vars=True).values())
    tensors += [t for state in opt.state.values() for t in state.values()
                if isinstance(t, minflow.Tensor)]
    return tensors


def _run(plan, model, opt, inputs, steps=3):
    """Losses of ``steps`` runs and the state after them; the state is put back after."""
    tensors = _state(model, opt)
    saved = [t.detach().clone() for t in tensors]
    losses = [plan(*inputs)[0].item() for _ in range(steps)]
    after = [t.detach().numpy().copy() for t in tensors]
    with minflow.no_grad():
        for t, s in zip(tensors, saved):
            t.copy_(s)
    return losses, after


def _no_reuse(graph):
    """A memory plan with a buffer per value, none dropped or shared: no memory planning."""
    values = [v for node in graph.nodes for v in node.outputs]
    sizes = [int(np.prod(v.shape)) * v.dtype.itemsize for v in values]
    return MemoryPlan([[] for _ in graph.nodes], {v.id: i for i, v in enumerate(values)},
                      sizes, sum(sizes))


@pytest.mark.parametrize("name", sorted(MODELS))
def test_memory_planning_lowers_the_planned_peak(name):
    g, *_ = _training_graph(name)
    memory = mg.compile(g).memory
    assert memory.peak_bytes < 0.8 * memory.no_reuse_bytes, str(memory)
    assert any(memory.drops), "no value is freed before the end of the run"


PASSES = {"dead_code_elimination": (dead_code_elimination,),
          "constant_folding": (constant_folding,),
          "common_subexpression_elimination": (common_subexpression_elimination,),
          "all": mg.DEFAULT_PASSES}


@pytest.mark.parametrize("pass_name", sorted(PASSES))
@pytest.mark.parametrize("name", sorted(MODELS))
def test_each_pass_leaves_results_unchanged(name, pass_name):
    g, model, opt, inputs = _training_graph(name)
    bare = mg.compile(g, passes=())
    expected = _run(mg.Plan(bare.graph, memory=_no_reuse(bare.graph)), model, opt, inputs)
    plan = mg.compile(g, passes=PASSES[pass_name])
    assert len(plan.calls) < len(bare.calls), f"{pass_name} changed nothing on {name}"
    losses, state = _run(plan, model, opt, inputs)
    assert losses == expected[0]
    for got, want in zip(state, expected[1]):
        np.testing.assert_array_equal(got, want)
    assert expected[0][2] != expected[0][0]          # the runs trained: the state moved


@pytest.mark.parametrize("name", sorted(MODELS))
def test_memory_planning_alone_leaves_results_unchanged(name):
    g, model, opt, inputs = _training_graph(name)
    bare = mg.compile(g, passes=())
    expected = _run(mg.Plan(bare.graph, memory=_no_reuse(bare.graph)), model, opt, inputs)
    assert bare.memory.peak_bytes < bare.memory.no_reuse_bytes
    losses, state = _run(bare, model, opt, inputs)
    assert losses == expected[0]
    for got, want in zip(state, expected[1]):
        np.testing.assert_array_equal(got, want)

"""Preallocated buffers: kernels that take out= write into memory the plan made once;
results equal a plan that allocates, call after call; what a call hands out (outputs,
param.grad, written-back tensors) is never overwritten by the next; updates run early."""
import numpy as np
import pytest

import minflow
import minflow.graph as mg
import minflow.nn.functional as F
from minflow.graph.bind import writes_out
from minflow.graph.memory import schedule_updates_early


def _mlp_params(seed=0, dtype=minflow.float32):
    minflow.manual_seed(seed)
    shapes = [(16, 6), (16,), (16, 16), (16,), (3, 16), (3,)]
    return [(minflow.randn(*s, dtype=dtype) * 0.5).requires_grad_() for s in shapes]


def _mlp(x, w1, b1, w2, b2, w3, b3):
    h = F.relu(F.linear(x, w1, b1))
    h = F.relu(F.linear(h, w2, b2)) * 2 - 1
    return F.linear(h, w3, b3)


def _train_plan(params, preallocate, batch=8, dtype=minflow.float32, passes=mg.DEFAULT_PASSES,
                device="cpu"):
    """A compiled SGD training step of _mlp on ``params``, and its hyperparameter feeds."""
    with mg.trace() as g:
        x = mg.placeholder(g, (batch, 6), dtype, device)
        y = mg.placeholder(g, (batch,), minflow.int64, device)
        logits = _mlp(x, *params)
        loss = F.cross_entropy(logits, y)
        loss.backward()
        mg.set_outputs(g, (loss, logits, logits.T))
    opt = minflow.optim.SGD(params, lr=0.1, momentum=0.9)
    feeds = mg.optim.add_update_ops(g, opt)
    scalars = [mg.optim.scalars_tensor(group, op) for group, op, _ in feeds]
    return mg.compile(g, passes, preallocate), scalars


def _batches(n, batch=8, dtype=minflow.float32):
    rng = np.random.default_rng(3)
    return [(minflow.tensor(rng.normal(size=(batch, 6)), dtype=dtype),
             minflow.tensor(rng.integers(0, 3, batch))) for _ in range(n)]


@pytest.mark.parametrize("dtype", [minflow.float32, minflow.float64])
def test_training_equals_a_plan_that_allocates_call_after_call(dtype):
    p_alloc, p_pre = _mlp_params(dtype=dtype), _mlp_params(dtype=dtype)
    plan_alloc, lrs = _train_plan(p_alloc, preallocate=False, dtype=dtype)
    plan_pre, _ = _train_plan(p_pre, preallocate=True, dtype=dtype)
    assert not plan_alloc.memory.preallocated and plan_pre.memory.preallocated
    assert plan_pre.memory.inplace                  # relu, * 2 and - 1 write in place
    updates = [i for i, node in enumerate(plan_pre.graph.nodes) if node.op == "sgd_update"]
    assert plan_pre.memory.overwrite == updates     # every grad dies at its update
    assert not plan_alloc.memory.overwrite          # kernel-made grads are never overwritten
    for x, y in _batches(4, dtype=dtype):
        for a, b in zip(plan_alloc(x, y, *lrs), plan_pre(x, y, *lrs)):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
    for a, b in zip(p_alloc, p_pre):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_returned_tensors_are_not_overwritten_by_the_next_call():
    plan, lrs = _train_plan(_mlp_params(), preallocate=True)
    data = _batches(3)
    first = plan(*data[0], *lrs)
    kept = [t.numpy().copy() for t in first]
    plan(*data[1], *lrs)
    plan(*data[2], *lrs)
    for t, k in zip(first, kept):
        np.testing.assert_array_equal(t.numpy(), k)


def test_a_returned_view_keeps_its_base_out_of_the_buffers():
    g = mg.trace_function(lambda x: ((x @ x.T) + 1).T.reshape(-1), minflow.ones(3, 3))
    plan = mg.compile(g)
    add = next(v for n in plan.graph.nodes if n.op == "add" for v in n.outputs)
    assert add.id not in plan.memory.preallocated
    out = plan(minflow.eye(3))[0]
    before = out.numpy().copy()
    plan(minflow.ones(3, 3) * 5)
    np.testing.assert_array_equal(out.numpy(), before)


def test_param_grads_handed_out_are_not_overwritten():
    params = _mlp_params()
    with mg.trace() as g:
        x = mg.placeholder(g, (8, 6))
        (_mlp(x, *params) ** 2).mean().backward()
    plan = mg.compile(g)
    assert any(vid in plan.memory.preallocated for vid in g.param_grads.values())
    (x1, _), (x2, _) = _batches(2)
    plan(x1)
    handed = [p.grad for p in params]
    kept = [t.numpy().copy() for t in handed]
    plan(x2)
    for t, k, p in zip(handed, kept, params):
        np.testing.assert_array_equal(t.numpy(), k)
        assert p.grad is not t


def test_written_back_buffers_match_eager_after_repeated_calls():
    minflow.manual_seed(0)
    bn_graph = minflow.nn.BatchNorm1d(4)
    bn_eager = minflow.nn.BatchNorm1d(4)
    with mg.trace() as g:
        x = mg.placeholder(g, (8, 4))
        mg.set_outputs(g, bn_graph(x * 2) + 1)
    plan = mg.compile(g)
    for x, _ in _batches(3):
        x = x[:, :4].contiguous()
        np.testing.assert_allclose(plan(x)[0].numpy(), (bn_eager(x * 2) + 1).detach().numpy(),
                                   rtol=1e-5)
    np.testing.assert_allclose(bn_graph.running_mean.numpy(), bn_eager.running_mean.numpy(),
                               rtol=1e-6)
    np.testing.assert_allclose(bn_graph.running_var.numpy(), bn_eager.running_var.numpy(),
                               rtol=1e-6)


def test_which_kernels_write_into_given_buffers():
    w = minflow.ones(3, requires_grad=True)

    def fn(x):
        h = x @ x.T                     # matmul: out=True
        s = (h + 1).exp()               # ufuncs
        both = F.cross_entropy(s, minflow.zeros(3, dtype=minflow.int64))   # two outputs
        return s.reshape(-1), both, w.sum()
    g = mg.trace_function(fn, minflow.ones(3, 3))
    got = {node.op: writes_out(node) for node in g.nodes}
    assert got == {"permute": False, "matmul": True, "add": True, "exp": True,
                   "reshape": False, "full": False, "cross_entropy": False, "sum": True}
    opt = minflow.optim.SGD([w], lr=0.1)
    with mg.trace() as g:
        (w * 2).sum().backward()
    mg.optim.add_update_ops(g, opt)
    assert not writes_out(g.nodes[-1])         # sgd_update writes its param in place


def test_inplace_chain_takes_one_buffer():
    g = mg.trace_function(lambda x: ((x @ x) + 1).exp().sin().sum(), minflow.ones(64, 64))
    plan = mg.compile(g)
    memory = plan.memory
    assert [plan.graph.nodes[i].op for i, _, _ in memory.inplace] == ["add", "exp", "sin"]
    assert memory.held_bytes == 64 * 64 * 4
    x = minflow.rand(64, 64)
    for _ in range(2):
        np.testing.assert_allclose(plan(x)[0].item(), ((x @ x) + 1).exp().sin().sum().item(),
                                   rtol=1e-5)


def test_updates_run_as_soon_as_their_grad_is_ready():
    p_late, p_early = _mlp_params(), _mlp_params()
    plan_early, lrs = _train_plan(p_early, preallocate=True)
    passes = [p for p in mg.DEFAULT_PASSES if p is not schedule_updates_early]
    plan_late, _ = _train_plan(p_late, preallocate=True, passes=passes)
    ops = [n.op for n in plan_early.graph.nodes]
    assert ops.index("sgd_update") < ops.index("relu_grad")
    assert [n.op for n in plan_late.graph.nodes][-6:] == ["sgd_update"] * 6
    report = plan_early.report.passes[-1]["report"]
    assert str(report).splitlines()[0] == ("schedule_updates_early: moved 6 nodes earlier "
                                           "(sgd_update x6)")
    assert plan_early.memory.peak_bytes < plan_late.memory.peak_bytes
    assert plan_early.held_bytes < plan_late.held_bytes
    for x, y in _batches(3):
        for a, b in zip(plan_late(x, y, *lrs), plan_early(x, y, *lrs)):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
    for a, b in zip(p_late, p_early):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_an_update_waits_for_every_reader_of_its_parameter():
    w = minflow.ones(4, requires_grad=True)
    with mg.trace() as g:
        x = mg.placeholder(g, (2, 2))
        (x * w.reshape(2, 2)).sum().backward()     # backward reads w through its view
    mg.optim.add_update_ops(g, minflow.optim.SGD([w], lr=0.5))
    schedule_updates_early(g)
    w_value = next(v for v in g.values if v.tensor is w)
    view = next(n.outputs[0] for n in g.nodes if n.op == "reshape" and
                n.inputs[0] is w_value)
    readers = [i for i, n in enumerate(g.nodes) if n.op != "sgd_update" and
               any(v is w_value or v is view for v in n.input_values())]
    update = [n.op for n in g.nodes].index("sgd_update")
    assert len(readers) >= 2 and update > max(readers)


def test_the_generated_run_function_is_readable():
    g = mg.trace_function(lambda x: (x @ x).sum(0), minflow.ones(2, 2))
    plan = mg.compile(g)
    assert plan.source is None
    plan(minflow.ones(2, 2))
    assert plan.source.splitlines()[0] == "def step(s):"
    assert "out=o0" in plan.source
    np.testing.assert_array_equal(plan(minflow.eye(2))[0].numpy(), [1.0, 1.0])


def test_preallocated_plan_on_each_device(device):
    params = [p.detach().to(device).requires_grad_() for p in _mlp_params()]
    plan, lrs = _train_plan(params, preallocate=True, device=device)
    ref_params = _mlp_params()
    ref_plan, ref_lrs = _train_plan(ref_params, preallocate=False)
    for x, y in _batches(3):
        got = plan(x.to(device), y.to(device), *lrs)
        expected = ref_plan(x, y, *ref_lrs)
        for a, b in zip(got, expected):
            np.testing.assert_allclose(a.cpu().numpy(), b.numpy(), rtol=1e-4, atol=1e-5)


def _sgd_graph(params):
    """A traced SGD step of _mlp's squared output on ``params``, its updates added."""
    with mg.trace() as g:
        x = mg.placeholder(g, (8, 6))
        (_mlp(x, *params) ** 2).mean().backward()
    feeds = mg.optim.add_update_ops(g, minflow.optim.SGD(params, lr=0.1))
    return g, [mg.optim.scalars_tensor(group, op) for group, op, _ in feeds]


def test_a_returned_grad_is_not_overwritten_by_its_update():
    params, ref_params = _mlp_params(), _mlp_params()
    g, lrs = _sgd_graph(params)
    update = next(n for n in g.nodes if n.op == "sgd_update" and n.inputs[0].tensor is params[0])
    g.outputs.append(update.inputs[1])              # the grad of w1, returned
    plan = mg.compile(g)
    index = next(i for i, n in enumerate(plan.graph.nodes)
                 if n.op == "sgd_update" and n.inputs[1].id == update.inputs[1].id)
    assert index not in plan.memory.overwrite and plan.memory.overwrite
    ref_g, _ = _sgd_graph(ref_params)
    ref_g.outputs.append(next(n.inputs[1] for n in ref_g.nodes if n.op == "sgd_update"
                              and n.inputs[0].tensor is ref_params[0]))
    ref_plan = mg.compile(ref_g, preallocate=False)
    for x, _ in _batches(3):
        got, expected = plan(x, *lrs), ref_plan(x, *lrs)
        np.testing.assert_array_equal(got[-1].numpy(), expected[-1].numpy())
    for a, b in zip(params, ref_params):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_a_grad_that_lives_on_is_not_overwritten():
    g, _ = _sgd_graph(_mlp_params())
    g = g.copy()
    schedule_updates_early(g)
    updates = {i: ("grad",) for i, node in enumerate(g.nodes) if node.op == "sgd_update"}
    everything = set(range(len(g.nodes)))
    assert sorted(mg.plan_memory(g, everything, updates).overwrite) == sorted(updates)
    first = min(updates)
    grad = g.nodes[first].inputs[1]
    g.param_grads[-1] = grad.id                     # also handed to a param's .grad
    assert first not in mg.plan_memory(g, everything, updates).overwrite
    del g.param_grads[-1]
    assert first not in mg.plan_memory(g, set(), updates).overwrite    # not the plan's buffer

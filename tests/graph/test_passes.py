"""Dead code elimination: removes what no output or grad needs, keeps results and random
draws, reports what it removed."""
import numpy as np

import minflow
import minflow.graph as mg
from minflow.graph.passes import dead_code_elimination


def _fn(x):
    unused = (x * 3).sin()          # 2 dead nodes
    _ = unused
    return x.exp() + 1


def test_removes_unused_nodes_and_reports_them():
    g = mg.trace_function(_fn, minflow.ones(2))
    report = dead_code_elimination(g)
    assert report.changed and sorted(report.removed) == ["mul", "sin"]
    assert str(report) == "dead_code_elimination: removed 2 nodes (mul, sin)"
    assert [n.op for n in g.nodes] == ["exp", "add"]


def test_results_are_unchanged():
    g = mg.trace_function(_fn, minflow.ones(2))
    x = minflow.tensor([0.5, -1.0])
    before = mg.compile(g, passes=())(x)[0]
    plan = mg.compile(g)
    assert len(plan.calls) == 2 and len(g.nodes) == 4      # compile works on a copy
    assert plan(x)[0].tolist() == before.tolist() == _fn(x).tolist()


def test_keeps_random_ops_and_what_param_grads_need():
    w = minflow.ones(3, requires_grad=True)
    with mg.trace() as g:
        x = mg.placeholder(g, (3,))
        minflow.nn.functional.dropout(x)        # unused, but it draws random numbers
        (x * w).sum().backward()
    report = dead_code_elimination(g)
    ops = [n.op for n in g.nodes]
    assert "dropout" in ops and "mul" in ops and g.param_grads
    # w's grad is x * ones: neither the forward product nor the loss value is needed
    assert report.removed == ["mul", "sum"]


def test_no_change_report():
    g = mg.trace_function(lambda x: x.exp(), minflow.ones(2))
    report = dead_code_elimination(g)
    assert not report.changed and str(report) == "dead_code_elimination: no change"


def test_cse_merges_equal_pure_ops_but_not_random_ones():
    def fn(x):
        a, b = x.exp() * 2, x.exp() * 2
        return a + b + minflow.nn.functional.dropout(x) + minflow.nn.functional.dropout(x)
    g = mg.trace_function(fn, minflow.ones(4))
    x = minflow.tensor([0.1, 0.2, 0.3, 0.4])
    minflow.manual_seed(3)
    expected = mg.compile(g, passes=())(x)[0].tolist()
    report = mg.common_subexpression_elimination(g)
    assert sorted(report.removed) == ["exp", "mul"]
    assert [n.op for n in g.nodes].count("dropout") == 2
    minflow.manual_seed(3)
    assert mg.compile(g, passes=())(x)[0].tolist() == expected


def test_constant_folding_folds_creations_but_never_captured_tensors():
    buffer = minflow.ones(3)

    def fn(x):
        return x * minflow.full((3,), 2.0).exp() + buffer.sin()
    g = mg.trace_function(fn, minflow.ones(3))
    report = mg.constant_folding(g)
    assert report.removed == ["full", "exp"]
    assert "sin" in [n.op for n in g.nodes]
    plan = mg.compile(g)
    x = minflow.tensor([1.0, 2.0, 3.0])
    assert plan(x)[0].tolist() == fn(x).tolist()
    buffer.mul_(0)                  # eager changes to a captured tensor are seen
    assert plan(x)[0].tolist() == fn(x).tolist()


def test_backward_seed_is_folded_and_grads_unchanged():
    w = minflow.randn(3, requires_grad=True)
    with mg.trace() as g:
        (mg.placeholder(g, (3,)) * w).sum().backward()
    plan = mg.compile(g)
    folded = [e["report"] for e in plan.report.passes if e["name"] == "constant_folding"][0]
    assert folded.removed and "full" in folded.removed[0]
    plan(minflow.tensor([1.0, 2.0, 3.0]))
    assert w.grad.tolist() == [1.0, 2.0, 3.0]


def test_memory_plan_reuses_buffers_and_frees_after_last_reader():
    g = mg.trace_function(lambda x: x.exp().sin().cos().tanh(), minflow.ones(1000))
    mem = mg.plan_memory(g)
    assert mem.no_reuse_bytes == 4 * 4000 and mem.peak_bytes == 2 * 4000
    assert mem.drops == [[], [1], [2], [3]]
    assert "planned peak 7.8 KiB vs 15.6 KiB without reuse (50% less)" in str(mem)
    x = minflow.rand(1000)
    np.testing.assert_allclose(mg.compile(g)(x)[0].numpy(),
                               x.exp().sin().cos().tanh().numpy(), rtol=1e-6)


def test_views_keep_their_base_alive():
    g = mg.trace_function(lambda x: (x.exp().T + 1).sum(), minflow.ones(4, 4))
    mem = mg.plan_memory(g)
    exp_id, view_id = g.nodes[0].outputs[0].id, g.nodes[1].outputs[0].id
    assert mem.buffer_of[view_id] == mem.buffer_of[exp_id]
    assert exp_id in mem.drops[2] and view_id in mem.drops[2]


def test_compile_report_text_and_data():
    g = mg.trace_function(lambda x: x.exp() + x.exp(), minflow.ones(8))
    report = mg.compile(g).report
    data = report.as_dict()
    assert data["ops_traced"] == 3 and data["ops_compiled"] == 2
    assert [p["name"] for p in data["passes"]] == [f.__name__ for f in mg.DEFAULT_PASSES]
    assert all(p["seconds"] >= 0 for p in data["passes"]) and data["memory"]["buffers"] == 2
    text = str(report)
    assert text.startswith("compile report: 3 -> 2 ops in ")
    assert "common_subexpression_elimination 3 -> 2 ops" in text and "memory_planning" in text


def test_dot_and_networkx_export_distinguish_roles():
    w = minflow.ones(2, requires_grad=True)
    opt = minflow.optim.SGD([w], lr=0.1)
    with mg.trace() as g:
        (mg.placeholder(g, (2,)) * w).sum().backward()
    mg.optim.add_update_ops(g, opt)
    dot = g.to_dot()
    assert dot.startswith("digraph minflow {") and dot.endswith("}")
    assert "fillcolor=lightblue" in dot and "fillcolor=lightsalmon" in dot
    assert 'label="sgd_update", shape=box, style=filled, fillcolor=palegreen' in dot
    roles = {d["role"] for _, d in g.to_networkx().nodes(data=True) if "role" in d}
    assert roles == {"forward", "backward", "optimizer"}

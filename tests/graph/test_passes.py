"""Dead code elimination: removes what no output or grad needs, keeps results and random
draws, reports what it removed."""
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

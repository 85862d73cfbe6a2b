"""Lazy tracing: nodes, shapes, real tensors by reference, source lines, and the errors
for what graph building cannot do."""
import re

import pytest

import minflow
import minflow.graph as mg
import minflow.nn.functional as nnF

HERE = re.escape(__file__)


def test_tracing_records_ops_with_shapes_and_the_user_line():
    w = minflow.ones(3, 4, requires_grad=True)
    with mg.trace() as g:
        x = mg.placeholder(g, (2, 3), name="x")
        y = nnF.relu(x @ w)          # the line recorded for both nodes
        line = _line() - 1
    assert [n.op for n in g.nodes] == ["matmul", "relu"]
    assert y.shape == (2, 4) and y.dtype is minflow.float32 and y.requires_grad
    assert [n.source for n in g.nodes] == [f"{__file__}:{line}"] * 2
    assert g.nodes[0].outputs[0].shape == (2, 4)
    assert g.values[1].tensor is w and g.values[1].kind == "param"
    assert g.nodes[0].needs_grad == (False, True)


def _line():
    import sys
    return sys._getframe(1).f_lineno


def test_interpreter_is_restored_after_the_block():
    from minflow.core.dispatch import current_interpreter
    before = current_interpreter()
    with pytest.raises(ZeroDivisionError):
        with mg.trace():
            1 / 0
    assert current_interpreter() is before
    assert minflow.ones(2).sum().item() == 2.0


def test_grad_mode_detach_and_ints_set_requires_grad_as_eager():
    w = minflow.ones(3, requires_grad=True)
    with mg.trace():
        assert (w * 2).requires_grad
        assert not (w.detach() * 2).requires_grad
        with minflow.no_grad():
            assert not (w * 2).requires_grad
        assert not w.argmax().requires_grad


def test_creation_ops_and_constants_inside_trace():
    c = minflow.tensor([1.0, 2.0])
    with mg.trace() as g:
        y = minflow.zeros(2) + c
    assert g.nodes[0].op == "full" and g.values[1].tensor is c
    assert mg.is_lazy(y) and not mg.is_lazy(c)


def test_inference_error_names_op_shapes_dtypes_and_source_line():
    with mg.trace() as g:
        x = mg.placeholder(g, (2, 3))
        y = mg.placeholder(g, (4, 5), dtype=minflow.float64)
        with pytest.raises(RuntimeError, match=rf"(?s)^matmul: .*float32 != float64.*"
                           rf"matmul\(float32\[2, 3\], float64\[4, 5\]\) at {HERE}:\d+"):
            x @ y


@pytest.mark.parametrize("what", ["item", "numpy", "tolist", "bool", "float"])
def test_reading_values_is_a_clear_error(what):
    call = {"item": lambda t: t.item(), "numpy": lambda t: t.numpy(),
            "tolist": lambda t: t.tolist(), "bool": bool, "float": float}[what]
    with mg.trace() as g:
        x = mg.placeholder(g, ())
        with pytest.raises(mg.GraphBuildError, match=rf"^{what}: graph tensor %0 \(float32\[\]\) "
                           rf"has no values while its graph is being built \(at {HERE}:\d+\)"):
            call(x)


def test_python_branch_on_a_lazy_value_is_a_clear_error():
    with mg.trace() as g:
        x = mg.placeholder(g, (3,))
        with pytest.raises(mg.GraphBuildError, match="minflow.where instead of branching"):
            if x.sum() > 0:
                pass


@pytest.mark.parametrize("call", [lambda x: x.nonzero(), lambda x: x[x > 0],
                                  lambda x: x.masked_select(x > 0)],
                         ids=["nonzero", "bool_index", "masked_select"])
def test_data_dependent_shapes_cannot_be_traced(call):
    with mg.trace() as g:
        x = mg.placeholder(g, (3,))
        with pytest.raises(mg.GraphBuildError, match=r"^nonzero: .*output shape depends on the "
                                                     r"data"):
            call(x)


def test_in_place_ops_are_traced_out_of_place():
    real = minflow.ones(3)
    with mg.trace() as g:
        x = mg.placeholder(g, (3,))
        y = x * 1
        y.add_(1)                   # y now stands for the result
        real.mul_(y)                # a real tensor: written back after each run
        mg.set_outputs(g, (y, real * 1))
    assert real.tolist() == [1.0, 1.0, 1.0]          # tracing ran nothing
    plan = mg.compile(g)
    out, read = plan(minflow.tensor([1.0, 2.0, 3.0]))
    assert out.tolist() == [2.0, 3.0, 4.0] and read.tolist() == [2.0, 3.0, 4.0]
    assert real.tolist() == [2.0, 3.0, 4.0]
    plan(minflow.tensor([1.0, 2.0, 3.0]))
    assert real.tolist() == [4.0, 9.0, 16.0]
    assert "write %" in str(g)


def test_in_place_on_views_and_out_are_clear_errors():
    real = minflow.ones(3)
    with mg.trace() as g:
        x = mg.placeholder(g, (3,))
        with pytest.raises(mg.GraphBuildError, match=r"^add_: in-place ops on views cannot"):
            x[1:].add_(1)
        with pytest.raises(mg.GraphBuildError, match=r"^mul_: in-place ops on views cannot"):
            real[:2].mul_(2)
        with pytest.raises(mg.GraphBuildError, match=r"^out=: .*out= cannot be traced"):
            minflow.add(x, 1, out=minflow.ones(3))
    assert real.tolist() == [1.0, 1.0, 1.0]


def test_tensors_of_another_graph_or_non_leaf_real_tensors_are_errors():
    w = minflow.ones(2, requires_grad=True) * 2       # a real tensor with a grad_fn
    with mg.trace() as g1:
        x = mg.placeholder(g1, (2,))
    with mg.trace():
        with pytest.raises(mg.GraphBuildError, match="belongs to another graph"):
            x + 1
        with pytest.raises(mg.GraphBuildError, match=r"grad_fn=<MulBackward0>.*detach"):
            w.exp()


def test_lazy_tensor_repr_shows_value_and_type():
    with mg.trace() as g:
        x = mg.placeholder(g, (2, 3))
        assert repr(x) == "tensor(<graph value %0>, size=(2, 3), dtype=minflow.float32)"


def test_trace_function_and_outputs():
    g = mg.trace_function(lambda x, k: (x * k).sum(0), minflow.ones(2, 3), 4)
    assert [v.shape for v in g.outputs] == [(3,)] and g.nodes[0].inputs[1] == 4
    with pytest.raises(TypeError, match="graph outputs must be tensors, got int"):
        mg.trace_function(lambda x: 3, minflow.ones(2))

"""The graph IR: values, nodes, the text dump and the networkx view."""
import pytest

import minflow
import minflow.graph as mg
from minflow.graph.ir import Node


def _small_graph():
    g = mg.Graph()
    x = g.add_input((2, 3), minflow.float32, "cpu", name="x")
    w = g.add_tensor(minflow.ones(3, 4, requires_grad=True))
    (y,) = g.add_node("matmul", {"transpose_input": False, "transpose_other": False}, (x, w),
                      [((2, 4), minflow.float32)], "cpu", source="model.py:7")
    (z,) = g.add_node("sum", {"dim": (), "keepdim": False, "dtype": None}, (y,),
                      [((), minflow.float32)], "cpu", role="backward")
    g.outputs = [z]
    return g, x, w, y, z


def test_values_have_ids_kinds_and_producers():
    g, x, w, y, z = _small_graph()
    assert [v.id for v in g.values] == [0, 1, 2, 3]
    assert (x.kind, w.kind, y.kind) == ("input", "param", "op")
    assert y.producer is g.nodes[0] and z.producer is g.nodes[1]
    assert g.nodes[0].input_values() == [x, w] and g.inputs == [x]
    assert g.params() == [w] and w.tensor.shape == (3, 4)


def test_real_tensors_are_referenced_once_not_copied():
    g = mg.Graph()
    t = minflow.ones(2)
    assert g.add_tensor(t) is g.add_tensor(t)
    assert g.add_tensor(t).tensor is t and g.add_tensor(t).kind == "const"


def test_dump_lists_ops_with_shapes_dtypes_roles_and_sources():
    g = _small_graph()[0]
    assert g.dump(sources=True) == (
        "graph(%0: float32[2, 3] input x, %1: float32[3, 4] param) {\n"
        "  %2: float32[2, 4] = matmul(%0, %1, transpose_input=False, transpose_other=False)"
        "  # model.py:7\n"
        "  %3: float32[] = sum(%2, dim=(), keepdim=False)  # backward\n"
        "  return %3\n}")
    assert "model.py" not in str(g)


def test_to_networkx_follows_the_data_flow():
    import networkx as nx
    dg = _small_graph()[0].to_networkx()
    assert dg.nodes[("node", 0)]["op"] == "matmul"
    assert dg.nodes[("value", 2)]["shape"] == (2, 4)
    assert list(nx.topological_sort(dg))[-1] == ("value", 3)
    assert set(dg.predecessors(("node", 0))) == {("value", 0), ("value", 1)}


def test_copy_shares_nodes_but_not_lists():
    g = _small_graph()[0]
    c = g.copy()
    c.nodes.pop()
    assert len(g.nodes) == 2 and c.nodes[0] is g.nodes[0]


def test_unknown_role_is_an_error():
    with pytest.raises(ValueError, match="role must be one of"):
        Node("exp", {}, (), (), role="sideways")

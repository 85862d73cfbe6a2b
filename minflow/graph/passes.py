"""Graph passes. Each changes a Graph in place and returns a PassReport of what it changed.

dead_code_elimination, common_subexpression_elimination and constant_folding rewrite the
node list (a rewritten node is a new Node: graphs share Nodes, see ``Graph.copy``);
memory planning is in memory.py. Only pure ops are merged, folded or removed
(``is_pure``): never random draws or in-place updates.
"""
import collections

import networkx as nx
import numpy as np

from ..core.tensor import Tensor
from ..ops.registry import get_op
from .bind import bind_node, read_arg
from .ir import Node, Value

__all__ = ["PassReport", "dead_code_elimination", "common_subexpression_elimination",
           "constant_folding", "is_pure", "substitute"]


class PassReport:
    """What one pass changed: ``removed`` lists the ops of the nodes it took out.

    >>> print(minflow.graph.passes.PassReport("dead_code_elimination", ["mul", "mul", "full"]))
    dead_code_elimination: removed 3 nodes (mul x2, full)
    """

    def __init__(self, name, removed=(), details=()):
        self.name, self.removed, self.details = name, list(removed), list(details)

    @property
    def changed(self):
        return bool(self.removed)

    def __str__(self):
        if not self.removed:
            return f"{self.name}: no change"
        counts = collections.Counter(self.removed)
        ops = ", ".join(op if n == 1 else f"{op} x{n}" for op, n in counts.items())
        text = f"{self.name}: removed {len(self.removed)} nodes ({ops})"
        return "\n  ".join([text, *self.details])

    __repr__ = __str__


def is_pure(op):
    """Whether a node of ``op`` may be removed when unused: ``no_side_effect`` ops, and
    creation ops that draw no random numbers (a skipped draw would shift the generator's
    stream for every later one, so random ops stay)."""
    traits = op.traits
    return "no_side_effect" in traits or ("creation" in traits and "random" not in traits)


def dead_code_elimination(graph):
    """Remove the pure nodes from which no graph output or parameter grad can be reached
    (graph backward leaves some: grads nothing reads, forward values only backward used).

    >>> g = minflow.graph.trace_function(lambda x: (x.exp(), x.sin())[0], minflow.ones(2))
    >>> print(minflow.graph.dead_code_elimination(g))
    dead_code_elimination: removed 1 nodes (sin)
    >>> [node.op for node in g.nodes]
    ['exp']
    """
    dg = graph.to_networkx()
    sink = ("sink", 0)
    dg.add_node(sink)
    for v in graph.outputs:
        dg.add_edge(("value", v.id), sink)
    for gid in (*graph.param_grads.values(), *graph.writes.values()):
        dg.add_edge(("value", gid), sink)
    for i, node in enumerate(graph.nodes):
        if not is_pure(get_op(node.op)):
            dg.add_edge(("node", i), sink)
    live = nx.ancestors(dg, sink)
    removed = [node.op for i, node in enumerate(graph.nodes) if ("node", i) not in live]
    graph.nodes = [node for i, node in enumerate(graph.nodes) if ("node", i) in live]
    return PassReport("dead_code_elimination", removed)


def common_subexpression_elimination(graph):
    """Merge nodes of a pure op with equal attrs and the same inputs: later ones read the
    first one's outputs.

    >>> g = minflow.graph.trace_function(lambda x: x.exp() + x.exp(), minflow.ones(2))
    >>> print(minflow.graph.common_subexpression_elimination(g))
    common_subexpression_elimination: removed 1 nodes (exp)
      %2 -> %1 (exp)
    >>> [node.op for node in g.nodes]
    ['exp', 'add']
    """
    seen, mapping, kept, details = {}, {}, [], []
    for node in graph.nodes:
        node = _rewired(node, mapping)
        if not is_pure(get_op(node.op)) or "creation" in get_op(node.op).traits:
            kept.append(node)
            continue
        key = (node.op, repr(sorted(node.attrs.items())), _inputs_key(node.inputs))
        first = seen.get(key)
        if first is None:
            seen[key] = node
            kept.append(node)
            continue
        for old, new in zip(node.outputs, first.outputs):
            mapping[old.id] = new
            details.append(f"{old!r} -> {new!r} ({node.op})")
    removed = _dropped(graph.nodes, kept)
    graph.nodes = kept
    substitute(graph, mapping, nodes=False)
    return PassReport("common_subexpression_elimination", removed, details)


def constant_folding(graph):
    """Run once, at compile time, the pure ops whose values cannot change between calls:
    creation ops that draw no random numbers (``ones_like(loss)`` reads only its input's
    shape), and pure ops all of whose inputs are such folded values. Their outputs become
    constants. Real tensors captured by the graph (buffers, parameters) are never folded:
    eager code may change them between calls. Cpu only (a cuda constant would cross to the
    host and back).

    >>> g = minflow.graph.trace_function(lambda x: x * minflow.ones(2).exp(), minflow.ones(2))
    >>> print(minflow.graph.constant_folding(g))
    constant_folding: removed 2 nodes (full, exp)
      %1 = full(...) is now a constant float32[2]
      %2 = exp(...) is now a constant float32[2]
    >>> [node.op for node in g.nodes]
    ['mul']
    """
    mapping, kept, details = {}, [], []
    for node in graph.nodes:
        node = _rewired(node, mapping)
        if not _foldable(node, mapping):
            kept.append(node)
            continue
        kernel, args, _ = bind_node(node)
        slots = {v.id: v.tensor._data if v.kind == "const" else np.empty(v.shape, v.dtype.np)
                 for v in node.input_values()}      # a creation op reads only the shape
        result = kernel(*[read_arg(slots, a) for a in args])
        result = result if isinstance(result, tuple) else (result,)
        for value, array in zip(node.outputs, result):
            tensor = Tensor._make(np.asarray(array).astype(value.dtype.np, copy=False),
                                  value.dtype, value.device)
            mapping[value.id] = folded = graph.add_tensor(tensor)
            mapping[folded.id] = folded
            details.append(f"{value!r} = {node.op}(...) is now a constant {value.type_str()}")
    removed = _dropped(graph.nodes, kept)
    graph.nodes = kept
    substitute(graph, mapping, nodes=False)
    return PassReport("constant_folding", removed, details)


def _foldable(node, folded):
    """Whether ``node`` is pure, on cpu, and a creation op or fed only ``folded`` values."""
    op = get_op(node.op)
    if not is_pure(op) or node.outputs[0].device.type != "cpu":
        return False
    if "creation" in op.traits:
        return True
    values = node.input_values()
    return bool(values) and all(v.id in folded for v in values)


def substitute(graph, mapping, nodes=True):
    """Make every reader of a Value id in ``mapping`` read its replacement Value instead:
    nodes (unless ``nodes`` is False: the caller did them), outputs, grads and writes."""
    if not mapping:
        return
    if nodes:
        graph.nodes = [_rewired(node, mapping) for node in graph.nodes]
    graph.outputs = [mapping.get(v.id, v) for v in graph.outputs]
    graph.param_grads = {p: mapping.get(g, graph.values[g]).id
                         for p, g in graph.param_grads.items()}
    graph.writes = {p: mapping.get(g, graph.values[g]).id for p, g in graph.writes.items()}


def _rewired(node, mapping):
    """``node``, or a new Node with the inputs in ``mapping`` replaced."""
    def swap(x):
        if isinstance(x, Value):
            return mapping.get(x.id, x)
        if isinstance(x, tuple):
            return tuple(swap(y) for y in x)
        return x
    if not mapping:
        return node
    inputs = tuple(swap(x) for x in node.inputs)
    if all(a is b for a, b in zip(inputs, node.inputs)):
        return node
    return Node(node.op, node.attrs, inputs, node.outputs, node.source, node.role,
                node.needs_grad)


def _inputs_key(inputs):
    def key(x):
        if isinstance(x, Value):
            return ("%", x.id)
        if isinstance(x, tuple):
            return tuple(key(y) for y in x)
        return (type(x).__name__, repr(x))
    return tuple(key(x) for x in inputs)


def _dropped(before, after):
    """The ops of the nodes of ``before`` whose outputs no node of ``after`` has."""
    kept = {id(node.outputs) for node in after}
    return [node.op for node in before if id(node.outputs) not in kept]

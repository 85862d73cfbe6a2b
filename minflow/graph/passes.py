"""Graph passes. Each changes a Graph in place and returns a PassReport of what it changed.

Phase 1 has dead code elimination; common subexpressions, constant folding, memory
planning and fusion come next.
"""
import collections

import networkx as nx

from ..ops.registry import get_op

__all__ = ["PassReport", "dead_code_elimination", "is_pure"]


class PassReport:
    """What one pass changed: ``removed`` lists the ops of the nodes it took out.

    >>> print(minflow.graph.passes.PassReport("dead_code_elimination", ["mul", "mul", "full"]))
    dead_code_elimination: removed 3 nodes (mul x2, full)
    """

    def __init__(self, name, removed=()):
        self.name, self.removed = name, list(removed)

    @property
    def changed(self):
        return bool(self.removed)

    def __str__(self):
        if not self.removed:
            return f"{self.name}: no change"
        counts = collections.Counter(self.removed)
        ops = ", ".join(op if n == 1 else f"{op} x{n}" for op, n in counts.items())
        return f"{self.name}: removed {len(self.removed)} nodes ({ops})"

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
    for gid in graph.param_grads.values():
        dg.add_edge(("value", gid), sink)
    for i, node in enumerate(graph.nodes):
        if not is_pure(get_op(node.op)):
            dg.add_edge(("node", i), sink)
    live = nx.ancestors(dg, sink)
    removed = [node.op for i, node in enumerate(graph.nodes) if ("node", i) not in live]
    graph.nodes = [node for i, node in enumerate(graph.nodes) if ("node", i) in live]
    return PassReport("dead_code_elimination", removed)

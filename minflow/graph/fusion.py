"""Elementwise fusion on cuda: chains of elementwise ops become one generated kernel.

A node can join a fused group when its op has a CUDA expression
(``kernels/cupy/fused.py``, ``CUDA_EXPRESSIONS``), it runs on cuda, its inputs and
output share one dtype of ``FUSABLE_DTYPES`` (broadcast shapes are fine: cupy's
ElementwiseKernel broadcasts) and its constants are finite numbers. A group grows through
values with a single reader: a value read by one fused node only, and not returned,
handed to ``param.grad`` or written back, need never be stored. Each group of two or
more nodes becomes one ``fused_elementwise`` node at the place of its last node, so a
group never spans a node that writes a tensor in place (an optimizer update), which
could change what an earlier member read.

On cpu graphs the pass changes nothing and says why: numpy runs each op as one call
over memory already, and the fused kernel is generated CUDA.

>>> g = minflow.graph.Graph()
>>> x = g.add_input((4, 3), minflow.float32, "cuda")
>>> b = g.add_input((3,), minflow.float32, "cuda")
>>> (h,) = g.add_node("add", {}, (x, b), [((4, 3), minflow.float32)], "cuda")
>>> (r,) = g.add_node("relu", {}, (h,), [((4, 3), minflow.float32)], "cuda")
>>> (y,) = g.add_node("mul", {}, (r, 2), [((4, 3), minflow.float32)], "cuda")
>>> g.outputs = [y]
>>> print(minflow.graph.fuse_elementwise(g))
fuse_elementwise: fused 3 ops into 1 kernels
  %4 = add + relu + mul (2 inputs)
>>> [node.op for node in g.nodes]
['fused_elementwise']
"""
import math

from ..kernels.cupy.fused import CUDA_EXPRESSIONS
from ..ops.fused import FUSABLE_DTYPES
from ..ops.registry import get_op
from .ir import Node, Value
from .passes import PassReport

__all__ = ["fuse_elementwise", "FusionReport"]


class FusionReport(PassReport):
    """What ``fuse_elementwise`` did: ``groups`` lists the ops of each fused group,
    ``reason`` why nothing was fused where that is not for lack of chains.

    >>> g = minflow.graph.trace_function(lambda x: x.exp().sin(), minflow.ones(3))
    >>> report = minflow.graph.fuse_elementwise(g)
    >>> report.groups, report.reason[:22]
    ([], 'the graph runs on cpu,')
    """

    def __init__(self, groups=(), details=(), reason=None):
        removed = [op for ops in groups for op in ops[:-1]]
        super().__init__("fuse_elementwise", removed, details)
        self.groups, self.reason = list(groups), reason

    def __str__(self):
        if not self.groups:
            return f"{self.name}: no change" + (f" ({self.reason})" if self.reason else "")
        ops = sum(len(ops) for ops in self.groups)
        return "\n  ".join([f"{self.name}: fused {ops} ops into {len(self.groups)} kernels",
                            *self.details])

    __repr__ = __str__


def fuse_elementwise(graph):
    """Fuse chains of elementwise cuda ops into ``fused_elementwise`` nodes (see the module
    docstring); the report lists each group.

    >>> g = minflow.graph.trace_function(lambda x: x.exp().sin(), minflow.ones(3))
    >>> print(minflow.graph.fuse_elementwise(g))               # doctest: +ELLIPSIS
    fuse_elementwise: no change (the graph runs on cpu, ...)
    """
    if not any(node.outputs and node.outputs[0].device.type == "cuda" for node in graph.nodes):
        return FusionReport(reason="the graph runs on cpu, where numpy runs each op in one "
                                   "pass already; fusion makes CUDA kernels")
    groups = _groups(graph)
    roots = {id(nodes[-1]): nodes for nodes in groups}
    members = {id(node) for nodes in groups for node in nodes[:-1]}
    order, details = [], []
    for node in graph.nodes:
        if id(node) in roots:
            nodes = roots[id(node)]
            node = _fused_node(nodes)
            details.append(f"{node.outputs[0]!r} = {' + '.join(n.op for n in nodes)} "
                           f"({len(node.inputs[0])} inputs)")
        if id(node) not in members:
            order.append(node)
    graph.nodes = order
    return FusionReport([[n.op for n in nodes] for nodes in groups], details)


def _groups(graph):
    """The groups of two or more fusable nodes, each in node order: a tree of values with
    one reader each, whose root (the group's output) is its last node."""
    readers = _reader_counts(graph)
    writers = _in_place_writers_before(graph)
    group_of, groups, absorbed = {}, {}, set()
    for i, node in enumerate(graph.nodes):
        if not _fusable(node):
            continue
        group = [(i, node)]
        for v in {v.id: v for v in node.input_values()}.values():
            other = group_of.get(v.id)
            if other is None or readers[v.id] != 1 or writers[other[0][0]] != writers[i]:
                continue
            group = other + group
            absorbed.add(id(other))
        group.sort(key=lambda item: item[0])
        group_of[node.outputs[0].id] = group
        groups[id(group)] = group
    return [[node for _, node in group] for key, group in groups.items()
            if key not in absorbed and len(group) > 1]


def _reader_counts(graph):
    """Value id -> how many nodes read it, plus one per use outside the nodes (returned,
    a parameter's grad, written back)."""
    counts = {}
    for node in graph.nodes:
        for vid in {v.id for v in node.input_values()}:
            counts[vid] = counts.get(vid, 0) + 1
    for vid in [v.id for v in graph.outputs] + [*graph.param_grads.values(),
                                                 *graph.writes.values()]:
        counts[vid] = counts.get(vid, 0) + 1
    return counts


def _in_place_writers_before(graph):
    """[number of nodes writing an input in place before node i] for each i."""
    counts, seen = [], 0
    for node in graph.nodes:
        counts.append(seen)
        op = get_op(node.op)
        seen += any(spec.mutable and x is not None for spec, x in zip(op.inputs, node.inputs))
    return counts


def _fusable(node):
    """Whether ``node`` can be a step of a fused kernel (see the module docstring)."""
    if node.op not in CUDA_EXPRESSIONS or len(node.outputs) != 1:
        return False
    out = node.outputs[0]
    if out.device.type != "cuda" or out.dtype not in FUSABLE_DTYPES:
        return False
    if node.op == "div" and node.attrs.get("rounding_mode") is not None:
        return False
    for x in (*node.inputs, *node.attrs.values()):
        if isinstance(x, Value):
            if x.dtype is not out.dtype or x.device != out.device:
                return False
        elif x is not None and (x.__class__ not in (int, float) or not math.isfinite(x)):
            return False
    return True


def _fused_node(nodes):
    """One ``fused_elementwise`` node computing ``nodes`` (in order) as steps."""
    inputs, index, steps, step_of = [], {}, [], {}
    for node in nodes:
        args = []
        for x in node.inputs:
            if not isinstance(x, Value):
                args.append(x)
            elif x.id in step_of:
                args.append(("step", step_of[x.id]))
            else:
                if x.id not in index:
                    index[x.id] = len(inputs)
                    inputs.append(x)
                args.append(("input", index[x.id]))
        step_of[node.outputs[0].id] = len(steps)
        steps.append((node.op, tuple(sorted(node.attrs.items())), tuple(args)))
    root = nodes[-1]
    return Node("fused_elementwise", {"program": tuple(steps)}, (tuple(inputs),), root.outputs,
                root.source, root.role, (tuple(False for _ in inputs),))

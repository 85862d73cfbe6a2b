"""The graph IR: values (typed slots) and nodes (op calls) in the order they were traced.

A ``Value`` is one tensor of the graph: a graph input (placeholder), a parameter or
constant (a reference to a real eager tensor, shared, never copied) or an op output.
A ``Node`` is one op call: op name, resolved attrs, inputs as the op receives them
(Values, Python scalars, None, or tuples of Values for variadic inputs), output Values,
the user's source line and a role tag ("forward", "backward" or "optimizer").

>>> g = minflow.graph.Graph()
>>> x = g.add_input((2, 3), minflow.float32, "cpu", name="x")
>>> (y,) = g.add_node("exp", {}, (x,), [((2, 3), minflow.float32)], "cpu")
>>> g.outputs = [y]
>>> print(g)
graph(%0: float32[2, 3] input x) {
  %1: float32[2, 3] = exp(%0)
  return %1
}
"""
import copy

import networkx as nx

from ..core.device import Device
from ..core.dtype import DType

__all__ = ["Value", "Node", "Graph", "ROLES", "to_dot"]

ROLES = ("forward", "backward", "optimizer")


class Value:
    """One tensor of the graph: its id (index in ``graph.values``), shape, dtype, device.

    kind: "input", "param" (a real tensor that requires grad), "const" (any other real
    tensor) or "op" (an output of ``producer``, a Node). ``tensor`` is the real tensor of
    a param or const, referenced, not copied.

    >>> g = minflow.graph.trace_function(lambda x: (x * 2).sum(), minflow.ones(2, 3))
    >>> x = g.values[0]
    >>> x, x.kind, x.type_str()
    (%0, 'input', 'float32[2, 3]')
    """

    __slots__ = ("id", "shape", "dtype", "device", "kind", "producer", "tensor", "name",
                 "requires_grad")

    def __init__(self, id, shape, dtype, device, kind, producer=None, tensor=None, name=None,
                 requires_grad=False):
        self.id, self.shape, self.dtype, self.device = id, tuple(shape), dtype, device
        self.kind, self.producer, self.tensor, self.name = kind, producer, tensor, name
        self.requires_grad = requires_grad

    @property
    def ndim(self):     # with dtype, lets dtype.result_type promote Values like tensors
        return len(self.shape)

    def type_str(self):
        """``float32[2, 3]``."""
        return f"{self.dtype.name}[{', '.join(map(str, self.shape))}]"

    def __repr__(self):
        return f"%{self.id}"


class Node:
    """One op call of the graph (see the module docstring).

    >>> g = minflow.graph.trace_function(lambda x: (x * 2).sum(), minflow.ones(2, 3))
    >>> node = g.nodes[0]
    >>> node, node.op, node.inputs, node.role
    (<Node mul -> (%1,)>, 'mul', (%0, 2), 'forward')
    """

    __slots__ = ("op", "attrs", "inputs", "outputs", "source", "role", "needs_grad")

    def __init__(self, op, attrs, inputs, outputs, source=None, role="forward",
                 needs_grad=None):
        if role not in ROLES:
            raise ValueError(f"Node({op!r}): role must be one of {ROLES}, got {role!r}")
        self.op, self.attrs, self.inputs, self.outputs = op, attrs, tuple(inputs), outputs
        self.source, self.role = source, role
        # per input, whether the tensor passed there required grad when traced (a tuple of
        # flags for a variadic input): graph backward sends gradients only there
        self.needs_grad = needs_grad or tuple(False for _ in self.inputs)

    def input_values(self):
        """The Values among the inputs, variadic lists flattened."""
        found = []
        for x in self.inputs:
            if isinstance(x, Value):
                found.append(x)
            elif isinstance(x, tuple):
                found.extend(v for v in x if isinstance(v, Value))
        return found

    def __repr__(self):
        return f"<Node {self.op} -> {self.outputs}>"


class Graph:
    """Values and nodes of one traced computation, with its inputs, outputs and grads.

    ``param_grads`` maps a param Value's id to the Value of its gradient (set by graph
    backward); ``outputs`` lists the Values the graph returns; ``writes`` maps a param or
    const Value's id to the Value the plan writes into its tensor after each run (traced
    in-place updates of real tensors, e.g. BatchNorm's running stats).

    >>> g = minflow.graph.trace_function(lambda x: (x * 2).sum(), minflow.ones(2, 3))
    >>> g.inputs, [n.op for n in g.nodes], g.outputs
    ([%0], ['mul', 'sum'], [%2])
    """

    def __init__(self):
        self.values, self.nodes = [], []
        self.inputs, self.outputs = [], []
        self.param_grads, self.writes = {}, {}
        self._by_tensor = {}          # id(real tensor) -> the Value it reads as now
        self._written = {}            # id(real tensor) -> its own Value, once written

    # -- building ----------------------------------------------------------------------
    def _new_value(self, shape, dtype, device, kind, **kw):
        value = Value(len(self.values), shape, dtype, Device(device), kind, **kw)
        self.values.append(value)
        return value

    def add_input(self, shape, dtype, device, name=None):
        """A placeholder Value: the graph's next positional input."""
        value = self._new_value(shape, dtype, device, "input",
                                name=name or f"input{len(self.inputs)}")
        self.inputs.append(value)
        return value

    def add_tensor(self, tensor):
        """The param or const Value of a real tensor, made on first use (by reference)."""
        value = self._by_tensor.get(id(tensor))
        if value is None:
            kind = "param" if tensor.requires_grad else "const"
            value = self._new_value(tensor.shape, tensor.dtype, tensor.device, kind,
                                    tensor=tensor, requires_grad=tensor.requires_grad)
            self._by_tensor[id(tensor)] = value
        return value

    def write_back(self, tensor, value):
        """From now on real ``tensor`` reads as ``value``, written into it after each run."""
        own = self._written.get(id(tensor)) or self.add_tensor(tensor)
        self._written[id(tensor)] = own
        self.writes[own.id] = value.id
        self._by_tensor[id(tensor)] = value

    def add_node(self, op, attrs, inputs, specs, device, source=None, role="forward",
                 needs_grad=None, requires_grad=False):
        """Append a call of ``op``; ``specs`` are (shape, dtype) per output. Returns the
        output Values (those of a floating dtype get ``requires_grad``)."""
        outputs = [self._new_value(shape, dtype, device, "op",
                                   requires_grad=requires_grad and dtype.is_floating_point)
                   for shape, dtype in specs]
        node = Node(op, attrs, inputs, tuple(outputs), source, role, needs_grad)
        for v in outputs:
            v.producer = node
        self.nodes.append(node)
        return outputs

    def params(self):
        """The param and const Values (real tensors used by reference)."""
        return [v for v in self.values if v.kind in ("param", "const")]

    def copy(self):
        """A graph sharing Values and Nodes (passes replace lists, never edit in place)."""
        new = copy.copy(self)
        new.values, new.nodes = list(self.values), list(self.nodes)
        new.inputs, new.outputs = list(self.inputs), list(self.outputs)
        new.param_grads, new.writes = dict(self.param_grads), dict(self.writes)
        return new

    # -- reading -----------------------------------------------------------------------
    def __str__(self):
        return self.dump()

    def dump(self, sources=False):
        """A readable listing: one line per node with output types, ``# file:line`` if
        ``sources``, the role where it is not forward."""
        heads = [f"{v!r}: {v.type_str()} input {v.name}" for v in self.inputs]
        heads += [f"{v!r}: {v.type_str()} {v.kind}" for v in self.params()]
        lines = [f"graph({', '.join(heads)}) {{"]
        for node in self.nodes:
            outs = ", ".join(f"{v!r}: {v.type_str()}" for v in node.outputs)
            args = [_arg_str(x) for x in node.inputs]
            args += [f"{k}={_attr_str(v)}" for k, v in node.attrs.items() if v is not None]
            line = f"  {outs} = {node.op}({', '.join(args)})"
            notes = ([node.role] if node.role != "forward" else []) + (
                [node.source] if sources and node.source else [])
            lines.append(line + (f"  # {' '.join(notes)}" if notes else ""))
        for pid, gid in self.param_grads.items():
            lines.append(f"  grad %{pid} = %{gid}")
        for vid, new in self.writes.items():
            lines.append(f"  write %{vid} <- %{new}")
        lines.append(f"  return {', '.join(map(repr, self.outputs))}".rstrip())
        return "\n".join(lines) + "\n}"

    def to_dot(self):
        """The graph in Graphviz DOT, nodes colored by role (see ``to_dot``)."""
        return to_dot(self)

    def to_networkx(self):
        """A ``networkx.DiGraph`` with a vertex per value (``("value", id)``) and per node
        (``("node", index)``), edges along the data flow.

        >>> g = minflow.graph.Graph()
        >>> x = g.add_input((2,), minflow.float32, "cpu")
        >>> _ = g.add_node("neg", {}, (x,), [((2,), minflow.float32)], "cpu")
        >>> sorted(g.to_networkx().edges())
        [(('node', 0), ('value', 1)), (('value', 0), ('node', 0))]
        """
        dg = nx.DiGraph()
        for v in self.values:
            dg.add_node(("value", v.id), kind=v.kind, shape=v.shape, dtype=v.dtype.name)
        for i, node in enumerate(self.nodes):
            dg.add_node(("node", i), op=node.op, role=node.role)
            for v in node.input_values():
                dg.add_edge(("value", v.id), ("node", i))
            for v in node.outputs:
                dg.add_edge(("node", i), ("value", v.id))
        return dg


_COLORS = {"forward": "lightblue", "backward": "lightsalmon", "optimizer": "palegreen"}


def to_dot(graph):
    """The graph in Graphviz DOT: a box per node, colored by role (forward light blue,
    backward salmon, optimizer green), an ellipse per input, parameter and constant; edges
    along the data flow, labelled with the value's type.

    >>> g = minflow.graph.trace_function(lambda x: x.exp(), minflow.ones(2))
    >>> print(minflow.graph.ir.to_dot(g))
    digraph minflow {
      node [fontname="monospace"];
      v0 [label="input0\\nfloat32[2]", shape=ellipse];
      n0 [label="exp", shape=box, style=filled, fillcolor=lightblue];
      v0 -> n0 [label="float32[2]"];
      n0 -> out1;
      out1 [label="output %1", shape=plaintext];
    }
    """
    lines = ["digraph minflow {", '  node [fontname="monospace"];']
    made = {}
    for v in graph.values:
        if v.kind != "op":
            label = v.name or f"{v.kind} %{v.id}"
            lines.append(f'  v{v.id} [label="{label}\\n{v.type_str()}", shape=ellipse];')
            made[v.id] = f"v{v.id}"
    for i, node in enumerate(graph.nodes):
        color = _COLORS[node.role]
        lines.append(f'  n{i} [label="{node.op}", shape=box, style=filled, '
                     f'fillcolor={color}];')
        for v in node.input_values():
            if v.id in made:
                lines.append(f'  {made[v.id]} -> n{i} [label="{v.type_str()}"];')
        for v in node.outputs:
            made[v.id] = f"n{i}"
    for v in graph.outputs:
        lines.append(f"  {made.get(v.id, f'v{v.id}')} -> out{v.id};")
        lines.append(f'  out{v.id} [label="output %{v.id}", shape=plaintext];')
    return "\n".join(lines + ["}"])


def _attr_str(v):
    if isinstance(v, (Device, DType)):
        return str(v) if isinstance(v, Device) else v.name
    return repr(v)


def _arg_str(x):
    if isinstance(x, tuple):
        return f"[{', '.join(map(_arg_str, x))}]"
    return repr(x)

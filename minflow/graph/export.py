"""Saving a compiled eval graph to a file and loading it without the Python model code.

The file is a ``minflow.save`` checkpoint (safe: no pickle, no code runs on load) whose
root is a dict::

    {"format": "minflow.graph", "version": 1, "minflow": "0.1.0",
     "inputs":    [{"name", "shape", "dtype", "device"}, ...],
     "constants": [{"name", "tensor"}, ...],      # weights, buffers, folded constants
     "nodes":     [{"op", "attrs", "inputs", "outputs", "device", "source"}, ...],
     "outputs":   [value index, ...],
     "writes":    [[constant's value index, value index], ...],
     "in_spec", "out_spec"}                       # nested structure of inputs / outputs

Values are numbered inputs first, then constants, then each node's outputs in node
order; a node's ``outputs`` are their (shape, dtype) and its ``inputs`` hold
``{"value": index}`` for a tensor, plain numbers and None as they are, tuples for
variadic inputs. Attrs are stored by name as resolved when traced; slices are
``{"slice": [start, stop, step]}``.

Loading checks each op against this minflow's registry: an attr the file lacks takes the
op's declared default (files written before the attr existed still load), while an
unknown op, an attr missing with no default, an unknown attr, a newer format version or a
file that is not a saved graph raise ``SerializationError`` naming the file and the problem.

>>> import io
>>> g = minflow.graph.trace_function(lambda x: (x * 2).exp(), minflow.ones(3))
>>> buffer = io.BytesIO()
>>> minflow.graph.save(minflow.graph.compile(g), buffer)
>>> _ = buffer.seek(0)
>>> loaded = minflow.graph.load(buffer)
>>> loaded(minflow.zeros(3))
(tensor([1., 1., 1.]),)
"""
import os

from .. import serialization
from ..core.device import Device
from ..core.dtype import DType
from ..core.tensor import Tensor
from ..ops.registry import REQUIRED, get_op
from .ir import Graph, Value
from .nest import flatten, unflatten
from .plan import Plan, compile as compile_graph

__all__ = ["save", "load", "LoadedGraph", "FORMAT", "VERSION"]

FORMAT = "minflow.graph"
VERSION = 1
SerializationError = serialization.SerializationError


# -- save --------------------------------------------------------------------------------

def save(plan, f, in_spec=None, out_spec=None, names=None):
    """Save a compiled forward-only ``plan`` (a Plan, or a graph IR compiled here) to ``f``.

    ``in_spec`` / ``out_spec``: nested structures from ``minflow.graph.nest.flatten``
    (default: positional inputs, a tuple of outputs); ``names``: {id(tensor): name} for
    the constants. ``nn.Graph.save`` is the usual way in.

    >>> import io
    >>> g = minflow.graph.trace_function(lambda x: x.exp() + 1, minflow.zeros(2))
    >>> buffer = io.BytesIO()
    >>> minflow.graph.save(g, buffer)
    >>> _ = buffer.seek(0)
    >>> minflow.graph.load(buffer)(minflow.zeros(2))[0].tolist()
    [2.0, 2.0]
    """
    if isinstance(plan, Graph):
        plan = compile_graph(plan)
    if not isinstance(plan, Plan):
        raise TypeError(f"minflow.graph.save: expected a compiled Plan or a graph, got "
                        f"{type(plan).__name__}")
    graph = plan.graph
    _check_forward_only(graph)
    in_spec = in_spec or tuple("tensor" for _ in graph.inputs)
    out_spec = out_spec or ((tuple, tuple("tensor" for _ in graph.outputs)),)
    index = {}
    root = {"format": FORMAT, "version": VERSION, "minflow": _minflow_version(),
            "inputs": [_input_record(v, index) for v in graph.inputs],
            "constants": [_constant_record(v, index, names or {}) for v in _constants(graph)]}
    root["nodes"] = [_node_record(i, node, index) for i, node in enumerate(graph.nodes)]
    root["outputs"] = [index[v.id] for v in graph.outputs]
    root["writes"] = [[index[vid], index[new]] for vid, new in graph.writes.items()]
    root["in_spec"] = [_spec_record(s) for s in in_spec]
    root["out_spec"] = [_spec_record(s) for s in out_spec]
    serialization.save(root, f)


def _check_forward_only(graph):
    roles = sorted({node.role for node in graph.nodes} - {"forward"})
    if roles or graph.param_grads:
        what = " and ".join(roles) or "backward"
        raise ValueError(f"minflow.graph.save: the graph has {what} ops; only eval graphs "
                         f"(forward only) can be saved. For training checkpoints save the "
                         f"state dicts (nn.Graph.state_dict()) with minflow.save")


def _minflow_version():
    from .. import __version__
    return __version__


def _constants(graph):
    """The param and const Values the nodes, outputs and buffer writes refer to."""
    used = {v.id for node in graph.nodes for v in node.input_values()}
    used.update(v.id for v in graph.outputs)
    used.update(graph.writes)
    return [v for v in graph.params() if v.id in used]


def _input_record(value, index):
    index[value.id] = len(index)
    return {"name": value.name, "shape": list(value.shape), "dtype": value.dtype,
            "device": value.device}


def _constant_record(value, index, names):
    index[value.id] = len(index)
    return {"name": names.get(id(value.tensor)), "tensor": value.tensor.detach()}


def _node_record(i, node, index):
    where = f"node {i} ({node.op})"
    inputs = [_input_ref(x, index, where) for x in node.inputs]
    for v in node.outputs:
        index[v.id] = len(index)
    return {"op": node.op, "attrs": {k: _attr_record(v, f"{where} attr {k!r}")
                                     for k, v in node.attrs.items()},
            "inputs": inputs, "outputs": [[list(v.shape), v.dtype] for v in node.outputs],
            "device": node.outputs[0].device if node.outputs else None,
            "source": node.source}


def _input_ref(x, index, where):
    if isinstance(x, Value):
        return {"value": index[x.id]}
    if isinstance(x, tuple):
        return tuple(_input_ref(y, index, where) for y in x)
    if x is None or type(x) in (bool, int, float):
        return x
    raise TypeError(f"minflow.graph.save: {where} has an input of type {type(x).__name__}, "
                    f"which a saved graph cannot hold")


def _attr_record(v, where):
    if v is None or type(v) in (bool, int, float, str) or isinstance(v, Device):
        return v
    if isinstance(v, (tuple, list)):
        return type(v)(_attr_record(x, where) for x in v)
    if isinstance(v, slice):
        return {"slice": [_attr_record(x, where) for x in (v.start, v.stop, v.step)]}
    if isinstance(v, DType):
        return v
    raise TypeError(f"minflow.graph.save: {where} is a {type(v).__name__}, which a saved "
                    f"graph cannot hold (a Generator passed to a random op, for one: use "
                    f"the default generator, seeded with minflow.manual_seed)")


def _spec_record(spec):
    """A nest spec as lists: "tensor", "none", ["tuple" | "list", [...]], ["dict", keys, [...]]."""
    if isinstance(spec, str):
        return spec
    if spec[0] is dict:
        return ["dict", list(spec[1]), [_spec_record(s) for s in spec[2]]]
    return [spec[0].__name__, [_spec_record(s) for s in spec[1]]]


# -- load --------------------------------------------------------------------------------

def load(f, map_location=None):
    """Load a graph saved by ``minflow.graph.save`` / ``nn.Graph.save`` from a path or a
    binary file object: a ``LoadedGraph``, called like the graph it was saved from.

    ``map_location``: None (each tensor and op on the device it was saved for) or a device
    (all of them there, e.g. "cpu" for a graph saved on cuda).

    >>> import io
    >>> g = minflow.graph.trace_function(lambda x: x.exp() + 1, minflow.zeros(2))
    >>> buffer = io.BytesIO()
    >>> minflow.graph.save(g, buffer)
    >>> _ = buffer.seek(0)
    >>> minflow.graph.load(buffer)(minflow.zeros(2))[0].tolist()
    [2.0, 2.0]
    """
    if map_location is not None and not isinstance(map_location, (str, Device)):
        raise TypeError(f"minflow.graph.load: map_location must be None or a device, got "
                        f"{type(map_location).__name__}")
    if isinstance(f, (str, os.PathLike)):
        name = repr(os.fspath(f))
    else:
        name = repr(f.name) if isinstance(getattr(f, "name", None), str) else "<file object>"
    device = None if map_location is None else Device(map_location)
    try:
        root = serialization.load(f, map_location=None if device is None else str(device))
    except SerializationError as err:
        raise SerializationError(str(err).replace("minflow.load:", "minflow.graph.load:", 1)) \
            from None
    return _Reader(root, name, device).read()


class LoadedGraph:
    """A compiled graph loaded from a file: ``loaded(*inputs)`` runs its plan.

    Inputs and outputs have the nested structure (tuples, lists, dicts) the graph was
    saved with; ``plan`` is the compiled Plan, ``graph`` its IR (``print(loaded)``).

    >>> import io
    >>> g = minflow.graph.trace_function(lambda x: x * 3, minflow.ones(2))
    >>> buffer = io.BytesIO()
    >>> minflow.graph.save(g, buffer)
    >>> _ = buffer.seek(0)
    >>> loaded = minflow.graph.load(buffer)
    >>> [n.op for n in loaded.graph.nodes], loaded(minflow.ones(2))[0].tolist()
    (['mul'], [3.0, 3.0])
    """

    def __init__(self, plan, in_spec, out_spec, name):
        self.plan, self.in_spec, self.out_spec, self.name = plan, in_spec, out_spec, name

    @property
    def graph(self):
        return self.plan.graph

    def __call__(self, *args):
        tensors, spec = flatten(args, "input")
        if spec != self.in_spec:
            raise TypeError(f"graph loaded from {self.name}: expected inputs "
                            f"{_spec_str(self.in_spec)}, got {_spec_str(spec)}")
        return unflatten(self.out_spec, self.plan.run(*tensors))[0]

    def __repr__(self):
        return f"LoadedGraph({self.name}, inputs {_spec_str(self.in_spec)})\n{self.graph}"


class _Reader:
    """Builds a graph IR from a loaded root object; every error names the file."""

    def __init__(self, root, name, device):
        self.root, self.name, self.device = root, name, device
        self.values = []

    def fail(self, problem):
        return SerializationError(f"minflow.graph.load: {self.name} {problem}")

    def read(self):
        self._check_header()
        graph = Graph()
        try:
            self._read_values(graph)
            in_spec = tuple(map(_spec_value, self.root["in_spec"]))
            out_spec = tuple(map(_spec_value, self.root["out_spec"]))
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as err:
            raise self.fail(f"is corrupt: malformed graph metadata ({err!r})") from None
        try:
            plan = compile_graph(graph, passes=())
        except (RuntimeError, NotImplementedError, TypeError) as err:
            raise self.fail(f"cannot be compiled here: {err}") from None
        return LoadedGraph(plan, in_spec, out_spec, self.name)

    def _check_header(self):
        root = self.root
        if not isinstance(root, dict) or root.get("format") != FORMAT:
            raise self.fail("is a minflow checkpoint but not a saved graph (minflow.graph.save "
                            "and nn.Graph.save write those); read it with minflow.load")
        version = root.get("version")
        if type(version) is not int or version < 1:
            raise self.fail(f"is corrupt: graph format version {version!r} does not exist")
        if version > VERSION:
            raise self.fail(f"has graph format version {version}, newer than this minflow "
                            f"reads (up to {VERSION}); it was written by minflow "
                            f"{root.get('minflow')}: upgrade minflow to load it")

    def _read_values(self, graph):
        root = self.root
        for rec in root["inputs"]:
            self.values.append(graph.add_input(tuple(rec["shape"]), _dtype(rec["dtype"]),
                                               self._device(rec["device"]), rec["name"]))
        for rec in root["constants"]:
            if not isinstance(rec["tensor"], Tensor):
                raise TypeError(f"constant {len(self.values)} is not a tensor")
            value = graph.add_tensor(rec["tensor"])
            value.name = rec["name"]
            self.values.append(value)
        for i, rec in enumerate(root["nodes"]):
            self.values.extend(self._add_node(graph, i, rec))
        graph.outputs = [self._value(k) for k in root["outputs"]]
        for const, new in root["writes"]:
            if self._value(const).kind not in ("param", "const"):
                raise ValueError(f"write into value {const}, which is not a constant")
            graph.writes[self._value(const).id] = self._value(new).id

    def _add_node(self, graph, i, rec):
        where = f"node {i} ({rec['op']!r})"
        try:
            op = get_op(rec["op"])
        except KeyError:
            raise self.fail(f"uses op {rec['op']!r} (node {i}), which this "
                            f"minflow does not define; import or load the library that "
                            f"defines it before loading the graph") from None
        attrs = self._attrs(op, rec["attrs"], where)
        if len(rec["inputs"]) != len(op.inputs):
            raise self.fail(f"is corrupt: {where} has {len(rec['inputs'])} inputs, op "
                            f"{op.name!r} takes {len(op.inputs)}")
        inputs = [self._input(x) for x in rec["inputs"]]
        specs = [(tuple(shape), _dtype(dtype)) for shape, dtype in rec["outputs"]]
        return graph.add_node(op.name, attrs, inputs, specs, self._device(rec["device"]),
                              rec["source"])

    def _attrs(self, op, stored, where):
        """The node's attrs: stored ones validated, absent ones from the op's defaults."""
        if not isinstance(stored, dict):
            raise TypeError(f"{where}: attrs are not a dict")
        unknown = sorted(set(stored) - {a.name for a in op.attrs})
        if unknown:
            raise self.fail(f"{where} has attrs {unknown} that op {op.name!r} does not "
                            f"declare (it declares {[a.name for a in op.attrs]})")
        attrs = {}
        for attr in op.attrs:
            if attr.name in stored:
                value = self._attr_value(stored[attr.name])
                try:
                    attrs[attr.name] = attr.validate(op.name, value)
                except (TypeError, ValueError) as err:
                    raise self.fail(f"{where} has a bad attr: {err}") from None
            elif attr.default is REQUIRED:
                raise self.fail(f"{where} lacks attr {attr.name!r}, which op {op.name!r} "
                                f"requires (it has no default)")
            else:
                attrs[attr.name] = attr.default
        return attrs

    def _attr_value(self, v):
        if isinstance(v, Device):
            return self.device or v
        if isinstance(v, (tuple, list)):
            return type(v)(self._attr_value(x) for x in v)
        if isinstance(v, dict):
            (tag, args), = v.items()
            if tag != "slice":
                raise ValueError(f"unknown attr tag {tag!r}")
            return slice(*args)
        return v

    def _input(self, x):
        if isinstance(x, dict):
            return self._value(x["value"])
        if isinstance(x, tuple):
            return tuple(self._input(y) for y in x)
        if x is None or type(x) in (bool, int, float):
            return x
        raise TypeError(f"an op input of type {type(x).__name__}")

    def _value(self, k):
        if type(k) is not int or not 0 <= k < len(self.values):
            raise IndexError(f"value index {k!r} out of range ({len(self.values)} values)")
        return self.values[k]

    def _device(self, device):
        if device is None:          # a node without outputs
            return None
        return self.device or Device(device)


def _dtype(dtype):
    if not isinstance(dtype, DType):
        raise TypeError(f"expected a dtype, got {dtype!r}")
    return dtype


def _spec_value(rec):
    """The nest spec of a ``_spec_record``."""
    if rec in ("tensor", "none"):
        return rec
    kind = rec[0]
    if kind == "dict":
        return dict, tuple(rec[1]), tuple(map(_spec_value, rec[2]))
    types = {"tuple": tuple, "list": list}
    return types[kind], tuple(map(_spec_value, rec[1]))


def _spec_str(spec):
    """``(tensor, [tensor], {'k': tensor})`` for a top-level spec."""
    return f"({', '.join(map(_one_spec_str, spec))})"


def _one_spec_str(spec):
    if isinstance(spec, str):
        return "None" if spec == "none" else spec
    if spec[0] is dict:
        return "{" + ", ".join(f"{k!r}: {_one_spec_str(s)}" for k, s in zip(*spec[1:])) + "}"
    inner = ", ".join(map(_one_spec_str, spec[1]))
    return f"[{inner}]" if spec[0] is list else f"({inner})"

"""The compiled plan: a flat list of pre-bound kernel calls over a list of value slots.

Compiling runs the passes on a copy of the graph (each timed and reported), binds each
node to its kernel once (bind.py) and plans memory by liveness (memory.py): the outputs of
kernels that take ``out=`` get buffers made once, reused by later values once their last
reader has run, and written in place where an elementwise op's input dies there. Running
only checks the inputs' signature, fills the slots of inputs and parameters and runs the
calls: no dispatch, no inference and no autograd bookkeeping per call. The first run goes
through the calls one by one, noting which kernel results need converting (numpy
reductions return scalars; a few kernels compute in a wider dtype); from then on the plan
runs ``source``, the same calls written out as one generated Python function.

Values returned to the user are never in a buffer (a later run would overwrite them).
Parameters are read from their tensors at every run (shared with eager code, never
copied); their gradients, where the graph has a backward and no optimizer consumes them,
accumulate into ``param.grad`` as in eager (copied out of the plan's buffers); values the
graph wrote into real tensors (BatchNorm's running stats) are copied into them last.
"""
import math
import time

import numpy as np

from ..core.device import array_module, cuda_context
from ..core.tensor import Tensor
from .bind import CAST, LIST, READ, bind_node, overwritable, read_arg, writes_out
from .fusion import fuse_elementwise
from .memory import plan_memory, schedule_updates_early
from .passes import (common_subexpression_elimination, constant_folding,
                     dead_code_elimination)
from .report import CompileReport

__all__ = ["Plan", "compile", "DEFAULT_PASSES"]

_SCALARS = (np.generic, int, float, bool)
DEFAULT_PASSES = (dead_code_elimination, constant_folding, common_subexpression_elimination,
                  dead_code_elimination, fuse_elementwise, schedule_updates_early)


def compile(graph, passes=DEFAULT_PASSES, preallocate=True):
    """Run ``passes`` on a copy of ``graph``, plan its memory and compile it into a Plan.
    ``preallocate=False``: every kernel allocates its outputs (the plan only drops them
    after their last reader), for comparison.

    >>> g = minflow.graph.trace_function(lambda x: x * 2 + x * 2, minflow.ones(2))
    >>> plan = minflow.graph.compile(g)
    >>> plan(minflow.tensor([1.0, 5.0]))[0].tolist(), len(plan.calls)
    ([4.0, 20.0], 2)
    >>> print(plan.report)                                       # doctest: +ELLIPSIS
    compile report: 3 -> 2 ops in ... ms
      dead_code_elimination            3 -> 3 ops  ... ms  no change
      constant_folding                 3 -> 3 ops  ... ms  no change
      common_subexpression_elimination 3 -> 2 ops  ... ms  removed 1 nodes (mul)
      dead_code_elimination            2 -> 2 ops  ... ms  no change
      fuse_elementwise                 2 -> 2 ops  ... ms  no change (the graph runs on cpu, where numpy runs each op in one pass already; fusion makes CUDA kernels)
      schedule_updates_early           2 -> 2 ops  ... ms  no change
      memory_planning: 2 values in 2 buffers, planned peak 16 B vs 16 B without reuse (0% less); 1 values written into preallocated memory (64 B held), 0 in place
    """
    graph = graph.copy()
    report = CompileReport(len(graph.nodes))
    for run_pass in passes:
        before, start = len(graph.nodes), time.perf_counter()
        result = run_pass(graph)
        report.add(result, before, len(graph.nodes), time.perf_counter() - start)
    start = time.perf_counter()
    memory = _plan_memory(graph) if preallocate else plan_memory(graph)
    report.add_memory(memory, time.perf_counter() - start)
    return Plan(graph, report, memory)


def _plan_memory(graph):
    """The memory plan with buffers for the outputs of the kernels that take ``out=``, and
    the kernels that can write over their dying inputs told which they are."""
    nodes = list(enumerate(graph.nodes))
    return plan_memory(graph, {i for i, node in nodes if writes_out(node)},
                       {i: names for i, node in nodes if (names := overwritable(node))})


class Plan:
    """A graph compiled to kernel calls; ``plan(*inputs)`` returns the outputs as a tuple.

    ``report``: the CompileReport (``reports``: its pass reports); ``memory``: the
    MemoryPlan it follows; ``calls``: (kernel, argument specs, outputs, drops, out array
    or None) per node; ``held_bytes``: the size of the buffers it keeps between runs;
    ``source``: the generated run function (None before the first run).

    >>> g = minflow.graph.trace_function(lambda x: ((x + 1) * 2).exp(), minflow.ones(256))
    >>> plan = minflow.graph.compile(g)
    >>> plan(minflow.zeros(256))[0][:2].tolist(), len(plan.calls), plan.held_bytes
    ([7.3890557289123535, 7.3890557289123535], 3, 1024)
    """

    def __init__(self, graph, report=None, memory=None):
        self.graph, self.report = graph, report or CompileReport(len(graph.nodes))
        self.reports = [entry["report"] for entry in self.report.passes]
        self.memory = memory or _plan_memory(graph)
        buffers = _make_buffers(graph, self.memory)
        self.held_bytes = self.memory.held_bytes
        self._slots = [buffers.get(v.id) for v in graph.values]   # each run starts from these
        overwrite = set(self.memory.overwrite)
        self.calls = [(*bind_node(node, i in overwrite),
                       tuple(d for d in drops if d not in buffers),
                       buffers.get(node.outputs[0].id))
                      for i, (node, drops) in enumerate(zip(graph.nodes, self.memory.drops))]
        used = {v.id for node in graph.nodes for v in node.input_values()}
        used.update(v.id for v in graph.outputs)
        used.update((*graph.param_grads.values(), *graph.writes.values()))
        self.params = [v for v in graph.params() if v.id in used]
        self._input_specs = [(v.id, v.shape, v.dtype, v.device) for v in graph.inputs]
        self._param_specs = [(v.id, v.shape, v.dtype, v.device, v.tensor) for v in self.params]
        self.param_grads = [(graph.values[pid].tensor, gid)
                            for pid, gid in graph.param_grads.items()]
        self.writes = [(graph.values[vid].tensor, new) for vid, new in graph.writes.items()]
        self.source, self._step = None, None

    def __call__(self, *inputs):
        return self.run(*inputs)

    def run(self, *inputs):
        """Check the inputs against the graph's signature, run every call, return outputs."""
        slots = self._slots.copy()
        self._load(slots, inputs)
        if self._step is None:
            self._first_run(slots)
        else:
            self._step(slots)
        if self.param_grads:
            self._write_grads(slots)
        if self.writes:
            self._write_back(slots)
        return tuple(Tensor._make(slots[v.id], v.dtype, v.device) for v in self.graph.outputs)

    def _first_run(self, slots):
        """Run the calls one by one, note the conversions each result needs, then generate
        the run function that makes them."""
        fixes = []
        for kernel, args, outs, drops, out in self.calls:
            arguments = [read_arg(slots, a) for a in args]
            if out is not None:
                kernel(*arguments, out=out)
                fixes.append(None)
            else:
                result = kernel(*arguments)
                if result.__class__ is not tuple:
                    result = (result,)
                fixes.append(tuple(_fix_of(arr, np_dtype) for (_, np_dtype), arr
                                   in zip(outs, result)))
                for (vid, np_dtype), arr in zip(outs, result):
                    slots[vid] = _convert(arr, np_dtype)
            for vid in drops:
                slots[vid] = None
        self.source, self._step = _generate(self.calls, fixes)

    def _load(self, slots, inputs):
        """Put the inputs' and parameters' arrays in their slots, checking each signature
        (the error names the first that differs)."""
        if len(inputs) != len(self.graph.inputs):
            expected = self.graph.inputs
            raise TypeError(f"graph: expected {len(expected)} inputs "
                            f"({', '.join(v.name for v in expected)}), got {len(inputs)}")
        for (vid, shape, dtype, device), x in zip(self._input_specs, inputs):
            if (x.__class__ is not Tensor or x._data.shape != shape or x.dtype is not dtype
                    or x.device != device):
                self._signature_error(inputs)
            slots[vid] = x._data
        for vid, shape, dtype, device, tensor in self._param_specs:
            data = tensor._data
            if data.shape != shape or tensor.dtype is not dtype or tensor.device != device:
                self._signature_error(inputs)
            slots[vid] = data

    def _signature_error(self, inputs):
        for i, (value, x) in enumerate(zip(self.graph.inputs, inputs)):
            _check(value, x, f"input {i} ({value.name!r})")
        for value in self.params:
            _check(value, value.tensor, f"{value.kind} {value!r}")

    def _write_grads(self, slots):
        for param, gid in self.param_grads:
            grad = slots[gid]
            if param.grad is None:
                param.grad = Tensor._make(grad.copy(), param.dtype, param.device)
            else:
                param.grad = Tensor._make(param.grad._data + grad, param.dtype, param.device)

    def _write_back(self, slots):
        for tensor, vid in self.writes:
            _copy_into(tensor, slots[vid])


def _make_buffers(graph, memory):
    """{value id: array} for the preallocated values: views into one byte array per
    device (its arena), made here once."""
    arenas = {}
    for device, nbytes in memory.arenas.items():
        if device.type == "cpu":       # offsets are multiples of 64: align the start too
            raw = np.empty(nbytes + 64, np.uint8)
            start = -raw.ctypes.data % 64
            arenas[device] = raw[start:start + nbytes]
        else:                           # cupy's allocations are 256-byte aligned
            with cuda_context(device):
                arenas[device] = array_module("cuda").empty(nbytes, np.uint8)
    views = {}
    for vid, (device, offset) in memory.preallocated.items():
        value = graph.values[vid]
        nbytes = value.dtype.np.itemsize * math.prod(value.shape)
        views[vid] = arenas[device][offset:offset + nbytes].view(value.dtype.np) \
            .reshape(value.shape)
    return views


# ---- the generated run function ----------------------------------------------------------

_CONVERSIONS = {            # how a kernel's result is converted, as generated code
    "asarray": "asarray({})",                   # a numpy scalar, of the output's dtype
    "astype": "{}.astype({})",                  # an array of another dtype
    "asarray astype": "asarray({}).astype({})",  # a numpy scalar of another dtype
}


def _fix_of(arr, np_dtype):
    """The key in _CONVERSIONS that makes ``arr`` an array of ``np_dtype``, or None."""
    if arr.__class__ is not np.ndarray and isinstance(arr, _SCALARS):
        return "asarray" if np.asarray(arr).dtype == np_dtype else "asarray astype"
    return None if arr.dtype == np_dtype else "astype"


def _convert(arr, np_dtype):
    if arr.__class__ is not np.ndarray and isinstance(arr, _SCALARS):
        arr = np.asarray(arr)       # numpy reductions return numpy scalars
    return arr if arr.dtype == np_dtype else arr.astype(np_dtype)


def _generate(calls, fixes):
    """(source, function) running ``calls`` on a slot list ``s``: one line per call, with
    the conversions ``fixes`` names; kernels, out arrays and constants are globals."""
    names = {"asarray": np.asarray}
    lines = ["def step(s):"]
    for i, ((kernel, args, outs, drops, out), fix) in enumerate(zip(calls, fixes)):
        names[f"k{i}"] = kernel
        call = f"k{i}({', '.join(_arg_code(a, f'{i}_{j}', names) for j, a in enumerate(args))}"
        if out is not None:
            names[f"o{i}"] = out
            lines.append(f"    {call}, out=o{i})" if args else f"    {call}out=o{i})")
        elif all(vid in drops for vid, _ in outs):      # results nothing reads
            lines.append(f"    {call})")
            drops = tuple(vid for vid in drops if vid not in dict(outs))
        else:
            lines += _store_lines(i, call + ")", outs, fix, names)
        if drops:
            lines.append(f"    {' = '.join(f's[{vid}]' for vid in drops)} = None")
    if len(lines) == 1:
        lines.append("    pass")
    source = "\n".join(lines) + "\n"
    exec(source, names)         # noqa: S102 (source built above from ints and names only)
    return source, names["step"]


def _store_lines(i, call, outs, fix, names):
    """Lines storing ``call``'s results into the slots, converted as ``fix`` says."""
    targets = ", ".join(f"s[{vid}]" for vid, _ in outs)
    if not any(fix):
        return [f"    {targets} = {call}"]
    lines = [f"    r = {call}"]
    for j, ((vid, np_dtype), how) in enumerate(zip(outs, fix)):
        item = "r" if len(outs) == 1 else f"r[{j}]"
        if how is not None:
            names[f"t{i}_{j}"] = np_dtype
            item = _CONVERSIONS[how].format(item, f"t{i}_{j}")
        lines.append(f"    s[{vid}] = {item}")
    return lines


def _arg_code(arg, key, names):
    """The expression reading argument spec ``arg``."""
    kind, payload = arg
    if kind == READ:
        return f"s[{payload}]"
    if kind == CAST:
        names[f"t{key}"] = payload[1]
        return f"s[{payload[0]}].astype(t{key})"
    if kind == LIST:
        return "[" + ", ".join(_arg_code(a, f"{key}_{j}", names)
                               for j, a in enumerate(payload)) + "]"
    if payload is None or payload.__class__ in (bool, int):
        return repr(payload)
    names[f"c{key}"] = payload
    return f"c{key}"


def _copy_into(tensor, array):
    """Write ``array`` into ``tensor``'s own array (shared with views, state dicts)."""
    if tensor.device.type == "cpu":
        np.copyto(tensor._data, array)
    else:
        array_module(tensor.device.type).copyto(tensor._data, array)
    if tensor._version is not None:
        tensor._version[0] += 1


def _check(value, x, where):
    if not isinstance(x, Tensor):
        raise TypeError(f"graph {where}: expected a Tensor, got {type(x).__name__}")
    if tuple(x.shape) != value.shape or x.dtype is not value.dtype or x.device != value.device:
        raise RuntimeError(
            f"graph {where}: expected {value.dtype.name}{list(value.shape)} on {value.device}, "
            f"got {x.dtype.name}{list(x.shape)} on {x.device}; the plan was compiled for that "
            f"signature (trace and compile again for another)")

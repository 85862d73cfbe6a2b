"""The compiled plan: a flat list of pre-bound kernel calls over a list of value slots.

Compiling runs the passes on a copy of the graph (each timed and reported), plans memory
by liveness, and binds each node to its kernel once (bind.py); running only checks the
inputs' signature, fills the slots of inputs and parameters, calls the kernels in order
and drops each value once its last reader has run: no dispatch, no inference and no
autograd bookkeeping per call. Parameters are read from their tensors at every run
(shared with eager code, never copied); their gradients, where the graph has a backward
and no optimizer consumes them, accumulate into ``param.grad`` as in eager; values the
graph wrote into real tensors (BatchNorm's running stats) are copied into them last.
"""
import time

import numpy as np

from ..core.device import array_module
from ..core.tensor import Tensor
from .bind import bind_node, read_arg
from .memory import plan_memory
from .passes import (common_subexpression_elimination, constant_folding,
                     dead_code_elimination)
from .report import CompileReport

__all__ = ["Plan", "compile", "DEFAULT_PASSES"]

_SCALARS = (np.generic, int, float, bool)
DEFAULT_PASSES = (dead_code_elimination, constant_folding, common_subexpression_elimination,
                  dead_code_elimination)


def compile(graph, passes=DEFAULT_PASSES):
    """Run ``passes`` on a copy of ``graph``, plan its memory and compile it into a Plan.

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
      memory_planning: 2 values in 2 buffers, planned peak 16 B vs 16 B without reuse (0% less)
    """
    graph = graph.copy()
    report = CompileReport(len(graph.nodes))
    for run_pass in passes:
        before, start = len(graph.nodes), time.perf_counter()
        result = run_pass(graph)
        report.add(result, before, len(graph.nodes), time.perf_counter() - start)
    start = time.perf_counter()
    memory = plan_memory(graph)
    report.add_memory(memory, time.perf_counter() - start)
    return Plan(graph, report, memory)


class Plan:
    """A graph compiled to kernel calls; ``plan(*inputs)`` returns the outputs as a tuple.

    ``report``: the CompileReport (``reports``: its pass reports); ``memory``: the
    MemoryPlan whose ``drops`` the run follows.
    """

    def __init__(self, graph, report=None, memory=None):
        self.graph, self.report = graph, report or CompileReport(len(graph.nodes))
        self.reports = [entry["report"] for entry in self.report.passes]
        self.memory = memory or plan_memory(graph)
        self.calls = [(*bind_node(node), tuple(drops))
                      for node, drops in zip(graph.nodes, self.memory.drops)]
        used = {v.id for node in graph.nodes for v in node.input_values()}
        used.update(v.id for v in graph.outputs)
        used.update((*graph.param_grads.values(), *graph.writes.values()))
        self.params = [v for v in graph.params() if v.id in used]
        self.param_grads = [(graph.values[pid].tensor, gid)
                            for pid, gid in graph.param_grads.items()]
        self.writes = [(graph.values[vid].tensor, new) for vid, new in graph.writes.items()]

    def __call__(self, *inputs):
        return self.run(*inputs)

    def run(self, *inputs):
        """Check the inputs against the graph's signature, run every call, return outputs."""
        slots = [None] * len(self.graph.values)
        self._load(slots, inputs)
        for kernel, args, outs, drops in self.calls:
            result = kernel(*[read_arg(slots, a) for a in args])
            if result.__class__ is not tuple:
                result = (result,)
            for (vid, np_dtype), arr in zip(outs, result):
                if arr.__class__ is not np.ndarray and isinstance(arr, _SCALARS):
                    arr = np.asarray(arr)       # numpy reductions return numpy scalars
                slots[vid] = arr if arr.dtype == np_dtype else arr.astype(np_dtype)
            for vid in drops:
                slots[vid] = None
        self._write_grads(slots)
        self._write_back(slots)
        return tuple(Tensor._make(slots[v.id], v.dtype, v.device) for v in self.graph.outputs)

    def _load(self, slots, inputs):
        expected = self.graph.inputs
        if len(inputs) != len(expected):
            raise TypeError(f"graph: expected {len(expected)} inputs "
                            f"({', '.join(v.name for v in expected)}), got {len(inputs)}")
        for i, (value, x) in enumerate(zip(expected, inputs)):
            _check(value, x, f"input {i} ({value.name!r})")
            slots[value.id] = x._data
        for value in self.params:
            _check(value, value.tensor, f"{value.kind} {value!r}")
            slots[value.id] = value.tensor._data

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

"""The compiled plan: a flat list of pre-bound kernel calls over a list of value slots.

Compiling looks each node's kernel up once in the kernel registry, by (op, device,
dtype) as the eager dispatcher would choose it, and binds its attrs; running only checks
the inputs' signature, fills the slots of inputs and parameters, and calls the kernels
in order: no dispatch, no inference and no autograd bookkeeping per call. Parameters are
read from their tensors at every run (shared with eager code, never copied); their
gradients, where the graph has a backward, accumulate into ``param.grad`` as in eager.
"""
import functools

import numpy as np

from ..core import dtype as dtypes
from ..core.device import check_available, cuda_context
from ..core.tensor import Tensor
from ..kernels.registry import select_kernel
from ..ops.registry import get_op
from .ir import Value
from .passes import dead_code_elimination

__all__ = ["Plan", "compile"]

_SCALARS = (np.generic, int, float, bool)
_READ, _CAST, _LIST, _CONST = range(4)     # how a call gets each argument


def compile(graph, passes=(dead_code_elimination,)):
    """Run ``passes`` on a copy of ``graph`` and compile it into a Plan.

    >>> g = minflow.graph.trace_function(lambda x: x * 2 + 1, minflow.ones(2))
    >>> plan = minflow.graph.compile(g)
    >>> plan(minflow.tensor([1.0, 5.0]))[0].tolist(), plan.reports
    ([3.0, 11.0], [dead_code_elimination: no change])
    """
    graph = graph.copy()
    reports = [run_pass(graph) for run_pass in passes]
    return Plan(graph, reports)


class Plan:
    """A graph compiled to kernel calls; ``plan(*inputs)`` returns the outputs as a tuple."""

    def __init__(self, graph, reports=()):
        self.graph, self.reports = graph, list(reports)
        self.calls = [_bind(node) for node in graph.nodes]
        used = {v.id for node in graph.nodes for v in node.input_values()}
        used.update(v.id for v in graph.outputs)
        self.params = [v for v in graph.params() if v.id in used]
        self.param_grads = [(graph.values[pid].tensor, gid)
                            for pid, gid in graph.param_grads.items()]

    def __call__(self, *inputs):
        return self.run(*inputs)

    def run(self, *inputs):
        """Check the inputs against the graph's signature, run every call, return outputs."""
        slots = [None] * len(self.graph.values)
        self._load(slots, inputs)
        for kernel, args, outs in self.calls:
            result = kernel(*[_arg(slots, a) for a in args])
            if result.__class__ is not tuple:
                result = (result,)
            for (vid, np_dtype), arr in zip(outs, result):
                if arr.__class__ is not np.ndarray and isinstance(arr, _SCALARS):
                    arr = np.asarray(arr)       # numpy reductions return numpy scalars
                slots[vid] = arr if arr.dtype == np_dtype else arr.astype(np_dtype)
        self._write_grads(slots)
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


def _check(value, x, where):
    if not isinstance(x, Tensor):
        raise TypeError(f"graph {where}: expected a Tensor, got {type(x).__name__}")
    if tuple(x.shape) != value.shape or x.dtype is not value.dtype or x.device != value.device:
        raise RuntimeError(
            f"graph {where}: expected {value.dtype.name}{list(value.shape)} on {value.device}, "
            f"got {x.dtype.name}{list(x.shape)} on {x.device}; the plan was compiled for that "
            f"signature (trace and compile again for another)")


def _arg(slots, arg):
    kind, payload = arg
    if kind == _READ:
        return slots[payload]
    if kind == _CAST:
        return slots[payload[0]].astype(payload[1])
    if kind == _LIST:
        return [_arg(slots, a) for a in payload]
    return payload


def _bind(node):
    """One call: (kernel with attrs bound, argument specs, (value id, numpy dtype) per output)."""
    op = get_op(node.op)
    compute = _compute_dtype(op, node)
    device = next((v.device for v in node.input_values()), None) \
        or node.attrs.get("device") or node.outputs[0].device
    if device.type == "cuda":
        check_available(device)
    kernel = select_kernel(op, device.type, _kernel_dtype(op, node, compute), node.inputs,
                           node.attrs)
    if node.attrs:
        kernel = functools.partial(kernel, **node.attrs)
    if device.index is not None:
        kernel = _in_context(kernel, device)
    args = tuple(_arg_spec(x, spec.promote and compute) for spec, x in zip(op.inputs, node.inputs))
    return kernel, args, tuple((v.id, v.dtype.np) for v in node.outputs)


def _arg_spec(x, cast_to):
    if isinstance(x, Value):
        if cast_to and x.dtype is not cast_to:
            return _CAST, (x.id, cast_to.np)
        return _READ, x.id
    if isinstance(x, tuple):
        return _LIST, tuple(_arg_spec(v, cast_to) for v in x)
    return _CONST, x


def _in_context(kernel, device):
    def call(*args):
        with cuda_context(device):
            return kernel(*args)
    return call


# NOTE: these two mirror core/dispatch.py (_compute_dtype, _kernel_dtype), on Values.
def _compute_dtype(op, node):
    """The dtype promoted inputs are cast to before the kernel runs (None: no promotion)."""
    if op.promote is None:
        return None
    if op.promote == "out":
        return node.outputs[0].dtype
    return dtypes.result_type(*[x for spec, x in zip(op.inputs, node.inputs)
                                if spec.promote and x is not None])


def _kernel_dtype(op, node, compute):
    """The dtype that picks the kernel: compute dtype, ``dtype_from``, first tensor input,
    else the first output's."""
    if compute is not None:
        return compute
    if op.dtype_from is not None:
        names = [i.name for i in op.inputs]
        src = op.dtype_from
        value = node.attrs[src] if src in node.attrs else node.inputs[names.index(src)]
        return value if isinstance(value, dtypes.DType) else value.dtype
    for x in node.inputs:
        if isinstance(x, Value):
            return x.dtype
        if isinstance(x, tuple) and x and isinstance(x[0], Value):
            return x[0].dtype
    return node.outputs[0].dtype

"""Binding a node to its kernel, once, at compile time: the kernel the eager dispatcher
would pick for (op, device, dtype), its attrs bound, and a spec per argument saying how
the plan fetches it from the value slots (read, read and cast, a list, a constant).

>>> g = minflow.graph.trace_function(lambda x: x + 1, minflow.ones(2))
>>> kernel, args, outs = minflow.graph.bind.bind_node(g.nodes[0])
>>> args, outs
(((0, 0), (3, 1)), ((1, dtype('float32')),))
>>> minflow.graph.bind.read_arg({0: np.ones(2, np.float32)}, args[0]).tolist()
[1.0, 1.0]
"""
import functools

import numpy as np

from ..core import dtype as dtypes
from ..core.device import check_available, cuda_context
from ..kernels.registry import select_kernel
from ..ops.registry import get_op
from .ir import Value

__all__ = ["bind_node", "read_arg", "READ", "CAST", "LIST", "CONST"]

READ, CAST, LIST, CONST = range(4)     # how a call gets each argument


def read_arg(slots, arg):
    """The argument ``arg`` (a spec from ``bind_node``) read from ``slots``."""
    kind, payload = arg
    if kind == READ:
        return slots[payload]
    if kind == CAST:
        return slots[payload[0]].astype(payload[1])
    if kind == LIST:
        return [read_arg(slots, a) for a in payload]
    return payload


def bind_node(node):
    """One call: (kernel with attrs bound, argument specs, (value id, numpy dtype) per output)."""
    op = get_op(node.op)
    compute = _compute_dtype(op, node)
    device = next((v.device for v in node.input_values()), None) \
        or node.attrs.get("device") or node.outputs[0].device
    if device.type == "cuda":
        check_available(device)
    # attrs added to the op (each with a default) after this node was recorded
    attrs = {**{a.name: a.default for a in op.attrs if a.name not in node.attrs}, **node.attrs}
    kernel = select_kernel(op, device.type, _kernel_dtype(op, node, compute), node.inputs,
                           attrs)
    if attrs:
        kernel = functools.partial(kernel, **attrs)
    if device.index is not None:
        kernel = _in_context(kernel, device)
    args = tuple(_arg_spec(x, spec.promote and compute) for spec, x in zip(op.inputs, node.inputs))
    return kernel, args, tuple((v.id, v.dtype.np) for v in node.outputs)


def _arg_spec(x, cast_to):
    if isinstance(x, Value):
        if cast_to and x.dtype is not cast_to:
            return CAST, (x.id, cast_to.np)
        return READ, x.id
    if isinstance(x, tuple):
        return LIST, tuple(_arg_spec(v, cast_to) for v in x)
    return CONST, x


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

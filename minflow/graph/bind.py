"""Binding a node to its kernel, once, at compile time: the kernel the eager dispatcher
would pick for (op, device, dtype), its attrs bound, and a spec per argument saying how
the plan fetches it from the value slots (read, read and cast, a list, a constant).
``writes_out`` says whether that kernel can write its output into a given array (``out=``),
which lets the plan preallocate the output's buffer.

>>> g = minflow.graph.trace_function(lambda x: x + 1, minflow.ones(2))
>>> kernel, args, outs = minflow.graph.bind.bind_node(g.nodes[0])
>>> args, outs
(((0, 0), (3, 1)), ((1, dtype('float32')),))
>>> minflow.graph.bind.read_arg({0: np.ones(2, np.float32)}, args[0]).tolist()
[1.0, 1.0]
>>> minflow.graph.bind.writes_out(g.nodes[0])
True
"""
import functools

from ..core import dtype as dtypes
from ..core.device import array_module, check_available, cuda_context
from ..kernels.registry import find_kernel
from ..ops.registry import get_op
from .ir import Value

__all__ = ["bind_node", "writes_out", "overwritable", "read_arg", "READ", "CAST", "LIST",
           "CONST"]

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


def bind_node(node, overwrite=False):
    """One call: (kernel with attrs bound, argument specs, (value id, numpy dtype) per output).
    ``overwrite``: the kernel may write over the inputs ``overwritable`` names."""
    op, device, compute, kernel = _find(node)
    kernel = kernel.bind()
    attrs = _attrs(op, node)
    if overwrite:
        attrs["overwrite"] = True
    if attrs:
        kernel = functools.partial(kernel, **attrs)
    if device.index is not None:
        kernel = _in_context(kernel, device)
    args = tuple(_arg_spec(x, spec.promote and compute) for spec, x in zip(op.inputs, node.inputs))
    return kernel, args, tuple((v.id, v.dtype.np) for v in node.outputs)


def writes_out(node):
    """Whether ``node``'s kernel can write its one output into an array it is given
    (``out=``): a kernel registered with ``out=True``, or a ufunc whose result has the
    output's dtype. Never for views and in-place updates (their output is an input)."""
    op, device, compute, kernel = _find(node)
    if len(node.outputs) != 1 or op.is_view or any(spec.mutable for spec in op.inputs):
        return False
    if kernel.out:
        return True
    fn = kernel.bind()
    if not isinstance(kernel.fn, str) or getattr(fn, "nout", 0) != 1:
        return False
    # the dtype the ufunc gives these arguments, from empty ones (attrs: none for ufuncs)
    xp = array_module(device.type)
    probe = [xp.empty(0, x.dtype.np if not (compute and spec.promote) else compute.np)
             if isinstance(x, Value) else _arg_spec(x, spec.promote and compute)[1]
             for spec, x in zip(op.inputs, node.inputs)]
    try:
        return fn(*probe, **_attrs(op, node)).dtype == node.outputs[0].dtype.np
    except (TypeError, ValueError):
        return False


def overwritable(node):
    """The names of ``node``'s inputs its kernel can write over when nothing reads them
    after it (``overwrite=True``; see kernels/registry.py), e.g. ("grad",) for sgd_update."""
    return _find(node)[3].overwrites


def _find(node):
    """(op, device, compute dtype, Kernel) of ``node``."""
    op = get_op(node.op)
    compute = _compute_dtype(op, node)
    device = next((v.device for v in node.input_values()), None) \
        or node.attrs.get("device") or node.outputs[0].device
    if device.type == "cuda":
        check_available(device)
    dtype = _kernel_dtype(op, node, compute)
    if dtype is dtypes.bfloat16:
        raise dtypes.DTypeError(f"nn.Graph: {node.op}: bfloat16 runs in eager mode only "
                                f"(compiled plans have no bfloat16 kernels); run this model "
                                f"eagerly, or compile it in float16 or float32")
    values = list(node.input_values()) + list(node.outputs)
    if dtype.is_complex or any(v.dtype.is_complex for v in values):
        raise dtypes.DTypeError(f"nn.Graph: {node.op}: complex tensors run in eager mode "
                                f"only (compiled plans have no complex kernels); run this "
                                f"model eagerly")
    kernel = find_kernel(op, device.type, dtype, node.inputs, _attrs(op, node))
    return op, device, compute, kernel


def _attrs(op, node):
    """The node's attrs, plus the default of each attr added to the op (with a default, as
    it must be) after the node was recorded."""
    return {**{a.name: a.default for a in op.attrs if a.name not in node.attrs}, **node.attrs}


def _arg_spec(x, cast_to):
    if isinstance(x, Value):
        if cast_to and x.dtype is not cast_to:
            return CAST, (x.id, cast_to.np)
        return READ, x.id
    if isinstance(x, tuple):
        return LIST, tuple(_arg_spec(v, cast_to) for v in x)
    if x.__class__ is int and cast_to and cast_to.category == 1:
        return CONST, dtypes.wrap_int(x, cast_to)       # as the eager dispatcher does
    return CONST, x


def _in_context(kernel, device):
    def call(*args, **kwargs):
        with cuda_context(device):
            return kernel(*args, **kwargs)
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

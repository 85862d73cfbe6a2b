"""Graph backward: ``loss.backward()`` on a lazy tensor adds the grad ops to its graph.

The forward nodes are walked in reverse; each one that has output grads and an input
that needs a grad gets its grad-op conf generator called (see grad_conf.py), which adds
grad ops (role "backward") and binds the forward inputs' grads. Several grads of one
value are summed; ops with the no_grad trait stop gradients, as do inputs that did not
require grad when traced (placeholders, detached tensors, anything under no_grad). The
grads that reach parameters become ``graph.param_grads``, which the compiled plan
accumulates into ``param.grad``, as eager backward does.
"""
import contextlib

from ..core.dispatch import current_interpreter
from ..core.grad_mode import no_grad
from ..core.namespace import F
from ..ops.registry import get_op
from .grad_conf import GradConfContext, grad_conf_of
from .ir import Value
from .lazy import GraphBuildError, current_graph, lazy_tensor, value_of

__all__ = ["graph_backward"]

_ERRORS = (ValueError, TypeError, IndexError, RuntimeError)


def graph_backward(loss, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Add the grad ops of scalar ``loss`` (a lazy tensor) to the graph being built.

    >>> w = minflow.tensor([2.0], requires_grad=True)
    >>> with minflow.graph.trace() as g:
    ...     (w * w).sum().backward()
    >>> [(node.op, node.role) for node in g.nodes][-3:]
    [('mul', 'backward'), ('mul', 'backward'), ('add', 'backward')]
    """
    graph = loss._data.graph
    if current_graph() is not graph:
        raise GraphBuildError("backward: a graph tensor's backward() must be called while its "
                              "graph is being built (inside build or trace)")
    if gradient is not None or create_graph or inputs is not None:
        raise GraphBuildError("backward: graph mode supports loss.backward() with no gradient=, "
                              "create_graph= or inputs= arguments")
    if loss.numel() != 1:
        raise GraphBuildError(f"backward: graph backward needs a scalar loss (one element), got "
                              f"shape {list(loss.shape)}; reduce it first, e.g. loss.sum()")
    if not loss.requires_grad:
        raise GraphBuildError("backward: element 0 of tensors does not require grad: the loss "
                              "depends on no parameter that requires grad")
    forward = [node for node in graph.nodes if node.role == "forward"]
    with no_grad(), _role("backward"):
        grads = {loss._data.value.id: F.ones_like(loss)}
        for node in reversed(forward):
            _backprop(graph, node, grads)
        _bind_param_grads(graph, grads)


@contextlib.contextmanager
def _role(role):
    """Tag the nodes added inside the block with ``role`` (the graph is being traced)."""
    interp = current_interpreter()
    prev, interp.role = interp.role, role
    try:
        yield
    finally:
        interp.role = prev


def _backprop(graph, node, grads):
    """Call ``node``'s generator on its output grads; add its input grads to ``grads``."""
    out_grads = [grads.pop(v.id, None) for v in node.outputs]
    if all(g is None for g in out_grads):
        return
    op = get_op(node.op)
    if not op.differentiable or not any(any(n) if isinstance(n, tuple) else n
                                        for n in node.needs_grad):
        return
    conf = grad_conf_of(op)
    if conf is None:
        raise GraphBuildError(
            f"backward: op '{op.name}' (traced at {node.source}) is differentiable but has "
            f"no grad function or grad-op conf generator; register one with "
            f"minflow.autograd.register_grad or minflow.graph.register_grad_conf")
    ctx = GradConfContext(node, [_tensor(graph, x, n) for x, n in
                                 zip(node.inputs, node.needs_grad)],
                          [lazy_tensor(graph, v, v.requires_grad) for v in node.outputs],
                          out_grads)
    try:
        conf(ctx)
    except _ERRORS as err:
        msg = str(err.args[0]) if err.args else ""
        raise type(err)(f"{msg}\n  while adding the grad ops of '{op.name}' traced at "
                        f"{node.source}") from err
    for x, needs, g in zip(node.inputs, node.needs_grad, ctx.input_grads):
        if isinstance(x, tuple):
            for y, need, h in zip(x, needs, g or (None,) * len(x)):
                if need and h is not None:
                    _accumulate(grads, y, h, node)
        elif needs and g is not None:
            _accumulate(grads, x, g, node)


def _tensor(graph, x, needs):
    """A forward input as the generator receives it: lazy tensors for Values."""
    if isinstance(x, Value):
        return lazy_tensor(graph, x, needs)
    if isinstance(x, tuple):
        return [lazy_tensor(graph, v, n) for v, n in zip(x, needs)]
    return x


def _accumulate(grads, value, grad, node):
    """Add ``grad`` to the gradient of ``value``, as the dtype of ``value``."""
    if tuple(grad.shape) != value.shape:
        raise GraphBuildError(f"backward: the grad ops of '{node.op}' (traced at {node.source}) "
                              f"gave a gradient of shape {list(grad.shape)} for an input of "
                              f"shape {list(value.shape)}")
    if grad.dtype is not value.dtype:
        grad = grad.to(value.dtype)
    found = grads.get(value.id)
    grads[value.id] = grad if found is None else F.add(found, grad)


def _bind_param_grads(graph, grads):
    """Parameters' grads become the graph's ``param_grads`` (summed with earlier ones)."""
    for value in graph.params():
        grad = grads.get(value.id)
        if grad is None:
            continue
        earlier = graph.param_grads.get(value.id)
        if earlier is not None:
            grad = F.add(lazy_tensor(graph, graph.values[earlier]), grad)
        graph.param_grads[value.id] = value_of(graph, grad).id

"""Optimizers in a graph: each parameter's update op becomes a node of role "optimizer".

``add_update_ops`` traces the optimizer's own ``_update_group`` (the code eager ``step``
runs) with each parameter's ``.grad`` standing for its graph gradient, then binds each
update op's ``scalars`` input (minflow/ops/optim.py) to a graph input of the group: a
float64 vector of the group's float hyperparameters (lr, momentum, betas, eps,
weight_decay...), fed each call by ``scalars_tensor``. Schedulers (lr, OneCycleLR's
momentum or beta1) and edits of ``param_groups`` therefore need no recompiling; what
``structure`` returns (the other options: nesterov, amsgrad, maximize, foreach...; and
whether momentum is zero, which decides whether there is a momentum buffer) is compiled
in, and a change to it needs a new plan.

NOTE: the vector is kept on the host whatever the parameters' device: kernels read the
hyperparameters as Python numbers, and a device copy would cost a transfer per call and a
synchronisation per update op.

The update ops write the parameters and the optimizer's state tensors in place when the
plan runs: state lives in ``optimizer.state`` as in eager mode, made here before tracing
where it is missing (``optimizer._init_state``: zero-filled, as the first step makes it).
SGD's first step sets the momentum buffer to the gradient itself (torch), which a zero
buffer reproduces exactly only with dampening=0; a graph with dampening != 0 and no
momentum buffer yet is an error (take one eager step first).

>>> w = minflow.ones(2, requires_grad=True)
>>> opt = minflow.optim.SGD([w], lr=0.5)
>>> with minflow.graph.trace() as g:
...     (w * w).sum().backward()
>>> feeds = minflow.graph.optim.add_update_ops(g, opt)
>>> [(node.op, node.role) for node in g.nodes][-1], [v.name for _, _, v in feeds]
(('sgd_update', 'optimizer'), ['scalars[0]'])
>>> inputs = [minflow.graph.optim.scalars_tensor(group, op) for group, op, _ in feeds]
>>> inputs[0].tolist()                      # lr, momentum, dampening, weight_decay
[0.5, 0.0, 0.0, 0.0]
>>> _ = minflow.graph.compile(g)(*inputs)
>>> w.tolist(), w.grad
([0.0, 0.0], None)
"""
import numpy as np

from ..core import dtype as dtypes
from ..core.device import Device
from ..core.grad_mode import no_grad
from ..core.namespace import F
from ..core.tensor import Tensor
from ..ops import get_op
from ..ops.optim import scalar_attrs, scalar_values
from ..optim import SGD
from .lazy import GraphBuildError, lazy_tensor, tracing

__all__ = ["add_update_ops", "check_supported", "scalars_tensor", "structure"]

_HOST = Device("cpu")


def check_supported(optimizer):
    """Raise a clear error unless ``optimizer`` runs as update ops (not LBFGS)."""
    if type(optimizer).update_op is None:
        raise TypeError(f"add_optimizer: {type(optimizer).__name__} is not supported in "
                        f"graphs: it has no update op (LBFGS re-evaluates the model through "
                        f"a closure, which a compiled graph cannot); supported: SGD, Adam, "
                        f"AdamW, RMSprop, Adagrad, Adadelta, Adamax, NAdam, RAdam, Rprop, "
                        f"ASGD")


def add_update_ops(graph, optimizer):
    """Add ``optimizer``'s update ops for the parameters that have a grad in ``graph``;
    those grads are consumed (not written to ``.grad``). Returns [(group, update OpDef,
    the Value of its scalars input)], one per group with such parameters."""
    check_supported(optimizer)
    grads = {id(graph.values[pid].tensor): gid for pid, gid in graph.param_grads.items()}
    feeds = []
    for index, group in enumerate(optimizer.param_groups):
        params = [p for p in group["params"] if id(p) in grads]
        if not params:
            continue
        for p in params:
            _init_state(optimizer, p, group)
        first = len(graph.nodes)
        with tracing(graph, role="optimizer"), no_grad():
            _trace_group(graph, optimizer, dict(group, params=params), grads)
        scalars = graph.add_input((len(scalar_values(optimizer.update_op, group)),),
                                  dtypes.float64, _HOST, name=f"scalars[{index}]")
        _bind_scalars(graph.nodes[first:], optimizer, group, scalars)
        feeds.append((group, optimizer.update_op, scalars))
    handled = {id(p) for group in optimizer.param_groups for p in group["params"]}
    graph.param_grads = {pid: gid for pid, gid in graph.param_grads.items()
                         if id(graph.values[pid].tensor) not in handled}
    return feeds


def scalars_tensor(group, op):
    """The float64 host tensor fed to the ``scalars`` input of ``group``'s update ops."""
    return Tensor._make(np.array(scalar_values(op, group), dtype=np.float64), dtypes.float64,
                        _HOST)


def structure(optimizer, group):
    """What the compiled update ops of ``group`` hold fixed, as ((name, value), ...): the
    options that are not fed as scalars, and whether momentum is zero (a momentum buffer
    or none). A change to any of these needs a new plan.

    >>> opt = minflow.optim.SGD([minflow.ones(1, requires_grad=True)], momentum=0.9)
    >>> minflow.graph.optim.structure(opt, opt.param_groups[0])
    (('nesterov', False), ('maximize', False), ('foreach', None), ('differentiable', False), \
('fused', None), ('momentum != 0', True))
    """
    fed = {attr.name for attr in scalar_attrs(optimizer.update_op)}
    items = tuple((k, _hashable(group[k])) for k in optimizer.defaults if k not in fed)
    if "momentum" in fed:
        items += (("momentum != 0", group["momentum"] != 0),)
    return items


def _hashable(value):
    return tuple(value) if isinstance(value, list) else value


def _trace_group(graph, optimizer, group, grads):
    """Run ``_update_group`` with each ``p.grad`` a lazy tensor of its graph grad."""
    saved = [(p, p._grad) for p in group["params"]]
    try:
        for p in group["params"]:
            p._grad = lazy_tensor(graph, graph.values[grads[id(p)]])
        optimizer._update_group(group)
    finally:
        for p, grad in saved:
            p._grad = grad


def _bind_scalars(nodes, optimizer, group, scalars):
    """Make the update ops among ``nodes`` read their float hyperparameters from the
    graph input ``scalars`` at each call (their attrs keep the values traced)."""
    expected = scalar_values(optimizer.update_op, group)
    for node in nodes:
        op = get_op(node.op)
        names = [i.name for i in op.inputs]
        if "scalars" not in names:
            continue
        if scalar_values(op, node.attrs) != expected:
            raise GraphBuildError(
                f"add_optimizer: {type(optimizer).__name__}'s {node.op} was traced with "
                f"hyperparameters {scalar_values(op, node.attrs)}, not its group's "
                f"{expected}; an update op must take the group's options as they are")
        position = names.index("scalars")
        node.inputs = node.inputs[:position] + (scalars,) + node.inputs[position + 1:]


def _init_state(optimizer, p, group):
    """Make ``p``'s optimizer state as the optimizer's first eager step would."""
    state = optimizer.state[p]
    if not isinstance(optimizer, SGD):
        if not state:
            optimizer._init_state(p, group)
        return
    if group["momentum"] != 0 and state.get("momentum_buffer") is None:
        if group["dampening"] != 0:
            raise GraphBuildError(
                "add_optimizer: SGD with dampening != 0 sets its momentum buffer to the "
                "first gradient, which a graph cannot; take one eager optimizer step "
                "before the first graph call, or use dampening=0")
        state["momentum_buffer"] = F.zeros_like(p)

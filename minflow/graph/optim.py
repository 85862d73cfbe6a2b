"""Optimizers in a graph: each parameter's update op becomes a node of role "optimizer".

``add_update_ops`` traces the optimizer's own ``_update_group`` (the code eager ``step``
runs) with each parameter's ``.grad`` standing for its graph gradient and the group's
learning rate a graph input (a 0-d float64 placeholder, fed each call from
``group["lr"]``, so schedulers work without recompiling). The update ops write the
parameters and the optimizer's state tensors in place when the plan runs: state lives
in ``optimizer.state`` as in eager mode, made here before tracing where it is missing
(zero-filled, as each optimizer makes it on its first step).

NOTE: SGD's first step sets the momentum buffer to the gradient itself (torch), which a
zero buffer reproduces exactly only with dampening=0; a graph with dampening != 0 and no
momentum buffer yet is an error (take one eager step first).

>>> w = minflow.ones(2, requires_grad=True)
>>> opt = minflow.optim.SGD([w], lr=0.5)
>>> with minflow.graph.trace() as g:
...     (w * w).sum().backward()
>>> feeds = minflow.graph.optim.add_update_ops(g, opt)
>>> [(node.op, node.role) for node in g.nodes][-1], [v.name for _, v in feeds]
(('sgd_update', 'optimizer'), ['lr[0]'])
>>> lrs = [minflow.tensor(group["lr"], dtype=minflow.float64) for group, _ in feeds]
>>> _ = minflow.graph.compile(g)(*lrs)
>>> w.tolist(), w.grad
([0.0, 0.0], None)
"""
from ..core import dtype as dtypes
from ..core.grad_mode import no_grad
from ..core.namespace import F
from ..optim import SGD, Adagrad, Adam, RMSprop
from ..optim.optimizer import scalar_dtype
from .lazy import GraphBuildError, lazy_tensor, placeholder, tracing

__all__ = ["add_update_ops"]


def add_update_ops(graph, optimizer):
    """Add ``optimizer``'s update ops for the parameters that have a grad in ``graph``;
    those grads are consumed (not written to ``.grad``). Returns [(group, lr Value)]."""
    grads = {id(graph.values[pid].tensor): gid for pid, gid in graph.param_grads.items()}
    feeds = []
    for index, group in enumerate(optimizer.param_groups):
        params = [p for p in group["params"] if id(p) in grads]
        if not params:
            continue
        for p in params:
            _init_state(optimizer, p, group)
        with tracing(graph, role="optimizer"), no_grad():
            lr = placeholder(graph, (), dtypes.float64, params[0].device, name=f"lr[{index}]")
            _trace_group(graph, optimizer, dict(group, params=params, lr=lr), grads)
        feeds.append((group, graph.inputs[-1]))
    handled = {id(p) for group in optimizer.param_groups for p in group["params"]}
    graph.param_grads = {pid: gid for pid, gid in graph.param_grads.items()
                         if id(graph.values[pid].tensor) not in handled}
    return feeds


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


def _init_state(optimizer, p, group):
    """Make ``p``'s optimizer state as the optimizer's first eager step would."""
    if not isinstance(optimizer, (SGD, Adam, RMSprop, Adagrad)):
        raise GraphBuildError(f"add_optimizer: {type(optimizer).__name__} is not supported in "
                              f"graphs; supported: SGD, Adam, AdamW, RMSprop, Adagrad")
    state = optimizer.state[p]
    if isinstance(optimizer, SGD):
        if group["momentum"] != 0 and state.get("momentum_buffer") is None:
            if group["dampening"] != 0:
                raise GraphBuildError(
                    "add_optimizer: SGD with dampening != 0 sets its momentum buffer to the "
                    "first gradient, which a graph cannot; take one eager optimizer step "
                    "before the first graph call, or use dampening=0")
            state["momentum_buffer"] = F.zeros_like(p)
        return
    if state:
        return
    if isinstance(optimizer, Adagrad):
        optimizer._init_state(p)
        return
    state["step"] = F.zeros((), dtype=scalar_dtype(), device=p.device)
    names = ["exp_avg", "exp_avg_sq"] if isinstance(optimizer, Adam) else ["square_avg"]
    if isinstance(optimizer, Adam) and group["amsgrad"]:
        names.append("max_exp_avg_sq")
    if isinstance(optimizer, RMSprop):
        names += (["momentum_buffer"] if group["momentum"] > 0 else []) + (
            ["grad_avg"] if group["centered"] else [])
    for name in names:
        state[name] = F.zeros_like(p)

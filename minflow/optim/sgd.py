"""SGD with momentum, dampening, nesterov, weight decay and maximize, as torch.optim.SGD."""
from ..core.dispatch import EagerInterpreter, current_interpreter
from ..core.namespace import F
from ..ops.optim import (SGD_UPDATE, SGD_UPDATE_FOREACH, group_attrs, run_foreach_checked,
                         sgd_update)
from .optimizer import Optimizer, check_nonnegative, implementation_flags

__all__ = ["SGD"]


class SGD(Optimizer):
    """SGD(params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
    maximize=False, foreach=None, differentiable=False, fused=None)

    g = grad + weight_decay * param; with momentum, buf = momentum * buf + (1 - dampening) * g
    (buf = g on the first step, as torch) and g = g + momentum * buf if nesterov else buf;
    param -= lr * g. State per parameter: ``momentum_buffer`` (only with momentum).

    ``foreach``: update all parameters of a group (of one device and dtype) in one
    ``sgd_update_foreach`` op call, or with one ``sgd_update`` per parameter (False).
    None (default) takes the foreach op in eager mode, one op per parameter when traced
    into a graph. The results are the same.

    >>> w = minflow.tensor([1.0, 2.0], requires_grad=True)
    >>> opt = minflow.optim.SGD([w], lr=0.1, momentum=0.9)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w.tolist()
    [0.800000011920929, 1.600000023841858]
    """

    update_op = SGD_UPDATE

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        check_nonnegative(lr=lr, momentum=momentum, weight_decay=weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    **implementation_flags(lr, foreach=foreach, differentiable=differentiable,
                                           fused=fused)}
        super().__init__(params, defaults)

    def _update_group(self, group):
        momentum = group["momentum"]
        attrs = group_attrs(SGD_UPDATE, {
            "lr": group["lr"], "momentum": momentum, "dampening": group["dampening"],
            "weight_decay": group["weight_decay"], "nesterov": group["nesterov"],
            "maximize": group["maximize"]})
        del attrs["init_buffer"]            # per parameter, below
        params = [p for p in group["params"] if p.grad is not None]
        foreach = group.get("foreach")
        if foreach or (foreach is None and isinstance(current_interpreter(), EagerInterpreter)):
            self._update_foreach(params, momentum, attrs)
            return
        for p in params:
            buf, init = self._momentum_buffer(p, momentum)
            sgd_update(p, p.grad, buf, init_buffer=init, **attrs)

    def _update_foreach(self, params, momentum, attrs):
        """One sgd_update_foreach call per (device, dtype, whether the momentum buffers are
        new): usually one for the whole group."""
        batches = {}
        for p in params:
            buf, init = self._momentum_buffer(p, momentum)
            key = (p.dtype, id(p.device), init)     # NOTE: devices are interned; id() hashes in C
            batch = batches.get(key)
            if batch is None:
                batch = batches[key] = ([], [], [])
            batch[0].append(p)
            batch[1].append(p.grad)
            batch[2].append(buf)
        for (_, _, init), (ps, grads, buffers) in batches.items():
            inputs = (ps, grads, buffers if momentum != 0 else None)
            run_foreach_checked(SGD_UPDATE_FOREACH, inputs, dict(attrs, init_buffer=init),
                                (0, 2))

    def _momentum_buffer(self, p, momentum):
        """(buffer, init): p's momentum buffer, and whether it is new (made empty here and
        filled by the op: torch's first step sets buf = g); (None, False) without momentum."""
        if momentum == 0:
            return None, False
        state = self.state[p]
        buf = state.get("momentum_buffer")
        if buf is not None:
            return buf, False
        buf = state["momentum_buffer"] = F.empty_like(p)
        return buf, True

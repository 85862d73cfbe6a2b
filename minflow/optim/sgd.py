"""SGD with momentum, dampening, nesterov, weight decay and maximize, as torch.optim.SGD."""
from ..core.namespace import F
from ..ops.optim import SGD_UPDATE, group_attrs, sgd_update
from .optimizer import Optimizer, check_nonnegative

__all__ = ["SGD"]


class SGD(Optimizer):
    """SGD(params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
    maximize=False)

    g = grad + weight_decay * param; with momentum, buf = momentum * buf + (1 - dampening) * g
    (buf = g on the first step, as torch) and g = g + momentum * buf if nesterov else buf;
    param -= lr * g. State per parameter: ``momentum_buffer`` (only with momentum).

    >>> w = minflow.tensor([1.0, 2.0], requires_grad=True)
    >>> opt = minflow.optim.SGD([w], lr=0.1, momentum=0.9)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w.tolist()
    [0.800000011920929, 1.600000023841858]
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False):
        check_nonnegative(lr=lr, momentum=momentum, weight_decay=weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize}
        super().__init__(params, defaults)

    def _update_group(self, group):
        momentum = group["momentum"]
        attrs = group_attrs(SGD_UPDATE, {
            "lr": group["lr"], "momentum": momentum, "dampening": group["dampening"],
            "weight_decay": group["weight_decay"], "nesterov": group["nesterov"],
            "maximize": group["maximize"]})
        del attrs["init_buffer"]            # per parameter, below
        buf, init = None, False
        for p in group["params"]:
            grad = p.grad
            if grad is None:
                continue
            if momentum != 0:
                state = self.state[p]
                buf = state.get("momentum_buffer")
                init = buf is None
                if init:      # filled by the op: torch's first step sets buf = g
                    buf = state["momentum_buffer"] = F.empty_like(p)
            sgd_update(p, grad, buf, init_buffer=init, **attrs)

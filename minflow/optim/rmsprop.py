"""RMSprop (centered, with momentum), as torch.optim.RMSprop."""
from ..core.namespace import F
from ..ops.optim import RMSPROP_UPDATE
from .optimizer import Optimizer, check_nonnegative, implementation_flags, scalar_dtype

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop(params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
    centered=False, *, maximize=False)

    v = alpha v + (1 - alpha) g^2; avg = sqrt(v - gavg^2) + eps if centered (gavg the running
    mean of g) else sqrt(v) + eps; with momentum, buf = momentum buf + g / avg and
    param -= lr buf, else param -= lr g / avg. State per parameter: ``step``,
    ``square_avg``, ``momentum_buffer`` (momentum > 0), ``grad_avg`` (centered).

    >>> w = minflow.tensor([1.0], requires_grad=True)
    >>> opt = minflow.optim.RMSprop([w], lr=0.01)
    >>> w.grad = minflow.tensor([1.0])
    >>> opt.step()
    >>> round(w.item(), 4)
    0.9
    """

    update_op = RMSPROP_UPDATE

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        check_nonnegative(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay,
                          alpha=alpha)
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                    "centered": centered, "weight_decay": weight_decay, "maximize": maximize,
                    **implementation_flags(lr, capturable=capturable, foreach=foreach,
                                           differentiable=differentiable)}
        super().__init__(params, defaults)

    def _init_state(self, p, group):
        state = self.state[p]
        state["step"] = F.zeros((), dtype=scalar_dtype(), device=p.device)
        state["square_avg"] = F.zeros_like(p)
        if group["momentum"] > 0:
            state["momentum_buffer"] = F.zeros_like(p)
        if group["centered"]:
            state["grad_avg"] = F.zeros_like(p)

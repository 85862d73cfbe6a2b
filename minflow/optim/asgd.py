"""ASGD, as torch.optim.ASGD."""
from ..core.namespace import F
from ..ops.optim_rprop_asgd import ASGD_UPDATE
from .optimizer import Optimizer, check_nonnegative, implementation_flags, scalar_dtype

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """ASGD(params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, *,
    maximize=False)

    Averaged SGD: param = param * (1 - lambd * eta) - eta * g, with eta = lr / (1 + lambd
    * lr * t)^alpha; ``ax`` holds the average of the parameters over the steps after t0.
    State per parameter: ``step``, ``eta``, ``mu`` (the averaging weight), ``ax``.

    >>> w = minflow.tensor([1.0], requires_grad=True)
    >>> opt = minflow.optim.ASGD([w], lr=0.1)
    >>> w.grad = minflow.tensor([2.0])
    >>> opt.step()
    >>> round(w.item(), 4), round(opt.state[w]["ax"].item(), 4)
    (0.8, 0.8)
    """

    update_op = ASGD_UPDATE

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        check_nonnegative(lr=lr, weight_decay=weight_decay)
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                    "weight_decay": weight_decay, "maximize": maximize,
                    **implementation_flags(lr, foreach=foreach, differentiable=differentiable,
                                           capturable=capturable)}
        super().__init__(params, defaults)

    def _init_state(self, p, group):
        state = self.state[p]
        state["step"] = F.zeros((), dtype=scalar_dtype(), device=p.device)
        state["eta"] = F.full((), float(group["lr"]), dtype=scalar_dtype(), device=p.device)
        state["mu"] = F.ones((), dtype=scalar_dtype(), device=p.device)
        state["ax"] = F.zeros_like(p)

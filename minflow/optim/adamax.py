"""Adamax, as torch.optim.Adamax."""
from ..core.namespace import F
from ..ops.optim_adam import ADAMAX_UPDATE
from .optimizer import (Optimizer, check_betas, check_nonnegative,
                        implementation_flags, scalar_dtype)

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Adamax(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, *,
    maximize=False)

    Adam with the infinity norm: m = lerp(m, g, 1 - beta1); u = max(beta2 u, |g| + eps);
    param -= lr / (1 - beta1^t) * m / u. State per parameter: ``step``, ``exp_avg``,
    ``exp_inf``.

    >>> w = minflow.tensor([1.0], requires_grad=True)
    >>> opt = minflow.optim.Adamax([w], lr=0.1)
    >>> w.grad = minflow.tensor([2.0])
    >>> opt.step()
    >>> round(w.item(), 4)
    0.9
    """

    update_op = ADAMAX_UPDATE

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        check_nonnegative(lr=lr, eps=eps)
        check_betas(betas)
        check_nonnegative(weight_decay=weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize,
                    **implementation_flags(lr, foreach=foreach, differentiable=differentiable,
                                           capturable=capturable)}
        super().__init__(params, defaults)

    def _init_state(self, p, group):
        state = self.state[p]
        state["step"] = F.zeros((), dtype=scalar_dtype(), device=p.device)
        state["exp_avg"] = F.zeros_like(p)
        state["exp_inf"] = F.zeros_like(p)

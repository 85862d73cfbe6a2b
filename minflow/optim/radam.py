"""RAdam, as torch.optim.RAdam."""
from ..core.namespace import F
from ..ops.optim_adam import RADAM_UPDATE
from .optimizer import (Optimizer, check_betas, check_nonnegative,
                        implementation_flags, scalar_dtype)

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """RAdam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    decoupled_weight_decay=False, *, maximize=False)

    Rectified Adam: plain momentum steps lr * m / (1 - beta1^t) while the approximate SMA
    length rho_t is at most 5, then Adam's adaptive step scaled by the rectification r_t.
    State per parameter: ``step``, ``exp_avg``, ``exp_avg_sq``.

    >>> w = minflow.tensor([1.0], requires_grad=True)
    >>> opt = minflow.optim.RAdam([w], lr=0.1)
    >>> w.grad = minflow.tensor([2.0])
    >>> opt.step()
    >>> round(w.item(), 4)
    0.8
    """

    update_op = RADAM_UPDATE

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        check_nonnegative(lr=lr, eps=eps)
        check_betas(betas)
        check_nonnegative(weight_decay=weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "decoupled_weight_decay": decoupled_weight_decay,
                    **implementation_flags(lr, foreach=foreach, capturable=capturable,
                                           differentiable=differentiable)}
        super().__init__(params, defaults)

    def _init_state(self, p, group):
        state = self.state[p]
        state["step"] = F.zeros((), dtype=scalar_dtype(), device=p.device)
        state["exp_avg"] = F.zeros_like(p)
        state["exp_avg_sq"] = F.zeros_like(p)

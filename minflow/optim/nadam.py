"""NAdam, as torch.optim.NAdam."""
from ..core.namespace import F
from ..ops.optim_adam import NADAM_UPDATE
from .optimizer import (Optimizer, check_betas, check_nonnegative,
                        implementation_flags, scalar_dtype)

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """NAdam(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    momentum_decay=4e-3, decoupled_weight_decay=False, *, maximize=False)

    Adam with Nesterov momentum: mu_t = beta1 (1 - 0.5 * 0.96^(t momentum_decay)), and the
    step mixes the gradient (weight (1 - mu_t) / (1 - prod mu)) and the first moment
    (weight mu_{t+1} / (1 - prod mu * mu_{t+1})) over sqrt(v / (1 - beta2^t)) + eps.
    State per parameter: ``step``, ``mu_product``, ``exp_avg``, ``exp_avg_sq``.

    >>> w = minflow.tensor([1.0], requires_grad=True)
    >>> opt = minflow.optim.NAdam([w], lr=0.1)
    >>> w.grad = minflow.tensor([2.0])
    >>> opt.step()
    >>> round(w.item(), 4)
    0.8944
    """

    update_op = NADAM_UPDATE

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        check_nonnegative(lr=lr, eps=eps)
        check_betas(betas)
        check_nonnegative(weight_decay=weight_decay, momentum_decay=momentum_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay,
                    "decoupled_weight_decay": decoupled_weight_decay, "maximize": maximize,
                    **implementation_flags(lr, foreach=foreach, capturable=capturable,
                                           differentiable=differentiable)}
        super().__init__(params, defaults)

    def _init_state(self, p, group):
        state = self.state[p]
        state["step"] = F.zeros((), dtype=scalar_dtype(), device=p.device)
        state["mu_product"] = F.ones((), dtype=scalar_dtype(), device=p.device)
        state["exp_avg"] = F.zeros_like(p)
        state["exp_avg_sq"] = F.zeros_like(p)

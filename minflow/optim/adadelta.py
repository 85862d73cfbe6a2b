"""Adadelta, as torch.optim.Adadelta."""
from ..core.namespace import F
from ..ops.optim import ADADELTA_UPDATE
from .optimizer import Optimizer, check_nonnegative, implementation_flags, scalar_dtype

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta(params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, *, maximize=False)

    v = rho v + (1 - rho) g^2; delta = sqrt(u + eps) / sqrt(v + eps) * g;
    u = rho u + (1 - rho) delta^2; param -= lr * delta. State per parameter, made on its
    first step: ``step``, ``square_avg`` (v) and ``acc_delta`` (u).

    >>> w = minflow.tensor([1.0], requires_grad=True)
    >>> opt = minflow.optim.Adadelta([w])
    >>> w.grad = minflow.tensor([2.0])
    >>> opt.step()
    >>> round(w.item(), 6)
    0.996838
    """

    update_op = ADADELTA_UPDATE

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        check_nonnegative(lr=lr, eps=eps, weight_decay=weight_decay)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize,
                    **implementation_flags(lr, capturable=capturable, foreach=foreach,
                                           differentiable=differentiable)}
        super().__init__(params, defaults)

    def _init_state(self, p, group):
        state = self.state[p]
        state["step"] = F.zeros((), dtype=scalar_dtype(), device=p.device)
        state["square_avg"] = F.zeros_like(p)
        state["acc_delta"] = F.zeros_like(p)

"""Adagrad, as torch.optim.Adagrad."""
from ..core.namespace import F
from ..ops.optim import ADAGRAD_UPDATE
from .optimizer import Optimizer, check_nonnegative, implementation_flags, scalar_dtype

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad(params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
    eps=1e-10, *, maximize=False)

    sum += g^2; param -= lr / (1 + (t - 1) lr_decay) * g / (sqrt(sum) + eps). State per
    parameter, made at construction as torch does: ``step`` and ``sum`` (filled with
    initial_accumulator_value; NOTE: torch's default's, not a group's own value).

    >>> w = minflow.tensor([1.0], requires_grad=True)
    >>> opt = minflow.optim.Adagrad([w], lr=0.5)
    >>> w.grad = minflow.tensor([2.0])
    >>> opt.step()
    >>> round(w.item(), 4)
    0.5
    """

    update_op = ADAGRAD_UPDATE
    _state_keys = {"state_sum": "sum"}

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0,
                 initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False,
                 differentiable=False, fused=None):
        check_nonnegative(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                          initial_accumulator_value=initial_accumulator_value, eps=eps)
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value,
                    "maximize": maximize,
                    **implementation_flags(lr, foreach=foreach, differentiable=differentiable,
                                           fused=fused)}
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p, group)

    def _init_state(self, p, group):
        state = self.state[p]
        state["step"] = F.zeros((), dtype=scalar_dtype(), device=p.device)
        state["sum"] = F.full_like(p, self.defaults["initial_accumulator_value"])

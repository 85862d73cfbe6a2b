"""Adam and AdamW, as torch.optim.Adam / AdamW: one op, ``adam_update``, for both."""
from ..core.namespace import F
from ..ops.optim import ADAM_UPDATE
from .optimizer import Optimizer, check_nonnegative, implementation_flags, scalar_dtype

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
    foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
    decoupled_weight_decay=False)

    m = beta1 m + (1 - beta1) g; v = beta2 v + (1 - beta2) g^2 (vmax = max(vmax, v) with
    amsgrad, used in place of v); param -= lr / (1 - beta1^t) * m / (sqrt(v / (1 - beta2^t))
    + eps). weight_decay adds weight_decay * param to g, or with decoupled_weight_decay
    (AdamW) scales param by 1 - lr * weight_decay first. State per parameter: ``step`` (a
    0-d float32 tensor, as torch), ``exp_avg``, ``exp_avg_sq``, ``max_exp_avg_sq``.
    foreach, capturable and fused pick among torch's implementations of the same step: minflow
    has one, so they change nothing (optimizer.implementation_flags).

    >>> w = minflow.tensor([1.0, -1.0], requires_grad=True)
    >>> opt = minflow.optim.Adam([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> [round(x, 4) for x in w.tolist()], opt.state[w]["step"].item()
    ([0.9, -0.9], 1.0)
    """

    update_op = ADAM_UPDATE

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        check_nonnegative(lr=lr, eps=eps)
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        check_nonnegative(weight_decay=weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize,
                    **implementation_flags(lr, betas, foreach=foreach, capturable=capturable,
                                           differentiable=differentiable, fused=fused),
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)

    def _init_state(self, p, group):
        state = self.state[p]
        state["step"] = F.zeros((), dtype=scalar_dtype(), device=p.device)
        state["exp_avg"] = F.zeros_like(p)
        state["exp_avg_sq"] = F.zeros_like(p)
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = F.zeros_like(p)


class AdamW(Adam):
    """AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
    amsgrad=False, *, maximize=False, foreach=None, capturable=False, differentiable=False,
    fused=None)

    Adam with decoupled weight decay: param *= 1 - lr * weight_decay, then Adam's step
    without weight decay in the gradient.

    >>> w = minflow.tensor([1.0], requires_grad=True)
    >>> opt = minflow.optim.AdamW([w], lr=0.1, weight_decay=0.5)
    >>> w.grad = minflow.tensor([0.0])
    >>> opt.step()
    >>> round(w.item(), 4)
    0.95
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

"""Adafactor, as torch.optim.Adafactor (its single-tensor algorithm)."""
from ..core.dtype_info import finfo
from ..core.namespace import F
from ..core.tensor import Tensor
from .optimizer import Optimizer, scalar_dtype

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    """Adafactor(params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
    weight_decay=0.0, *, foreach=None, maximize=False)

    Adam without first moments, whose second moment of a matrix (or of the last two dims of
    a tensor) is kept factored: a row and a column mean of g^2, their outer product divided
    by the mean of the rows estimating the full one. With t the step and eps1 the dtype's
    eps unless given: beta2 blend 1 - beta2_t = t^beta2_decay; rho = min(lr, 1 / sqrt(t));
    alpha = max(eps2, RMS(param)) rho; u = g / sqrt(max(v, eps1^2)); param -= alpha /
    max(1, RMS(u) / d) u (after param *= 1 - lr weight_decay). State per parameter: ``step``
    and ``row_var`` / ``col_var`` (ndim > 1) or ``variance``. Python over tensor ops (not
    an update op), so nn.Graph does not take it; ``foreach`` is accepted for torch's
    scripts and changes nothing.

    >>> w = minflow.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    >>> opt = minflow.optim.Adafactor([w], lr=0.1)
    >>> w.grad = minflow.tensor([[1.0, -1.0], [0.5, 2.0]])
    >>> opt.step()
    >>> [[round(v, 4) for v in row] for row in w.tolist()]
    [[0.596, 2.202], [2.8614, 3.7229]]
    """

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
                 weight_decay=0.0, *, foreach=None, maximize=False):
        _check(lr, beta2_decay, eps, d, weight_decay)
        defaults = {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize}
        super().__init__(params, defaults)

    def _init_state(self, p, group):
        state = self.state[p]
        # NOTE: on the cpu whatever the parameter's device, as torch: step is read each step
        state["step"] = F.zeros((), dtype=scalar_dtype())
        if p.grad.ndim > 1:
            state["row_var"] = p.grad.new_zeros(*p.grad.shape[:-1], 1)
            state["col_var"] = p.grad.new_zeros(*p.grad.shape[:-2], 1, p.grad.shape[-1])
        else:
            state["variance"] = F.zeros_like(p.grad)

    def _update_group(self, group):
        eps1, eps2 = group["eps"]
        lr, d, decay = group["lr"], group["d"], group["weight_decay"]
        for p, state in self._stepped(group):
            if eps1 is None:     # NOTE: as torch, the first parameter's dtype sets it
                eps1 = finfo(p.dtype).eps
            grad = -p.grad if group["maximize"] else p.grad
            state["step"] += 1
            step = state["step"].item()
            blend = step ** group["beta2_decay"]
            alpha = max(eps2, p.norm(2).item() / p.numel() ** 0.5) * min(lr, 1 / step ** 0.5)
            if decay != 0:
                p.mul_(1 - lr * decay)
            estimate = _variance_estimate(state, grad, blend, eps1)
            update = estimate.clamp_(min=eps1 * eps1).rsqrt_().mul_(grad)
            denom = max(1.0, update.norm(2).item() / (update.numel() ** 0.5 * d))
            p.add_(update, alpha=-alpha / denom)


def _variance_estimate(state, grad, blend, eps1):
    """Blend g^2 into the state's (factored) second moment; the full estimate, a new
    tensor."""
    if grad.ndim <= 1:
        state["variance"].lerp_(grad * grad, blend)
        return F.clone(state["variance"])
    row_var, col_var = state["row_var"], state["col_var"]
    row_var.lerp_(F.norm(grad, dim=-1, keepdim=True).square_().div_(grad.shape[-1]), blend)
    col_var.lerp_(F.norm(grad, dim=-2, keepdim=True).square_().div_(grad.shape[-2]), blend)
    return (row_var @ col_var).div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))


def _check(lr, beta2_decay, eps, d, weight_decay):
    """torch's checks and messages."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
    if not 0.0 >= beta2_decay:
        raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
    if eps[0] is not None and not 0.0 <= eps[0]:
        raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
    if not 0.0 <= eps[1]:
        raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
    if not 1.0 <= d:
        raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")

"""Rprop, as torch.optim.Rprop."""
from ..core.namespace import F
from ..ops.optim_rprop_asgd import RPROP_UPDATE
from .optimizer import Optimizer, check_nonnegative, implementation_flags, scalar_dtype

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Rprop(params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, maximize=False)

    Resilient backpropagation: each element has its own step size (starting at lr), times
    etas[1] while its gradient keeps its sign, times etas[0] when the sign flips (that step
    is then skipped), clamped to step_sizes; param -= sign(g) * step_size. State per
    parameter: ``step``, ``prev`` (the last gradient used), ``step_size``.

    >>> w = minflow.tensor([1.0], requires_grad=True)
    >>> opt = minflow.optim.Rprop([w], lr=0.1)
    >>> for _ in range(2):
    ...     w.grad = minflow.tensor([2.0])
    ...     opt.step()
    >>> round(w.item(), 4)
    0.78
    """

    update_op = RPROP_UPDATE

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        check_nonnegative(lr=lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "maximize": maximize,
                    **implementation_flags(lr, capturable=capturable, foreach=foreach,
                                           differentiable=differentiable)}
        super().__init__(params, defaults)

    def _init_state(self, p, group):
        state = self.state[p]
        state["step"] = F.zeros((), dtype=scalar_dtype(), device=p.device)
        state["prev"] = F.zeros_like(p)
        state["step_size"] = F.full_like(p, float(group["lr"]))

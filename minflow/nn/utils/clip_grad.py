"""Gradient clipping: rescale all grads to a maximum total norm, or clamp each value."""
import math

from ...core.grad_mode import no_grad
from ...core.namespace import F
from ...core.tensor import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_value_"]


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Scale the grads of ``parameters`` in place so that their total ``norm_type`` norm
    (the norm of the per-grad norms) is at most ``max_norm``; returns the total norm
    before clipping. ``foreach`` is accepted for PyTorch compatibility (one code path).

    >>> w = minflow.nn.Parameter(minflow.zeros(2))
    >>> w.grad = minflow.tensor([3.0, 4.0])
    >>> minflow.nn.utils.clip_grad_norm_([w], max_norm=1.0).item()
    5.0
    >>> [round(g, 4) for g in w.grad.tolist()]
    [0.6, 0.8]
    """
    grads = _grads(parameters)
    norm_type = float(norm_type)
    if not grads:
        return F.tensor(0.0)
    device = grads[0].device
    with no_grad():
        norms = [F.to_device(F.norm(g.reshape(-1), norm_type), device) for g in grads]
        if math.isinf(norm_type):
            total = F.amax(F.stack(norms))
        else:
            total = F.norm(F.stack(norms), norm_type)
        if error_if_nonfinite and not bool(F.isfinite(total)):
            raise RuntimeError(f"clip_grad_norm_: the total norm of order {norm_type} for "
                               f"gradients from `parameters` is non-finite, so it cannot be "
                               f"clipped. To disable this error and scale the gradients by "
                               f"the non-finite norm anyway, set `error_if_nonfinite=False`")
        coef = F.clamp(max_norm / (total + 1e-6), max=1.0)
        for g in grads:
            g.mul_(F.to_device(coef, g.device).to(g.dtype))
    return total


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every grad of ``parameters`` in place to [-clip_value, clip_value].

    >>> w = minflow.nn.Parameter(minflow.zeros(2))
    >>> w.grad = minflow.tensor([-3.0, 0.5])
    >>> minflow.nn.utils.clip_grad_value_([w], 1.0); w.grad.tolist()
    [-1.0, 0.5]
    """
    clip_value = float(clip_value)
    with no_grad():
        for g in _grads(parameters):
            g.clamp_(-clip_value, clip_value)

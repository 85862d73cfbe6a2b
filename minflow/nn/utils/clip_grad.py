"""Gradient clipping: rescale all grads to a maximum total norm, or clamp each value."""
import math
import warnings

from ...core.grad_mode import no_grad
from ...core.namespace import F
from ...core.tensor import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm",
           "clip_grads_with_norm_"]


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The ``norm_type`` norm of the per-tensor norms of ``tensors`` (usually grads), as if
    they were one vector; 0 for none. ``foreach`` is accepted for PyTorch compatibility.

    >>> grads = [minflow.tensor([3.0]), minflow.tensor([4.0])]
    >>> minflow.nn.utils.get_total_norm(grads).item()
    5.0
    """
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return F.tensor(0.0)
    device = tensors[0].device
    with no_grad():
        norms = [F.to_device(F.norm(t.reshape(-1), norm_type), device) for t in tensors]
        if math.isinf(norm_type):
            total = F.amax(F.stack(norms)) if norm_type > 0 else F.amin(F.stack(norms))
        else:
            total = F.norm(F.stack(norms), norm_type)
    if error_if_nonfinite and not bool(F.isfinite(total)):
        raise RuntimeError(f"get_total_norm: the total norm of order {norm_type} for "
                           f"gradients from `parameters` is non-finite, so it cannot be "
                           f"clipped. To disable this error and scale the gradients by "
                           f"the non-finite norm anyway, set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the grads of ``parameters`` in place by min(1, max_norm / (total_norm +
    1e-6)), ``total_norm`` given (e.g. from ``get_total_norm``).

    >>> w = minflow.nn.Parameter(minflow.zeros(2))
    >>> w.grad = minflow.tensor([3.0, 4.0])
    >>> minflow.nn.utils.clip_grads_with_norm_([w], 1.0, minflow.tensor(10.0))
    >>> [round(g, 4) for g in w.grad.tolist()]
    [0.3, 0.4]
    """
    grads = _grads(parameters)
    if not grads:
        return
    if not isinstance(total_norm, Tensor):
        total_norm = F.tensor(float(total_norm))
    with no_grad():
        coef = F.clamp(float(max_norm) / (total_norm + 1e-6), max=1.0)
        for g in grads:
            g.mul_(F.to_device(coef, g.device).to(g.dtype))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Scale the grads of ``parameters`` in place so that their total ``norm_type`` norm
    (the norm of the per-grad norms) is at most ``max_norm``; returns the total norm
    before clipping: ``get_total_norm`` then ``clip_grads_with_norm_``.

    >>> w = minflow.nn.Parameter(minflow.zeros(2))
    >>> w.grad = minflow.tensor([3.0, 4.0])
    >>> minflow.nn.utils.clip_grad_norm_([w], max_norm=1.0).item()
    5.0
    >>> [round(g, 4) for g in w.grad.tolist()]
    [0.6, 0.8]
    """
    parameters = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    total = get_total_norm(_grads(parameters), norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
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


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                   foreach=None):
    """``clip_grad_norm_`` under its deprecated name (warns, as torch).

    >>> import warnings
    >>> p = minflow.nn.Parameter(minflow.ones(2)); p.grad = minflow.full((2,), 3.0)
    >>> with warnings.catch_warnings(record=True):
    ...     warnings.simplefilter("always")
    ...     round(minflow.nn.utils.clip_grad_norm([p], 1.0).item(), 4)
    4.2426
    """
    warnings.warn("minflow.nn.utils.clip_grad_norm is now deprecated in favor of "
                  "minflow.nn.utils.clip_grad_norm_.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)

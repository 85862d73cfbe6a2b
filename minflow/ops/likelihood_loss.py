"""Negative log-likelihood losses of a distribution's parameters, with PyTorch's signatures
and formulas (composites of differentiable ops): gaussian_nll_loss, poisson_nll_loss.
minflow.nn.functional takes ``__all__``."""
import math

from ..core.functional import public
from ..core.grad_mode import no_grad
from ..core.namespace import F
from ..core.tensor import Tensor
from .loss import _reduce, _reduction

__all__ = ["gaussian_nll_loss", "poisson_nll_loss"]


def _any_negative(t):
    """Whether ``t`` has a value < 0, where it has values to read (not a graph tensor, not
    on the meta device)."""
    data = t._data
    if t.device.type == "meta" or getattr(data, "is_lazy", False) or not data.size:
        return False
    return bool(data.min() < 0)


def _gaussian_var(input, var):
    """``var`` broadcastable to input as torch accepts it: input's shape, input's shape
    without the last dim, or one dim of size 1 where input's differs (heteroscedastic)."""
    if tuple(var.shape) == tuple(input.shape):
        return var
    if tuple(input.shape)[:-1] == tuple(var.shape):
        return F.unsqueeze(var, -1)
    if input.ndim == var.ndim and sum(v for i, v in zip(input.shape, var.shape) if i != v) == 1:
        return var
    raise ValueError(f"gaussian_nll_loss: var is of incorrect size: expected input's shape "
                     f"{list(input.shape)}, that shape without its last dim, or one of its "
                     f"dims as 1, got {list(var.shape)}")


@public
def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """gaussian_nll_loss(input, target, var, full=False, eps=1e-06, reduction='mean') -> Tensor

    loss = (log(max(var, eps)) + (input - target)^2 / max(var, eps)) / 2, plus
    log(2 pi) / 2 with ``full``; input is the mean, var the variance (a float, or a tensor
    of input's shape, without its last dim, or with one dim of size 1). The clamp to eps
    passes gradients through unchanged, as torch's (it runs under no_grad there).

    >>> x, y = minflow.tensor([1.0, 2.0]), minflow.tensor([1.0, 0.0])
    >>> minflow.nn.functional.gaussian_nll_loss(x, y, minflow.ones(2)).item()
    1.0
    """
    for name, t in (("input", input), ("target", target)):
        if not isinstance(t, Tensor):
            raise TypeError(f"gaussian_nll_loss: expected {name} to be a Tensor, got "
                            f"{type(t).__name__}")
    if isinstance(var, (int, float)) and not isinstance(var, bool):
        if var < 0:
            raise ValueError(f"gaussian_nll_loss: var has negative entry/entries, got {var}")
        var = F.full_like(input, float(var))
    elif not isinstance(var, Tensor):
        raise TypeError(f"gaussian_nll_loss: expected var to be a Tensor or a float, got "
                        f"{type(var).__name__}")
    elif _any_negative(var):
        raise ValueError("gaussian_nll_loss: var has negative entry/entries")
    var = _gaussian_var(input, var)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"gaussian_nll_loss: {reduction} is not valid (expected 'none', "
                         f"'mean' or 'sum')")
    with no_grad():
        raise_to_eps = F.sub(F.clamp(var, min=eps), var)
    var = F.add(var, raise_to_eps)
    diff = F.sub(input, target)
    loss = F.mul(F.add(F.log(var), F.div(F.mul(diff, diff), var)), 0.5)
    if full:
        loss = F.add(loss, 0.5 * math.log(2 * math.pi))
    return _reduce(loss, reduction)


@public
def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """poisson_nll_loss(input, target, log_input=True, full=False, size_average=None,
    eps=1e-08, reduce=None, reduction='mean') -> Tensor

    loss = exp(input) - target * input with ``log_input`` (input is the log of the rate),
    else input - target * log(input + eps); ``full`` adds Stirling's approximation of
    log(target!), target * log(target) - target + log(2 pi target) / 2, where target > 1.

    >>> x, y = minflow.tensor([0.0, 1.0]), minflow.tensor([1.0, 2.0])
    >>> round(minflow.nn.functional.poisson_nll_loss(x, y).item(), 4)
    0.8591
    """
    reduction = _reduction("poisson_nll_loss", size_average, reduce, reduction)
    if log_input:
        loss = F.sub(F.exp(input), F.mul(target, input))
    else:
        loss = F.sub(input, F.mul(target, F.log(F.add(input, eps))))
    if full:
        # NOTE: where() picks 1 for target <= 1 before the logs, so they never see 0
        safe = F.where(F.gt(target, 1), target, F.ones_like(target))
        stirling = F.add(F.sub(F.mul(safe, F.log(safe)), safe),
                         F.mul(F.log(F.mul(safe, 2 * math.pi)), 0.5))
        loss = F.add(loss, F.where(F.gt(target, 1), stirling, F.zeros_like(stirling)))
    return _reduce(loss, reduction)

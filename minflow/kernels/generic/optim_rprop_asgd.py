"""Kernels of the update ops in ops/optim_rprop_asgd.py (Rprop, ASGD), written once against
the array module, following torch's single-tensor path operation by operation as
kernels/generic/optim.py does."""
from ...core.dtype import FLOATS
from ..registry import register_kernel
from .optim import BOTH, _add_scaled_, _decayed


@register_kernel("rprop_update", BOTH, FLOATS)
def rprop_update(xp, param, grad, prev, step_size, step, scalars, lr, etas, step_sizes,
                 maximize):
    (etaminus, etaplus), (size_min, size_max) = etas, step_sizes
    if scalars is not None:         # graph mode: the hyperparameters fed per call
        lr, etaminus, etaplus, size_min, size_max = scalars.tolist()
    step += 1
    # NOTE: every temporary through out=: on 0-d arrays a ufunc returns a numpy scalar
    g = xp.empty_like(param)
    if maximize:
        xp.negative(grad, out=g)
    else:
        xp.copyto(g, grad)
    sign = xp.multiply(g, prev, out=xp.empty_like(param))
    xp.sign(sign, out=sign)
    flipped = xp.less(sign, 0)
    # torch's factors in the param's dtype: etaplus, etaminus or 1 by the sign of g * prev
    factor = xp.where(sign > 0, etaplus, xp.where(flipped, etaminus, 1.0)).astype(param.dtype)
    step_size *= factor
    xp.clip(step_size, size_min, size_max, out=step_size)
    xp.copyto(g, 0, where=flipped)  # a flipped gradient skips its step
    xp.sign(g, out=sign)
    sign *= step_size               # addcmul_(sign(g), step_size, value=-1)
    param -= sign
    xp.copyto(prev, g)
    return param


@register_kernel("asgd_update", BOTH, FLOATS)
def asgd_update(xp, param, grad, ax, eta, mu, step, scalars, lr, lambd, alpha, t0,
                weight_decay, maximize):
    if scalars is not None:         # graph mode: the hyperparameters fed per call
        lr, lambd, alpha, t0, weight_decay = scalars.tolist()
    step += 1
    g, owned = _decayed(xp, param, grad, weight_decay, maximize)
    eta_value = float(eta)
    param *= 1 - lambd * eta_value
    _add_scaled_(xp, param, g, -eta_value, g if owned else None)
    mu_value = float(mu)
    if mu_value != 1:
        diff = xp.subtract(param, ax, out=xp.empty_like(param))
        diff *= mu_value
        ax += diff
    else:
        xp.copyto(ax, param)
    count = float(step)
    xp.copyto(eta, lr / ((1 + lambd * lr * count) ** alpha))
    xp.copyto(mu, 1 / max(1, count - t0))
    return param

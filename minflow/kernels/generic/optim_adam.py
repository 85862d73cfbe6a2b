"""Kernels of the update ops in ops/optim_adam.py (Adamax, NAdam, RAdam), written once
against the array module, following torch's single-tensor path operation by operation as
kernels/generic/optim.py does."""
from ...core.dtype import FLOATS
from ..registry import register_kernel
from .optim import BOTH, _addcdiv_, _decayed, _lerp_


def _second_moment(xp, exp_avg_sq, g, beta2, scratch):
    exp_avg_sq *= beta2
    xp.multiply(g, 1 - beta2, out=scratch)      # addcmul: (value * g) * g
    scratch *= g
    exp_avg_sq += scratch


@register_kernel("adamax_update", BOTH, FLOATS)
def adamax_update(xp, param, grad, exp_avg, exp_inf, step, scalars, lr, betas, eps,
                  weight_decay, maximize):
    beta1, beta2 = betas
    if scalars is not None:         # graph mode: the hyperparameters fed per call
        lr, beta1, beta2, eps, weight_decay = scalars.tolist()
    step += 1
    g, owned = _decayed(xp, param, grad, weight_decay, maximize)
    scratch = xp.subtract(g, exp_avg, out=xp.empty_like(param))
    _lerp_(xp, exp_avg, g, 1 - beta1, scratch)
    exp_inf *= beta2
    norm = xp.abs(g, out=scratch)
    norm += eps
    xp.maximum(exp_inf, norm, out=exp_inf)
    clr = lr / (1 - beta1 ** float(step))
    _addcdiv_(xp, param, -clr, exp_avg, exp_inf, g if owned else None)
    return param


@register_kernel("nadam_update", BOTH, FLOATS)
def nadam_update(xp, param, grad, exp_avg, exp_avg_sq, mu_product, step, scalars, lr, betas,
                 eps, weight_decay, maximize, momentum_decay, decoupled_weight_decay):
    beta1, beta2 = betas
    if scalars is not None:
        lr, beta1, beta2, eps, weight_decay, momentum_decay = scalars.tolist()
    step += 1
    count = float(step)
    bias_correction2 = 1 - beta2 ** count
    if decoupled_weight_decay and weight_decay != 0:
        param *= 1 - lr * weight_decay
    g, owned = _decayed(xp, param, grad, 0 if decoupled_weight_decay else weight_decay,
                        maximize)
    mu = beta1 * (1.0 - 0.5 * (0.96 ** (count * momentum_decay)))
    mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((count + 1) * momentum_decay)))
    mu_product *= mu
    scratch = xp.subtract(g, exp_avg, out=xp.empty_like(param))
    _lerp_(xp, exp_avg, g, 1 - beta1, scratch)
    _second_moment(xp, exp_avg_sq, g, beta2, scratch)
    denom = xp.divide(exp_avg_sq, bias_correction2, out=scratch)
    xp.sqrt(denom, out=denom)
    product = float(mu_product)
    denom += eps
    _addcdiv_(xp, param, -lr * (1.0 - mu) / (1.0 - product), g, denom, None)
    _addcdiv_(xp, param, (-lr * mu_next) / (1.0 - product * mu_next), exp_avg, denom,
              g if owned else None)
    return param


@register_kernel("radam_update", BOTH, FLOATS)
def radam_update(xp, param, grad, exp_avg, exp_avg_sq, step, scalars, lr, betas, eps,
                 weight_decay, maximize, decoupled_weight_decay):
    beta1, beta2 = betas
    if scalars is not None:
        lr, beta1, beta2, eps, weight_decay = scalars.tolist()
    step += 1
    count = float(step)
    if decoupled_weight_decay and weight_decay != 0:
        param *= 1 - lr * weight_decay
    g, owned = _decayed(xp, param, grad, 0 if decoupled_weight_decay else weight_decay,
                        maximize)
    scratch = xp.subtract(g, exp_avg, out=xp.empty_like(param))
    _lerp_(xp, exp_avg, g, 1 - beta1, scratch)
    _second_moment(xp, exp_avg_sq, g, beta2, scratch)
    bias_correction1 = 1 - beta1 ** count
    bias_correction2 = 1 - beta2 ** count
    update = xp.divide(exp_avg, bias_correction1, out=xp.empty_like(param))
    update *= lr
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 * count * (beta2 ** count) / bias_correction2
    if rho_t > 5.0:
        rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
        adaptive = xp.sqrt(exp_avg_sq, out=scratch)
        adaptive += eps
        # NOTE: torch's scalar / tensor is reciprocal(tensor) * scalar
        xp.reciprocal(adaptive, out=adaptive)
        adaptive *= bias_correction2 ** 0.5
        update *= adaptive
        update *= rect
    param -= update
    return param

"""More of the Adam family as update ops, with PyTorch's formulas (see ops/optim.py for
the conventions: mutable inputs written in place, hyperparameters as attrs (or read per
call from the optional ``scalars`` input), ``step`` a 0-d float tensor the kernel
increments, ``lr`` a float or a 0-d tensor):

  adamax_update   Adamax: the second moment replaced by an infinity norm
  nadam_update    NAdam: Nesterov momentum with the mu schedule (``mu_product`` state)
  radam_update    RAdam: variance rectification once the SMA length rho_t exceeds 5

Kernels: kernels/generic/optim_adam.py.
"""
from .optim import (SCALARS, TRAITS, _check_param, _check_scalars, _check_step, _like_param,
                    _mutable, run_update)
from .registry import Attr, define_op

__all__ = ["adamax_update", "nadam_update", "radam_update"]


def _check_betas(betas):
    if len(betas) != 2 or not (0.0 <= betas[0] < 1.0 and 0.0 <= betas[1] < 1.0):
        raise ValueError(f"attr 'betas' expected two floats in [0, 1), got {betas}")


def _check_moments(op_name, param, grad, scalars, step, **moments):
    _check_param(param)
    _like_param(param, grad, "grad")
    _check_scalars(scalars, op_name)
    for name, moment in moments.items():
        _like_param(param, moment, name)
    _check_step(step)


def _common_attrs():
    return [Attr("lr", "float", min=0.0), Attr("betas", "floats", (0.9, 0.999)),
            Attr("eps", "float", 1e-8, min=0.0), Attr("weight_decay", "float", 0.0, min=0.0),
            Attr("maximize", "bool", False)]


# ---- adamax_update ---------------------------------------------------------------------

def _adamax_infer(param, grad, exp_avg, exp_inf, step, scalars, lr, betas, eps,
                  weight_decay, maximize):
    _check_moments("adamax_update", param, grad, scalars, step, exp_avg=exp_avg,
                   exp_inf=exp_inf)
    _check_betas(betas)
    return param._data.shape, param.dtype


ADAMAX_UPDATE = define_op(
    "adamax_update",
    [_mutable("param"), "grad", _mutable("exp_avg"), _mutable("exp_inf"), _mutable("step"),
     SCALARS],
    ["param_out"], infer=_adamax_infer, traits=TRAITS, attrs=_common_attrs(),
    doc="Adamax step in place: step += 1; m = lerp(m, g, 1 - beta1); u = max(beta2 u, |g| + "
        "eps); param -= lr / (1 - beta1^step) * m / u.")


def adamax_update(param, grad, exp_avg, exp_inf, step, *, lr, betas=(0.9, 0.999), eps=1e-8,
                  weight_decay=0.0, maximize=False):
    """adamax_update(param, grad, exp_avg, exp_inf, step, *, lr, ...) -> param

    One Adamax step, in place, as torch.optim.Adamax: step += 1; g (+ weight_decay param);
    m = lerp(m, g, 1 - beta1); u = max(beta2 u, |g| + eps);
    param -= lr / (1 - beta1^step) * m / u.

    >>> p, m, u = minflow.tensor([1.0]), minflow.zeros(1), minflow.zeros(1)
    >>> step = minflow.tensor(0.0)
    >>> round(minflow.ops.optim_adam.adamax_update(p, minflow.tensor([2.0]), m, u, step,
    ...                                            lr=0.1).item(), 6)
    0.9
    """
    return run_update(ADAMAX_UPDATE, (param, grad, exp_avg, exp_inf, step), {
        "lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
        "maximize": maximize}, (0, 2, 3, 4))


# ---- nadam_update ----------------------------------------------------------------------

def _nadam_infer(param, grad, exp_avg, exp_avg_sq, mu_product, step, scalars, lr, betas,
                 eps, weight_decay, maximize, momentum_decay, decoupled_weight_decay):
    _check_moments("nadam_update", param, grad, scalars, step, exp_avg=exp_avg,
                   exp_avg_sq=exp_avg_sq)
    _check_step(mu_product)
    _check_betas(betas)
    return param._data.shape, param.dtype


NADAM_UPDATE = define_op(
    "nadam_update",
    [_mutable("param"), "grad", _mutable("exp_avg"), _mutable("exp_avg_sq"),
     _mutable("mu_product"), _mutable("step"), SCALARS],
    ["param_out"], infer=_nadam_infer, traits=TRAITS,
    attrs=_common_attrs() + [Attr("momentum_decay", "float", 4e-3, min=0.0),
                             Attr("decoupled_weight_decay", "bool", False)],
    doc="NAdam step in place: mu_t = beta1 (1 - 0.96^(t psi) / 2), prod *= mu_t; m, v as "
        "Adam; param -= lr (1 - mu_t) / (1 - prod) g / d + lr mu_{t+1} / (1 - prod mu_{t+1}) "
        "m / d, d = sqrt(v / (1 - beta2^t)) + eps.")


def nadam_update(param, grad, exp_avg, exp_avg_sq, mu_product, step, *, lr,
                 betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, maximize=False,
                 momentum_decay=4e-3, decoupled_weight_decay=False):
    """nadam_update(param, grad, exp_avg, exp_avg_sq, mu_product, step, *, lr, ...) -> param

    One NAdam step, in place, as torch.optim.NAdam: step t += 1;
    mu_t = beta1 (1 - 0.5 * 0.96^(t momentum_decay)); mu_product *= mu_t;
    m = lerp(m, g, 1 - beta1); v = beta2 v + (1 - beta2) g^2;
    d = sqrt(v / (1 - beta2^t)) + eps;
    param -= lr (1 - mu_t) / (1 - mu_product) g / d
             + lr mu_{t+1} / (1 - mu_product mu_{t+1}) m / d.

    >>> p, m, v = minflow.tensor([1.0]), minflow.zeros(1), minflow.zeros(1)
    >>> prod, step = minflow.tensor(1.0), minflow.tensor(0.0)
    >>> round(minflow.ops.optim_adam.nadam_update(p, minflow.tensor([2.0]), m, v, prod, step,
    ...                                           lr=0.1).item(), 4)
    0.8944
    """
    return run_update(NADAM_UPDATE, (param, grad, exp_avg, exp_avg_sq, mu_product, step), {
        "lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
        "maximize": maximize, "momentum_decay": momentum_decay,
        "decoupled_weight_decay": decoupled_weight_decay}, (0, 2, 3, 4, 5))


# ---- radam_update ----------------------------------------------------------------------

def _radam_infer(param, grad, exp_avg, exp_avg_sq, step, scalars, lr, betas, eps,
                 weight_decay, maximize, decoupled_weight_decay):
    _check_moments("radam_update", param, grad, scalars, step, exp_avg=exp_avg,
                   exp_avg_sq=exp_avg_sq)
    _check_betas(betas)
    return param._data.shape, param.dtype


RADAM_UPDATE = define_op(
    "radam_update",
    [_mutable("param"), "grad", _mutable("exp_avg"), _mutable("exp_avg_sq"), _mutable("step"),
     SCALARS],
    ["param_out"], infer=_radam_infer, traits=TRAITS,
    attrs=_common_attrs() + [Attr("decoupled_weight_decay", "bool", False)],
    doc="RAdam step in place: m, v as Adam; rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t); "
        "param -= lr m / (1 - beta1^t) * (r_t sqrt(1 - beta2^t) / (sqrt(v) + eps) if rho_t > "
        "5 else 1).")


def radam_update(param, grad, exp_avg, exp_avg_sq, step, *, lr, betas=(0.9, 0.999), eps=1e-8,
                 weight_decay=0.0, maximize=False, decoupled_weight_decay=False):
    """radam_update(param, grad, exp_avg, exp_avg_sq, step, *, lr, ...) -> param

    One RAdam step, in place, as torch.optim.RAdam: step t += 1; m, v as Adam;
    rho_inf = 2 / (1 - beta2) - 1, rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t);
    m_hat = m / (1 - beta1^t); where rho_t > 5, with
    r_t = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t)),
    param -= m_hat lr sqrt(1 - beta2^t) / (sqrt(v) + eps) r_t; else param -= m_hat lr.

    >>> p, m, v = minflow.tensor([1.0]), minflow.zeros(1), minflow.zeros(1)
    >>> step = minflow.tensor(0.0)
    >>> round(minflow.ops.optim_adam.radam_update(p, minflow.tensor([2.0]), m, v, step,
    ...                                           lr=0.1).item(), 4)
    0.8
    """
    return run_update(RADAM_UPDATE, (param, grad, exp_avg, exp_avg_sq, step), {
        "lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
        "maximize": maximize, "decoupled_weight_decay": decoupled_weight_decay},
        (0, 2, 3, 4))

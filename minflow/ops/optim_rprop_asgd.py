"""Rprop and ASGD as update ops, with PyTorch's formulas (see ops/optim.py for the
conventions: mutable inputs written in place, hyperparameters as attrs (or read per call
from the optional ``scalars`` input), ``step`` a 0-d float tensor the kernel increments):

  rprop_update   resilient backpropagation: a step size per element, grown by etas[1]
                 while the gradient keeps its sign and shrunk by etas[0] when it flips
  asgd_update    averaged SGD: a decaying step eta and the running average ``ax`` of the
                 parameters, both per parameter as 0-d / param-shaped state

Kernels: kernels/generic/optim_rprop_asgd.py.
"""
from ..core import dtype as dtypes
from .optim import (SCALARS, TRAITS, _check_param, _check_scalars, _check_step, _like_param,
                    _mutable, _tensor, run_update)
from .registry import Attr, define_op

__all__ = ["rprop_update", "asgd_update"]


# ---- rprop_update ----------------------------------------------------------------------

def _rprop_infer(param, grad, prev, step_size, step, scalars, lr, etas, step_sizes,
                 maximize):
    _check_param(param)
    _like_param(param, grad, "grad")
    _check_scalars(scalars, "rprop_update")
    _like_param(param, prev, "prev")
    _like_param(param, step_size, "step_size")
    _check_step(step)
    if len(etas) != 2 or not 0.0 < etas[0] < 1.0 < etas[1]:
        raise ValueError(f"attr 'etas' expected (etaminus, etaplus) with 0 < etaminus < 1 < "
                         f"etaplus, got {etas}")
    if len(step_sizes) != 2:
        raise ValueError(f"attr 'step_sizes' expected (min, max), got {step_sizes}")
    return param._data.shape, param.dtype


RPROP_UPDATE = define_op(
    "rprop_update",
    [_mutable("param"), "grad", _mutable("prev"), _mutable("step_size"), _mutable("step"),
     SCALARS],
    ["param_out"], infer=_rprop_infer, traits=TRAITS,
    attrs=[Attr("lr", "float", min=0.0), Attr("etas", "floats", (0.5, 1.2)),
           Attr("step_sizes", "floats", (1e-6, 50.0)), Attr("maximize", "bool", False)],
    doc="Rprop step in place: step += 1; s = sign(g * prev); step_size = clamp(step_size * "
        "(etaplus if s > 0, etaminus if s < 0, else 1), *step_sizes); g = 0 where s < 0; "
        "param -= sign(g) * step_size; prev = g. lr only sets the first step sizes (the "
        "optimizer's state), as torch's.")


def rprop_update(param, grad, prev, step_size, step, *, lr=0.01, etas=(0.5, 1.2),
                 step_sizes=(1e-6, 50.0), maximize=False):
    """rprop_update(param, grad, prev, step_size, step, *, lr=0.01, etas=(0.5, 1.2),
    step_sizes=(1e-6, 50.0), maximize=False) -> param

    One Rprop step, in place, as torch.optim.Rprop: each element's step size grows by
    etas[1] while its gradient keeps its sign, shrinks by etas[0] when it flips (and that
    step is skipped), within step_sizes; param -= sign(grad) * step_size.

    >>> p, prev, size = minflow.tensor([1.0]), minflow.tensor([1.0]), minflow.tensor([0.1])
    >>> step = minflow.tensor(0.0)
    >>> round(minflow.ops.optim_rprop_asgd.rprop_update(p, minflow.tensor([2.0]), prev,
    ...                                                 size, step).item(), 6)
    0.88
    """
    return run_update(RPROP_UPDATE, (param, grad, prev, step_size, step), {
        "lr": lr, "etas": tuple(etas), "step_sizes": tuple(step_sizes),
        "maximize": maximize}, (0, 2, 3, 4))


# ---- asgd_update -----------------------------------------------------------------------

def _check_scalar_state(t, name):
    _tensor(t, name)
    if t._data.shape != () or not t.dtype.is_floating_point:
        raise RuntimeError(f"expected {name} to be a 0-d float tensor, got shape "
                           f"{list(t._data.shape)} and dtype {t.dtype.name}")


def _asgd_infer(param, grad, ax, eta, mu, step, scalars, lr, lambd, alpha, t0,
                weight_decay, maximize):
    _check_param(param)
    _like_param(param, grad, "grad")
    _check_scalars(scalars, "asgd_update")
    _like_param(param, ax, "ax")
    _check_scalar_state(eta, "eta")
    _check_scalar_state(mu, "mu")
    _check_step(step)
    return param._data.shape, param.dtype


ASGD_UPDATE = define_op(
    "asgd_update",
    [_mutable("param"), "grad", _mutable("ax"), _mutable("eta"), _mutable("mu"),
     _mutable("step"), SCALARS],
    ["param_out"], infer=_asgd_infer, traits=TRAITS,
    attrs=[Attr("lr", "float", min=0.0), Attr("lambd", "float", 1e-4),
           Attr("alpha", "float", 0.75), Attr("t0", "float", 1e6),
           Attr("weight_decay", "float", 0.0, min=0.0), Attr("maximize", "bool", False)],
    doc="ASGD step in place: step += 1; param = param * (1 - lambd * eta) - eta * g; ax += "
        "(param - ax) * mu (ax = param while mu = 1); eta = lr / (1 + lambd * lr * step)^alpha;"
        " mu = 1 / max(1, step - t0).")


def asgd_update(param, grad, ax, eta, mu, step, *, lr=0.01, lambd=1e-4, alpha=0.75, t0=1e6,
                weight_decay=0.0, maximize=False):
    """asgd_update(param, grad, ax, eta, mu, step, *, lr=0.01, lambd=1e-4, alpha=0.75,
    t0=1e6, weight_decay=0.0, maximize=False) -> param

    One averaged-SGD step, in place, as torch.optim.ASGD: param decays by 1 - lambd * eta
    and moves by -eta * grad; ``ax`` averages the parameters from step t0 on; then eta and
    mu (the averaging weight) are set for the next step.

    >>> p, ax = minflow.tensor([1.0]), minflow.zeros(1)
    >>> eta, mu, step = minflow.tensor(0.1), minflow.tensor(1.0), minflow.tensor(0.0)
    >>> round(minflow.ops.optim_rprop_asgd.asgd_update(p, minflow.tensor([2.0]), ax, eta, mu,
    ...                                                step, lr=0.1).item(), 5)
    0.79999
    """
    return run_update(ASGD_UPDATE, (param, grad, ax, eta, mu, step), {
        "lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay,
        "maximize": maximize}, (0, 2, 3, 4, 5))

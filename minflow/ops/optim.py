"""Optimizer update rules as ops, with PyTorch's formulas: each writes a parameter and its
state buffers IN PLACE. minflow.optim's classes hold the state and call one op per
parameter under no_grad; the kernels (kernels/generic/optim.py) do the arithmetic.

  sgd_update       momentum, dampening, nesterov, weight_decay, maximize
  sgd_update_foreach  the same step for a list of parameters in one op call (torch's
                   ``foreach=True``): one dispatch per group instead of one per parameter
  adam_update      Adam, and AdamW with ``decoupled_weight_decay=True`` (one op: the rules
                   differ only in where weight decay enters)
  rmsprop_update   alpha, centered, momentum
  adagrad_update   lr_decay
  adadelta_update  rho
(the Adam family: ops/optim_adam.py; Rprop and ASGD: ops/optim_rprop_asgd.py)

Inputs marked mutable (``param!`` in docs/ops.md) are written in place; the one output,
``param_out``, is ``param``'s own storage. The functions here bump the version counter of
every tensor they write, so a tensor saved for backward that an update changed is detected.

Hyperparameters (lr, betas, ...) are attrs: Python floats, validated on each call.
``lr`` may also be a 0-d float tensor (as torch's optimizers accept), read when the op runs.
``step`` (the count torch keeps as a float tensor in the optimizer state) is a mutable
input that the kernel increments, so an update needs no per-step attr.

The optional input ``scalars`` holds the op's float hyperparameters (its float attrs in
declaration order, ``betas`` as two entries: ``scalar_attrs``) as a 1-d float64 tensor;
when given, the kernel reads them from it when it runs, in place of those attrs. Graph
mode feeds it at every call from the optimizer's param groups, so schedulers (lr,
OneCycleLR's momentum or beta1) and edits of the groups need no recompiling; the bool
attrs (nesterov, amsgrad, maximize...) stay compiled in.
"""
from ..core import dtype as dtypes
from ..core.grad_mode import state as grad_state
from ..core.dispatch import apply, run_in_place
from ..core.tensor import Tensor
from .registry import REQUIRED, Attr, Input, define_op, get_op

__all__ = ["sgd_update", "sgd_update_foreach", "adam_update", "rmsprop_update",
           "adagrad_update", "adadelta_update", "group_attrs", "scalar_attrs", "scalar_values"]

TRAITS = ("no_grad", "opaque")     # not no_side_effect: graph passes must keep them


def _mutable(name, optional=False):
    return Input(name, optional=optional, mutable=True)


SCALARS = Input("scalars", optional=True, promote=False)   # hyperparameters read per call


def scalar_attrs(op):
    """The attrs of update op ``op`` that its ``scalars`` input replaces: the float and
    floats attrs, in declaration order.

    >>> [a.name for a in minflow.ops.optim.scalar_attrs(minflow.ops.get_op("adam_update"))]
    ['lr', 'betas', 'eps', 'weight_decay']
    """
    found = _SCALAR_ATTRS.get(op.name)
    if found is None:
        found = _SCALAR_ATTRS[op.name] = tuple(a for a in op.attrs
                                               if a.type in ("float", "floats"))
    return found


_SCALAR_ATTRS = {}


def scalar_values(op, options):
    """The ``scalars`` of ``op`` read from ``options`` (its attrs, or a param group: an
    optimizer's option names are its update op's attr names), as a list of floats.

    >>> group = {"lr": 0.1, "betas": (0.9, 0.99), "eps": 1e-8, "weight_decay": 0}
    >>> minflow.ops.optim.scalar_values(minflow.ops.get_op("adam_update"), group)
    [0.1, 0.9, 0.99, 1e-08, 0.0]
    """
    values = []
    for attr in scalar_attrs(op):
        value = options[attr.name]
        if attr.type == "floats":
            values.extend(float(v) for v in value)
        else:
            values.append(float(value))
    return values


def _check_scalars(scalars, op_name):
    """``scalars`` must be None or a 1-d float64 tensor of one entry per scalar value."""
    if scalars is None:
        return
    op = get_op(op_name)
    count = sum(len(a.default) if a.type == "floats" else 1 for a in scalar_attrs(op))
    if scalars._data.shape != (count,) or scalars.dtype is not dtypes.float64:
        names = ", ".join(a.name for a in scalar_attrs(op))
        raise RuntimeError(f"{op_name}: expected scalars to be a float64 tensor of shape "
                           f"[{count}] ({names}), got shape {list(scalars._data.shape)} and "
                           f"dtype {scalars.dtype.name}")


def _tensor(x, name):
    if not isinstance(x, Tensor):
        raise TypeError(f"expected {name} to be a Tensor, got {type(x).__name__}")


def _check_param(param, complex_ok=False):
    """A floating param (or complex, for the updates that are the same arithmetic on
    complex numbers: SGD's, as torch)."""
    _tensor(param, "param")
    if not (param.dtype.is_floating_point or complex_ok and param.dtype.is_complex):
        expected = "float16, float32, float64" + (", complex64, complex128" if complex_ok
                                                   else "")
        raise TypeError(f"expected param with dtype in [{expected}], got {param.dtype.name}")


def _like_param(param, x, name, needed_for=None):
    """``x`` must be a tensor of param's shape and dtype (a state buffer or the grad)."""
    if x is None and needed_for is not None:
        raise ValueError(f"expected a {name} tensor when {needed_for}, got None")
    _tensor(x, name)
    if x._data.shape != param._data.shape or x.dtype is not param.dtype:
        raise RuntimeError(f"expected {name} with param's shape {list(param._data.shape)} and "
                           f"dtype {param.dtype.name}, got shape {list(x._data.shape)} and "
                           f"dtype {x.dtype.name}")


def _check_step(step):
    _tensor(step, "step")
    if step._data.shape != () or not step.dtype.is_floating_point:
        raise RuntimeError(f"expected step to be a 0-d float tensor (the step count), got "
                           f"shape {list(step._data.shape)} and dtype {step.dtype.name}")


def run_update(op, inputs, attrs, mutable):
    """Run the update op, then bump the version of each tensor it wrote (``mutable``:
    their positions in ``inputs``; a position may hold a list of tensors)."""
    params = inputs[0] if isinstance(inputs[0], list) else (inputs[0],)
    lr = attrs["lr"]
    if isinstance(lr, Tensor):
        _check_lr(lr)
        attrs["lr"] = float(lr)         # torch reads a tensor lr when the step runs
    inputs = inputs + (None,)           # scalars: graph mode binds them (graph/optim.py)
    if grad_state.grad_enabled and any(isinstance(p, Tensor) and p._requires_grad
                                       for p in params):
        raise RuntimeError(f"{op.name}: a leaf Variable that requires grad is being used in an "
                           f"in-place operation; run the update under minflow.no_grad()")
    apply(op, inputs, attrs)
    for i in mutable:
        for t in inputs[i] if isinstance(inputs[i], list) else (inputs[i],):
            if t is not None and t._version is not None:
                t._version[0] += 1
    return inputs[0]


def run_foreach_checked(op, inputs, attrs, mutable):
    """``run_update`` of a foreach op for an optimizer's step, ``attrs`` validated by
    ``group_attrs``. Where every list input (grads, state buffers) holds tensors like the
    params (inputs[0]), on cpu, the kernel runs straight on the arrays
    (``dispatch.run_in_place``) with none of the op's other checks; else ``run_update``
    runs it through the dispatcher, whose checks name what is wrong."""
    params = inputs[0]
    if not (grad_state.grad_enabled or isinstance(attrs["lr"], Tensor)) and all(
            _all_like(tensors, params) for tensors in inputs[1:] if tensors is not None):
        if run_in_place(op, inputs + (None,), attrs):
            for i in mutable:
                for t in inputs[i] or ():
                    if t._version is not None:
                        t._version[0] += 1
            return params
    return run_update(op, inputs, attrs, mutable)


def _all_like(tensors, params):
    for t, param in zip(tensors, params):
        if not _like(t, param):
            return False
    return len(tensors) == len(params)


def _check_lr(lr):
    if lr._data.shape != () or not lr.dtype.is_floating_point:
        raise RuntimeError(f"expected lr to be a float or a 0-d float tensor, got shape "
                           f"{list(lr._data.shape)} and dtype {lr.dtype.name}")


def group_attrs(op, attrs):
    """``attrs`` of ``op`` validated once for a parameter group, each value equal to its
    attr's default replaced by the default object itself.

    NOTE: the dispatcher re-validates only attr values that are not their default object,
    so the per-parameter calls of one step skip what this checked (an optimizer's defaults
    come as ints: momentum=0, weight_decay=0).
    """
    lr = attrs.get("lr")
    if isinstance(lr, Tensor):      # a tensor lr passes through to the update function
        attrs["lr"] = 0.0
    op.resolve_attrs(attrs)
    if isinstance(lr, Tensor):
        attrs["lr"] = lr
    for attr in op.attrs:
        if attr.default is not REQUIRED and attrs[attr.name] == attr.default:
            attrs[attr.name] = attr.default
    return attrs


# ---- sgd_update ------------------------------------------------------------------------

def _sgd_infer(param, grad, momentum_buffer, scalars, lr, momentum, dampening, weight_decay,
               nesterov, maximize, init_buffer):
    _check_param(param, complex_ok=True)
    _like_param(param, grad, "grad")
    _check_scalars(scalars, "sgd_update")
    if momentum != 0:
        _like_param(param, momentum_buffer, "momentum_buffer", "momentum != 0")
    if nesterov and (momentum <= 0 or dampening != 0):
        raise ValueError("Nesterov momentum requires a momentum and zero dampening")
    return param._data.shape, param.dtype


SGD_UPDATE = define_op(
    "sgd_update",
    [_mutable("param"), "grad", _mutable("momentum_buffer", optional=True), SCALARS],
    ["param_out"], infer=_sgd_infer, traits=TRAITS,
    attrs=[Attr("lr", "float", min=0.0), Attr("momentum", "float", 0.0, min=0.0),
           Attr("dampening", "float", 0.0), Attr("weight_decay", "float", 0.0, min=0.0),
           Attr("nesterov", "bool", False), Attr("maximize", "bool", False),
           Attr("init_buffer", "bool", False)],
    doc="SGD step in place: g = grad + weight_decay * param; buf = momentum * buf + "
        "(1 - dampening) * g (buf = g when init_buffer); param -= lr * (g + momentum * buf "
        "if nesterov else buf).")


def sgd_update(param, grad, momentum_buffer=None, *, lr, momentum=0.0, dampening=0.0,
               weight_decay=0.0, nesterov=False, maximize=False, init_buffer=False):
    """sgd_update(param, grad, momentum_buffer=None, *, lr, momentum=0.0, ...) -> param

    One SGD step, in place, as torch.optim.SGD: g = -grad if maximize else grad;
    g += weight_decay * param; with momentum, buf = momentum * buf + (1 - dampening) * g
    (``init_buffer``: buf = g, torch's first step) and g = g + momentum * buf (nesterov)
    or buf; param -= lr * g.

    >>> p = minflow.tensor([1.0, 2.0])
    >>> minflow.ops.optim.sgd_update(p, minflow.tensor([10.0, 10.0]), lr=0.1).tolist()
    [0.0, 1.0]
    """
    return run_update(SGD_UPDATE, (param, grad, momentum_buffer), {
        "lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
        "nesterov": nesterov, "maximize": maximize, "init_buffer": init_buffer}, (0, 2))


# ---- sgd_update_foreach: sgd_update over a list of parameters in one call --------------

def _foreach_list(values, name, count=None):
    if not isinstance(values, (list, tuple)) or not values:
        raise TypeError(f"expected {name} to be a non-empty list of tensors, got {values!r}")
    if count is not None and len(values) != count:
        raise ValueError(f"expected {name} to have one tensor per param ({count}), got "
                         f"{len(values)}")


def _sgd_foreach_infer(params, grads, momentum_buffers, scalars, lr, momentum, dampening,
                       weight_decay, nesterov, maximize, init_buffer):
    _foreach_list(params, "params")
    _foreach_list(grads, "grads", len(params))
    if momentum != 0:
        _foreach_list(momentum_buffers, "momentum_buffers", len(params))
    buffers = momentum_buffers if momentum != 0 else (None,) * len(params)
    _check_param(params[0], complex_ok=True)
    dtype = params[0].dtype
    metas = []
    for i, (param, grad, buf) in enumerate(zip(params, grads, buffers)):
        # NOTE: one quick test of the usual case per param; anything else goes through
        # sgd_update's own checks, for their error messages
        if not (isinstance(param, Tensor) and param.dtype is dtype and _like(grad, param)
                and (momentum == 0 or _like(buf, param))):
            try:
                _sgd_infer(param, grad, buf, scalars, lr, momentum, dampening,
                           weight_decay, nesterov, maximize, init_buffer)
            except (TypeError, ValueError, RuntimeError) as err:
                raise type(err)(f"params[{i}]: {err}") from None
            raise TypeError(f"expected every param to have the dtype of params[0] "
                            f"({dtype.name}), got {param.dtype.name} for params[{i}]")
        metas.append((param._data.shape, dtype))
    _sgd_infer(params[0], grads[0], buffers[0], scalars, lr, momentum, dampening,
               weight_decay, nesterov, maximize, init_buffer)      # the checks of attrs
    return metas if len(metas) > 1 else metas[0]    # one output: its (shape, dtype) alone


def _like(x, param):
    return (isinstance(x, Tensor) and x.dtype is param.dtype
            and x._data.shape == param._data.shape)


SGD_UPDATE_FOREACH = define_op(
    "sgd_update_foreach",
    [Input("params", variadic=True, mutable=True), Input("grads", variadic=True),
     Input("momentum_buffers", optional=True, variadic=True, mutable=True), SCALARS],
    ["params_out"], infer=_sgd_foreach_infer, traits=TRAITS,
    attrs=list(SGD_UPDATE.attrs),
    doc="sgd_update for each (param, grad, momentum_buffer) of the lists, in one call; "
        "params_out: one output per param, each its param's own storage.")


def sgd_update_foreach(params, grads, momentum_buffers=None, *, lr, momentum=0.0,
                       dampening=0.0, weight_decay=0.0, nesterov=False, maximize=False,
                       init_buffer=False):
    """sgd_update_foreach(params, grads, momentum_buffers=None, *, lr, ...) -> params

    ``sgd_update`` on every param of a list, in place, in one op call (torch's multi-tensor
    SGD, ``foreach=True``): the same arithmetic per param, one dispatch for all of them.
    Every param must have the same dtype and device; ``init_buffer`` applies to all.

    >>> ps = [minflow.tensor([1.0, 2.0]), minflow.tensor([3.0])]
    >>> gs = [minflow.tensor([10.0, 10.0]), minflow.tensor([10.0])]
    >>> [p.tolist() for p in minflow.ops.optim.sgd_update_foreach(ps, gs, lr=0.1)]
    [[0.0, 1.0], [2.0]]
    """
    params, grads = list(params), list(grads)
    buffers = None if momentum_buffers is None else list(momentum_buffers)
    run_update(SGD_UPDATE_FOREACH, (params, grads, buffers), {
        "lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
        "nesterov": nesterov, "maximize": maximize, "init_buffer": init_buffer}, (0, 2))
    return params


# ---- adam_update (Adam and AdamW) ------------------------------------------------------

def _adam_infer(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step, scalars, lr, betas,
                eps, weight_decay, amsgrad, maximize, decoupled_weight_decay):
    _check_param(param)
    _like_param(param, grad, "grad")
    _check_scalars(scalars, "adam_update")
    _like_param(param, exp_avg, "exp_avg")
    _like_param(param, exp_avg_sq, "exp_avg_sq")
    if amsgrad:
        _like_param(param, max_exp_avg_sq, "max_exp_avg_sq", "amsgrad=True")
    _check_step(step)
    if len(betas) != 2 or not (0.0 <= betas[0] < 1.0 and 0.0 <= betas[1] < 1.0):
        raise ValueError(f"attr 'betas' expected two floats in [0, 1), got {betas}")
    return param._data.shape, param.dtype


ADAM_UPDATE = define_op(
    "adam_update",
    [_mutable("param"), "grad", _mutable("exp_avg"), _mutable("exp_avg_sq"),
     _mutable("max_exp_avg_sq", optional=True), _mutable("step"), SCALARS],
    ["param_out"], infer=_adam_infer, traits=TRAITS,
    attrs=[Attr("lr", "float", min=0.0), Attr("betas", "floats", (0.9, 0.999)),
           Attr("eps", "float", 1e-8, min=0.0), Attr("weight_decay", "float", 0.0, min=0.0),
           Attr("amsgrad", "bool", False), Attr("maximize", "bool", False),
           Attr("decoupled_weight_decay", "bool", False)],
    doc="Adam/AdamW step in place: step += 1; m = lerp(m, g, 1 - beta1); v = beta2 * v + "
        "(1 - beta2) * g^2; param -= lr / (1 - beta1^step) * m / (sqrt(v / (1 - "
        "beta2^step)) + eps); AdamW decays param by (1 - lr * weight_decay) first.")


def adam_update(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step, *, lr,
                betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False,
                maximize=False, decoupled_weight_decay=False):
    """adam_update(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step, *, lr, ...) -> param

    One Adam step, in place, as torch.optim.Adam (AdamW: ``decoupled_weight_decay=True``):
    step += 1; g = grad (+ weight_decay * param, unless decoupled: then
    param *= 1 - lr * weight_decay); m = lerp(m, g, 1 - beta1); v = beta2 v + (1 - beta2) g^2;
    vmax = max(vmax, v) with amsgrad;
    param -= lr / (1 - beta1^step) * m / (sqrt(v / (1 - beta2^step)) + eps).

    >>> p, step = minflow.tensor([1.0]), minflow.tensor(0.0)
    >>> m, v = minflow.zeros(1), minflow.zeros(1)
    >>> minflow.ops.optim.adam_update(p, minflow.tensor([3.0]), m, v, None, step, lr=0.1).tolist()
    [0.8999999761581421]
    >>> step.item()
    1.0
    """
    return run_update(ADAM_UPDATE, (param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step), {
        "lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
        "amsgrad": amsgrad, "maximize": maximize,
        "decoupled_weight_decay": decoupled_weight_decay}, (0, 2, 3, 4, 5))


# ---- rmsprop_update --------------------------------------------------------------------

def _rmsprop_infer(param, grad, square_avg, grad_avg, momentum_buffer, step, scalars, lr,
                   alpha, eps, weight_decay, momentum, centered, maximize):
    _check_param(param)
    _like_param(param, grad, "grad")
    _check_scalars(scalars, "rmsprop_update")
    _like_param(param, square_avg, "square_avg")
    if centered:
        _like_param(param, grad_avg, "grad_avg", "centered=True")
    if momentum > 0:
        _like_param(param, momentum_buffer, "momentum_buffer", "momentum > 0")
    _check_step(step)
    return param._data.shape, param.dtype


RMSPROP_UPDATE = define_op(
    "rmsprop_update",
    [_mutable("param"), "grad", _mutable("square_avg"), _mutable("grad_avg", optional=True),
     _mutable("momentum_buffer", optional=True), _mutable("step"), SCALARS],
    ["param_out"], infer=_rmsprop_infer, traits=TRAITS,
    attrs=[Attr("lr", "float", min=0.0), Attr("alpha", "float", 0.99, min=0.0),
           Attr("eps", "float", 1e-8, min=0.0), Attr("weight_decay", "float", 0.0, min=0.0),
           Attr("momentum", "float", 0.0, min=0.0), Attr("centered", "bool", False),
           Attr("maximize", "bool", False)],
    doc="RMSprop step in place: v = alpha v + (1 - alpha) g^2; avg = sqrt(v - gavg^2 if "
        "centered else v) + eps; buf = momentum buf + g / avg, param -= lr * buf (or "
        "param -= lr * g / avg without momentum).")


def rmsprop_update(param, grad, square_avg, grad_avg, momentum_buffer, step, *, lr, alpha=0.99,
                   eps=1e-8, weight_decay=0.0, momentum=0.0, centered=False, maximize=False):
    """rmsprop_update(param, grad, square_avg, grad_avg, momentum_buffer, step, *, lr, ...)
    -> param

    One RMSprop step, in place, as torch.optim.RMSprop: step += 1;
    v = alpha v + (1 - alpha) g^2; centered: gavg = lerp(gavg, g, 1 - alpha) and
    avg = sqrt(v - gavg^2) + eps, else avg = sqrt(v) + eps; with momentum,
    buf = momentum buf + g / avg and param -= lr buf, else param -= lr g / avg.

    >>> p, v, step = minflow.tensor([1.0]), minflow.zeros(1), minflow.tensor(0.0)
    >>> g = minflow.tensor([1.0])
    >>> round(minflow.ops.optim.rmsprop_update(p, g, v, None, None, step, lr=0.01).item(), 4)
    0.9
    """
    return run_update(RMSPROP_UPDATE, (param, grad, square_avg, grad_avg, momentum_buffer, step), {
        "lr": lr, "alpha": alpha, "eps": eps, "weight_decay": weight_decay,
        "momentum": momentum, "centered": centered, "maximize": maximize}, (0, 2, 3, 4, 5))


# ---- adagrad_update --------------------------------------------------------------------

def _adagrad_infer(param, grad, state_sum, step, scalars, lr, lr_decay, weight_decay, eps,
                   maximize):
    _check_param(param)
    _like_param(param, grad, "grad")
    _check_scalars(scalars, "adagrad_update")
    _like_param(param, state_sum, "state_sum")
    _check_step(step)
    return param._data.shape, param.dtype


ADAGRAD_UPDATE = define_op(
    "adagrad_update",
    [_mutable("param"), "grad", _mutable("state_sum"), _mutable("step"), SCALARS],
    ["param_out"], infer=_adagrad_infer, traits=TRAITS,
    attrs=[Attr("lr", "float", min=0.0), Attr("lr_decay", "float", 0.0, min=0.0),
           Attr("weight_decay", "float", 0.0, min=0.0), Attr("eps", "float", 1e-10, min=0.0),
           Attr("maximize", "bool", False)],
    doc="Adagrad step in place: step += 1; sum += g^2; param -= lr / (1 + (step - 1) "
        "lr_decay) * g / (sqrt(sum) + eps).")


def adagrad_update(param, grad, state_sum, step, *, lr, lr_decay=0.0, weight_decay=0.0,
                   eps=1e-10, maximize=False):
    """adagrad_update(param, grad, state_sum, step, *, lr, lr_decay=0.0, ...) -> param

    One Adagrad step, in place, as torch.optim.Adagrad: step += 1; sum += g^2;
    param -= lr / (1 + (step - 1) lr_decay) * g / (sqrt(sum) + eps).

    >>> p, s, step = minflow.tensor([1.0]), minflow.zeros(1), minflow.tensor(0.0)
    >>> round(minflow.ops.optim.adagrad_update(p, minflow.tensor([2.0]), s, step,
    ...                                        lr=0.5).item(), 4)
    0.5
    """
    return run_update(ADAGRAD_UPDATE, (param, grad, state_sum, step), {
        "lr": lr, "lr_decay": lr_decay, "weight_decay": weight_decay, "eps": eps,
        "maximize": maximize}, (0, 2, 3))


# ---- adadelta_update -------------------------------------------------------------------

def _adadelta_infer(param, grad, square_avg, acc_delta, step, scalars, lr, rho, eps,
                    weight_decay, maximize):
    _check_param(param)
    _like_param(param, grad, "grad")
    _check_scalars(scalars, "adadelta_update")
    _like_param(param, square_avg, "square_avg")
    _like_param(param, acc_delta, "acc_delta")
    _check_step(step)
    return param._data.shape, param.dtype


ADADELTA_UPDATE = define_op(
    "adadelta_update",
    [_mutable("param"), "grad", _mutable("square_avg"), _mutable("acc_delta"), _mutable("step"),
     SCALARS],
    ["param_out"], infer=_adadelta_infer, traits=TRAITS,
    attrs=[Attr("lr", "float", min=0.0), Attr("rho", "float", 0.9, min=0.0, max=1.0),
           Attr("eps", "float", 1e-6, min=0.0), Attr("weight_decay", "float", 0.0, min=0.0),
           Attr("maximize", "bool", False)],
    doc="Adadelta step in place: step += 1; v = rho v + (1 - rho) g^2; delta = sqrt(u + eps) "
        "/ sqrt(v + eps) * g; u = rho u + (1 - rho) delta^2; param -= lr * delta.")


def adadelta_update(param, grad, square_avg, acc_delta, step, *, lr, rho=0.9, eps=1e-6,
                    weight_decay=0.0, maximize=False):
    """adadelta_update(param, grad, square_avg, acc_delta, step, *, lr, rho=0.9, ...) -> param

    One Adadelta step, in place, as torch.optim.Adadelta: step += 1;
    g = grad (+ weight_decay * param); v = rho v + (1 - rho) g^2;
    delta = sqrt(u + eps) / sqrt(v + eps) * g; u = rho u + (1 - rho) delta^2;
    param -= lr * delta (v: ``square_avg``, u: ``acc_delta``).

    >>> p, step = minflow.tensor([1.0]), minflow.tensor(0.0)
    >>> v, u = minflow.zeros(1), minflow.zeros(1)
    >>> g = minflow.tensor([2.0])
    >>> round(minflow.ops.optim.adadelta_update(p, g, v, u, step, lr=1.0).item(), 6)
    0.996838
    """
    return run_update(ADADELTA_UPDATE, (param, grad, square_avg, acc_delta, step), {
        "lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
        "maximize": maximize}, (0, 2, 3, 4))

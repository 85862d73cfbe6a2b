"""Optimizer update kernels, written once against the array module (numpy or cupy).

Each writes the parameter and its state arrays in place and returns the parameter. The
arithmetic follows torch's single-tensor CPU path operation by operation (same order,
scalars folded the same way: ``addcdiv(x, a, b, value=v)`` is ``x + (v * a) / b``), so
float64 results agree with torch to the last few bits. Temporaries are few and reused
through ``out=``: one or two scratch arrays per call, the decayed gradient among them.
NOTE: a fresh temporary is made as ``out=xp.empty_like(...)``: on a 0-d array a ufunc
returns a numpy scalar otherwise, which cannot serve as a later ``out=``.
"""
from ...core.dtype import COMPLEX, FLOATS
from ..registry import register_kernel
from .elementwise import add_scaled_

BOTH = ("cpu", "cuda")


def _decayed(xp, param, grad, weight_decay, maximize):
    """(g, owned): g = (-grad if maximize else grad) + weight_decay * param, as torch.

    ``owned``: g is a fresh array the caller may overwrite (not ``grad`` itself).
    """
    if weight_decay != 0:
        g = xp.multiply(param, weight_decay, out=xp.empty_like(param))
        if maximize:
            g -= grad       # weight_decay * param - grad == -grad + weight_decay * param
        else:
            g += grad
        return g, True
    if maximize:
        return xp.negative(grad, out=xp.empty_like(grad)), True
    return grad, False


def _lerp_(xp, start, end, weight, diff):
    """start = lerp(start, end, weight) in place, by torch's two forms; ``diff`` holds
    end - start on entry and is overwritten."""
    if abs(weight) < 0.5:
        diff *= weight
        start += diff
    else:
        diff *= weight - 1
        xp.add(end, diff, out=start)


def _addcdiv_(xp, target, value, num, denom, spare):
    """target += (value * num) / denom, as torch's addcdiv_; the product goes to ``spare``
    (an array free to overwrite, or None for a new one)."""
    scaled = xp.multiply(num, value, out=spare)
    scaled /= denom
    target += scaled


@register_kernel("sgd_update", BOTH, FLOATS + COMPLEX, overwrites=("grad",))
def sgd_update(xp, param, grad, momentum_buffer, scalars, lr, momentum, dampening,
               weight_decay, nesterov, maximize, init_buffer, overwrite=False):
    # overwrite: grad dies here (graph plans), so it serves as the scratch array
    if scalars is not None:         # graph mode: the hyperparameters fed per call
        lr, momentum, dampening, weight_decay = scalars.tolist()
    g, owned = _decayed(xp, param, grad, weight_decay, maximize)
    owned = owned or overwrite
    spare = g if owned else None
    if momentum != 0:
        buf = momentum_buffer
        if init_buffer:
            xp.copyto(buf, g)                   # torch's first step: buf = g, undamped
        else:
            buf *= momentum
            buf += g if dampening == 0 else xp.multiply(g, 1 - dampening)
        if nesterov:
            scaled = xp.multiply(buf, momentum, out=xp.empty_like(buf))
            g = spare = xp.add(g, scaled, out=g if owned else scaled)
        else:
            g = buf             # spare, if any, held g: free now
    # param + (-lr) * g, as torch's param.add_(g, alpha=-lr)
    _add_scaled_(xp, param, g, -lr, spare)
    return param


@register_kernel("sgd_update_foreach", BOTH, FLOATS + COMPLEX)
def sgd_update_foreach(xp, params, grads, momentum_buffers, scalars, lr, momentum,
                       dampening, weight_decay, nesterov, maximize, init_buffer):
    if scalars is not None:
        lr, momentum, dampening, weight_decay = scalars.tolist()
    if momentum == 0 and weight_decay == 0 and not maximize:    # plain SGD: param -= lr * g
        for param, grad in zip(params, grads):
            add_scaled_(xp, param, grad, -lr)
        return tuple(params)
    buffers = momentum_buffers if momentum != 0 else (None,) * len(params)
    for param, grad, buf in zip(params, grads, buffers):
        sgd_update(xp, param, grad, buf, None, lr, momentum, dampening, weight_decay,
                   nesterov, maximize, init_buffer)
    return tuple(params)


def _add_scaled_(xp, param, g, alpha, spare):
    """param += alpha * g: the product in ``spare`` (an array of g's shape free to
    overwrite, g itself included), else block by block."""
    if spare is not None:
        param += xp.multiply(g, alpha, out=spare)
    else:
        add_scaled_(xp, param, g, alpha)


@register_kernel("adam_update", BOTH, FLOATS)
def adam_update(xp, param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step, scalars, lr,
                betas, eps, weight_decay, amsgrad, maximize, decoupled_weight_decay):
    beta1, beta2 = betas
    if scalars is not None:         # graph mode: the hyperparameters fed per call
        lr, beta1, beta2, eps, weight_decay = scalars.tolist()
    step += 1
    count = float(step)
    if decoupled_weight_decay:
        if weight_decay != 0:
            param *= 1 - lr * weight_decay
        g, owned = _decayed(xp, param, grad, 0, maximize)
    else:
        g, owned = _decayed(xp, param, grad, weight_decay, maximize)
    scratch = xp.subtract(g, exp_avg, out=xp.empty_like(param))
    _lerp_(xp, exp_avg, g, 1 - beta1, scratch)
    exp_avg_sq *= beta2
    xp.multiply(g, 1 - beta2, out=scratch)      # addcmul: (value * g) * g
    scratch *= g
    exp_avg_sq += scratch
    step_size = lr / (1 - beta1 ** count)
    bias_correction2_sqrt = (1 - beta2 ** count) ** 0.5
    if amsgrad:
        xp.maximum(max_exp_avg_sq, exp_avg_sq, out=max_exp_avg_sq)
        second = max_exp_avg_sq
    else:
        second = exp_avg_sq
    denom = xp.sqrt(second, out=scratch)
    denom /= bias_correction2_sqrt
    denom += eps
    _addcdiv_(xp, param, -step_size, exp_avg, denom, g if owned else None)
    return param


@register_kernel("rmsprop_update", BOTH, FLOATS)
def rmsprop_update(xp, param, grad, square_avg, grad_avg, momentum_buffer, step, scalars,
                   lr, alpha, eps, weight_decay, momentum, centered, maximize):
    if scalars is not None:         # graph mode: the hyperparameters fed per call
        lr, alpha, eps, weight_decay, momentum = scalars.tolist()
    step += 1
    g, owned = _decayed(xp, param, grad, weight_decay, maximize)
    square_avg *= alpha
    scratch = xp.multiply(g, 1 - alpha, out=xp.empty_like(param))
    scratch *= g
    square_avg += scratch
    if centered:
        xp.subtract(g, grad_avg, out=scratch)
        _lerp_(xp, grad_avg, g, 1 - alpha, scratch)
        xp.multiply(grad_avg, grad_avg, out=scratch)
        avg = xp.subtract(square_avg, scratch, out=scratch)
        xp.sqrt(avg, out=avg)
    else:
        avg = xp.sqrt(square_avg, out=scratch)
    avg += eps
    if momentum > 0:
        momentum_buffer *= momentum
        xp.divide(g, avg, out=avg)              # addcdiv with value 1: (1 * g) / avg
        momentum_buffer += avg
        param += xp.multiply(momentum_buffer, -lr, out=avg)
    else:
        _addcdiv_(xp, param, -lr, g, avg, g if owned else None)
    return param


@register_kernel("adagrad_update", BOTH, FLOATS)
def adagrad_update(xp, param, grad, state_sum, step, scalars, lr, lr_decay, weight_decay,
                   eps, maximize):
    if scalars is not None:         # graph mode: the hyperparameters fed per call
        lr, lr_decay, weight_decay, eps = scalars.tolist()
    step += 1
    count = float(step)
    g, owned = _decayed(xp, param, grad, weight_decay, maximize)
    clr = lr / (1 + (count - 1) * lr_decay)
    scratch = xp.multiply(g, g, out=xp.empty_like(param))     # addcmul, value 1: g * g
    state_sum += scratch
    std = xp.sqrt(state_sum, out=scratch)
    std += eps
    _addcdiv_(xp, param, -clr, g, std, g if owned else None)
    return param


@register_kernel("adadelta_update", BOTH, FLOATS)
def adadelta_update(xp, param, grad, square_avg, acc_delta, step, scalars, lr, rho, eps,
                    weight_decay, maximize):
    if scalars is not None:         # graph mode: the hyperparameters fed per call
        lr, rho, eps, weight_decay = scalars.tolist()
    step += 1
    g, owned = _decayed(xp, param, grad, weight_decay, maximize)
    square_avg *= rho
    scratch = xp.multiply(g, 1 - rho, out=xp.empty_like(param))     # addcmul: (value * g) * g
    scratch *= g
    square_avg += scratch
    std = xp.add(square_avg, eps, out=scratch)
    xp.sqrt(std, out=std)
    delta = xp.add(acc_delta, eps, out=xp.empty_like(param))
    xp.sqrt(delta, out=delta)
    delta /= std
    delta *= g
    acc_delta *= rho
    xp.multiply(delta, 1 - rho, out=scratch)
    scratch *= delta
    acc_delta += scratch
    _add_scaled_(xp, param, delta, -lr, delta)
    return param

"""SGD and Adam against the textbook formulas written here in numpy (no torch needed)."""
import itertools

import numpy as np
import pytest

import minflow
from _optim_harness import gradients, initial_values, minflow_params, set_grads, tolerance


def sgd_reference(values, grads_per_step, lr, momentum, dampening, weight_decay, nesterov,
                  maximize):
    params = [v.copy() for v in values]
    bufs = [None] * len(params)
    history = []
    for grads in grads_per_step:
        for i, (p, g) in enumerate(zip(params, grads)):
            g = -g if maximize else g
            g = g + weight_decay * p
            if momentum:
                bufs[i] = g.copy() if bufs[i] is None else momentum * bufs[i] + (1 - dampening) * g
                g = g + momentum * bufs[i] if nesterov else bufs[i]
            params[i] = p - lr * g
        history.append([p.copy() for p in params])
    return history


def adam_reference(values, grads_per_step, lr, betas, eps, weight_decay, amsgrad, maximize,
                   decoupled):
    beta1, beta2 = betas
    params = [v.copy() for v in values]
    m = [np.zeros_like(v) for v in values]
    v2 = [np.zeros_like(v) for v in values]
    vmax = [np.zeros_like(v) for v in values]
    history = []
    for t, grads in enumerate(grads_per_step, start=1):
        for i, g in enumerate(grads):
            g = -g if maximize else g
            if decoupled:
                params[i] = params[i] * (1 - lr * weight_decay)
            else:
                g = g + weight_decay * params[i]
            m[i] = beta1 * m[i] + (1 - beta1) * g
            v2[i] = beta2 * v2[i] + (1 - beta2) * g * g
            vmax[i] = np.maximum(vmax[i], v2[i])
            second = vmax[i] if amsgrad else v2[i]
            m_hat = m[i] / (1 - beta1 ** t)
            v_hat = second / (1 - beta2 ** t)
            # torch's placement of eps: sqrt(v_hat) + eps, i.e. outside the bias correction
            params[i] = params[i] - lr * m_hat / (np.sqrt(v_hat) + eps)
        history.append([p.copy() for p in params])
    return history


def _run(optimizer, values, grads_per_step):
    params = minflow_params(values)
    opt = optimizer(params)
    history = []
    for grads in grads_per_step:
        set_grads(params, grads)
        opt.step()
        history.append([p.detach().numpy().copy() for p in params])
    return history


def _check(history, expected, dtype):
    for step, (got, want) in enumerate(zip(history, expected), start=1):
        for i, (a, b) in enumerate(zip(got, want)):
            np.testing.assert_allclose(a, b, **tolerance(dtype), err_msg=f"step {step}, param {i}")


SGD_CASES = [dict(zip(("momentum", "dampening", "weight_decay", "nesterov", "maximize"), c))
             for c in itertools.product([0, 0.9], [0, 0.3], [0, 0.1], [False, True],
                                        [False, True])
             if not c[3] or (c[0] > 0 and c[1] == 0)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("options", SGD_CASES, ids=str)
def test_sgd_matches_formula(options, dtype):
    values, grads = initial_values(dtype), gradients(dtype)
    history = _run(lambda p: minflow.optim.SGD(p, lr=0.1, **options), values, grads)
    _check(history, sgd_reference(values, grads, lr=0.1, **options), dtype)


ADAM_CASES = [dict(zip(("weight_decay", "amsgrad", "maximize", "decoupled"), c))
              for c in itertools.product([0, 0.1], [False, True], [False, True],
                                         [False, True])]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("options", ADAM_CASES, ids=str)
def test_adam_matches_formula(options, dtype):
    values, grads = initial_values(dtype), gradients(dtype)
    kwargs = dict(options)
    decoupled = kwargs.pop("decoupled")
    optimizer = minflow.optim.AdamW if decoupled else minflow.optim.Adam
    history = _run(lambda p: optimizer(p, lr=0.01, betas=(0.8, 0.99), **kwargs), values, grads)
    expected = adam_reference(values, grads, lr=0.01, betas=(0.8, 0.99), eps=1e-8,
                              decoupled=decoupled, **kwargs)
    _check(history, expected, dtype)


def test_sgd_first_step_momentum_buffer_is_the_gradient():
    # torch's rule: buf = g on the first step, not (1 - dampening) * g
    w = minflow.tensor([0.0], requires_grad=True)
    opt = minflow.optim.SGD([w], lr=1.0, momentum=0.9, dampening=0.5)
    w.grad = minflow.tensor([2.0])
    opt.step()
    assert opt.state[w]["momentum_buffer"].tolist() == [2.0]
    assert w.tolist() == [-2.0]
    opt.step()
    assert opt.state[w]["momentum_buffer"].tolist() == pytest.approx([0.9 * 2.0 + 0.5 * 2.0])


def test_adam_step_is_a_float32_scalar_tensor():
    w = minflow.tensor([1.0, 2.0], dtype=minflow.float64, requires_grad=True)
    opt = minflow.optim.Adam([w])
    w.grad = minflow.ones(2, dtype=minflow.float64)
    for _ in range(3):
        opt.step()
    step = opt.state[w]["step"]
    assert (step.dtype, step.shape, step.item()) == (minflow.float32, (), 3.0)

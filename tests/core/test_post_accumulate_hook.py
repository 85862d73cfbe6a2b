"""Tensor.register_post_accumulate_grad_hook: hooks that see the leaf after its .grad is set."""

import numpy as np
import pytest

import minflow
from minflow import nn


def test_hook_sees_the_leaf_after_accumulation_and_after_grad_hooks():
    x = minflow.ones(2, requires_grad=True)
    seen = []
    x.register_hook(lambda g: g * 10)
    x.register_post_accumulate_grad_hook(
        lambda t: seen.append((t is x, t.grad.tolist(), minflow.is_grad_enabled())))
    (x * 3 + x).sum().backward()
    assert seen == [(True, [40.0, 40.0], False)]     # once, with the summed, hooked grad


def test_hook_runs_for_backward_inputs_and_create_graph_but_not_autograd_grad():
    x = minflow.ones(2, requires_grad=True)
    modes = []
    handle = x.register_post_accumulate_grad_hook(
        lambda t: modes.append(minflow.is_grad_enabled()))
    minflow.autograd.grad((x * 3).sum(), x)
    assert modes == []
    (x * 3).sum().backward(inputs=[x])
    (x * 3).sum().backward(create_graph=True)
    assert modes == [False, True]
    handle.remove()
    handle.remove()                                   # a second remove does nothing
    (x * 3).sum().backward()
    assert modes == [False, True]


def test_hook_errors_as_torch():
    x = minflow.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="cannot be registered on non-leaf tensors"):
        (x * 2).register_post_accumulate_grad_hook(lambda t: None)
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        minflow.ones(2).register_post_accumulate_grad_hook(lambda t: None)
    for result, error, message in [(lambda t: t.grad, RuntimeError, "should return None"),
                                   (lambda t: minflow.ones(1), RuntimeError,
                                    "'<lambda>' has changed the size of value"),
                                   (lambda t: 5, TypeError, "hook returned 'int'")]:
        handle = x.register_post_accumulate_grad_hook(result)
        with pytest.raises(error, match=message):
            (x * 2).sum().backward()
        handle.remove()
    x.register_post_accumulate_grad_hook(lambda t: t)      # the leaf itself is allowed
    (x * 2).sum().backward()


def _model(lib, weights):
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 1))
    with lib.no_grad():
        for p, w in zip(model.parameters(), weights):
            p.copy_(lib.tensor(w))
    return model


def _train_with_step_in_hook(lib, weights, batches):
    """The optimizer-in-backward pattern: one optimizer per parameter, stepped by its hook."""
    model = _model(lib, weights)
    optimizers = {p: lib.optim.Adam([p], lr=0.05) for p in model.parameters()}

    def step(p):
        optimizers[p].step()
        optimizers[p].zero_grad()

    for p in model.parameters():
        p.register_post_accumulate_grad_hook(step)
    for x, y in batches:
        ((model(lib.tensor(x)) - lib.tensor(y)) ** 2).mean().backward()
    return [p.detach().numpy() for p in model.parameters()]


def _train_plainly(lib, weights, batches):
    model = _model(lib, weights)
    optimizer = lib.optim.Adam(model.parameters(), lr=0.05)
    for x, y in batches:
        optimizer.zero_grad()
        ((model(lib.tensor(x)) - lib.tensor(y)) ** 2).mean().backward()
        optimizer.step()
    return [p.detach().numpy() for p in model.parameters()]


def _setup():
    rng = np.random.default_rng(0)
    weights = [rng.standard_normal(s).astype(np.float32) for s in [(4, 3), (4,), (1, 4), (1,)]]
    batches = [(rng.standard_normal((5, 3)).astype(np.float32),
                rng.standard_normal((5, 1)).astype(np.float32)) for _ in range(4)]
    return weights, batches


def test_optimizer_step_in_hook_trains_as_a_plain_loop():
    weights, batches = _setup()
    hooked = _train_with_step_in_hook(minflow, weights, batches)
    plain = _train_plainly(minflow, weights, batches)
    assert not np.allclose(hooked[0], weights[0])
    for a, b in zip(hooked, plain):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def test_optimizer_step_in_hook_matches_torch():
    torch = pytest.importorskip("torch")
    weights, batches = _setup()
    ours = _train_with_step_in_hook(minflow, weights, batches)
    theirs = _train_with_step_in_hook(torch, weights, batches)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)

"""Adafactor beyond the side-by-side torch table (test_optim_torch_parity.py): the same
steps on every device, higher-dim factoring as torch, and training a small model."""
import numpy as np
import pytest

import minflow


def _steps(device, values, grads, **options):
    params = [minflow.tensor(v, device=device, requires_grad=True) for v in values]
    opt = minflow.optim.Adafactor(params, **options)
    for step_grads in grads:
        for p, g in zip(params, step_grads):
            p.grad = minflow.tensor(g, device=device)
        opt.step()
    return [p.detach().cpu().numpy() for p in params], opt


def _data(shapes, steps=4, seed=0):
    rng = np.random.default_rng(seed)
    values = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    grads = [[rng.standard_normal(s).astype(np.float32) for s in shapes] for _ in range(steps)]
    return values, grads


def test_every_device_takes_the_same_steps(device):
    values, grads = _data([(3, 4), (5,), (2, 3, 2)])
    expected, _ = _steps("cpu", values, grads, lr=0.1, weight_decay=0.1)
    got, opt = _steps(device, values, grads, lr=0.1, weight_decay=0.1)
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    state = opt.state[opt.param_groups[0]["params"][2]]
    assert tuple(state["row_var"].shape) == (2, 3, 1)
    assert tuple(state["col_var"].shape) == (2, 1, 2)
    assert state["row_var"].device.type == device and state["step"].item() == 4


def test_three_dim_parameters_factor_as_torch():
    torch = pytest.importorskip("torch")
    values, grads = _data([(2, 3, 4), (4, 1)], steps=5, seed=2)
    ours, opt = _steps("cpu", values, grads, lr=0.05, d=1.2)
    params = [torch.tensor(v, requires_grad=True) for v in values]
    t_opt = torch.optim.Adafactor(params, lr=0.05, d=1.2)
    for step_grads in grads:
        for p, g in zip(params, step_grads):
            p.grad = torch.tensor(g)
        t_opt.step()
    for a, p in zip(ours, params):
        np.testing.assert_allclose(a, p.detach().numpy(), rtol=1e-5, atol=1e-6)
    for p, tp in zip(opt.param_groups[0]["params"], params):
        for key, value in t_opt.state[tp].items():
            np.testing.assert_allclose(opt.state[p][key].numpy(), value.numpy(), rtol=1e-5,
                                       atol=1e-7)


def test_trains_a_small_regression():
    minflow.manual_seed(0)
    model = minflow.nn.Sequential(minflow.nn.Linear(4, 8), minflow.nn.Tanh(),
                                  minflow.nn.Linear(8, 1))
    x = minflow.randn(64, 4)
    y = x @ minflow.tensor([[1.0], [-2.0], [0.5], [3.0]])
    opt = minflow.optim.Adafactor(model.parameters(), lr=0.05)
    losses = []
    for _ in range(60):
        opt.zero_grad()
        loss = minflow.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.2 * losses[0]

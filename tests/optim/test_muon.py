"""Muon side by side with torch.optim.Muon: the bfloat16 Newton-Schulz iteration bit for bit,
parameters and momentum buffers after each step, errors, state_dict; the same steps on every
device."""
import numpy as np
import pytest

import minflow
from minflow.optim.muon import zeropower_via_newtonschulz

SHAPES = [(4, 6), (7, 3), (5, 5)]
OPTIONS = [{}, {"nesterov": False}, {"adjust_lr_fn": "match_rms_adamw", "weight_decay": 0.0},
           {"adjust_lr_fn": "original", "momentum": 0.5, "ns_steps": 3, "eps": 1e-3},
           {"ns_coefficients": (2.0, -1.5, 0.5), "weight_decay": 0.3, "lr": 0.05}]


def _data(shape, steps=5, seed=0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape).astype(dtype),
            [rng.standard_normal(shape).astype(dtype) for _ in range(steps)])


def _minflow_steps(value, grads, device="cpu", **options):
    w = minflow.tensor(value, device=device, requires_grad=True)
    opt = minflow.optim.Muon([w], **options)
    trace = []
    for g in grads:
        w.grad = minflow.tensor(g, device=device)
        opt.step()
        trace.append((w.detach().cpu().numpy().copy(),
                      opt.state[w]["momentum_buffer"].cpu().numpy().copy()))
    return trace, opt


@pytest.mark.parametrize("steps", [1, 5])
@pytest.mark.parametrize("shape", SHAPES)
def test_newton_schulz_matches_torch_bit_for_bit(shape, steps):
    torch = pytest.importorskip("torch")
    from torch.optim._muon import _zeropower_via_newtonschulz
    value, _ = _data(shape, seed=3)
    coefficients = (3.4445, -4.7750, 2.0315)
    expected = _zeropower_via_newtonschulz(torch.tensor(value), coefficients, steps, 1e-7)
    got = zeropower_via_newtonschulz(minflow.tensor(value), coefficients, steps, 1e-7)
    assert got.dtype is minflow.bfloat16 and tuple(got.shape) == shape
    np.testing.assert_array_equal(got.float().numpy(), expected.float().numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("options", OPTIONS, ids=str)
@pytest.mark.parametrize("shape", SHAPES)
def test_steps_match_torch(shape, options, dtype):
    torch = pytest.importorskip("torch")
    value, grads = _data(shape, dtype=dtype)
    trace, _ = _minflow_steps(value, grads, **dict({"lr": 0.02}, **options))
    w = torch.tensor(value, requires_grad=True)
    opt = torch.optim.Muon([w], **dict({"lr": 0.02}, **options))
    for step, (g, (param, buf)) in enumerate(zip(grads, trace)):
        w.grad = torch.tensor(g)
        opt.step()
        # NOTE: the bfloat16 iteration is bit for bit; what differs is torch's fused
        # multiply-add in param.add_(update, alpha=-lr), one float rounding per step
        np.testing.assert_allclose(param, w.detach().numpy(), rtol=1e-6, atol=1e-7,
                                   err_msg=f"param after step {step + 1}")
        np.testing.assert_allclose(buf, opt.state[w]["momentum_buffer"].numpy(), rtol=1e-6,
                                   atol=1e-7, err_msg=f"momentum_buffer after step {step + 1}")


def test_every_device_takes_the_same_steps(device):
    value, grads = _data((6, 4), seed=1)
    expected, _ = _minflow_steps(value, grads, lr=0.02)
    got, _ = _minflow_steps(value, grads, device=device, lr=0.02)
    # NOTE: cuda's float32 products may round a few bfloat16 values the other way: each
    # such element moves by lr times a bfloat16 step (2^-8 relative)
    atol = 0 if device == "cpu" else 2e-4
    for (param, buf), (param_ref, buf_ref) in zip(got, expected):
        np.testing.assert_allclose(param, param_ref, rtol=0, atol=atol)
        np.testing.assert_allclose(buf, buf_ref, rtol=1e-6, atol=1e-7)


def test_float32_rounded_as_bfloat16_matches_the_cast():
    """The rounding Muon's iteration uses on devices without bfloat16."""
    from minflow.optim.muon import round_to_bfloat16
    rng = np.random.default_rng(4)
    values = rng.standard_normal(20000) * 10.0 ** rng.integers(-10, 10, 20000)
    x = minflow.tensor(values.astype(np.float32))
    np.testing.assert_array_equal(round_to_bfloat16(x).numpy(),
                                  x.bfloat16().float().numpy())


def test_error_messages_match_torch():
    torch = pytest.importorskip("torch")
    cases = [({"lr": -1}, (2, 2)), ({"momentum": -0.5}, (2, 2)),
             ({"weight_decay": -1}, (2, 2)), ({"adjust_lr_fn": "sqrt"}, (2, 2)),
             ({}, (3,)), ({}, (2, 2, 2))]
    for options, shape in cases:
        with pytest.raises(ValueError) as expected:
            torch.optim.Muon([torch.zeros(shape, requires_grad=True)], **options)
        with pytest.raises(ValueError) as got:
            minflow.optim.Muon([minflow.zeros(shape, requires_grad=True)], **options)
        assert str(got.value) == str(expected.value).replace("torch.", "minflow."), options


@pytest.mark.parametrize("options", [{"ns_steps": 100}, {"ns_coefficients": (1.0, 2.0)}])
def test_iteration_errors_at_the_step_match_torch(options):
    torch = pytest.importorskip("torch")
    tw, w = torch.ones(2, 3, requires_grad=True), minflow.ones(2, 3, requires_grad=True)
    tw.grad, w.grad = torch.ones(2, 3), minflow.ones(2, 3)
    with pytest.raises(ValueError) as expected:
        torch.optim.Muon([tw], **options).step()
    with pytest.raises(ValueError) as got:
        minflow.optim.Muon([w], **options).step()
    assert str(got.value) == str(expected.value)


def test_state_dict_layout_matches_torch_and_resumes():
    torch = pytest.importorskip("torch")
    value, grads = _data((3, 5), seed=2)
    full, _ = _minflow_steps(value, grads, lr=0.03)
    first, opt = _minflow_steps(value, grads[:2], lr=0.03)
    t_w = torch.tensor(value, requires_grad=True)
    t_opt = torch.optim.Muon([t_w], lr=0.03)
    t_w.grad = torch.tensor(grads[0])
    t_opt.step()
    sd, t_sd = opt.state_dict(), t_opt.state_dict()
    assert sd["param_groups"] == t_sd["param_groups"]
    assert sd["state"].keys() == t_sd["state"].keys()
    assert sd["state"][0].keys() == t_sd["state"][0].keys()
    resumed = minflow.tensor(first[-1][0], requires_grad=True)
    opt2 = minflow.optim.Muon([resumed], lr=0.5)
    opt2.load_state_dict(sd)
    assert opt2.param_groups[0]["lr"] == 0.03
    for g, (param, _) in zip(grads[2:], full[2:]):
        resumed.grad = minflow.tensor(g)
        opt2.step()
        np.testing.assert_array_equal(resumed.detach().numpy(), param)


def test_trains_a_small_linear_layer():
    minflow.manual_seed(0)
    x = minflow.randn(64, 8)
    target = x @ minflow.randn(8, 4)
    w = minflow.zeros(4, 8, requires_grad=True)
    opt = minflow.optim.Muon([w], lr=0.05, weight_decay=0.0)
    losses = []
    for _ in range(60):
        opt.zero_grad()
        loss = ((x @ w.T - target) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.05 * losses[0]

"""Training parity with PyTorch: from the same initial weights and batches, minflow and
torch give the same loss at every step, for an MLP and a CNN with BatchNorm, under SGD
(momentum, weight decay, nesterov) and Adam/AdamW. Skipped where torch is not installed."""
import numpy as np
import pytest

import minflow
from minflow import nn, optim

torch = pytest.importorskip("torch")

STEPS = 12


def mlp(lib):
    return lib.nn.Sequential(lib.nn.Flatten(), lib.nn.Linear(64, 32), lib.nn.ReLU(),
                             lib.nn.Linear(32, 32), lib.nn.Tanh(), lib.nn.Linear(32, 10))


def cnn(lib):
    # NOTE: no conv bias before BatchNorm: its true gradient is 0, so Adam would amplify
    # rounding noise (different in every library) into full-size steps.
    return lib.nn.Sequential(
        lib.nn.Conv2d(1, 4, 3, padding=1, bias=False), lib.nn.BatchNorm2d(4), lib.nn.ReLU(),
        lib.nn.MaxPool2d(2), lib.nn.Conv2d(4, 6, 3, bias=False), lib.nn.BatchNorm2d(6),
        lib.nn.GELU(),
        lib.nn.Flatten(), lib.nn.Linear(6 * 2 * 2, 10))


OPTIMIZERS = {
    "sgd_momentum_wd": ("SGD", dict(lr=0.05, momentum=0.9, weight_decay=1e-3)),
    "sgd_nesterov": ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, dampening=0.0)),
    "adam": ("Adam", dict(lr=3e-3, weight_decay=1e-4)),
    "adamw_amsgrad": ("AdamW", dict(lr=3e-3, amsgrad=True)),
}


def copy_weights(torch_model, model):
    state = {k: minflow.tensor(v.detach().numpy()) for k, v in torch_model.state_dict().items()}
    model.load_state_dict(state)


def batches(seed):
    """Two fixed batches in turn: a small set the models can fit, so the loss falls."""
    rng = np.random.default_rng(seed)
    pool = [(rng.normal(size=(16, 1, 8, 8)).astype(np.float32),
             rng.integers(0, 10, 16).astype(np.int64)) for _ in range(2)]
    for step in range(STEPS):
        yield pool[step % 2]


def losses(lib, model, optimizer, as_tensor):
    out = []
    for x, y in batches(1):
        loss = lib.nn.functional.cross_entropy(model(as_tensor(x)), as_tensor(y))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        out.append(loss.item())
    return np.array(out)


@pytest.mark.parametrize("opt_name", list(OPTIMIZERS))
@pytest.mark.parametrize("build", [mlp, cnn], ids=["mlp", "cnn"])
def test_loss_sequence_matches_torch(build, opt_name):
    cls, kwargs = OPTIMIZERS[opt_name]
    torch.manual_seed(0)
    torch_model = build(torch)
    model = build(minflow)
    copy_weights(torch_model, model)
    expected = losses(torch, torch_model, getattr(torch.optim, cls)(
        torch_model.parameters(), **kwargs), torch.from_numpy)
    got = losses(minflow, model, getattr(optim, cls)(model.parameters(), **kwargs),
                 minflow.tensor)
    assert expected[-1] < expected[0]          # the run trains, so the comparison means something
    np.testing.assert_allclose(got, expected, rtol=1e-4)
    for key, value in torch_model.state_dict().items():
        np.testing.assert_allclose(model.state_dict()[key].numpy(), value.numpy(),
                                   rtol=1e-3, atol=1e-5, err_msg=key)


def test_state_dict_keys_match_torch():
    for build in (mlp, cnn):
        ours = {k: tuple(v.shape) for k, v in build(minflow).state_dict().items()}
        theirs = {k: tuple(v.shape) for k, v in build(torch).state_dict().items()}
        assert ours == theirs

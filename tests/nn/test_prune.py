"""nn.utils.prune: masks, reparametrization, iterative and global pruning, remove, and
training through a pruned layer, against torch where it is installed."""
import math

import numpy as np
import pytest

import minflow
from minflow import nn
from minflow.nn.utils import prune


def _linear(weights, bias=None):
    lin = nn.Linear(weights.shape[1], weights.shape[0], bias=bias is not None)
    with minflow.no_grad():
        lin.weight.copy_(minflow.tensor(weights))
        if bias is not None:
            lin.bias.copy_(minflow.tensor(bias))
    return lin


W = np.array([[0.3, -1.2, 0.05, 2.0], [-0.7, 0.2, 1.5, -0.01], [0.9, -0.4, 0.6, 1.1]],
             np.float32)


def test_l1_unstructured_zeroes_the_smallest_and_reparametrizes():
    lin = _linear(W, np.zeros(3, np.float32))
    assert prune.l1_unstructured(lin, "weight", amount=0.25) is lin        # 3 of 12
    expected = W * (np.abs(W) > 0.2)
    np.testing.assert_array_equal(lin.weight.detach().numpy(), expected)
    np.testing.assert_array_equal(lin.weight_mask.numpy(), (np.abs(W) > 0.2).astype(np.float32))
    assert [n for n, _ in lin.named_parameters()] == ["bias", "weight_orig"]
    assert [n for n, _ in lin.named_buffers()] == ["weight_mask"]
    assert sorted(lin.state_dict()) == ["bias", "weight_mask", "weight_orig"]
    assert prune.is_pruned(lin) and not prune.is_pruned(nn.Linear(2, 2))


def test_the_pruned_weight_follows_training_and_pruned_entries_get_no_gradient():
    lin = _linear(W)
    prune.l1_unstructured(lin, "weight", amount=4)
    lin(minflow.ones(1, 4)).sum().backward()
    grad = lin.weight_orig.grad.numpy()
    assert (grad[lin.weight_mask.numpy() == 0] == 0).all()
    assert (grad[lin.weight_mask.numpy() == 1] != 0).all()
    with minflow.no_grad():
        lin.weight_orig.add_(1.0)
    lin(minflow.ones(1, 4))              # the pre-hook recomputes weight before forward
    np.testing.assert_allclose(lin.weight.detach().numpy(), (W + 1) * lin.weight_mask.numpy())


def test_iterative_pruning_picks_among_the_unpruned_entries():
    lin = _linear(W)
    prune.l1_unstructured(lin, "weight", amount=3)
    prune.l1_unstructured(lin, "weight", amount=3)
    assert isinstance(lin._forward_pre_hooks[next(iter(lin._forward_pre_hooks))],
                      prune.PruningContainer)
    assert int(lin.weight_mask.sum()) == 6       # 3 more of the 9 left, not the same 3 again
    np.testing.assert_array_equal(lin.weight_mask.numpy(), (np.abs(W) > 0.6).astype(np.float32))


def test_ln_structured_prunes_whole_rows_by_norm():
    lin = _linear(W)
    prune.ln_structured(lin, "weight", amount=1, n=2, dim=0)
    norms = np.linalg.norm(W, axis=1)
    dropped = norms.argmin()
    assert (lin.weight.detach().numpy()[dropped] == 0).all()
    assert (lin.weight.detach().numpy()[np.arange(3) != dropped] != 0).all()


def test_remove_makes_the_pruning_permanent():
    lin = _linear(W)
    prune.l1_unstructured(lin, "weight", amount=0.5)
    masked = lin.weight.detach().numpy().copy()
    prune.remove(lin, "weight")
    assert isinstance(lin.weight, nn.Parameter)
    np.testing.assert_array_equal(lin.weight.detach().numpy(), masked)
    assert [n for n, _ in lin.named_parameters()] == ["weight"] and not list(lin.buffers())
    assert not prune.is_pruned(lin)
    with pytest.raises(ValueError, match="has to be pruned before pruning can be removed"):
        prune.remove(lin, "weight")


def test_random_pruning_prunes_the_asked_amount():
    minflow.manual_seed(0)
    conv = nn.Conv2d(3, 8, 3)
    prune.random_unstructured(conv, "weight", amount=0.3)
    assert int((conv.weight_mask == 0).sum()) == round(0.3 * conv.weight.numel())
    prune.random_structured(conv, "weight", amount=2, dim=0)
    channels = conv.weight_mask.sum(dim=(1, 2, 3))
    assert int((channels == 0).sum()) == 2


def test_argument_errors_as_torch():
    lin = _linear(W)
    with pytest.raises(ValueError, match="should either be a float in the range"):
        prune.l1_unstructured(lin, "weight", amount=1.5)
    with pytest.raises(TypeError, match="Invalid type for amount"):
        prune.l1_unstructured(lin, "weight", amount="a lot")
    with pytest.raises(ValueError, match="should be smaller than the number of parameters"):
        prune.l1_unstructured(lin, "weight", amount=13)
    assert [n for n, _ in lin.named_parameters()] == ["weight"]     # rolled back
    with pytest.raises(ValueError, match="Structured pruning can only be applied"):
        prune.ln_structured(_linear(W, np.zeros(3, np.float32)), "bias", 1, 2, 0)
    with pytest.raises(TypeError, match='Only "unstructured"'):
        prune.global_unstructured([(lin, "weight")], prune.LnStructured, amount=1, n=2, dim=0)


def _torch_pair():
    torch = pytest.importorskip("torch")
    import torch.nn.utils.prune  # noqa: F401  (not imported by torch itself)
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in ((6, 5), (6,), (3, 6), (3,))]

    def build(lib):
        model = lib.nn.Sequential(lib.nn.Linear(5, 6), lib.nn.ReLU(), lib.nn.Linear(6, 3))
        with lib.no_grad():
            for p, a in zip(model.parameters(), arrays):
                p.copy_(lib.tensor(a))
        return model
    return torch, build(torch), build(minflow)


def test_pruning_a_network_matches_torch():
    torch, theirs, ours = _torch_pair()
    for lib, model in ((torch.nn.utils.prune, theirs), (prune, ours)):
        lib.global_unstructured([(model[0], "weight"), (model[2], "weight")],
                                pruning_method=lib.L1Unstructured, amount=0.4)
        lib.ln_structured(model[0], "weight", amount=0.34, n=1, dim=1)
        lib.l1_unstructured(model[2], "bias", amount=1)
        lib.l1_unstructured(model[0], "bias", amount=2, importance_scores=(
            model[0].bias * 0 + torch.arange(6.0) if lib is torch.nn.utils.prune else
            model[0].bias * 0 + minflow.arange(6.0)))
    assert sorted(theirs.state_dict()) == sorted(ours.state_dict())
    for key, value in theirs.state_dict().items():
        np.testing.assert_array_equal(ours.state_dict()[key].detach().numpy(), value.numpy(),
                                      err_msg=key)
    x = np.random.default_rng(1).standard_normal((4, 5)).astype(np.float32)
    t_opt = torch.optim.SGD(theirs.parameters(), lr=0.1)
    m_opt = minflow.optim.SGD(ours.parameters(), lr=0.1)
    for _ in range(3):      # training moves the _orig parameters; masks stay applied
        for lib, model, opt in ((torch, theirs, t_opt), (minflow, ours, m_opt)):
            opt.zero_grad()
            model(lib.tensor(x)).pow(2).mean().backward()
            opt.step()
    for (name, t), (_, m) in zip(theirs.named_parameters(), ours.named_parameters()):
        np.testing.assert_allclose(m.detach().numpy(), t.detach().numpy(), rtol=1e-5,
                                   atol=1e-6, err_msg=name)
    for lib, model in ((torch.nn.utils.prune, theirs), (prune, ours)):
        lib.remove(model[0], "weight")
    np.testing.assert_allclose(ours[0].weight.detach().numpy(),
                               theirs[0].weight.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert math.isclose(float((ours[0].weight == 0).float().mean()),
                        float((theirs[0].weight == 0).float().mean()))

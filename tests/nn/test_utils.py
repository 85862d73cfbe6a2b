"""minflow.nn.utils: clip_grad_norm_, clip_grad_value_, parameters_to_vector (vs torch)."""
import numpy as np
import pytest

import minflow
import minflow.nn as nn
from minflow.nn.utils import (clip_grad_norm_, clip_grad_value_, parameters_to_vector,
                              vector_to_parameters)

rng = np.random.RandomState(0)
GRADS = [rng.randn(3, 4), rng.randn(5), rng.randn(2, 2)]


def params_with_grads(device="cpu"):
    ps = [nn.Parameter(minflow.zeros(*g.shape, dtype=minflow.float64, device=device))
          for g in GRADS]
    for p, g in zip(ps, GRADS):
        p.grad = minflow.tensor(g, device=device)
    return ps


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, float("inf")])
def test_clip_grad_norm_matches_formula(norm_type, device):
    ps = params_with_grads(device)
    flat = np.concatenate([g.ravel() for g in GRADS])
    total = np.abs(flat).max() if norm_type == float("inf") else \
        (np.abs(flat) ** norm_type).sum() ** (1 / norm_type)
    result = clip_grad_norm_(ps, max_norm=0.5, norm_type=norm_type)
    np.testing.assert_allclose(result.item(), total, 1e-10)
    scale = min(1.0, 0.5 / (total + 1e-6))
    for p, g in zip(ps, GRADS):
        np.testing.assert_allclose(p.grad.cpu().numpy(), g * scale, 1e-10)


def test_clip_grad_norm_leaves_small_grads_and_handles_edge_cases():
    ps = params_with_grads()
    clip_grad_norm_(ps, max_norm=1e6)
    np.testing.assert_allclose(ps[0].grad.numpy(), GRADS[0])
    assert clip_grad_norm_([nn.Parameter(minflow.ones(2))], 1.0).item() == 0.0
    single = params_with_grads()[1]
    clip_grad_norm_(single, 1.0)                          # a single tensor is accepted
    np.testing.assert_allclose(np.linalg.norm(single.grad.numpy()), 1.0, 1e-5)
    bad = params_with_grads()
    bad[0].grad = minflow.tensor(np.full((3, 4), np.inf))
    with pytest.raises(RuntimeError, match="non-finite"):
        clip_grad_norm_(bad, 1.0, error_if_nonfinite=True)


def test_clip_grad_matches_torch():
    torch = pytest.importorskip("torch")
    tp = [torch.zeros(g.shape, dtype=torch.float64, requires_grad=True) for g in GRADS]
    for p, g in zip(tp, GRADS):
        p.grad = torch.tensor(g)
    ours = clip_grad_norm_(params_with_grads(), 1.0, norm_type=3.0)
    theirs = torch.nn.utils.clip_grad_norm_(tp, 1.0, norm_type=3.0)
    np.testing.assert_allclose(ours.item(), theirs.item(), 1e-10)
    mine = params_with_grads()
    clip_grad_value_(mine, 0.3)
    for p, g in zip(tp, GRADS):
        p.grad = torch.tensor(g)
    torch.nn.utils.clip_grad_value_(tp, 0.3)
    for p, q in zip(mine, tp):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), 1e-10)


def test_parameters_to_vector_round_trip():
    m = nn.Linear(3, 2)
    vec = parameters_to_vector(m.parameters())
    assert vec.shape == (8,) and vec.requires_grad
    vector_to_parameters(minflow.arange(8.0), m.parameters())
    assert m.weight.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and m.bias.tolist() == [6, 7]
    with pytest.raises(ValueError, match="vec has 3 elements, the parameters 8"):
        vector_to_parameters(minflow.ones(3), m.parameters())


def test_deprecated_clip_grad_norm_warns_and_clips():
    p = minflow.nn.Parameter(minflow.ones(2))
    p.grad = minflow.ones(2) * 3
    with pytest.warns(FutureWarning, match="clip_grad_norm is now deprecated"):
        total = minflow.nn.utils.clip_grad_norm([p], 1.0)
    assert total.item() == pytest.approx(18 ** 0.5)
    np.testing.assert_allclose(p.grad.numpy(), [0.5 ** 0.5] * 2, rtol=1e-5)

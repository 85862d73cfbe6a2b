"""The eager shortcuts past the dispatcher's checks (dispatch.apply_in_backward,
dispatch.run_in_place, ops.optim.run_foreach_checked) give the dispatcher's results bit for
bit, and step aside where they do not apply: a profiler observing, create_graph, graph
mode, or inputs the op's own checks must reject."""
import numpy as np
import pytest

import minflow
from minflow import nn, optim
from minflow.nn import functional as F


def _mlp_grads(dtype):
    """Gradients of an MLP's cross-entropy (linear_grad, linear_grad_params, relu_grad,
    cross_entropy_grad in backward), as float32 arrays, and their dtypes."""
    rng = np.random.default_rng(0)
    params = [minflow.tensor(rng.standard_normal(s), dtype=dtype, requires_grad=True)
              for s in ((5, 4), (5,), (3, 5), (3,))]
    x = minflow.tensor(rng.standard_normal((6, 4)), dtype=dtype)
    y = minflow.tensor([0, 1, 2, 0, 1, 2])
    w1, b1, w2, b2 = params
    F.cross_entropy(F.linear(F.relu(F.linear(x, w1, b1)), w2, b2), y).backward()
    return [p.grad.float().numpy() for p in params], [p.grad.dtype for p in params]


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64"])
def test_backward_ops_give_the_dispatchers_grads_bit_for_bit(dtype):
    dtype = getattr(minflow, dtype)
    fast, fast_dtypes = _mlp_grads(dtype)
    with minflow.profiler.profile() as prof:     # an observer: every op goes through apply
        checked, checked_dtypes = _mlp_grads(dtype)
    names = [e.name for e in prof.events()]
    assert {"linear_grad", "linear_grad_params", "relu_grad", "cross_entropy_grad"} <= set(names)
    assert fast_dtypes == checked_dtypes == [dtype] * 4
    for a, b in zip(fast, checked):
        np.testing.assert_array_equal(a, b)


def test_backward_with_create_graph_goes_through_the_dispatcher():
    rng = np.random.default_rng(1)
    x = minflow.tensor(rng.standard_normal((2, 4)))
    y = minflow.tensor([0, 2])
    w = minflow.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    (g,) = minflow.autograd.grad(F.relu(F.linear(x, w)).sum(), w, create_graph=True)
    assert g.grad_fn is not None                 # relu_grad was recorded
    mask = (x.numpy() @ w.detach().numpy().T > 0).astype(np.float64)
    np.testing.assert_allclose(g.detach().numpy(), mask.T @ x.numpy())

    def loss(w):
        return F.cross_entropy(F.linear(F.relu(x), w), y)
    assert minflow.autograd.gradgradcheck(loss, (w,))


def test_add_with_alpha_outside_autograd_bumps_the_version():
    w = minflow.ones(3, requires_grad=True)
    y = (w * w).sum()                            # mul saves w
    with minflow.no_grad():
        w.add_(minflow.ones(3), alpha=0.5)
    np.testing.assert_array_equal(w.detach().numpy(), [1.5, 1.5, 1.5])
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_add_with_alpha_is_the_dispatchers_result():
    rng = np.random.default_rng(2)
    a = rng.standard_normal(1000).astype(np.float32)
    b = rng.standard_normal(1000).astype(np.float32)
    fast, checked = minflow.tensor(a), minflow.tensor(a)
    fast.add_(minflow.tensor(b), alpha=-0.1)
    with minflow.profiler.profile():
        checked.add_(minflow.tensor(b), alpha=-0.1)
    np.testing.assert_array_equal(fast.numpy(), checked.numpy())


@pytest.mark.parametrize("momentum", [0.0, 0.9])
def test_sgd_step_is_the_dispatchers_result(momentum):
    def run(observe):
        minflow.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 2))
        opt = optim.SGD(model.parameters(), lr=0.1, momentum=momentum)
        for _ in range(3):
            model(minflow.ones(3, 4)).pow(2).sum().backward()
            if observe:
                with minflow.profiler.profile():
                    opt.step()
            else:
                opt.step()
            opt.zero_grad()
        return [p.detach().numpy() for p in model.parameters()]
    for a, b in zip(run(False), run(True)):
        np.testing.assert_array_equal(a, b)


def test_sgd_step_checks_a_grad_the_user_set():
    model = nn.Linear(3, 2)
    opt = optim.SGD(model.parameters(), lr=0.1)
    model(minflow.ones(1, 3)).sum().backward()
    opt.step()                                   # the kernel is cached from here on
    model.weight.grad = minflow.ones(2, 3, dtype=minflow.float64)
    with pytest.raises(RuntimeError, match=r"sgd_update_foreach: params\[0\]: expected grad "
                                           r"with param's shape \[2, 3\] and dtype float32"):
        opt.step()


def test_sgd_step_checks_a_loaded_momentum_buffer():
    model = nn.Linear(3, 2)
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model(minflow.ones(1, 3)).sum().backward()
    opt.step()
    state = opt.state_dict()
    state["state"][1]["momentum_buffer"] = minflow.zeros(5)
    opt.load_state_dict(state)
    with pytest.raises(RuntimeError, match=r"params\[1\]: expected momentum_buffer with "
                                           r"param's shape \[2\]"):
        opt.step()

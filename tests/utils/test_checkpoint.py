"""utils.checkpoint against plain forward/backward and torch: same outputs and grads
(parameters, inputs, closure tensors), dropout masks reproduced, autograd.grad and double
backward through the non-reentrant form, the segment's saved tensors freed after forward,
checkpoint_sequential, and nn.Graph training through a checkpointed model."""
import weakref

import numpy as np
import pytest

import minflow
import minflow.nn as nn
from minflow.utils.checkpoint import checkpoint, checkpoint_sequential
from _train_graph import TrainGraph


def make_net(seed=0, p=0.5):
    minflow.manual_seed(seed)
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Dropout(p), nn.Linear(8, 3))


def grads_of(net, x):
    return [p.grad.cpu().numpy().copy() for p in net.parameters()] + [x.grad.cpu().numpy()]


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_same_values_and_grads_as_without_checkpoint_with_dropout(use_reentrant, device):
    net = make_net().to(device)
    x = minflow.randn(6, 4, device=device, requires_grad=True)
    minflow.manual_seed(5)
    y = checkpoint(net, x, use_reentrant=use_reentrant)
    y.square().sum().backward()
    got = grads_of(net, x)
    net.zero_grad(), setattr(x, "grad", None)
    minflow.manual_seed(5)
    expected_y = net(x)
    expected_y.square().sum().backward()
    np.testing.assert_array_equal(y.detach().cpu().numpy(), expected_y.detach().cpu().numpy())
    for a, b in zip(got, grads_of(net, x)):
        np.testing.assert_allclose(a, b, 1e-6, 1e-7)
    assert (expected_y.detach().cpu().numpy() != 0).any()


def test_without_preserve_rng_state_dropout_draws_a_new_mask():
    net = make_net()
    x = minflow.randn(64, 4, requires_grad=True)
    state = minflow.default_generator.get_state()
    checkpoint(net, x, use_reentrant=False, preserve_rng_state=False).sum().backward()
    got = x.grad.numpy().copy()
    x.grad = None
    minflow.default_generator.set_state(state)
    net(x).sum().backward()
    assert not np.allclose(got, x.grad.numpy())


def test_non_reentrant_reaches_closure_tensors_and_supports_autograd_grad():
    w = minflow.randn(3, 3, requires_grad=True)
    h = (w * 2).tanh()                          # made outside, used inside through a closure
    x = minflow.randn(2, 3, requires_grad=True)

    def f(x):
        return (x @ h).sin() * x.sum()

    y = checkpoint(f, x, use_reentrant=False)
    gx, gw = minflow.autograd.grad(y.sum(), (x, w), retain_graph=True)
    ex, ew = minflow.autograd.grad(f(x).sum(), (x, w))
    np.testing.assert_allclose(gx.numpy(), ex.numpy(), 1e-6)
    np.testing.assert_allclose(gw.numpy(), ew.numpy(), 1e-6)


def test_double_backward_through_non_reentrant():
    x = minflow.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = checkpoint(lambda t: (t ** 3).sum(), x, use_reentrant=False)
    (g,) = minflow.autograd.grad(y, x, create_graph=True)
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 6 * x.detach().numpy(), 1e-6)


def test_saved_tensors_of_the_segment_are_freed():
    x = minflow.randn(4, 4, requires_grad=True)
    inner = []

    def f(t):
        a = t.exp()
        inner.append(weakref.ref(a))
        return (a * a).sum()

    y = checkpoint(f, x, use_reentrant=False)
    assert inner[0]() is None       # freed at once (no gc pass): plain forward keeps `a` saved
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp(2 * x.detach().numpy()), 1e-5)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_nested_checkpoint_and_multiple_outputs():
    net = make_net(p=0.0)
    x = minflow.randn(3, 4, requires_grad=True)

    def outer(t):
        h = checkpoint(net[0], t, use_reentrant=False)
        return net[3](net[1](h)), h.mean()

    out, m = checkpoint(outer, x, use_reentrant=False)
    (out.sum() + m).backward()
    got = grads_of(net, x)
    net.zero_grad(), setattr(x, "grad", None)
    out, m = outer(x)
    (out.sum() + m).backward()
    for a, b in zip(got, grads_of(net, x)):
        np.testing.assert_allclose(a, b, 1e-6, 1e-7)


def test_reentrant_warns_and_refuses_nothing_silently():
    net = make_net(p=0.0)
    x = minflow.randn(2, 4)
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed"):
        with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
            y = checkpoint(net, x)
    assert not y.requires_grad                  # as torch: the parameters get no grads
    y2 = checkpoint(net, x, use_reentrant=False)
    y2.sum().backward()
    assert net[0].weight.grad is not None
    with pytest.raises(ValueError, match="Unexpected keyword arguments: scale"):
        checkpoint(net, x, use_reentrant=True, scale=2)


def test_matches_torch_checkpoint_sequential():
    torch = pytest.importorskip("torch")
    layers = [torch.nn.Linear(3, 3) for _ in range(5)]
    tnet = torch.nn.Sequential(*[m for layer in layers for m in (layer, torch.nn.GELU())])
    net = nn.Sequential(*[m for _ in range(5) for m in (nn.Linear(3, 3), nn.GELU())])
    net.load_state_dict({k: minflow.tensor(v.numpy()) for k, v in tnet.state_dict().items()})
    xs = np.random.RandomState(0).randn(4, 3).astype(np.float32)
    x, tx = minflow.tensor(xs, requires_grad=True), torch.tensor(xs, requires_grad=True)
    out = checkpoint_sequential(net, 3, x, use_reentrant=False)
    tout = torch.utils.checkpoint.checkpoint_sequential(tnet, 3, tx, use_reentrant=False)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), 1e-5, 1e-6)
    out.square().sum().backward()
    tout.square().sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), 1e-4, 1e-6)
    for p, tp in zip(net.parameters(), tnet.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), 1e-4, 1e-6)


class Checkpointed(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 8), nn.Tanh())
        self.head = nn.Linear(8, 1)

    def forward(self, x):
        return self.head(checkpoint(self.body, x, use_reentrant=False))


def test_checkpointed_model_trains_the_same_in_nn_graph_and_eager():
    minflow.manual_seed(1)
    eager, graph_model = Checkpointed(), Checkpointed()
    graph_model.load_state_dict(eager.state_dict())
    opt = minflow.optim.SGD(eager.parameters(), lr=0.1)
    graph = TrainGraph(graph_model, minflow.optim.SGD(graph_model.parameters(), lr=0.1))
    x, y = minflow.randn(16, 4), minflow.randn(16, 1)
    for _ in range(3):
        loss = (eager(x) - y).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        np.testing.assert_allclose(graph(x, y).item(), loss.item(), 1e-5)

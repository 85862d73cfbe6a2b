"""AdaptiveLogSoftmaxWithLoss against torch: with torch's weights, output, loss, input and
parameter grads, log_prob and predict; unbatched input; repr, state_dict; errors."""
import numpy as np
import pytest

import minflow

torch = pytest.importorskip("torch")

rng = np.random.RandomState(23)
X = rng.randn(7, 8)
Y = np.array([0, 3, 5, 9, 12, 19, 4])


def _pair(**kwargs):
    theirs = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 20, **kwargs).double()
    ours = minflow.nn.AdaptiveLogSoftmaxWithLoss(8, 20, **kwargs).double()
    ours.load_state_dict({k: minflow.tensor(v.detach().numpy())
                          for k, v in theirs.state_dict().items()})
    return ours, theirs


@pytest.mark.parametrize("kwargs", [dict(cutoffs=[4, 10]),
                                    dict(cutoffs=[2, 5, 15], div_value=2.0, head_bias=True)])
def test_matches_torch(kwargs):
    ours, theirs = _pair(**kwargs)
    assert repr(ours) == repr(theirs)
    assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in theirs.state_dict().items()]
    results = []
    for lib, module in ((minflow, ours), (torch, theirs)):
        x = lib.tensor(X, requires_grad=True)
        out = module(x, lib.tensor(Y))
        out.loss.backward()
        results.append([out.output.detach().numpy(), np.array(out.loss.item()),
                        x.grad.numpy(), module.log_prob(x).detach().numpy(),
                        module.predict(x).numpy()]
                       + [p.grad.numpy() for p in module.parameters()])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_unbatched_input():
    ours, theirs = _pair(cutoffs=[4])
    got = ours(minflow.tensor(X[0]), minflow.tensor(13))
    expected = theirs(torch.tensor(X[0]), torch.tensor(13))
    assert got.output.shape == () and got.output.item() == pytest.approx(
        expected.output.item(), rel=1e-12)


@pytest.mark.parametrize("call, error, match", [
    (lambda L: L.nn.AdaptiveLogSoftmaxWithLoss(8, 20, cutoffs=[]), ValueError,
     "cutoffs should be a sequence of length larger than 0"),
    (lambda L: L.nn.AdaptiveLogSoftmaxWithLoss(8, 20, cutoffs=[5, 3]), ValueError,
     "cutoffs should be a sequence of unique, positive integers sorted"),
    (lambda L: L.nn.AdaptiveLogSoftmaxWithLoss(8, 20, cutoffs=[4])(L.ones(3, 8),
                                                                   L.tensor([0, 1])),
     RuntimeError, "Input and target should have the same size in the batch dimension"),
    (lambda L: L.nn.AdaptiveLogSoftmaxWithLoss(8, 20, cutoffs=[4])(L.ones(2, 8),
                                                                   L.tensor([0, 20])),
     RuntimeError, "Target values should be in \\[0, 19\\]"),
    (lambda L: L.nn.AdaptiveLogSoftmaxWithLoss(8, 20, cutoffs=[4])(L.ones(2, 8),
                                                                   L.tensor([[0, 1]])),
     RuntimeError, "0D or 1D target tensor expected, multi-target not supported"),
])
def test_errors_as_torch(call, error, match):
    with pytest.raises(error, match=match):
        call(minflow)
    with pytest.raises(error, match=match):
        call(torch)


def test_trains_in_a_graph_as_eagerly():
    class Train(minflow.nn.Graph):
        def __init__(self, model, optimizer):
            super().__init__()
            self.model = model
            self.add_optimizer(optimizer)

        def build(self, x, y):
            loss = self.model(x, y).loss
            loss.backward()
            return loss
    runs = []
    for _ in range(2):
        minflow.manual_seed(0)
        model = minflow.nn.AdaptiveLogSoftmaxWithLoss(8, 20, cutoffs=[4, 10]).double()
        runs.append((model, minflow.optim.SGD(model.parameters(), lr=0.1)))
    (eager, eager_opt), (graph_model, graph_opt) = runs
    graph = Train(graph_model, graph_opt)
    x, y = minflow.tensor(X), minflow.tensor(Y)
    for _ in range(3):
        loss = eager(x, y).loss
        eager_opt.zero_grad()
        loss.backward()
        eager_opt.step()
        assert graph(x, y).item() == pytest.approx(loss.item(), rel=1e-12)

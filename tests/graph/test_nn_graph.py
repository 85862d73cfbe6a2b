"""nn.Graph (forward only): outputs equal the eager model's, a plan per input signature,
reused; parameters shared with the modules."""
import numpy as np
import pytest

import minflow
from minflow import nn


def _model():
    minflow.manual_seed(0)
    return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Dropout(0.5), nn.Linear(4 * 4 * 4, 5),
                         nn.LogSoftmax(1))


class Eval(nn.Graph):
    def __init__(self, model):
        super().__init__()
        self.model = model
        self.compiles = 0

    def build(self, x):
        self.compiles += 1
        return self.model(x)


def test_outputs_equal_the_eager_model_in_eval_mode():
    model = _model().eval()
    graph = Eval(model)
    x = minflow.randn(2, 3, 8, 8)
    np.testing.assert_allclose(graph(x).numpy(), model(x).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_a_plan_per_signature_reused_across_calls():
    model = _model().eval()
    graph = Eval(model)
    for _ in range(3):
        graph(minflow.randn(2, 3, 8, 8))
    assert graph.compiles == 1
    out = graph(minflow.randn(5, 3, 8, 8))
    assert out.shape == (5, 5) and graph.compiles == 2
    graph(minflow.randn(2, 3, 8, 8))
    assert graph.compiles == 2 and "2 input signature" in repr(graph)


def test_plan_cache_is_small():
    graph = Eval(nn.Linear(3, 2))
    graph.max_plans = 2
    for n in (1, 2, 3, 1):
        graph(minflow.randn(n, 3))
    assert graph.compiles == 4 and len(graph._plans) == 2


def test_parameters_are_shared_with_the_modules():
    model = nn.Linear(3, 2)
    graph = Eval(model)
    x = minflow.randn(4, 3)
    graph(x)
    with minflow.no_grad():
        model.weight.mul_(2)
    np.testing.assert_allclose(graph(x).numpy(), model(x).detach().numpy(), rtol=1e-6)


def test_several_outputs_keep_their_structure():
    class Two(nn.Graph):
        def build(self, x):
            return x.exp(), x.sum()
    a, b = Two()(minflow.ones(2))
    assert a.shape == (2,) and b.item() == 2.0


def test_training_graphs_and_bad_inputs_are_clear_errors():
    class Train(nn.Graph):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 1)

        def build(self, x):
            loss = self.fc(x).sum()
            loss.backward()
            return loss
    with pytest.raises(NotImplementedError, match="training graphs"):
        Train()(minflow.ones(2, 3))
    with pytest.raises(TypeError, match="graph inputs must be tensors, got list"):
        Train()([1.0])
    with pytest.raises(NotImplementedError, match='missing the required "build"'):
        nn.Graph()(minflow.ones(1))

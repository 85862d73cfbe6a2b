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


def test_bad_inputs_and_missing_build_are_clear_errors():
    graph = Eval(nn.Linear(3, 1))
    with pytest.raises(TypeError, match=r"^input 0 at \[1\]\['b'\]: expected a Tensor .* got "
                                        r"float"):
        graph((minflow.ones(3), {"b": 1.0}))
    with pytest.raises(NotImplementedError, match='missing the required "build"'):
        nn.Graph()(minflow.ones(1))

    class NoInit(nn.Graph):
        def __init__(self):
            pass
    with pytest.raises(RuntimeError, match=r"call super\(\).__init__\(\)"):
        NoInit()(minflow.ones(1))


def test_nested_inputs_and_outputs_keep_their_structure():
    class Nested(nn.Graph):
        def build(self, pair, named):
            a, (b,) = pair
            return {"sum": a + b, "parts": [named["x"] * 2, None]}
    graph = Nested()
    x = minflow.tensor([1.0, 2.0])
    out = graph((x, [x]), {"x": x})
    assert out["sum"].tolist() == [2.0, 4.0] and out["parts"][0].tolist() == [2.0, 4.0]
    assert out["parts"][1] is None
    with pytest.raises(TypeError, match=r"^output 0 at \['bad'\]: expected a Tensor"):
        type("Bad", (nn.Graph,), {"build": lambda self, x: {"bad": 3}})()(x)


def test_signature_change_is_logged_and_an_error_without_the_cache():
    graph = Eval(nn.Linear(3, 2))
    graph(minflow.randn(2, 3))
    graph(minflow.randn(5, 3))
    assert ("input signature changed: input 0 shape [2, 3] -> [5, 3]; compiling a new plan"
            in graph.compile_log)
    strict = Eval(nn.Linear(3, 2))
    strict.plan_cache = False
    strict(minflow.randn(2, 3))
    with pytest.raises(RuntimeError, match=r"input 0 dtype float32 -> float64\) and the plan "
                                           r"cache is disabled"):
        strict(minflow.randn(2, 3, dtype=minflow.float64))


def test_print_shows_modules_then_the_compiled_ops(capsys):
    graph = Eval(nn.Linear(3, 2))
    assert "(model): Linear(in_features=3" in repr(graph) and "not compiled yet" in repr(graph)
    graph.debug(2)
    graph(minflow.randn(4, 3))
    printed = capsys.readouterr().out
    assert "[Eval] compiling for input 0: float32[4, 3] on cpu" in printed
    assert "traced graph:" in printed and "dead_code_elimination" in printed
    text = repr(graph)
    assert "compiled for 1 input signature(s)" in text
    assert "float32[4, 2] = linear(" in text


def test_state_dict_covers_modules_and_optimizer():
    model = nn.Linear(3, 1)
    opt = minflow.optim.Adam(model.parameters(), lr=0.1)

    class Train(nn.Graph):
        def __init__(self):
            super().__init__()
            self.model = model
            self.add_optimizer(opt)

        def build(self, x):
            loss = self.model(x).pow(2).mean()
            loss.backward()
            return loss
    graph, x = Train(), minflow.randn(4, 3)
    graph(x)
    saved = _deep_copy(graph.state_dict())
    after_one = graph(x).item()
    graph(x)
    graph.load_state_dict(saved)
    assert opt.state[model.weight]["step"].item() == 1.0
    assert graph(x).item() == pytest.approx(after_one, rel=1e-6)
    assert set(saved) == {"modules", "optimizers", "lr_schedulers"}


def _deep_copy(tree):
    if isinstance(tree, minflow.Tensor):
        return tree.detach().clone()
    if isinstance(tree, dict):
        return type(tree)((k, _deep_copy(v)) for k, v in tree.items())
    if isinstance(tree, list):
        return [_deep_copy(v) for v in tree]
    return tree

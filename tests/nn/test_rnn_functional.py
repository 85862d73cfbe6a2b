"""torch.lstm / gru / rnn_tanh / rnn_relu and their *_cell forms: outputs, final states and
gradients side by side with torch, given the same flat weight lists; the modules agree."""
import numpy as np
import pytest

import minflow

RNG = np.random.default_rng(0)
GATES = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}
CONFIGS = [dict(num_layers=1, bidirectional=False, batch_first=False, has_biases=True),
           dict(num_layers=2, bidirectional=True, batch_first=False, has_biases=True),
           dict(num_layers=2, bidirectional=False, batch_first=True, has_biases=False)]


def _params(name, config, input_size, hidden, proj=0):
    directions = 2 if config["bidirectional"] else 1
    out = proj or hidden
    params = []
    for layer in range(config["num_layers"]):
        for _ in range(directions):
            size = input_size if layer == 0 else out * directions
            params += [RNG.uniform(-0.5, 0.5, (GATES[name] * hidden, size)),
                       RNG.uniform(-0.5, 0.5, (GATES[name] * hidden, out))]
            if config["has_biases"]:
                params += [RNG.uniform(-0.5, 0.5, GATES[name] * hidden) for _ in range(2)]
            if proj:
                params.append(RNG.uniform(-0.5, 0.5, (proj, hidden)))
    return params


def _run(lib, name, x, states, params, config):
    leaves = [lib.tensor(v, requires_grad=True) for v in [x, *states, *params]]
    x, states, params = leaves[0], leaves[1:1 + len(states)], leaves[1 + len(states):]
    hx = tuple(states) if name == "lstm" else states[0]
    outputs = getattr(lib, name)(x, hx, params, config["has_biases"], config["num_layers"],
                                 0.0, False, config["bidirectional"], config["batch_first"])
    return leaves, outputs


@pytest.mark.parametrize("proj", [0, 2])
@pytest.mark.parametrize("config", range(len(CONFIGS)))
@pytest.mark.parametrize("name", sorted(GATES))
def test_recurrent_functions_as_torch(name, config, proj):
    torch = pytest.importorskip("torch")
    if proj and name != "lstm":
        pytest.skip("projections are LSTM's")
    config = CONFIGS[config]
    hidden, directions = 3, 2 if config["bidirectional"] else 1
    x = RNG.standard_normal((2, 4, 5) if config["batch_first"] else (4, 2, 5))
    layers = config["num_layers"] * directions
    states = [RNG.standard_normal((layers, 2, proj or hidden))]
    if name == "lstm":
        states.append(RNG.standard_normal((layers, 2, hidden)))
    params = _params(name, config, 5, hidden, proj)
    ours, got = _run(minflow, name, x, states, params, config)
    theirs, expected = _run(torch, name, x, states, params, config)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.shape == tuple(e.shape)
        np.testing.assert_allclose(g.detach().numpy(), e.detach().numpy(), rtol=1e-10,
                                   atol=1e-12)
    weights = [RNG.standard_normal(tuple(e.shape)) for e in expected]
    sum((g * minflow.tensor(w)).sum() for g, w in zip(got, weights)).backward()
    sum((e * torch.tensor(w)).sum() for e, w in zip(expected, weights)).backward()
    for i, (a, b) in enumerate(zip(ours, theirs)):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-9, atol=1e-12,
                                   err_msg=f"grad of leaf {i}")


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("name", ["lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell"])
def test_cells_as_torch(name, bias):
    torch = pytest.importorskip("torch")
    gates = GATES[name.removesuffix("_cell")]
    values = [RNG.standard_normal((2, 3)), RNG.standard_normal((2, 4)),
              RNG.standard_normal((2, 4)), RNG.uniform(-0.5, 0.5, (gates * 4, 3)),
              RNG.uniform(-0.5, 0.5, (gates * 4, 4))]
    if bias:
        values += [RNG.uniform(-0.5, 0.5, gates * 4) for _ in range(2)]
    results = []
    for lib in (minflow, torch):
        leaves = [lib.tensor(v, requires_grad=True) for v in values]
        x, h, c, *weights = leaves
        hx = (h, c) if name == "lstm_cell" else h
        out = getattr(lib, name)(x, hx, *weights)
        out = out if isinstance(out, tuple) else (out,)
        sum((o * (i + 1)).sum() for i, o in enumerate(out)).backward()
        results.append(([o.detach().numpy() for o in out],
                        [t.grad.numpy() if t.grad is not None else None for t in leaves]))
    (got, got_grads), (expected, expected_grads) = results
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-12)
    for g, e in zip(got_grads, expected_grads):
        assert (g is None) == (e is None)
        if g is not None:
            np.testing.assert_allclose(g, e, rtol=1e-9, atol=1e-12)


def test_the_modules_flat_weights_give_the_module_output():
    minflow.manual_seed(0)
    lstm = minflow.nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    x = minflow.randn(5, 2, 3)
    h0, c0 = minflow.zeros(4, 2, 4), minflow.zeros(4, 2, 4)
    out, (h, c) = lstm(x, (h0, c0))
    flat = [w for ws in lstm.all_weights for w in ws]
    f_out, f_h, f_c = minflow.lstm(x, (h0, c0), flat, True, 2, 0.0, False, True, False)
    for a, b in ((out, f_out), (h, f_h), (c, f_c)):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_bad_arguments():
    x, h = minflow.ones(5, 2, 3), minflow.zeros(1, 2, 4)
    with pytest.raises(RuntimeError, match="lstm: expected 4 weights \\(4 per layer and "
                                           "direction; an lstm with projections one more "
                                           "each\\), got 3"):
        minflow.lstm(x, (h, h), [minflow.ones(16, 3)] * 3, True, 1, 0.0, False, False, False)
    with pytest.raises(RuntimeError, match="gru: expected a 3-D input"):
        minflow.gru(x[0], h[0], [minflow.ones(12, 3), minflow.ones(12, 4)], False, 1, 0.0,
                    False, False, False)
    with pytest.raises(TypeError, match="rnn_tanh\\(\\): argument 'hx' must be Tensor, not "
                                        "tuple"):
        minflow.rnn_tanh(x, (h,), [minflow.ones(4, 3), minflow.ones(4, 4)], False, 1, 0.0,
                         False, False, False)
    with pytest.raises(RuntimeError, match="rnn_tanh_cell: expected input to be a 2-D"):
        minflow.rnn_tanh_cell(minflow.ones(3), minflow.zeros(4), minflow.ones(4, 3),
                              minflow.ones(4, 4))

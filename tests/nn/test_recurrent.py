"""RNN, LSTM, GRU and their cells against PyTorch: torch's weights copied in through
load_state_dict, the same float64 inputs (and initial states); outputs, final states,
input, state and parameter grads must agree. Also state_dict keys/shapes, repr, errors."""
import numpy as np
import pytest

import minflow

torch = pytest.importorskip("torch")

L, N, IN, H = 5, 3, 4, 6


def _layers():
    cases = []
    for mode in ("RNN", "LSTM", "GRU"):
        for kwargs in ({}, {"num_layers": 2, "bidirectional": True},
                       {"num_layers": 2, "batch_first": True, "bias": False},
                       {"bidirectional": True, "batch_first": True}):
            for with_state in (False, True):
                cases.append((mode, kwargs, with_state))
    cases.append(("RNN", {"nonlinearity": "relu", "num_layers": 2}, True))
    for with_state in (False, True):
        cases.append(("LSTM", {"proj_size": 2}, with_state))
        cases.append(("LSTM", {"proj_size": 3, "num_layers": 2, "bidirectional": True,
                               "batch_first": True}, with_state))
    return cases


def _ids(case):
    mode, kwargs, with_state = case
    return f"{mode}-{'-'.join(f'{k}={v}' for k, v in kwargs.items()) or 'plain'}-" \
           f"{'hx' if with_state else 'nohx'}"


def _run(lib, module, x, states):
    x = lib.tensor(x, requires_grad=True)
    states = [lib.tensor(s, requires_grad=True) for s in states]
    hx = None if not states else (tuple(states) if len(states) == 2 else states[0])
    out, final = module(x, hx)
    finals = list(final) if isinstance(final, tuple) else [final]
    rng = np.random.RandomState(1)
    loss = sum((t * lib.tensor(rng.randn(*t.shape))).sum() for t in [out] + finals)
    loss.backward()
    grads = [x.grad] + [s.grad for s in states] + [p.grad for _, p in module.named_parameters()]
    return [t.detach().numpy() for t in [out] + finals + grads]


def _copy(ours, theirs):
    result = ours.load_state_dict({k: minflow.tensor(v.detach().numpy())
                                   for k, v in theirs.state_dict().items()})
    assert result.missing_keys == [] and result.unexpected_keys == []


@pytest.mark.parametrize("case", _layers(), ids=_ids)
def test_layer_matches_torch(case):
    mode, kwargs, with_state = case
    theirs = getattr(torch.nn, mode)(IN, H, **kwargs).double()
    ours = getattr(minflow.nn, mode)(IN, H, **kwargs).double()
    _copy(ours, theirs)
    rng = np.random.RandomState(0)
    shape = (N, L, IN) if kwargs.get("batch_first") else (L, N, IN)
    x = rng.randn(*shape)
    layers = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
    sizes = [kwargs.get("proj_size") or H] + ([H] if mode == "LSTM" else [])
    states = [rng.randn(layers, N, size) for size in sizes] if with_state else []
    for a, b in zip(_run(minflow, ours, x, states), _run(torch, theirs, x, states)):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("mode", ["RNN", "LSTM", "GRU"])
def test_unbatched_input_matches_torch(mode):
    theirs = getattr(torch.nn, mode)(IN, H, num_layers=2).double()
    ours = getattr(minflow.nn, mode)(IN, H, num_layers=2).double()
    _copy(ours, theirs)
    x = np.random.RandomState(0).randn(L, IN)
    for a, b in zip(_run(minflow, ours, x, []), _run(torch, theirs, x, [])):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_dropout_between_layers_only_in_training():
    lstm = minflow.nn.LSTM(IN, H, num_layers=2, dropout=0.5).double()
    x = minflow.tensor(np.random.RandomState(0).randn(L, N, IN))
    lstm.eval()
    first, second = lstm(x)[0].detach(), lstm(x)[0].detach()
    np.testing.assert_array_equal(first.numpy(), second.numpy())
    lstm.train()
    assert not np.allclose(lstm(x)[0].detach().numpy(), first.numpy())
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        minflow.nn.GRU(IN, H, dropout=0.2)


CELLS = [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu", "bias": False}),
         ("LSTMCell", {}), ("LSTMCell", {"bias": False}), ("GRUCell", {}), ("GRUCell", {})]


@pytest.mark.parametrize("name,kwargs", CELLS)
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("with_state", [True, False])
def test_cell_matches_torch(name, kwargs, batched, with_state):
    theirs = getattr(torch.nn, name)(IN, H, **kwargs).double()
    ours = getattr(minflow.nn, name)(IN, H, **kwargs).double()
    _copy(ours, theirs)
    rng = np.random.RandomState(0)
    lead = (N,) if batched else ()
    x = rng.randn(*lead, IN)
    states = [rng.randn(*lead, H) for _ in range(2 if name == "LSTMCell" else 1)] \
        if with_state else []

    def run(lib, module):
        xt = lib.tensor(x, requires_grad=True)
        st = [lib.tensor(s, requires_grad=True) for s in states]
        hx = None if not st else (tuple(st) if len(st) == 2 else st[0])
        out = module(xt, hx)
        outs = list(out) if isinstance(out, tuple) else [out]
        sum((o * (i + 1.5)).sum() for i, o in enumerate(outs)).backward()
        return [t.detach().numpy() for t in outs + [xt.grad] + [s.grad for s in st]
                + [p.grad for p in module.parameters()]]
    for a, b in zip(run(minflow, ours), run(torch, theirs)):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


BUILDS = [lambda L: L.nn.RNN(3, 4), lambda L: L.nn.RNN(3, 4, 2, "relu", False, True, 0.1, True),
          lambda L: L.nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True,
                              dropout=0.1),
          lambda L: L.nn.GRU(3, 4, bias=False), lambda L: L.nn.LSTM(3, 4, proj_size=2),
          lambda L: L.nn.RNNCell(3, 4, nonlinearity="relu"),
          lambda L: L.nn.LSTMCell(3, 4, bias=False), lambda L: L.nn.GRUCell(3, 4)]


@pytest.mark.parametrize("index", range(len(BUILDS)))
def test_state_dict_repr_and_init_match_torch(index):
    build = BUILDS[index]
    ours, theirs = build(minflow), build(torch)
    assert repr(ours) == repr(theirs)
    assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in theirs.state_dict().items()]
    bound = 1 / np.sqrt(4)       # U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), as torch
    values = np.concatenate([p.detach().numpy().ravel() for p in ours.parameters()])
    assert np.abs(values).max() <= bound and values.std() > bound / 3


@pytest.mark.parametrize("index", range(5))
def test_all_weights_per_layer_and_direction_as_torch(index):
    ours, theirs = BUILDS[index](minflow), BUILDS[index](torch)
    assert [[tuple(w.shape) for w in ws] for ws in ours.all_weights] == \
        [[tuple(w.shape) for w in ws] for ws in theirs.all_weights]
    assert ours.all_weights[-1][0] is getattr(ours, ours._all_weights[-1][0])


def test_float32_and_errors():
    lstm = minflow.nn.LSTM(IN, H)
    out, (h, c) = lstm(minflow.ones(L, N, IN))
    assert out.dtype is minflow.float32 and h.dtype is minflow.float32
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size. "
                                           "Expected 4, got 3"):
        lstm(minflow.ones(L, N, 3))
    with pytest.raises(RuntimeError, match="Expected hidden size \\(1, 3, 6\\), got \\[2, 3, 6\\]"):
        minflow.nn.GRU(IN, H)(minflow.ones(L, N, IN), minflow.zeros(2, N, H))
    with pytest.raises(TypeError, match="LSTM: expected hx to be a tuple"):
        lstm(minflow.ones(L, N, IN), minflow.zeros(1, N, H))
    with pytest.raises(ValueError, match="Expected input to be 2D or 3D, got 4D"):
        lstm(minflow.ones(1, L, N, IN))
    with pytest.raises(ValueError, match="Unknown nonlinearity 'gelu'"):
        minflow.nn.RNN(IN, H, nonlinearity="gelu")
    with pytest.raises(ValueError, match="dropout should be a number in range"):
        minflow.nn.LSTM(IN, H, dropout=1.5)
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        minflow.nn.LSTM(IN, H, proj_size=H)
    with pytest.raises(ValueError, match="proj_size should be a positive integer or zero"):
        minflow.nn.LSTM(IN, H, proj_size=-1)
    with pytest.raises(ValueError, match="input_size must be greater than zero, got 0"):
        minflow.nn.GRU(0, H)
    with pytest.raises(TypeError, match="RNN: hidden_size should be of type int, got: float"):
        minflow.nn.RNN(IN, 4.5)
    with pytest.raises(TypeError, match="LSTMCell: expected hx to be a tuple"):
        minflow.nn.LSTMCell(IN, H)(minflow.ones(2, IN), minflow.ones(2, H))
    with pytest.raises(ValueError, match=r"LSTM input dtype \(minflow.float64\) does not "
                                         r"match weight dtype \(minflow.float32\)"):
        lstm(minflow.ones(L, N, IN, dtype=minflow.float64))
    with pytest.raises(RuntimeError, match="GRUCell: input has inconsistent input_size: got 3"):
        minflow.nn.GRUCell(IN, H)(minflow.ones(2, 3))


def test_cuda(device):
    if device == "cpu":
        pytest.skip("the parity tests above run on cpu")
    gru = minflow.nn.GRU(IN, H, bidirectional=True).to(device)
    out, h = gru(minflow.ones(L, N, IN, device=device))
    assert out.device.type == "cuda" and tuple(out.shape) == (L, N, 2 * H)

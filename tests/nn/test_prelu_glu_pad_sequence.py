"""PReLU, GLU (layers and functions) and nn.utils.rnn.pad_sequence against torch: values,
input and parameter grads, repr and state_dict, and their errors."""
import numpy as np
import pytest

import minflow

X = np.random.RandomState(0).randn(2, 3, 4)
X[0, 0, 0] = 0.0        # prelu's kink: both libraries take the x <= 0 branch there

LAYERS = [("PReLU", (), X), ("PReLU", (3,), X), ("PReLU", (), X[0, :, 0]), ("GLU", (), X),
          ("GLU", (1,), np.random.RandomState(1).randn(2, 4))]


@pytest.mark.parametrize("name, args, x", LAYERS,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(LAYERS)])
def test_layer_matches_torch(name, args, x):
    torch = pytest.importorskip("torch")
    theirs = getattr(torch.nn, name)(*args).double()
    ours = getattr(minflow.nn, name)(*args).double()
    assert repr(ours) == repr(theirs)
    assert [(k, v.tolist()) for k, v in ours.state_dict().items()] == \
        [(k, v.tolist()) for k, v in theirs.state_dict().items()]
    results = []
    for lib, layer in ((torch, theirs), (minflow, ours)):
        inp = lib.tensor(x, requires_grad=True)
        out = layer(inp)
        (out * lib.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)))).sum() \
            .backward()
        results.append([out.detach().numpy(), inp.grad.numpy()]
                       + [p.grad.numpy() for p in layer.parameters()])
    for a, b in zip(*results):
        np.testing.assert_allclose(b, a, atol=1e-15)


@pytest.mark.parametrize("kwargs", [{}, {"batch_first": True},
                                    {"padding_value": -1.5, "padding_side": "left"}])
def test_pad_sequence_matches_torch(kwargs):
    torch = pytest.importorskip("torch")
    rng = np.random.RandomState(2)
    seqs = [rng.randn(3, 2), rng.randn(1, 2), rng.randn(4, 2)]
    results = []
    for lib in (torch, minflow):
        tensors = [lib.tensor(s, requires_grad=True) for s in seqs]
        out = lib.nn.utils.rnn.pad_sequence(tensors, **kwargs)
        (out * lib.tensor(np.arange(out.numel()).reshape(tuple(out.shape)) * 1.0)).sum().backward()
        results.append([out.detach().numpy()] + [t.grad.numpy() for t in tensors])
    for a, b in zip(*results):
        assert a.shape == b.shape and np.array_equal(a, b)


def test_pad_sequence_takes_the_first_sequences_dtype_as_torch():
    torch = pytest.importorskip("torch")
    for values in ([[1, 2], [1.5]], [[1.5], [1, 2]], [[True], [False, True]]):
        for padding_value in (0.0, -100, 0.7):
            outs = [lib.nn.utils.rnn.pad_sequence([lib.tensor(v) for v in values],
                                                  batch_first=True, padding_value=padding_value)
                    for lib in (minflow, torch)]
            assert outs[0].tolist() == outs[1].tolist()
            assert str(outs[0].dtype).split(".")[1] == str(outs[1].dtype).split(".")[1]


@pytest.mark.parametrize("call, error, match", [
    (lambda: minflow.nn.PReLU(3)(minflow.ones(2, 4)), RuntimeError,
     "prelu: Mismatch of parameter numbers and input channel size. Found parameter numbers = 3 "
     "and channel size = 4"),
    (lambda: minflow.nn.functional.prelu(minflow.ones(2), 0.25), TypeError,
     "prelu: expected weight to be a Tensor, got float"),
    (lambda: minflow.nn.functional.glu(minflow.ones(3)), RuntimeError,
     "glu: Halving dimension must be even, but dimension 0 is size 3"),
    (lambda: minflow.nn.GLU(dim=2)(minflow.ones(2, 4)), IndexError, "glu: Dimension out of range"),
    (lambda: minflow.nn.utils.rnn.pad_sequence([minflow.ones(2, 3), minflow.ones(2, 4)]),
     RuntimeError, "pad_sequence: expected sequences of shape \\(L, 3\\), got \\[2, 4\\]"),
    (lambda: minflow.nn.utils.rnn.pad_sequence([]), TypeError,
     "pad_sequence: expected a non-empty sequence of Tensors"),
    (lambda: minflow.nn.utils.rnn.pad_sequence([minflow.ones(2)], padding_side="top"),
     ValueError, "pad_sequence: Expected padding_side to be one of left or right"),
])
def test_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_prelu_single_slope_keeps_0d_and_weight_must_be_1d():
    x = minflow.tensor(-2.0)
    out = minflow.nn.functional.prelu(x, minflow.tensor([0.25]))
    assert out.shape == () and out.item() == -0.5
    with pytest.raises(RuntimeError, match="scalar or 1D tensor, but got: ndim = 2"):
        minflow.nn.functional.prelu(minflow.ones(2, 3), minflow.ones(3, 1))

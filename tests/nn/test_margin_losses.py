"""HingeEmbeddingLoss, CosineEmbeddingLoss, TripletMarginLoss and MultiLabelSoftMarginLoss
(layers and functions) against torch: values and input grads for each reduction and
option, and their errors."""
import numpy as np
import pytest

import minflow

RNG = np.random.RandomState(0)
X1, X2, X3 = RNG.randn(4, 5), RNG.randn(4, 5), RNG.randn(4, 5)
Y = np.array([1.0, -1.0, -1.0, 1.0])
SIGNS = np.sign(RNG.randn(4, 5))
LABELS = (RNG.rand(4, 5) > 0.5) * 1.0

CASES = [
    ("HingeEmbeddingLoss", {}, lambda lib, x: (x[0], lib.tensor(SIGNS))),
    ("HingeEmbeddingLoss", {"margin": 0.3, "reduction": "none"},
     lambda lib, x: (x[0], lib.tensor(SIGNS))),
    ("CosineEmbeddingLoss", {}, lambda lib, x: (x[0], x[1], lib.tensor(Y))),
    ("CosineEmbeddingLoss", {"margin": 0.2, "reduction": "sum"},
     lambda lib, x: (x[0], x[1], lib.tensor(Y))),
    ("CosineEmbeddingLoss", {}, lambda lib, x: (x[0][0], x[1][0], lib.tensor(-1.0))),
    ("TripletMarginLoss", {}, lambda lib, x: tuple(x)),
    ("TripletMarginLoss", {"margin": 2.0, "p": 1, "swap": True, "reduction": "none"},
     lambda lib, x: tuple(x)),
    ("MultiLabelSoftMarginLoss", {}, lambda lib, x: (x[0], lib.tensor(LABELS))),
    ("MultiLabelSoftMarginLoss", {"reduction": "none"}, lambda lib, x: (x[0], lib.tensor(LABELS))),
]


@pytest.mark.parametrize("name, kwargs, args", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_matches_torch(name, kwargs, args):
    torch = pytest.importorskip("torch")
    results = []
    for lib in (torch, minflow):
        inputs = [lib.tensor(v, requires_grad=True) for v in (X1, X2, X3)]
        out = getattr(lib.nn, name)(**kwargs)(*args(lib, inputs))
        out.sum().backward()
        results.append([out.detach().numpy()] + [np.zeros(1) if t.grad is None
                                                 else t.grad.numpy() for t in inputs])
    for got, expected in zip(results[1], results[0]):
        np.testing.assert_allclose(got, expected, atol=1e-14)


def test_multilabel_weight_matches_torch():
    torch = pytest.importorskip("torch")
    weight = RNG.rand(5)
    expected = torch.nn.MultiLabelSoftMarginLoss(weight=torch.tensor(weight))(
        torch.tensor(X1), torch.tensor(LABELS)).item()
    got = minflow.nn.MultiLabelSoftMarginLoss(weight=minflow.tensor(weight))(
        minflow.tensor(X1), minflow.tensor(LABELS)).item()
    assert got == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("call, error, match", [
    (lambda: minflow.nn.TripletMarginLoss(margin=0.0), ValueError,
     "TripletMarginLoss: expected margin to be greater than 0, got 0.0"),
    (lambda: minflow.nn.functional.triplet_margin_loss(minflow.ones(2, 3), minflow.ones(3),
                                                       minflow.ones(2, 3)), RuntimeError,
     "triplet_margin_loss: The anchor, positive, and negative tensors are expected to have "
     "the same number of dimensions"),
    (lambda: minflow.nn.functional.cosine_embedding_loss(minflow.ones(2, 3), minflow.ones(2, 3),
                                                         minflow.ones(3)), RuntimeError,
     "cosine_embedding_loss: expected input1 and input2 of one shape"),
    (lambda: minflow.nn.functional.hinge_embedding_loss(minflow.ones(2), [1, -1]), TypeError,
     "hinge_embedding_loss: expected target to be a Tensor, got list"),
    (lambda: minflow.nn.functional.multilabel_soft_margin_loss(minflow.ones(2, 3),
                                                               minflow.ones(2, 2)),
     RuntimeError, "multilabel_soft_margin_loss: expected target of input's shape \\[2, 3\\]"),
    (lambda: minflow.nn.HingeEmbeddingLoss(reduction="avg"), ValueError,
     "HingeEmbeddingLoss: reduction must be one of"),
])
def test_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_soft_margin_loss_broadcasts_target():
    x, y = minflow.tensor([[0.5, -1.0], [2.0, 0.0]]), minflow.tensor([1.0, -1.0])
    expected = minflow.nn.functional.soft_margin_loss(x, y.expand(2, 2))
    assert minflow.nn.functional.soft_margin_loss(x, y).item() == expected.item()
    with pytest.raises(RuntimeError, match="cannot be broadcast"):
        minflow.nn.functional.soft_margin_loss(minflow.ones(5, 4), minflow.ones(5))


def test_triplet_margin_loss_margin_must_be_positive():
    a = minflow.ones(3, 4)
    with pytest.raises(ValueError, match="margin must be greater than 0, got -1.0"):
        minflow.nn.functional.triplet_margin_loss(a, a, a, margin=-1.0)


@pytest.mark.parametrize("name", ["multi_margin_loss", "multilabel_margin_loss"])
def test_class_margin_losses_take_a_0d_input(name):
    """As torch: a 0-d input is one score of a single class (a zero loss)."""
    fn = getattr(minflow.nn.functional, name)
    out = fn(minflow.tensor(0.5), minflow.tensor(0), reduction="none")
    assert out.shape == () and out.item() == 0.0

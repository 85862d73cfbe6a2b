"""F.embedding_bag and nn.EmbeddingBag against torch: outputs and weight (and
per-sample weight) grads for every mode, 1-D input with offsets (empty bags,
include_last_offset), 2-D input, padding_idx, per_sample_weights, max_norm; repr,
state_dict, init, from_pretrained, nn.Graph, and errors."""
import numpy as np
import pytest

import minflow
import minflow.nn.functional as Fn

torch = pytest.importorskip("torch")

rng = np.random.RandomState(17)
W = rng.randn(10, 4)
IDX = np.array([1, 2, 4, 5, 4, 3, 2, 9, 0, 0])
OFFSETS = np.array([0, 2, 2, 7])          # bags [1, 2], [], [4, 5, 4, 3, 2], [9, 0, 0]
IDX2 = np.array([[1, 2, 4], [4, 3, 2], [0, 0, 9]])
PSW = rng.rand(10)

CASES = {
    "sum": dict(mode="sum"),
    "mean": dict(mode="mean"),
    "max": dict(mode="max"),
    "sum_per_sample_weights": dict(mode="sum", psw=True),
    "mean_padding": dict(mode="mean", padding_idx=2),
    "sum_negative_padding": dict(mode="sum", padding_idx=-1),
    "max_padding": dict(mode="max", padding_idx=0),
    "include_last_offset": dict(mode="mean", offsets=np.array([0, 2, 2, 7, 10]),
                                include_last_offset=True),
    "max_norm": dict(mode="sum", max_norm=1.5),
    "2d_mean": dict(mode="mean", two_d=True),
    "2d_max_padding": dict(mode="max", two_d=True, padding_idx=4),
    "2d_sum_per_sample_weights": dict(mode="sum", two_d=True, psw=True),
}


def _run(lib, case):
    case = dict(case)
    two_d, psw = case.pop("two_d", False), case.pop("psw", False)
    offsets = case.pop("offsets", OFFSETS)
    weight = lib.tensor(W.copy(), requires_grad=True)
    kwargs = dict(case)
    indices = IDX2 if two_d else IDX
    sample_weights = None
    if psw:
        sample_weights = lib.tensor(PSW[:indices.size].reshape(indices.shape),
                                    requires_grad=True)
        kwargs["per_sample_weights"] = sample_weights
    out = lib.nn.functional.embedding_bag(lib.tensor(indices), weight,
                                          None if two_d else lib.tensor(offsets), **kwargs)
    (out * lib.tensor(np.random.RandomState(1).randn(*out.shape))).sum().backward()
    grads = [weight.grad.numpy()] + ([sample_weights.grad.numpy()] if psw else [])
    return [out.detach().numpy(), weight.detach().numpy()] + grads


@pytest.mark.parametrize("name", CASES)
def test_functional_matches_torch(name):
    ours, theirs = _run(minflow, CASES[name]), _run(torch, CASES[name])
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("kwargs", [{}, {"mode": "max", "padding_idx": 2},
                                    {"mode": "sum", "max_norm": 1.0, "norm_type": 1.0,
                                     "scale_grad_by_freq": True},
                                    {"include_last_offset": True}])
def test_module_repr_state_dict_and_forward_match_torch(kwargs):
    ours, theirs = minflow.nn.EmbeddingBag(10, 4, **kwargs), torch.nn.EmbeddingBag(10, 4,
                                                                                   **kwargs)
    assert repr(ours) == repr(theirs)
    assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in theirs.state_dict().items()]
    ours.load_state_dict({"weight": minflow.tensor(theirs.weight.detach().numpy())})
    offsets = np.array([0, 2, 2, 7, 10]) if kwargs.get("include_last_offset") else OFFSETS
    got = ours(minflow.tensor(IDX), minflow.tensor(offsets))
    expected = theirs(torch.tensor(IDX), torch.tensor(offsets))
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-5,
                               atol=1e-6)      # float32: renormed rows may nearly cancel


def test_init_padding_row_and_from_pretrained():
    bag = minflow.nn.EmbeddingBag(1000, 16, padding_idx=3)
    values = bag.weight.detach().numpy()
    assert values[3].tolist() == [0.0] * 16
    assert abs(values.mean()) < 0.02 and abs(values.std() - 1) < 0.02     # N(0, 1)
    pretrained = minflow.nn.EmbeddingBag.from_pretrained(minflow.tensor(W), mode="max",
                                                         freeze=False)
    expected = torch.nn.EmbeddingBag.from_pretrained(torch.tensor(W), mode="max",
                                                     freeze=False)
    assert pretrained.weight.requires_grad and repr(pretrained) == repr(expected)
    np.testing.assert_allclose(
        pretrained(minflow.tensor(IDX2)).detach().numpy(),
        expected(torch.tensor(IDX2)).detach().numpy(), rtol=1e-12)


def test_in_a_graph_as_eagerly():
    class Bags(minflow.nn.Graph):
        def __init__(self, bag):
            super().__init__()
            self.bag = bag

        def build(self, indices, offsets):
            return self.bag(indices, offsets)
    bag = minflow.nn.EmbeddingBag(10, 4, mode="max")
    args = (minflow.tensor(IDX), minflow.tensor(OFFSETS))
    np.testing.assert_allclose(Bags(bag)(*args).numpy(), bag(*args).detach().numpy())


@pytest.mark.parametrize("call, error, match", [
    (lambda L: L.nn.functional.embedding_bag(L.tensor(IDX2), L.ones(10, 2), L.tensor([0, 1])),
     ValueError, "if input is 2D, then offsets has to be None"),
    (lambda L: L.nn.functional.embedding_bag(L.tensor(IDX), L.ones(10, 2)),
     ValueError, "offsets has to be a 1D Tensor but got None"),
    (lambda L: L.nn.functional.embedding_bag(L.tensor([[IDX]]), L.ones(10, 2)),
     ValueError, "input has to be 1D or 2D Tensor, but got Tensor of dimension 3"),
    (lambda L: L.nn.functional.embedding_bag(L.tensor(IDX2), L.ones(10, 2), mode="min"),
     ValueError, "mode has to be one of sum, mean or max"),
    (lambda L: L.nn.functional.embedding_bag(L.tensor(IDX2), L.ones(10, 2), mode="max",
                                             scale_grad_by_freq=True),
     ValueError, "max mode does not support scaling the gradient by the frequency"),
    (lambda L: L.nn.functional.embedding_bag(L.tensor(IDX2), L.ones(10, 2),
                                             per_sample_weights=L.ones(3, 3)),
     NotImplementedError, "per_sample_weights is only supported for mode='sum'"),
    (lambda L: L.nn.functional.embedding_bag(L.tensor(IDX2), L.ones(10, 2), mode="sum",
                                             per_sample_weights=L.ones(9)),
     ValueError, "If per_sample_weights .* is not None, then it must have the same shape"),
    (lambda L: L.nn.functional.embedding_bag(L.tensor(IDX), L.ones(10, 2), L.tensor([1, 3])),
     RuntimeError, "offsets\\[0\\] has to be 0"),
    (lambda L: L.nn.EmbeddingBag(5, 2)(L.tensor([1, 7]), L.tensor([0])),
     RuntimeError, r"embedding_bag: input takes value 7 which is not in the valid range \[0, 5\)"),
    (lambda L: L.nn.functional.embedding_bag(L.tensor([[1, -1]]), L.ones(5, 2)),
     RuntimeError, r"takes value -1 which is not in the valid range \[0, 5\)"),
    (lambda L: L.nn.functional.embedding_bag(L.tensor(IDX2), L.ones(10)),
     ValueError, "weight has to be a 2D Tensor, but got Tensor of dimension 1"),
])
def test_errors_as_torch(call, error, match):
    with pytest.raises(error, match=match):
        call(minflow)
    with pytest.raises(error if error is not ValueError else (ValueError, RuntimeError)):
        call(torch)


def test_scale_grad_by_freq_divides_each_row_by_its_own_count():
    """Hand-computed: index 1 twice, 3 once; each row's grad is its count over its count.
    (torch 2.13's CPU kernel gives row 3 0.5, the count of index 1.)"""
    weight = minflow.ones(4, 2, requires_grad=True)
    minflow.nn.functional.embedding_bag(minflow.tensor([1, 1, 3]), weight, minflow.tensor([0]),
                                        mode="sum", scale_grad_by_freq=True).sum().backward()
    assert weight.grad[:, 0].tolist() == [0.0, 1.0, 0.0, 1.0]

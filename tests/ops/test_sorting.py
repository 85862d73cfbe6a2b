"""sort, argsort, msort, topk, flip, roll, unique, bincount: forward vs numpy on every
dtype, stability and NaN order, gradients, torch parity, data-dependent refusals, errors;
topk (partition, then a sort of the k kept) against a full stable sort and torch."""
import itertools

import numpy as np
import pytest

import minflow
from minflow.autograd import gradcheck

RNG = np.random.default_rng(0)
DTYPES = ("float16", "float32", "float64", "int32", "int64")


def sample(dtype, shape=(3, 5)):
    if dtype.startswith("int"):
        return RNG.integers(-4, 4, shape).astype(dtype)
    return RNG.standard_normal(shape).astype(dtype)


def stable_desc(x, dim):
    n = x.shape[dim]
    return (n - 1) - np.flip(np.flip(x, dim).argsort(dim, kind="stable"), dim)


# name: (minflow fn, numpy reference)
CASES = {
    "sort": (lambda x: minflow.sort(x, 0).values, lambda x: np.sort(x, 0, kind="stable")),
    "sort/indices": (lambda x: minflow.sort(x).indices, lambda x: x.argsort(-1, kind="stable")),
    "argsort/descending": (lambda x: minflow.argsort(x, 1, descending=True),
                           lambda x: stable_desc(x, 1)),
    "msort": (minflow.msort, lambda x: np.sort(x, 0)),
    "topk": (lambda x: minflow.topk(x, 2).indices, lambda x: stable_desc(x, 1)[:, :2]),
    "topk/smallest": (lambda x: minflow.topk(x, 3, 0, largest=False).values,
                      lambda x: np.sort(x, 0, kind="stable")[:3]),
    "flip": (lambda x: minflow.flip(x, (0, -1)), lambda x: x[::-1, ::-1]),
    "roll": (lambda x: minflow.roll(x, (1, -2), (0, 1)), lambda x: np.roll(x, (1, -2), (0, 1))),
    "roll/flat": (lambda x: minflow.roll(x, 4), lambda x: np.roll(x, 4)),
    "unique": (minflow.unique, np.unique),
    "unique/counts": (lambda x: minflow.unique(x, return_counts=True)[1],
                      lambda x: np.unique(x, return_counts=True)[1]),
    "unique/inverse": (lambda x: minflow.unique(x, return_inverse=True)[1],
                       lambda x: np.unique(x, return_inverse=True)[1].reshape(x.shape)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_every_dtype(name, device):
    fn, ref = CASES[name]
    for dtype in DTYPES:
        x = sample(dtype)
        out = fn(minflow.tensor(x, device=device)).cpu().numpy()
        np.testing.assert_array_equal(out, ref(x))


def test_stable_descending_and_nan_order():
    x = minflow.tensor([1.0, float("nan"), 2.0, 1.0, 2.0])
    assert minflow.argsort(x).tolist() == [0, 3, 2, 4, 1]
    assert minflow.argsort(x, descending=True).tolist() == [1, 2, 4, 0, 3]
    assert minflow.topk(x, 1).indices.tolist() == [1]
    assert minflow.sort(minflow.tensor([True, False])).values.tolist() == [False, True]


def test_gradients():
    x = minflow.tensor(RNG.standard_normal((3, 4)), requires_grad=True)
    assert gradcheck(lambda t: minflow.sort(t, 0, descending=True).values, (x,))
    assert gradcheck(lambda t: minflow.topk(t, 2, largest=False).values, (x,))
    assert gradcheck(lambda t: minflow.flip(t, 1) * minflow.roll(t, 1, 0), (x,))
    assert gradcheck(lambda t: minflow.roll(t, -3), (x,))


def test_bincount():
    x = minflow.tensor([0, 3, 3, 1])
    assert minflow.bincount(x).tolist() == [1, 1, 0, 2]
    assert minflow.bincount(x, minlength=6).tolist() == [1, 1, 0, 2, 0, 0]
    w = minflow.tensor([0.5, 1.0, 2.0, 1.5])
    out = minflow.bincount(x, w)
    assert out.dtype == minflow.float32 and out.tolist() == [0.5, 1.5, 0.0, 3.0]
    assert minflow.bincount(x, minflow.tensor([1, 2, 3, 4])).dtype == minflow.float64
    assert minflow.bincount(minflow.tensor([], dtype=minflow.int64)).tolist() == []


def test_unique_dim():
    x = minflow.tensor([[1, 2], [1, 2], [0, 5]])
    values, inverse, counts = minflow.unique(x, dim=0, return_inverse=True, return_counts=True)
    assert values.tolist() == [[0, 5], [1, 2]]
    assert inverse.tolist() == [1, 1, 0] and counts.tolist() == [1, 2]


def test_data_dependent_ops_refuse_meta_and_graph():
    meta = minflow.empty(3, dtype=minflow.int64, device="meta")
    for call in (minflow.unique, minflow.unique_consecutive, minflow.bincount):
        with pytest.raises(RuntimeError, match="depends on the data"):
            call(meta)

    class G(minflow.nn.Graph):
        def build(self, x):
            return minflow.unique(x)

    with pytest.raises(RuntimeError, match="unique"):
        G()(minflow.tensor([1, 1, 2]))


def test_torch_parity():
    torch = pytest.importorskip("torch")
    x = RNG.permutation(20).reshape(4, 5).astype(np.float32)
    for ours, theirs in ((minflow.sort(minflow.tensor(x), 0, True), torch.sort(torch.tensor(x), 0,
                                                                                 True)),
                         (minflow.topk(minflow.tensor(x), 3), torch.topk(torch.tensor(x), 3))):
        assert ours.values.tolist() == theirs.values.tolist()
        assert ours.indices.tolist() == theirs.indices.tolist()
        assert ours.indices.dtype == minflow.int64
    y = RNG.integers(0, 4, 12)
    out = minflow.unique(minflow.tensor(y), return_inverse=True, return_counts=True)
    ref = torch.unique(torch.tensor(y), return_inverse=True, return_counts=True)
    assert [t.tolist() for t in out] == [t.tolist() for t in ref]
    assert minflow.bincount(minflow.tensor(y)).tolist() == torch.bincount(torch.tensor(y)).tolist()
    assert minflow.roll(minflow.tensor(x), 2).tolist() == torch.roll(torch.tensor(x), 2).tolist()
    assert minflow.flip(minflow.tensor(x), [1]).tolist() == \
        torch.flip(torch.tensor(x), [1]).tolist()


@pytest.mark.parametrize("call, err, match", [
    (lambda: minflow.topk(minflow.ones(3), 4), RuntimeError, "topk: selected index k out"),
    (lambda: minflow.sort(minflow.ones(3), 1), IndexError, "sort"),
    (lambda: minflow.flip(minflow.ones(3, 2), (0, -2)), RuntimeError, "flip: dims has dup"),
    (lambda: minflow.roll(minflow.ones(3), (1, 2), (0,)), RuntimeError, "roll: shifts and dims"),
    (lambda: minflow.bincount(minflow.tensor([-1, 2])), RuntimeError, "bincount: expected non-"),
    (lambda: minflow.bincount(minflow.ones(2)), RuntimeError, "bincount: expected a 1-D int"),
    (lambda: minflow.bincount(minflow.tensor([1]), minflow.ones(2)), RuntimeError,
     "bincount: expected weights"),
])
def test_errors(call, err, match):
    with pytest.raises(err, match=match):
        call()


def test_topk_selects_as_a_full_stable_sort_would():
    """topk partitions, then sorts the k kept: the same indices as the first k of a full
    stable sort, over ties, NaN, every k and dim, both directions."""
    rng = np.random.default_rng(1)
    for _ in range(200):
        shape = tuple(int(s) for s in rng.integers(1, 6, rng.integers(1, 4)))
        dtype = str(rng.choice(["float16", "float32", "float64", "int32", "int64"]))
        a = rng.integers(-3, 4, shape).astype(dtype)
        if dtype.startswith("float"):
            a[rng.uniform(size=shape) < 0.2] = np.nan
        dim = int(rng.integers(0, len(shape)))
        k, largest = int(rng.integers(0, shape[dim] + 1)), bool(rng.integers(0, 2))
        full = minflow.argsort(minflow.tensor(a), dim, descending=largest).numpy()
        got = minflow.topk(minflow.tensor(a), k, dim, largest).indices.numpy()
        np.testing.assert_array_equal(got, np.take(full, np.arange(k), dim))


def test_topk_sweep_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    for dtype, shape, largest in itertools.product(("float32", "float64", "int64"),
                                                   ((7,), (3, 8), (2, 3, 5)), (True, False)):
        distinct = rng.permutation(int(np.prod(shape))).reshape(shape).astype(dtype)
        ties = rng.integers(-2, 3, shape).astype(dtype)
        for dim in range(len(shape)):
            for k in (0, 1, shape[dim] // 2, shape[dim]):
                for a, exact in ((distinct, True), (ties, False)):
                    ours = minflow.topk(minflow.tensor(a), k, dim, largest)
                    theirs = torch.topk(torch.tensor(a), k, dim, largest)
                    np.testing.assert_array_equal(ours.values.numpy(), theirs.values.numpy())
                    if exact:       # torch leaves the order of ties unspecified
                        np.testing.assert_array_equal(ours.indices.numpy(),
                                                      theirs.indices.numpy())


def test_unique_consecutive_sweep_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    for dtype, shape in itertools.product(("float32", "float64", "int64", "bool"),
                                          ((0,), (9,), (4, 3), (2, 3, 2), (5, 0, 5))):
        a = rng.integers(0, 2, shape).astype(dtype)
        if dtype.startswith("float") and a.size:
            a.reshape(-1)[:2] = np.nan
        for dim in [None] + list(range(len(shape))):
            if dim is not None and a.size == 0 and shape[dim] != 0:
                for lib in (minflow, torch):
                    with pytest.raises(RuntimeError, match="0 sized dimensions"):
                        lib.unique_consecutive(lib.tensor(a), dim=dim)
                continue
            ours = minflow.unique_consecutive(minflow.tensor(a), True, True, dim)
            theirs = torch.unique_consecutive(torch.tensor(a), True, True, dim)
            for o, t in zip(ours, theirs):
                assert o.dtype.name == str(t.dtype).split(".")[-1]
                np.testing.assert_array_equal(o.numpy(), t.numpy())
    x = minflow.tensor(3)
    assert [t.tolist() for t in x.unique_consecutive(True, True)] == [[3], 0, [1]]

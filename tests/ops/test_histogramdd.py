"""histogramdd side by side with torch: int, per-dim and tensor bins, range, weight,
density, batched points, degenerate columns and torch's errors."""
import numpy as np
import pytest

import minflow

RNG = np.random.default_rng(0)
POINTS = RNG.standard_normal((50, 3)).astype(np.float32)
WEIGHT = RNG.uniform(size=50).astype(np.float32)
EDGES = [np.sort(RNG.standard_normal(k)).astype(np.float32) for k in (3, 4, 2)]
CASES = {"int": dict(bins=4), "per_dim": dict(bins=[2, 3, 4]),
         "range": dict(bins=3, range=[-1.0, 1.0, -2.0, 2.0, 0.0, 1.0]),
         "weight_density": dict(bins=[2, 2, 5], weight=WEIGHT, density=True),
         "tensor_bins": dict(bins=EDGES), "tensor_bins_density": dict(bins=EDGES, density=True)}


def _args(lib, kwargs):
    def convert(v):
        if isinstance(v, np.ndarray):
            return lib.tensor(v)
        return [convert(x) for x in v] if isinstance(v, list) and \
            isinstance(v[0], np.ndarray) else v
    return {k: convert(v) for k, v in kwargs.items()}


@pytest.mark.parametrize("points", [POINTS, POINTS.reshape(5, 10, 3), POINTS[:, :1]],
                         ids=["2d", "batched", "one_dim"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_histogramdd_as_torch(name, points):
    torch = pytest.importorskip("torch")
    kwargs = dict(CASES[name])
    dims = points.shape[-1]
    if dims == 1:       # the per-dimension arguments of the first dimension only
        kwargs = {k: (v[:1] if k == "bins" and isinstance(v, list) else v[:2] if k == "range"
                      else v) for k, v in kwargs.items()}
    if "weight" in kwargs:
        kwargs["weight"] = kwargs["weight"].reshape(points.shape[:-1])
    got = minflow.histogramdd(minflow.tensor(points), **_args(minflow, kwargs))
    expected = torch.histogramdd(torch.tensor(points), **_args(torch, kwargs))
    assert got.hist.dtype is minflow.float32 and got.hist.shape == tuple(expected.hist.shape)
    np.testing.assert_allclose(got.hist.numpy(), expected.hist.numpy(), rtol=1e-6)
    assert isinstance(got.bin_edges, tuple) and len(got.bin_edges) == len(expected.bin_edges)
    for ours, theirs in zip(got.bin_edges, expected.bin_edges):
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_histogramdd_degenerate_and_empty_as_torch():
    torch = pytest.importorskip("torch")
    for values in (np.ones((3, 1), np.float32), np.zeros((0, 2), np.float32)):
        got = minflow.histogramdd(minflow.tensor(values), bins=2)
        expected = torch.histogramdd(torch.tensor(values), bins=2)
        assert got.hist.tolist() == expected.hist.tolist()
        assert [e.tolist() for e in got.bin_edges] == [e.tolist() for e in expected.bin_edges]


@pytest.mark.parametrize("kwargs", [dict(bins=[2]), dict(bins=0), dict(bins=2, range=[0.0, 1.0]),
                                    dict(bins=2, range=[1.0, 0.0, 0.0, 1.0]),
                                    dict(bins=2, weight="short"), dict(bins="matrix")])
def test_histogramdd_errors_as_torch(kwargs):
    torch = pytest.importorskip("torch")

    def call(lib):
        args = dict(kwargs)
        if args.get("weight") == "short":
            args["weight"] = lib.ones(3)
        if args.get("bins") == "matrix":
            args["bins"] = [lib.tensor([[0.0, 1.0]]), lib.tensor([0.0, 2.0])]
        return lib.histogramdd(lib.tensor(POINTS[:4, :2]), **args)
    with pytest.raises(RuntimeError) as expected:
        call(torch)
    with pytest.raises(RuntimeError) as got:
        call(minflow)
    assert str(got.value) == str(expected.value)


def test_histogramdd_bad_input():
    with pytest.raises(RuntimeError, match="input tensor should have at least 2 dimensions"):
        minflow.histogramdd(minflow.ones(3), bins=2)
    with pytest.raises(NotImplementedError, match="histogramdd: expected input with dtype in"):
        minflow.histogramdd(minflow.ones(3, 2, dtype=minflow.int64), bins=2)
    with pytest.raises(TypeError, match="histogramdd: expected bins to be an int, a sequence"):
        minflow.histogramdd(minflow.ones(3, 2), bins=[minflow.tensor([0.0, 1.0]), 2])

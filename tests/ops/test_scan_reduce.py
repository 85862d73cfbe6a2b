"""Scans (logcumsumexp, cummax, cummin) and composite reductions (nansum, nanmean,
count_nonzero, aminmax): the tables test_op_table.py runs through check_op, torch as the
oracle over NaN / inf / tie sweeps (values, indices, dtypes, gradients, errors), and the
doubling scan that the cuda kernels use, against numpy's accumulate."""
import math

import numpy as np
import pytest

import minflow
from minflow.kernels.generic import scan

NAN, INF = math.nan, math.inf
RNG = np.random.default_rng(0)


def _cumulative(ufunc):
    def reference(x, dim):
        values = ufunc.accumulate(x, axis=dim)
        taken = (x == values) | np.isnan(x)
        positions = np.arange(x.shape[dim]).reshape([-1] + [1] * (x.ndim - 1 - dim))
        return values, np.maximum.accumulate(np.where(taken, positions, 0), axis=dim)
    return reference


# op name: (numpy reference of (x, dim), dtypes)
SCANS = {
    "logcumsumexp": (lambda x, dim: np.logaddexp.accumulate(x, axis=dim),
                     ("float16", "float32", "float64")),
    "cummax": (_cumulative(np.maximum), ("float16", "float32", "float64", "int32", "int64")),
    "cummin": (_cumulative(np.minimum), ("float16", "float32", "float64", "int32", "int64")),
}

# public function: (numpy reference, kwargs), float inputs
REDUCTIONS = {
    "nansum": (lambda x, dim=None: np.nansum(x, axis=dim).astype(x.dtype), {"dim": 1}),
    "nanmean": (lambda x, dim=None: np.nanmean(x, axis=dim).astype(x.dtype), {"dim": 0}),
    "count_nonzero": (lambda x, dim=None: np.count_nonzero(x, axis=dim).astype(np.int64),
                      {"dim": 1}),
    "aminmax": (lambda x, dim=None: (np.min(x, axis=dim), np.max(x, axis=dim)), {"dim": 1}),
}


def with_nans(shape, dtype="float64", seed=0):
    """Values with NaN, zeros and repeats (ties)."""
    rng = np.random.default_rng(seed)
    x = rng.integers(-3, 4, shape).astype(dtype)
    if x.dtype.kind == "f":
        x[rng.uniform(size=shape) < 0.15] = NAN
    return x


@pytest.mark.parametrize("name", sorted(SCANS))
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "int64", "int32", "bool"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_scans_match_torch(name, dtype, dim):
    torch = pytest.importorskip("torch")
    x = with_nans((4, 6), "float64", seed=dim + 5)
    if name == "logcumsumexp":
        x[0, :3] = [-INF, INF, -INF]
    x = x > 0 if dtype == "bool" else np.nan_to_num(x, nan=2.0).astype(dtype) \
        if dtype.startswith("int") else x.astype(dtype)
    try:
        theirs = getattr(torch, name)(torch.tensor(x), dim)
    except RuntimeError as err:         # logcumsumexp of integers: not implemented
        with pytest.raises(type(err), match=name):
            getattr(minflow, name)(minflow.tensor(x), dim)
        return
    ours = getattr(minflow, name)(minflow.tensor(x), dim)
    pairs = zip(ours, theirs) if name != "logcumsumexp" else [(ours, theirs)]
    if name != "logcumsumexp":
        assert type(ours).__name__ == name and ours._fields == ("values", "indices")
    for a, b in pairs:
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        np.testing.assert_allclose(a.numpy().astype(np.float64), b.numpy().astype(np.float64),
                                   rtol=2e-3 if dtype == "float16" else 1e-6, equal_nan=True)


@pytest.mark.parametrize("name", sorted(SCANS))
def test_scan_gradients_match_torch(name):
    torch = pytest.importorskip("torch")
    x = with_nans((3, 7), seed=2)
    x = np.where(np.isnan(x), 1.5, x)       # ties stay; NaN would make every grad NaN
    grad = RNG.standard_normal(x.shape)
    grad[0, 2] = 0.0                        # a zero grad: logcumsumexp's log|g| is -inf

    def grads(lib):
        t = lib.tensor(x, requires_grad=True)
        out = getattr(lib, name)(t, 1)
        (out if name == "logcumsumexp" else out[0]).backward(lib.tensor(grad))
        return t.grad.numpy()
    np.testing.assert_allclose(grads(minflow), grads(torch), rtol=1e-10, atol=1e-12)


def test_scans_of_0d_and_single_element_tensors_match_torch():
    torch = pytest.importorskip("torch")
    for name in SCANS:
        for value in (np.array(2.5), np.array([2.5])):
            ours = getattr(minflow, name)(minflow.tensor(value), 0)
            theirs = getattr(torch, name)(torch.tensor(value), 0)
            for a, b in zip(*(([o] if name == "logcumsumexp" else o) for o in (ours, theirs))):
                assert tuple(a.shape) == tuple(b.shape) and a.tolist() == b.tolist()


@pytest.mark.parametrize("name", ["maximum", "minimum", "logaddexp"])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_doubling_scan_equals_accumulate(name, axis):
    x = with_nans((5, 9, 3), seed=axis)
    if name == "logaddexp":
        x[1, :, 0] = -INF
    ufunc = getattr(np, name)
    # logaddexp's sums are taken in another order: equal to rounding
    np.testing.assert_allclose(scan._doubling_scan(np, ufunc, x, axis),
                               ufunc.accumulate(x, axis=axis), rtol=1e-14, atol=0)


def test_cuda_path_of_the_kernels_on_numpy(monkeypatch):
    """The kernels with the cuda scan (numpy standing in for cupy) give numpy's results."""
    x = with_nans((4, 6), seed=3)
    expected = [scan.cummax(np, x, 1), scan.cummin(np, x, 0), scan.logcumsumexp(np, x, 1)]
    monkeypatch.setattr(scan, "_accumulate",
                        lambda xp, name, a, axis: scan._doubling_scan(xp, getattr(xp, name),
                                                                      a, axis))
    got = [scan.cummax(np, x, 1), scan.cummin(np, x, 0), scan.logcumsumexp(np, x, 1)]
    for a, b in zip(got, expected):
        for u, v in zip(a if isinstance(a, tuple) else (a,), b if isinstance(b, tuple) else (b,)):
            np.testing.assert_allclose(u, v, rtol=1e-14, atol=0)


@pytest.mark.parametrize("name", ["nansum", "nanmean", "count_nonzero", "aminmax"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "int64", "bool"])
def test_reductions_match_torch(name, dtype):
    torch = pytest.importorskip("torch")
    x = with_nans((3, 4), seed=1)
    x = x > 0 if dtype == "bool" else np.nan_to_num(x).astype(dtype)  \
        if dtype == "int64" else x.astype(dtype)
    kwargs_list = [{}, {"dim": 1}, {"dim": 0, "keepdim": True}, {"dim": (0, 1)}, {"dim": -1}]
    for kwargs in kwargs_list:
        if name == "count_nonzero":
            kwargs = {k: v for k, v in kwargs.items() if k != "keepdim"}
        if name == "aminmax" and isinstance(kwargs.get("dim"), tuple):
            continue
        try:
            theirs = getattr(torch, name)(torch.tensor(x), **kwargs)
        except RuntimeError:
            with pytest.raises(RuntimeError, match=name):
                getattr(minflow, name)(minflow.tensor(x), **kwargs)
            continue
        ours = getattr(minflow, name)(minflow.tensor(x), **kwargs)
        for a, b in zip(*(o if name == "aminmax" else [o] for o in (ours, theirs))):
            assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1], kwargs
            assert tuple(a.shape) == tuple(b.shape), kwargs
            np.testing.assert_allclose(a.numpy().astype(np.float64),
                                       b.numpy().astype(np.float64), equal_nan=True,
                                       rtol=2e-3 if dtype == "float16" else 1e-6)


@pytest.mark.parametrize("name", ["nansum", "nanmean", "aminmax"])
def test_reduction_gradients_match_torch(name):
    torch = pytest.importorskip("torch")
    x = with_nans((3, 4), seed=4)
    if name == "aminmax":
        x = np.nan_to_num(x)            # ties share the gradient evenly

    def grads(lib):
        t = lib.tensor(x, requires_grad=True)
        for kwargs in ({}, {"dim": 1}):
            out = getattr(lib, name)(t, **kwargs)
            outs = out if name == "aminmax" else [out]
            sum((o * w).sum() for o, w in zip(outs, (1.5, -0.5))).backward()
        return t.grad.numpy()
    np.testing.assert_allclose(grads(minflow), grads(torch), rtol=1e-12, equal_nan=True)


def test_aminmax_result_prints_and_unpacks_as_torch():
    result = minflow.aminmax(minflow.tensor([[1.0, 5.0], [3.0, 0.0]]), dim=0, keepdim=True)
    low, high = result
    assert low is result.min and high is result.max and low.shape == (1, 2)
    assert repr(result).startswith("minflow.return_types.aminmax(\nmin=tensor([[1., 0.]])")


@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_double_backward_of_the_values(name):
    from minflow.autograd import gradcheck, gradgradcheck
    x = minflow.tensor(RNG.standard_normal((3, 5)), requires_grad=True)
    values = lambda t: getattr(minflow, name)(t, 1).values      # noqa: E731
    assert gradcheck(values, (x,)) and gradgradcheck(values, (x,))

"""median / nanmedian, kthvalue, mode, quantile / nanquantile and histc: a table run through
minflow.testing.check_op (forward vs numpy on every declared dtype, meta, non-contiguous
inputs, gradcheck and double backward, eager vs graph grads), and sweeps against torch
(values, indices, dtypes, grads, NaN and ties). Bad-input cases: tests/test_bad_input.py."""
import itertools

import numpy as np
import pytest

import minflow
from minflow.testing import Sample, check_op

RNG = np.random.default_rng(0)
DISTINCT = RNG.permutation(24).reshape(4, 6) / 4.0 - 3.0     # no ties: indices are unique


def _lower_median(a, dim=None, keepdim=False):
    if dim is None:
        return np.sort(a.reshape(-1))[(a.size - 1) // 2]
    values = np.take(np.sort(a, dim, kind="stable"), [(a.shape[dim] - 1) // 2], dim)
    indices = np.take(np.argsort(a, dim, kind="stable"), [(a.shape[dim] - 1) // 2], dim)
    if not keepdim:
        values, indices = values.squeeze(dim), indices.squeeze(dim)
    return values, indices


def _kth(a, k, dim=-1):
    order = np.argsort(a, dim, kind="stable")
    return np.take(np.sort(a, dim), k - 1, dim), np.take(order, k - 1, dim)


def _ints(dtype):
    return [Sample(np.round(DISTINCT * 4).astype(dtype))] if "int" in dtype else \
        [Sample(DISTINCT.astype(dtype))]


# name: (fn, samples (a list or a function of the dtype name), numpy reference, dtypes);
# "/indices" entries check the indices (no gradient), the others the values
TABLE = {
    "median": (minflow.median, _ints, _lower_median, None),
    "median_dim": (lambda x: minflow.median(x, 1, keepdim=True).values, _ints,
                   lambda a: _lower_median(a, 1, True)[0], None),
    "median_dim/indices": (lambda x: minflow.median(x, 1, keepdim=True).indices, _ints,
                           lambda a: _lower_median(a, 1, True)[1], None),
    "nanmedian_dim": (lambda x: minflow.nanmedian(x, 0).values, _ints,
                      lambda a: _lower_median(a, 0)[0], ["float32", "float64", "int64"]),
    "nanmedian_dim/indices": (lambda x: minflow.nanmedian(x, 0).indices, _ints,
                              lambda a: _lower_median(a, 0)[1], ["float32", "float64"]),
    "kthvalue": (lambda x: minflow.kthvalue(x, 4, 0).values, _ints,
                 lambda a: _kth(a, 4, 0)[0], ["float16", "float32", "float64", "int32", "int64"]),
    "kthvalue/indices": (lambda x: minflow.kthvalue(x, 4, 0).indices, _ints,
                         lambda a: _kth(a, 4, 0)[1], ["float32", "int64"]),
    "mode": (lambda x: minflow.mode(x, 1).values, _ints, lambda a: np.sort(a, 1)[:, 0],
             ["float32", "float64", "int64"]),          # no ties: the smallest value
    "mode/indices": (lambda x: minflow.mode(x, 1, True).indices, _ints,
                     lambda a: np.argmin(a, 1)[:, None], ["float32", "int32"]),
    "quantile": (lambda x: minflow.quantile(x, 0.3, dim=1), [Sample(DISTINCT)],
                 lambda a: np.quantile(a, 0.3, axis=1), ["float32", "float64"]),
    "quantile_q_tensor": (lambda x, q: minflow.quantile(x, q, interpolation="midpoint"),
                          lambda d: [Sample(DISTINCT.astype(d), np.array([0.1, 0.5, 0.9], d))],
                          lambda a, q: np.quantile(a, q, method="midpoint"),
                          ["float32", "float64"]),
    "nanquantile": (lambda x: minflow.nanquantile(x, 0.75, dim=0, keepdim=True),
                    [Sample(DISTINCT)], lambda a: np.nanquantile(a, 0.75, axis=0, keepdims=True),
                    ["float32", "float64"]),
    "histc/indices": (lambda x: minflow.histc(x, 5, -2, 2), [Sample(DISTINCT)],
                      lambda a: np.histogram(a, 5, (-2, 2))[0].astype(a.dtype),
                      ["float32", "float64"]),
}


@pytest.mark.parametrize("name", sorted(TABLE))
def test_table(name, device):
    fn, samples, ref, dtypes = TABLE[name]
    check_op(fn, samples, ref, dtypes=dtypes, devices=[device], grad=not name.endswith("indices"),
             tol={"float32": (1e-6, 1e-6), "float16": (1e-3, 1e-3)})


def _torch_dtype(torch, ours):
    return getattr(torch, ours.dtype.name)


def _same(ours, theirs, check_indices=True):
    if isinstance(theirs, tuple):
        _same(ours[0], theirs[0])
        if check_indices:
            _same(ours[1], theirs[1])
        return
    assert ours.dtype.name == str(theirs.dtype).split(".")[-1]
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy().astype(float),
                               theirs.detach().numpy().astype(float), rtol=1e-6, atol=1e-7)


def _data(kind, shape, dtype):
    if kind == "distinct":
        a = RNG.permutation(int(np.prod(shape))).reshape(shape) - 5.0
    else:                                             # ties, and NaN in floats
        a = RNG.integers(-2, 3, shape).astype(float)
        if kind == "nan" and "float" in dtype:
            a[RNG.uniform(size=shape) < 0.3] = np.nan
    return a.astype(dtype)


def test_median_kthvalue_mode_sweep_against_torch():
    torch = pytest.importorskip("torch")
    for kind, dtype, shape in itertools.product(("distinct", "ties", "nan"),
                                                ("float32", "float64", "int64"),
                                                ((7,), (3, 4), (2, 3, 5))):
        a = _data(kind, shape, dtype)
        x, t = minflow.tensor(a), torch.tensor(a)
        _same(minflow.median(x), torch.median(t))
        _same(minflow.nanmedian(x), torch.nanmedian(t))
        for dim, keepdim in itertools.product(range(-len(shape), len(shape)), (False, True)):
            # indices among equal values are unspecified in torch: checked where distinct,
            # and for mode (the last occurrence); torch's mode of rows with NaN depends on
            # its sort, which NaN breaks (values too): not compared
            exact = kind == "distinct"
            for name in ("median", "nanmedian", "mode"):
                ours = getattr(minflow, name)(x, dim, keepdim)
                theirs = getattr(torch, name)(t, dim, keepdim)
                if name != "mode" or kind != "nan":
                    _same(ours, tuple(theirs), exact or name == "mode")
                np.testing.assert_array_equal(     # the index points at the value
                    x.gather(dim, ours.indices if keepdim else ours.indices.unsqueeze(dim))
                    .numpy(), ours.values.numpy() if keepdim else
                    ours.values.unsqueeze(dim).numpy())
            for k in (1, shape[dim]):
                _same(minflow.kthvalue(x, k, dim, keepdim),
                      tuple(torch.kthvalue(t, k, dim, keepdim)), exact)


def test_grads_against_torch():
    torch = pytest.importorskip("torch")
    a = _data("ties", (3, 5), "float64")
    calls = [lambda m, x: m.median(x), lambda m, x: m.nanmedian(x),
             lambda m, x: m.median(x, 1).values, lambda m, x: m.kthvalue(x, 2, 0).values,
             lambda m, x: m.mode(x, 1).values, lambda m, x: m.quantile(x, 0.4, dim=1),
             lambda m, x: m.nanquantile(x, m.tensor([0.2, 0.9], dtype=m.float64), dim=0)]
    for call in calls:
        grads = []
        for lib in (minflow, torch):
            x = lib.tensor(a, requires_grad=True)
            out = call(lib, x)
            weights = np.arange(1.0, out.numel() + 1).reshape(tuple(out.shape))
            (out * lib.tensor(weights)).sum().backward()
            grads.append(x.grad.numpy())
        if call in calls[:2] or call in calls[5:]:        # no choice among ties involved
            np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12, atol=1e-14)
        else:
            assert grads[0].sum() == pytest.approx(grads[1].sum())
    nan = np.array([1.0, np.nan, 2.0, np.nan])
    for name in ("median", "nanmedian"):
        grads = []
        for lib in (minflow, torch):
            x = lib.tensor(nan, requires_grad=True)
            getattr(lib, name)(x).backward()
            grads.append(x.grad.numpy())
        np.testing.assert_array_equal(grads[0], grads[1])


def test_quantile_gradient_reaches_q_as_torch():
    """q is differentiable, through the weights of "linear" interpolation."""
    torch = pytest.importorskip("torch")
    a = _data("nan", (3, 5), "float64")
    for name in ("quantile", "nanquantile"):
        grads = []
        for lib in (minflow, torch):
            q = lib.tensor([0.1, 0.5, 0.8], dtype=lib.float64, requires_grad=True)
            out = getattr(lib, name)(lib.tensor(a), q, 1)
            weights = np.arange(1.0, out.numel() + 1).reshape(tuple(out.shape))
            (out * lib.tensor(weights)).nansum().backward()
            grads.append(q.grad.numpy())
        np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12, err_msg=name)


INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def test_quantile_sweep_against_torch():
    torch = pytest.importorskip("torch")
    qs = [0.0, 0.25, 0.5, 0.62, 1.0, np.array([0.1, 0.5, 0.95]), np.array(0.3)]
    for kind, dtype, interpolation in itertools.product(("distinct", "ties", "nan"),
                                                        ("float32", "float64"),
                                                        INTERPOLATIONS):
        a = _data(kind, (3, 4), dtype)
        x, t = minflow.tensor(a), torch.tensor(a)
        for q, dim, keepdim in itertools.product(qs, (None, 0, -1), (False, True)):
            mq, tq = (minflow.tensor(q.astype(dtype)), torch.tensor(q.astype(dtype))) \
                if isinstance(q, np.ndarray) else (q, q)
            for name in ("quantile", "nanquantile"):
                _same(getattr(minflow, name)(x, mq, dim, keepdim, interpolation=interpolation),
                      getattr(torch, name)(t, tq, dim, keepdim, interpolation=interpolation))


def test_median_on_meta_and_in_graph_mode():
    meta = minflow.empty(3, 4, device="meta")
    assert tuple(minflow.median(meta).shape) == () and \
        tuple(minflow.median(meta, 1).indices.shape) == (3,)
    assert tuple(minflow.quantile(meta, minflow.empty(2, device="meta"), 0).shape) == (2, 4)

    class Stats(minflow.nn.Graph):
        def build(self, x):
            return minflow.median(x) + minflow.quantile(x, 0.5, dim=1).sum()

    x = minflow.tensor(DISTINCT)
    expected = minflow.median(x) + minflow.quantile(x, 0.5, dim=1).sum()
    np.testing.assert_allclose(Stats()(x).numpy(), expected.numpy())


def test_histc_sweep_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    for _ in range(300):
        dtype = str(rng.choice(["float32", "float64"]))
        a = (rng.standard_normal(rng.integers(0, 50)) * rng.choice([0.1, 1, 10])).astype(dtype)
        if rng.uniform() < 0.3:
            a = np.round(a)                     # values on bin edges
        bins = int(rng.integers(1, 20))
        low, high = sorted(rng.uniform(-3, 3, 2).round(1)) if rng.uniform() < 0.6 else (0, 0)
        ours = minflow.histc(minflow.tensor(a), bins, low, high)
        theirs = torch.histc(torch.tensor(a), bins, low, high)
        assert ours.dtype.name == dtype
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_mode_of_bools_as_torch():
    torch = pytest.importorskip("torch")
    a = np.array([[True, False, True, False], [False, False, True, True], [True, True, True,
                                                                            False]])
    for dim, keepdim in itertools.product((0, 1, -1), (False, True)):
        ours = minflow.mode(minflow.tensor(a), dim, keepdim)
        theirs = torch.mode(torch.tensor(a), dim, keepdim)
        assert ours.values.dtype is minflow.bool
        assert ours.values.tolist() == theirs.values.tolist()
        assert ours.indices.tolist() == theirs.indices.tolist()

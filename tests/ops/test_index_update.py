"""index_add, index_copy, index_fill and index_reduce (and their in-place variants),
select_scatter, slice_scatter, diagonal_scatter, masked_scatter and scatter_reduce: a table run through
minflow.testing.check_op (forward vs numpy on several dtypes, meta, non-contiguous inputs,
gradcheck and double backward, eager vs graph grads, in-place), and sweeps against torch
(values, dtypes, grads, repeated indices). Bad-input cases: tests/test_bad_input.py."""
import itertools

import numpy as np
import pytest

import minflow
from minflow.testing import Sample, check_op

RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 5))
DUPLICATES = np.array([3, 0, 3, 1])
UNIQUE = np.array([4, 0, 2])


def _moved(a, dim):
    return np.moveaxis(a.copy(), dim, 0)


def np_index_add(a, dim, index, source, alpha=1):
    out = _moved(a, dim)
    np.add.at(out, index, np.moveaxis(source, dim, 0) * np.asarray(alpha, a.dtype))
    return np.moveaxis(out, 0, dim)


def np_index_copy(a, dim, index, source):
    out = _moved(a, dim)
    out[index] = np.moveaxis(source, dim, 0)
    return np.moveaxis(out, 0, dim)


def np_index_fill(a, dim, index, value):
    out = _moved(a, dim)
    out[index] = value
    return np.moveaxis(out, 0, dim)


DTYPES = ["float16", "float32", "float64"]
# name: (fn, samples, numpy reference)
TABLE = {
    "index_add": (minflow.index_add, [Sample(X, 0, DUPLICATES, RNG.standard_normal((4, 5))),
                                      Sample(X, 1, UNIQUE, RNG.standard_normal((4, 3)),
                                             alpha=2.5)], np_index_add),
    "index_copy": (minflow.index_copy, [Sample(X, 1, UNIQUE, RNG.standard_normal((4, 3))),
                                        Sample(X, -2, np.array([2]), np.ones((1, 5)))],
                   np_index_copy),
    "index_fill": (minflow.index_fill, [Sample(X, 1, np.array([1, -1, 1]), -2.0),
                                        Sample(X, 0, np.array([0]), 3)], np_index_fill),
    "index_fill_tensor_value": (lambda x, i, v: minflow.index_fill(x, 0, i, v),
                                [Sample(X, np.array([2, 2]), np.array(1.5))],
                                lambda a, i, v: np_index_fill(a, 0, i, v)),
    "select_scatter": (minflow.select_scatter, [Sample(X, RNG.standard_normal(4), 1, -2)],
                       lambda a, s, dim, i: np.concatenate(
                           [a[:, :i], s[:, None], a[:, i + 1:] if i != -1 else a[:, :0]], 1)),
    "slice_scatter": (minflow.slice_scatter,
                      [Sample(X, RNG.standard_normal((4, 2)), 1, 1, None, 2),
                       Sample(X, RNG.standard_normal((2, 5)), start=-3, end=3)],
                      lambda a, s, dim=0, start=None, end=None, step=1: _np_slice_scatter(
                          a, s, dim, slice(start, end, step))),
    "masked_scatter": (minflow.masked_scatter,
                       [Sample(X, RNG.uniform(size=(4, 5)) > 0.5, RNG.standard_normal(20)),
                        Sample(X, np.array([True, False, False, True, True]),
                               RNG.standard_normal((4, 4)))],
                       lambda a, m, s: _np_masked_scatter(a, m, s)),
    "scatter_reduce": (minflow.scatter_reduce,
                       [Sample(X, 0, RNG.integers(0, 4, (6, 5)), RNG.standard_normal((6, 5)),
                               reduce) for reduce in ("sum", "mean", "prod", "amax")] +
                       [Sample(X, 1, RNG.integers(0, 5, (4, 3)), RNG.standard_normal((4, 3)),
                               "amin", include_self=False),
                        Sample(X, 1, np.array([[4], [0], [2], [2]]), RNG.standard_normal((4, 2)),
                               "prod", include_self=False)],
                       lambda a, dim, i, s, reduce, include_self=True: _np_scatter_reduce(
                           a, dim, i, s, reduce, include_self)),
    "diagonal_scatter": (minflow.diagonal_scatter,
                         [Sample(X, RNG.standard_normal(4)),
                          Sample(X, RNG.standard_normal(3), 2),
                          Sample(X.reshape(2, 2, 5), RNG.standard_normal((5, 1)), -1, 0, 1)],
                         lambda a, s, offset=0, dim1=0, dim2=1: _np_diagonal_scatter(
                             a, s, offset, dim1, dim2)),
    "index_reduce": (minflow.index_reduce,
                     [Sample(X, 0, DUPLICATES, RNG.standard_normal((4, 5)), reduce)
                      for reduce in ("prod", "mean", "amax", "amin")] +
                     [Sample(X, 1, UNIQUE, RNG.standard_normal((4, 3)), "amax",
                             include_self=False),
                      Sample(X, -1, np.array([1, 1]), RNG.standard_normal((4, 2)), "mean",
                             include_self=False)],
                     lambda a, dim, i, s, reduce, include_self=True: _np_index_reduce(
                         a, dim, i, s, reduce, include_self)),
}


def _np_diagonal_scatter(a, s, offset, dim1, dim2):
    out = np.moveaxis(a.copy(), (dim1, dim2), (-2, -1))
    rows, cols = out.shape[-2:]
    for k in range(s.shape[-1]):
        i, j = (k, k + offset) if offset >= 0 else (k - offset, k)
        if i < rows and j < cols:
            out[..., i, j] = s[..., k]
    return np.moveaxis(out, (-2, -1), (dim1, dim2))


def _np_index_reduce(a, dim, index, source, reduce, include_self):
    shape = [1] * a.ndim
    shape[dim] = -1
    spread = np.broadcast_to(np.asarray(index).reshape(shape), source.shape)
    return _np_scatter_reduce(a, dim % a.ndim, spread, source, reduce, include_self)


def _np_scatter_reduce(a, dim, index, src, reduce, include_self):
    out, sent = a.astype(np.float64), {}
    for pos in np.ndindex(*index.shape):
        target = list(pos)
        target[dim] = index[pos]
        sent.setdefault(tuple(target), []).append(float(src[pos]))
    combine = {"sum": np.sum, "mean": np.mean, "prod": np.prod, "amax": np.max,
               "amin": np.min}[reduce]
    for target, values in sent.items():
        out[target] = combine(values + ([float(a[target])] if include_self else []))
    return out.astype(a.dtype)


def _np_masked_scatter(a, mask, source):
    out = a.copy()
    mask = np.broadcast_to(mask, a.shape)
    out[mask] = source.reshape(-1)[:int(mask.sum())]
    return out


def _np_slice_scatter(a, s, dim, where):
    out = a.copy()
    out[(slice(None),) * dim + (where,)] = s
    return out


@pytest.mark.parametrize("name", sorted(TABLE))
def test_table(name, device):
    fn, samples, ref = TABLE[name]
    check_op(fn, samples, ref, dtypes=DTYPES, devices=[device],
             tol={"float16": (2e-3, 2e-3)})


def _run(lib, name, a, dim, index, other, **kwargs):
    x = lib.tensor(a, requires_grad=a.dtype.kind == "f")
    o = lib.tensor(other, requires_grad=other.dtype.kind == "f") \
        if isinstance(other, np.ndarray) else other
    out = getattr(lib, name)(x * 1 if x.requires_grad else x, dim, lib.tensor(index), o,
                             **kwargs)
    if x.requires_grad:
        (out * lib.tensor(np.arange(out.numel()).reshape(tuple(out.shape)) % 7 - 3.0)
         .to(out.dtype)).sum().backward()
    return out, [t.grad for t in (x, o) if getattr(t, "requires_grad", False)]


def test_sweep_against_torch():
    torch = pytest.importorskip("torch")
    for dtype, dim, index in itertools.product(("float32", "float64", "int64"), (0, 1, -1),
                                               ([0], [2, 0, 2], [1, 2, 0])):
        a = (RNG.standard_normal((3, 4)) * 3).astype(dtype)
        shape = list(a.shape)
        shape[dim] = len(index)
        source = (RNG.standard_normal(shape) * 3).astype(dtype)
        cases = [("index_add", source, {}), ("index_add", source, {"alpha": 3}),
                 ("index_fill", -1.5 if dtype != "int64" else 7, {}),
                 ("index_fill", np.array(2.0, dtype), {})]
        if len(set(index)) == len(index):           # torch leaves repeats unspecified
            cases.append(("index_copy", source, {}))
        for name, other, kwargs in cases:
            ours, our_grads = _run(minflow, name, a, dim, index, other, **kwargs)
            theirs, their_grads = _run(torch, name, a, dim, index, other, **kwargs)
            assert ours.dtype.name == str(theirs.dtype).split(".")[-1], name
            np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(),
                                       rtol=1e-6, atol=1e-5, err_msg=name)
            assert len(our_grads) == len(their_grads), name
            for g, t in zip(our_grads, their_grads):
                np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=1e-6, err_msg=name)


def test_inplace_variants_and_scalars():
    x = minflow.zeros(2, 3)
    assert x.index_add_(1, minflow.tensor([0, 0]), minflow.ones(2, 2)) is x
    assert x.index_fill_(0, minflow.tensor([1]), 5.0).index_copy_(
        1, minflow.tensor([2]), minflow.full((2, 1), 9.0)).tolist() == \
        [[2.0, 0.0, 9.0], [5.0, 5.0, 9.0]]
    s = minflow.tensor(1.0)
    assert minflow.index_add(s, 0, minflow.tensor([0]), minflow.tensor(2.0)).item() == 3.0
    assert minflow.index_fill(s, 0, minflow.tensor(0), 4.0).item() == 4.0
    base = minflow.zeros(3, 3)
    base[:, 1].index_fill_(0, minflow.tensor([1]), 1.0)       # writes through the view
    assert base.tolist() == [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]


def test_graph_mode_skips_the_value_check():
    class Update(minflow.nn.Graph):
        def build(self, x, i):
            return x.index_add(0, i, x[:2]).index_fill(1, i, 0.5)

    x, i = minflow.tensor(X), minflow.tensor([1, 0])
    expected = x.index_add(0, i, x[:2]).index_fill(1, i, 0.5)
    np.testing.assert_array_equal(Update()(x, i).numpy(), expected.numpy())


def test_select_and_slice_scatter_against_torch():
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal((3, 5))
    calls = [lambda m, x, s: m.select_scatter(x, s[0], 0, 1),
             lambda m, x, s: m.select_scatter(x, s[:, 0], -1, -1),
             lambda m, x, s: m.slice_scatter(x, s[:, :2], 1, 1, 4, 2),
             lambda m, x, s: m.slice_scatter(x, s[:1], 0, -1),
             lambda m, x, s: m.slice_scatter(x, s[:, :0], 1, 7, 9)]
    for call in calls:
        results = []
        for lib in (minflow, torch):
            x = lib.tensor(a, requires_grad=True)
            s = lib.tensor(a[:, ::-1] * 2, requires_grad=True)
            out = call(lib, x, s)
            (out * lib.tensor(np.arange(15.0).reshape(3, 5))).sum().backward()
            results.append([out.detach().numpy(), x.grad.numpy(), s.grad.numpy()])
        for ours, theirs in zip(*results):
            np.testing.assert_array_equal(ours, theirs)


def test_masked_scatter_against_torch():
    torch = pytest.importorskip("torch")
    for shape, mask_shape in [((3, 4), (3, 4)), ((3, 4), (4,)), ((1, 4), (3, 1)), ((5,), (5,))]:
        mask = RNG.uniform(size=mask_shape) > 0.4
        results = []
        for lib in (minflow, torch):
            values = RNG.standard_normal(shape) if lib is minflow else results[0][3]
            x = lib.tensor(values, requires_grad=True)
            s = lib.tensor(np.arange(1.0, 16.0), requires_grad=True)
            out = x.masked_scatter(lib.tensor(mask), s)
            (out * lib.tensor(np.arange(out.numel(), dtype=float).reshape(tuple(out.shape))))\
                .sum().backward()
            results.append([out.detach().numpy(), x.grad.numpy(), s.grad.numpy(),
                            x.detach().numpy()])
        for ours, theirs in zip(*results):
            np.testing.assert_array_equal(ours, theirs)


def test_scatter_reduce_sweep_against_torch():
    torch = pytest.importorskip("torch")
    reductions = ("sum", "prod", "mean", "amax", "amin")
    for reduce, include_self, dtype, dim in itertools.product(
            reductions, (True, False), ("float32", "float64", "int64"), (0, 1)):
        a = RNG.integers(-2, 3, (3, 4)).astype(dtype)      # ties, and zeros for prod
        index = RNG.integers(0, a.shape[dim], (5, 4) if dim == 0 else (3, 6))
        src = RNG.integers(-2, 3, index.shape).astype(dtype)
        results = []
        for lib in (minflow, torch):
            grad = dtype == "float64"
            x, s = lib.tensor(a, requires_grad=grad), lib.tensor(src, requires_grad=grad)
            out = x.scatter_reduce(dim, lib.tensor(index), s, reduce, include_self=include_self)
            found = [out.detach().numpy()]
            if grad:
                (out * lib.tensor(np.arange(12.0).reshape(3, 4))).sum().backward()
                found += [x.grad.numpy(), s.grad.numpy()]
            results.append(found)
        for ours, theirs in zip(*results):
            np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6,
                                       err_msg=f"{reduce} {include_self} {dtype} {dim}")
    nan = minflow.tensor([1.0, float("nan")]).scatter_reduce(
        0, minflow.tensor([0, 0]), minflow.tensor([float("nan"), 2.0]), "amax")
    assert np.isnan(nan.numpy()).all()


@pytest.mark.parametrize("alpha", [True, False, 1, 2, 0.5, 0])
def test_index_add_alpha_as_torch_for_bool_int_and_float(alpha):
    """bool alpha is a number; bool tensors take alpha as a bool, ints truncate it."""
    torch = pytest.importorskip("torch")
    for data, source in (([True, False, False], [False, True]), ([1, 2, 3], [5, 7]),
                         ([1.0, 2.0, 3.0], [5.0, 7.0])):
        results = [lib.tensor(data).index_add(0, lib.tensor([0, 1]), lib.tensor(source),
                                              alpha=alpha).tolist() for lib in (minflow, torch)]
        assert results[0] == results[1], (data, alpha)


@pytest.mark.parametrize("reduce", ["sum", "prod", "amax", "amin"])
def test_scatter_reduce_of_bools_is_logical_as_torch(reduce):
    torch = pytest.importorskip("torch")
    data, source = [True, False, True, False], [[False, True, True], [True, True, False]]
    index = [[0, 1, 1], [3, 1, 2]]
    for include_self in (True, False):
        results = [lib.tensor(data).scatter_reduce(
            0, lib.tensor(index).reshape(-1), lib.tensor(source).reshape(-1), reduce,
            include_self=include_self).tolist() for lib in (minflow, torch)]
        assert results[0] == results[1], include_self
    for lib in (minflow, torch):
        with pytest.raises(NotImplementedError):
            lib.tensor(data).scatter_reduce(0, lib.tensor([0]), lib.tensor([True]), "mean")


@pytest.mark.parametrize("dtype", ["bool", "int64", "float32"])
def test_scatter_with_reduce_as_torch(dtype):
    """torch's deprecated scatter(..., reduce="add" | "multiply"), with src or a value."""
    torch = pytest.importorskip("torch")
    x, index = np.arange(6).reshape(3, 2) % 3, [[0, 1], [0, 0], [2, 1]]
    src = np.arange(1, 7).reshape(3, 2) % 2
    values = (None,) if dtype == "bool" else (None, 3)
    for reduce, value in itertools.product(("add", "multiply"), values):
        results = [lib.tensor(x.astype(dtype)).scatter(
            0, lib.tensor(index), lib.tensor(src.astype(dtype)) if value is None else value,
            reduce=reduce).tolist() for lib in (minflow, torch)]
        assert results[0] == results[1], (reduce, value)
    with pytest.raises(RuntimeError, match="scatter: reduce argument must be either add or"):
        minflow.ones(2).scatter(0, minflow.tensor([0]), 1.0, reduce="mean")

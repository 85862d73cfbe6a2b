"""diff, gradient, trapezoid (trapz) and cumulative_trapezoid: a table run through
minflow.testing.check_op (forward vs numpy in float32 and float64, meta, non-contiguous
inputs, gradcheck and double backward, eager vs graph grads), and sweeps against torch
(values, dtypes, grads). Their bad-input cases live in tests/test_bad_input.py."""
import itertools

import numpy as np
import pytest

import minflow
from minflow.testing import Sample, check_op

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 5))
X1 = np.cumsum(RNG.uniform(0.1, 1.0, 5))


def _np_trapezoid(y, x=None, dx=1.0, dim=-1):
    y = np.moveaxis(y, dim, -1)
    spacing = np.diff(x) if x is not None else dx
    return ((y[..., 1:] + y[..., :-1]) * spacing / 2).sum(-1).astype(y.dtype)


def _np_cumulative(y, x=None, dx=1.0, dim=-1):
    y = np.moveaxis(y, dim, -1)
    spacing = np.diff(x) if x is not None else dx
    out = np.cumsum((y[..., 1:] + y[..., :-1]) * spacing / 2, -1).astype(y.dtype)
    return np.moveaxis(out, -1, dim)


# name: (fn, samples, numpy reference)
TABLE = {
    "diff": (minflow.diff, [Sample(A), Sample(A, n=2, dim=0), Sample(A, n=3)],
             lambda a, **k: np.diff(a, k.get("n", 1), k.get("dim", -1))),
    "diff_prepend_append": (
        lambda a, p, q: minflow.diff(a, 2, 0, prepend=p, append=q),
        [Sample(A, A[:2], A[:1])], lambda a, p, q: np.diff(a, 2, 0, prepend=p, append=q)),
    "trapezoid_x": (lambda y, x: minflow.trapezoid(y, x), [Sample(A, X1)],
                    lambda y, x: _np_trapezoid(y, x)),
    "trapezoid_dx": (minflow.trapezoid, [Sample(A, dx=0.5, dim=0), Sample(A)],
                     lambda y, dx=1.0, dim=-1: _np_trapezoid(y, None, dx, dim)),
    "trapz": (lambda y, x: minflow.trapz(y, x, dim=-1), [Sample(A, A + 3)],
              lambda y, x: ((y[:, 1:] + y[:, :-1]) * np.diff(x) / 2).sum(-1)),
    "cumulative_trapezoid": (minflow.cumulative_trapezoid, [Sample(A, dx=2.0, dim=0)],
                             lambda y, dx=1.0, dim=-1: _np_cumulative(y, None, dx, dim)),
    "cumulative_trapezoid_x": (lambda y, x: minflow.cumulative_trapezoid(y, x), [Sample(A, X1)],
                               lambda y, x: _np_cumulative(y, x)),
    "gradient": (lambda y: minflow.gradient(y, spacing=(0.5, 2.0), edge_order=2),
                 [Sample(A)], lambda y: tuple(np.gradient(y, 0.5, 2.0, edge_order=2))),
    "gradient_coordinates": (lambda y, x: minflow.gradient(y, spacing=[x], dim=1),
                             [Sample(A, X1)], lambda y, x: np.gradient(y, x, axis=1)),
}


@pytest.mark.parametrize("name", sorted(TABLE))
def test_table(name, device):
    fn, samples, ref = TABLE[name]
    check_op(fn, samples, ref, dtypes=["float32", "float64"], devices=[device],
             tol={"float32": (1e-5, 1e-5)})


DTYPES = ("float32", "float64", "int64", "int32", "bool")


def _pair(torch, a, dtype):
    values = a > 0 if dtype == "bool" else (np.round(a * 3) if "int" in dtype else a)
    return (minflow.tensor(values.astype(dtype)), torch.tensor(values.astype(dtype)))


def _same(ours, theirs):
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy().astype(float),
                               theirs.detach().numpy().astype(float), rtol=1e-6, atol=1e-6)


def test_diff_sweep_against_torch():
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal((3, 4))
    for dtype, n, dim, edges in itertools.product(DTYPES, range(0, 6), (0, 1, -1),
                                                  ("none", "prepend", "both")):
        (x, tx) = _pair(torch, a, dtype)
        kwargs, tkwargs = {}, {}
        if edges != "none":
            shape = (2, 4) if dim == 0 else (3, 2)
            p, tp = _pair(torch, RNG.standard_normal(shape), dtype)
            kwargs["prepend"], tkwargs["prepend"] = p, tp
            if edges == "both":
                kwargs["append"], tkwargs["append"] = p, tp
        _same(minflow.diff(x, n, dim, **kwargs), torch.diff(tx, n, dim, **tkwargs))


def test_trapezoid_sweep_against_torch():
    torch = pytest.importorskip("torch")
    for dtype, dim in itertools.product(("float32", "float64", "int64"), (0, 1, -1)):
        y, ty = _pair(torch, RNG.standard_normal((3, 4)), dtype)
        size = y.shape[dim]
        x, tx = _pair(torch, np.cumsum(RNG.uniform(0.1, 2.0, size)), dtype)
        for name in ("trapezoid", "cumulative_trapezoid"):
            ours, theirs = getattr(minflow, name), getattr(torch, name)
            _same(ours(y, dim=dim), theirs(ty, dim=dim))
            _same(ours(y, dx=3, dim=dim), theirs(ty, dx=3, dim=dim))
            _same(ours(y, dx=0.25, dim=dim), theirs(ty, dx=0.25, dim=dim))
            _same(ours(y, x, dim=dim), theirs(ty, tx, dim=dim))
    full = RNG.standard_normal((3, 4))
    _same(minflow.trapezoid(minflow.tensor(full), minflow.tensor(full)),
          torch.trapezoid(torch.tensor(full), torch.tensor(full)))
    for shape in ((2, 0), (0, 3), (2, 1)):
        _same(minflow.trapezoid(minflow.ones(shape)), torch.trapezoid(torch.ones(shape)))
        _same(minflow.cumulative_trapezoid(minflow.ones(shape)),
              torch.cumulative_trapezoid(torch.ones(shape)))


def test_grads_against_torch():
    torch = pytest.importorskip("torch")
    a, xs = RNG.standard_normal((3, 5)), np.cumsum(RNG.uniform(0.1, 1.0, 5))
    w = RNG.standard_normal(40)
    calls = [lambda m, y, x: m.diff(y, 2, 1, prepend=x.reshape(1, 5)[:, :2].expand(3, 2)),
             lambda m, y, x: m.trapezoid(y, x),
             lambda m, y, x: m.trapezoid(y, dx=0.3, dim=0),
             lambda m, y, x: m.cumulative_trapezoid(y, x)]
    for call in calls:
        grads = []
        for lib in (minflow, torch):
            y, x = lib.tensor(a, requires_grad=True), lib.tensor(xs, requires_grad=True)
            out = call(lib, y, x)
            (out * lib.tensor(w[:out.numel()].reshape(tuple(out.shape)))).sum().backward()
            grads.append([y.grad, x.grad])
        for ours, theirs in zip(*grads):
            assert (ours is None) == (theirs is None)
            if ours is not None:
                np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12,
                                           atol=1e-14)


def test_gradient_sweep_against_torch():
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal((4, 5))
    coords = [np.cumsum(RNG.uniform(0.2, 1.0, n)) for n in a.shape]
    for dtype, edge_order in itertools.product(("float32", "float64", "int64"), (1, 2)):
        y, ty = _pair(torch, a, dtype)
        cases = [({}, {}), ({"spacing": 2.5}, {"spacing": 2.5}),
                 ({"spacing": (2.0, 0.5)}, {"spacing": (2.0, 0.5)}),
                 ({"dim": -1, "spacing": 3}, {"dim": -1, "spacing": 3}),
                 ({"dim": None, "spacing": None}, {"dim": None, "spacing": None}),
                 ({"spacing": [minflow.tensor(c) for c in coords]},
                  {"spacing": [torch.tensor(c) for c in coords]})]
        if dtype != "int64":
            cases.append(({"dim": 0, "spacing": [minflow.tensor(coords[0])]},
                          {"dim": 0, "spacing": [torch.tensor(coords[0])]}))
        for ours_kwargs, torch_kwargs in cases:
            ours = minflow.gradient(y, edge_order=edge_order, **ours_kwargs)
            theirs = torch.gradient(ty, edge_order=edge_order, **torch_kwargs)
            assert len(ours) == len(theirs)
            for o, t in zip(ours, theirs):
                _same(o, t)
    grads = []
    for lib in (minflow, torch):
        y = lib.tensor(a, requires_grad=True)
        x = lib.tensor(coords[1], requires_grad=True)
        outs = lib.gradient(y, spacing=[lib.tensor(coords[0]), x], edge_order=2)
        sum((o * lib.tensor(np.arange(20.0).reshape(4, 5))).sum() for o in outs).backward()
        grads.append((y.grad.numpy(), x.grad.numpy()))
    for ours, theirs in zip(*grads):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)

"""broadcast_shapes, broadcast_tensors, meshgrid and atleast_1d / 2d / 3d: their case
table, run through the shared table tests of _shape_harness.py (values and dtypes vs numpy,
layouts, gradients, views, torch parity), and the cases a table does not cover. Their
bad-input cases live in tests/test_bad_input.py."""
import warnings

import numpy as np
import pytest

import minflow

from _shape_harness import table_tests

# name: (fn(m, *tensors), numpy reference(*arrays), input shapes, output is a view);
# every output is a view of the first input, as the table's view test expects
CASES = {
    "broadcast_tensors": (lambda m, x: m.broadcast_tensors(x, x.unsqueeze(-1), x[:1]),
                          lambda a: np.broadcast_arrays(a, a[:, None], a[:1]), [(3,)], True),
    "broadcast_tensors_list": (lambda m, x: m.broadcast_tensors(x[0], x[:, :1]),
                               lambda a: tuple(np.broadcast_arrays(a[0], a[:, :1])),
                               [(2, 3)], True),
    "meshgrid_ij": (lambda m, x: m.meshgrid(x, x[:2], indexing="ij"),
                    lambda a: tuple(np.meshgrid(a, a[:2], indexing="ij")), [(3,)], True),
    "meshgrid_xy": (lambda m, x: m.meshgrid([x, x[1:], x[0]], indexing="xy"),
                    lambda a: tuple(np.meshgrid(a, a[1:], a[0], indexing="xy")), [(3,)], True),
    "meshgrid_one": (lambda m, x: m.meshgrid(x, indexing="xy"), lambda a: (a,), [(4,)], True),
    "atleast_1d": (lambda m, x: m.atleast_1d(x), np.atleast_1d, [()], True),
    "atleast_1d_many": (lambda m, x: m.atleast_1d(x, x[0, 0]),
                        lambda a: (a, a[0, 0].reshape(1)), [(2, 3)], True),
    "atleast_2d": (lambda m, x: m.atleast_2d([x, x[0]]), lambda a: (a, a[:1]), [(2, 3)], True),
    "atleast_2d_1d": (lambda m, x: m.atleast_2d(x), np.atleast_2d, [(3,)], True),
    "atleast_3d": (lambda m, x: m.atleast_3d(x[0, 0], x[0], x),
                   lambda a: (a[0, 0].reshape(1, 1, 1), a[0].reshape(1, 3, 1), a[..., None]),
                   [(2, 3)], True),
    "atleast_3d_4d": (lambda m, x: m.atleast_3d(x[1]), lambda a: a[1], [(2, 2, 1, 3)], True),
}

# the case names whose outputs are views to write through
WRITABLE_VIEWS = ["atleast_1d", "atleast_2d_1d", "atleast_3d_4d"]

# test_forward_matches_numpy, test_grads, test_against_torch, ... on this table
globals().update(table_tests(CASES, [], WRITABLE_VIEWS))


def test_broadcast_shapes():
    assert minflow.broadcast_shapes((2, 1), (3,), 1) == (2, 3)
    assert isinstance(minflow.broadcast_shapes((2,)), minflow.Size)
    assert minflow.broadcast_shapes() == () and minflow.broadcast_shapes((0,), [1]) == (0,)
    assert minflow.broadcast_tensors() == ()


def test_broadcast_shapes_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    for _ in range(200):
        shapes = [tuple(int(s) for s in rng.choice([1, 2, 3], rng.integers(0, 4)))
                  for _ in range(rng.integers(1, 4))]
        try:
            expected = tuple(torch.broadcast_shapes(*shapes))
        except RuntimeError:
            with pytest.raises(RuntimeError, match="broadcast_shapes: shapes"):
                minflow.broadcast_shapes(*shapes)
            continue
        assert minflow.broadcast_shapes(*shapes) == expected
        tensors = [minflow.zeros(s) for s in shapes]
        assert [tuple(t.shape) for t in minflow.broadcast_tensors(*tensors)] == \
            [expected] * len(shapes)


def test_meshgrid_default_indexing_warns_as_torch():
    x, y = minflow.arange(3), minflow.arange(2)
    with pytest.warns(UserWarning, match="meshgrid: in an upcoming release"):
        grids = minflow.meshgrid(x, y)
    assert [tuple(g.shape) for g in grids] == [(3, 2), (3, 2)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        minflow.meshgrid(x, y, indexing="ij")


def test_meshgrid_sweep_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    for indexing in ("ij", "xy"):
        for n in range(1, 5):
            arrays = [rng.standard_normal(rng.integers(0, 4)) for _ in range(n)]
            ours = minflow.meshgrid(*map(minflow.tensor, arrays), indexing=indexing)
            theirs = torch.meshgrid(*map(torch.tensor, arrays), indexing=indexing)
            assert len(ours) == len(theirs)
            for o, t in zip(ours, theirs):
                assert tuple(o.shape) == tuple(t.shape)
                np.testing.assert_array_equal(o.numpy(), t.numpy())


def test_atleast_returns_tensor_itself_or_tuple():
    x = minflow.ones(2, 3)
    assert minflow.atleast_1d(x) is x and minflow.atleast_2d(x) is x
    assert isinstance(minflow.atleast_1d([x]), tuple) and len(minflow.atleast_3d(x, x)) == 2


def test_meta_device_and_graph_mode():
    x = minflow.zeros(3, device="meta")
    assert [tuple(g.shape) for g in minflow.meshgrid(x, x[:2], indexing="xy")] == [(2, 3)] * 2
    assert tuple(minflow.atleast_3d(x).shape) == (1, 3, 1)

    class Grid(minflow.nn.Graph):
        def build(self, a, b):
            u, v = minflow.meshgrid(a, b, indexing="xy")
            return u * v

    a, b = minflow.tensor([1.0, 2.0, 3.0]), minflow.tensor([4.0, 5.0])
    np.testing.assert_array_equal(Grid()(a, b).numpy(), np.outer([4.0, 5.0], [1.0, 2.0, 3.0]))

"""Shape ops (views and layout): their case and error tables, run through the shared table
tests of _shape_harness.py, and the view-or-copy rule of reshape."""
import numpy as np
import pytest

import minflow
from minflow.ops.shape import viewable

from _shape_harness import table_tests

# name: (fn(m, *tensors), numpy reference(*arrays), input shapes, output is a view)
CASES = {
    "reshape": (lambda m, x: x.reshape(3, -1), lambda a: a.reshape(3, -1), [(2, 3, 2)], True),
    "reshape_tuple": (lambda m, x: m.reshape(x, (4, 3)), lambda a: a.reshape(4, 3),
                      [(2, 3, 2)], True),
    "view": (lambda m, x: x.contiguous().view(6, 2), lambda a: a.reshape(6, 2), [(2, 3, 2)],
             True),     # contiguous() copies non-contiguous layouts first
    "flatten": (lambda m, x: x.flatten(), lambda a: a.reshape(-1), [(2, 3, 2)], True),
    "flatten_range": (lambda m, x: m.flatten(x, 1, -1), lambda a: a.reshape(2, 6),
                      [(2, 3, 2)], True),
    "unflatten": (lambda m, x: x.unflatten(-1, (2, -1)), lambda a: a.reshape(2, 3, 2, 2),
                  [(2, 3, 4)], True),
    "squeeze": (lambda m, x: x.squeeze(), np.squeeze, [(1, 3, 1, 2)], True),
    "squeeze_dim": (lambda m, x: x.squeeze(2), lambda a: a.squeeze(2), [(1, 3, 1, 2)], True),
    "squeeze_dims": (lambda m, x: m.squeeze(x, (0, -1, 1)), lambda a: a.squeeze(0),
                     [(1, 3, 1, 2)], True),
    "unsqueeze": (lambda m, x: x.unsqueeze(-1), lambda a: a[..., None], [(2, 3)], True),
    "expand": (lambda m, x: x.expand(2, -1, 4), lambda a: np.broadcast_to(a, (2, 3, 4)),
               [(3, 1)], True),
    "broadcast_to": (lambda m, x: m.broadcast_to(x, (2, 3, 4)),
                     lambda a: np.broadcast_to(a, (2, 3, 4)), [(1, 4)], True),
    "expand_as": (lambda m, x, y: x.expand_as(y), lambda a, b: np.broadcast_to(a, b.shape),
                  [(3, 1), (2, 3, 2)], True),
    "permute": (lambda m, x: x.permute(2, 0, 1), lambda a: a.transpose(2, 0, 1), [(2, 3, 4)],
                True),
    "transpose": (lambda m, x: x.transpose(0, -1), lambda a: np.swapaxes(a, 0, -1),
                  [(2, 3, 4)], True),
    "swapaxes": (lambda m, x: m.swapaxes(x, 1, 2), lambda a: np.swapaxes(a, 1, 2), [(2, 3, 4)],
                 True),
    "t": (lambda m, x: x.t(), lambda a: a.T, [(2, 3)], True),
    "t_1d": (lambda m, x: m.t(x), lambda a: a, [(3,)], True),
    "T": (lambda m, x: x.T, lambda a: a.T, [(2, 3)], True),
    "mT": (lambda m, x: x.mT, lambda a: np.swapaxes(a, -1, -2), [(2, 3, 4)], True),
    "repeat": (lambda m, x: x.repeat(2, 1, 3), lambda a: np.tile(a, (2, 1, 3)), [(3, 2)], False),
}

# (fn(m, x) with x of shape (2, 3), error type, our message, torch raises the same type too)
ERRORS = [
    (lambda m, x: x.t().view(6), RuntimeError, r"view: view size is not compatible", True),
    (lambda m, x: x.view(4, 2), RuntimeError, r"shape '\[4, 2\]' is invalid for input of size 6",
     True),
    (lambda m, x: x.reshape(-1, -1), RuntimeError, "only one dimension can be inferred", True),
    (lambda m, x: x.view(-2, 3), RuntimeError, "invalid shape dimension -2 at index 0", True),
    (lambda m, x: x.flatten(1, 0), RuntimeError, "start_dim cannot come after end_dim", True),
    (lambda m, x: x.unflatten(1, (2, 2)), RuntimeError, r"Provided sizes \[2, 2\] don't multiply",
     True),
    (lambda m, x: x.squeeze(2), IndexError, r"squeeze: Dimension out of range", True),
    (lambda m, x: x.squeeze((0, 0)), RuntimeError, "dim 0 appears multiple times", True),
    (lambda m, x: x.unsqueeze(3), IndexError, r"unsqueeze: Dimension out of range", True),
    (lambda m, x: x.expand(3, 3), RuntimeError, r"expand: The expanded size of the tensor \(3\)",
     True),
    (lambda m, x: x.expand(-1, 2, 3), RuntimeError, "isn't allowed in a leading", True),
    (lambda m, x: x.permute(0), RuntimeError, r"input.dim\(\) = 2 is not equal to len\(dims\) = 1",
     True),
    (lambda m, x: x.permute(0, 0), RuntimeError, "permute: duplicate dims are not allowed", True),
    (lambda m, x: x.transpose(0, 2), IndexError, r"transpose: Dimension out of range", True),
    (lambda m, x: x.unsqueeze(0).t(), RuntimeError, r"t\(\) expects a tensor with <= 2 dim", True),
    (lambda m, x: m.ones(3).mT, RuntimeError, "mT is only supported on matrices", True),
    (lambda m, x: x.repeat(2), RuntimeError, "Number of dimensions of repeat dims", True),
    (lambda m, x: x.repeat(-1, 2), RuntimeError, "negative dimension -2", True),
]

# the case names whose outputs are views to write through
WRITABLE_VIEWS = ["reshape", "flatten", "squeeze", "permute", "t", "unsqueeze"]

# test_forward_matches_numpy, test_grads, test_errors, test_against_torch, ... on these tables
globals().update(table_tests(CASES, ERRORS, WRITABLE_VIEWS))


def test_reshape_copies_where_no_view_exists():
    x = minflow.arange(6.0).reshape(2, 3)
    flat = x.t().reshape(6)
    assert flat.tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]
    assert flat._version is not x._version
    x.add_(1.0)
    assert flat.tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]
    assert x.t().view(3, 1, 2)._version is x._version     # splits no contiguous run


LAYOUT_CASES = [
    ((2, 3), (1, 0), None, (6,)), ((2, 3), (1, 0), None, (3, 1, 2)),
    ((2, 3, 4), (0, 2, 1), None, (6, 4)), ((2, 3, 4), (0, 2, 1), None, (2, 12)),
    ((2, 3), None, (4, 2, 3), (8, 3)), ((2, 3), None, (4, 2, 3), (4, 6)),
    ((1,), None, (4, 5), (20,)), ((3, 1, 4), (1, 0, 2), None, (12,)),
    ((4, 6), None, None, (2, 2, 3, 2)),
]


def _layout(shape, perm, expand, lib):
    """``arange`` in ``shape``, then permuted and expanded, as a numpy or torch array."""
    a = lib.arange(float(np.prod(shape))).reshape(shape)
    a = a.transpose(perm) if perm and lib is np else a.permute(perm) if perm else a
    return (np.broadcast_to(a, expand) if lib is np else a.expand(expand)) if expand else a


@pytest.mark.parametrize("shape, perm, expand, target", LAYOUT_CASES)
def test_viewable_agrees_with_numpy(shape, perm, expand, target):
    a = _layout(shape, perm, expand, np)
    assert viewable(a, target) == np.shares_memory(a.reshape(target), a)


@pytest.mark.parametrize("shape, perm, expand, target", LAYOUT_CASES)
def test_viewable_agrees_with_torch(shape, perm, expand, target):
    torch = pytest.importorskip("torch")
    try:
        _layout(shape, perm, expand, torch).view(target)
        torch_views = True
    except RuntimeError:
        torch_views = False
    assert viewable(_layout(shape, perm, expand, np), target) == torch_views


def test_meta_device_infers_shapes():
    x = minflow.zeros(2, 3, 4, device="meta")
    assert x.permute(2, 0, 1).shape == (4, 2, 3) and x.flatten(1).shape == (2, 12)
    assert x.repeat(1, 2, 1, 1).shape == (1, 4, 3, 4)


def test_transpose_of_a_0d_tensor_is_itself():
    x = minflow.tensor(3.0)
    for dims in ((0, 0), (0, -1), (-1, -1)):
        assert x.transpose(*dims).shape == () and x.transpose(*dims).item() == 3.0
    with pytest.raises(IndexError, match="transpose: Dimension out of range"):
        x.transpose(0, 1)

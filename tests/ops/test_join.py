"""Join ops (narrow, split, chunk, unbind, cat, stack, tril, triu, pad): their case and
error tables, run through the shared table tests of _shape_harness.py, and the cases a
table does not cover."""
import numpy as np
import pytest

import minflow

from _shape_harness import table_tests


def _split_at(a, sizes, axis):
    return tuple(np.split(a, np.cumsum(sizes)[:-1], axis))


# name: (fn(m, *tensors), numpy reference(*arrays), input shapes, output is a view)
CASES = {
    "narrow": (lambda m, x: x.narrow(1, -3, 2), lambda a: a[:, 1:3], [(2, 4)], True),
    "narrow_tensor_start": (lambda m, x: x.narrow(-1, m.tensor(2), 2), lambda a: a[:, 2:4],
                            [(2, 4)], True),
    "split": (lambda m, x: x.split(2, 1), lambda a: _split_at(a, [2, 2, 1], 1), [(2, 5)], True),
    "split_sections": (lambda m, x: m.split(x, [1, 0, 3], dim=-1),
                       lambda a: _split_at(a, [1, 0, 3], -1), [(2, 4)], True),
    "chunk": (lambda m, x: x.chunk(3), lambda a: _split_at(a, [2, 2, 1], 0), [(5, 2)], True),
    "unbind": (lambda m, x: x.unbind(1), lambda a: tuple(np.moveaxis(a, 1, 0)), [(2, 3)], True),
    "cat": (lambda m, x, y: m.cat([x, y], 1), lambda a, b: np.concatenate([a, b], 1),
            [(2, 3), (2, 1)], False),
    "concat": (lambda m, x, y, z: m.concat((x, y, z), dim=-2),
               lambda a, b, c: np.concatenate([a, b, c], -2), [(1, 3), (2, 3), (0, 3)], False),
    "stack": (lambda m, x, y: m.stack([x, y], -1), lambda a, b: np.stack([a, b], -1),
              [(2, 3), (2, 3)], False),
    "tril": (lambda m, x: x.tril(), np.tril, [(2, 3, 4)], False),
    "tril_diagonal": (lambda m, x: m.tril(x, diagonal=-1), lambda a: np.tril(a, -1), [(4, 3)],
                      False),
    "triu": (lambda m, x: x.triu(1), lambda a: np.triu(a, 1), [(2, 3, 4)], False),
    "pad": (lambda m, x: m.nn.functional.pad(x, (1, 2)), lambda a: np.pad(a, ((0, 0), (1, 2))),
            [(2, 3)], False),
    "pad_crop_value": (lambda m, x: m.nn.functional.pad(x, (-1, 1, 2, 0), value=3),
                       lambda a: np.pad(a[:, 1:], ((2, 0), (0, 1)), constant_values=3),
                       [(2, 3)], False),
    "pad_leading_dim": (lambda m, x: m.nn.functional.pad(x, [0, 0, 0, 0, 1, 0]),
                        lambda a: np.pad(a, ((1, 0), (0, 0), (0, 0))), [(2, 2, 3)], False),
}

# (fn(m, x) with x of shape (2, 3), error type, our message, torch raises the same type too)
ERRORS = [
    (lambda m, x: x.narrow(1, 2, 2), RuntimeError, r"start \(2\) \+ length \(2\) exceeds", True),
    (lambda m, x: x.narrow(1, -4, 1), IndexError, "start out of range", True),
    (lambda m, x: x.narrow(1, m.tensor([1]), 1), RuntimeError, "start must be an 0-dim", True),
    (lambda m, x: x.narrow(1, m.tensor(1.0), 1), RuntimeError, "start must be an 0-dim", True),
    (lambda m, x: x.split(0), RuntimeError, "split_size can only be 0 if dimension size is 0",
     True),
    (lambda m, x: x.split([1, 1], 1), RuntimeError, "split_sizes to sum exactly to 3", True),
    (lambda m, x: x.split([3, -1], 1), RuntimeError, "only non-negative entries", True),
    (lambda m, x: x.chunk(0), RuntimeError, "chunk expects `chunks` to be greater than 0", True),
    (lambda m, x: m.cat([]), ValueError, "cat: expected a non-empty list of Tensors", True),
    (lambda m, x: m.cat([x, m.ones(3)]), RuntimeError, "same number of dimensions: got 2 and 1",
     True),
    (lambda m, x: m.cat([x, x.t()], 1), RuntimeError,
     "Sizes of tensors must match except in dimension 1. Expected size 2 but got size 3", True),
    (lambda m, x: m.cat([x.sum(), x.sum()]), RuntimeError, "zero-dimensional tensor", True),
    (lambda m, x: m.cat([x, x], 2), IndexError, "cat: Dimension out of range", True),
    (lambda m, x: m.cat([x, 1]), TypeError, "expected Tensor as element 1", True),
    (lambda m, x: m.stack([]), RuntimeError, "stack expects a non-empty TensorList", True),
    (lambda m, x: m.stack([x, x.t()]), RuntimeError, "stack expects each tensor to be equal size",
     True),
    (lambda m, x: m.ones(3).tril(), RuntimeError, "tril: input tensor must have at least 2 dim",
     True),
    (lambda m, x: m.nn.functional.pad(x, (1,)), RuntimeError, "divisible by 2", True),
    (lambda m, x: m.nn.functional.pad(x, (1,) * 6), RuntimeError, "padding length 6 and input "
     "of dimension 2", True),
    (lambda m, x: m.nn.functional.pad(x, (-2, -2)), RuntimeError, "negative output size", True),
    (lambda m, x: m.nn.functional.pad(x, (3, 3), mode="reflect"), RuntimeError,
     "pad: with mode 'reflect', padding \\(3, 3\\) at dimension 1 should be at most 2", True),
    (lambda m, x: m.nn.functional.pad(x, (1, 1), mode="wrap"), NotImplementedError,
     "Unrecognised padding mode wrap", True),
]

# the case names whose outputs are views to write through
WRITABLE_VIEWS = ["narrow", "split", "chunk", "unbind"]

# test_forward_matches_numpy, test_grads, test_errors, test_against_torch, ... on these tables
globals().update(table_tests(CASES, ERRORS, WRITABLE_VIEWS))


def test_cat_promotes_and_skips_legacy_empty(device):
    x = minflow.ones(2, 3, device=device)
    assert minflow.cat([x, minflow.ones(1, 3, dtype=minflow.int64, device=device)]).dtype \
        is minflow.float32
    assert minflow.cat([x.int(), x.bool()]).dtype is minflow.int32
    empty = minflow.zeros(0, dtype=minflow.float64, device=device, requires_grad=True)
    leaf = minflow.ones(2, 3, device=device, requires_grad=True)
    out = minflow.cat([leaf, empty], dim=1)
    assert out.shape == (2, 3) and out.dtype is minflow.float64
    out.sum().backward()
    assert empty.grad.shape == (0,) and leaf.grad.dtype is minflow.float32
    assert minflow.cat([minflow.zeros(0), minflow.zeros(0)], 1).shape == (0,)


def test_split_and_chunk_sizes():
    x = minflow.arange(6)
    assert [p.numel() for p in x.chunk(4)] == [2, 2, 2]
    assert [p.numel() for p in minflow.zeros(0).chunk(3)] == [0, 0, 0]
    assert [p.numel() for p in minflow.zeros(0).split(0)] == [0]
    assert [p.numel() for p in minflow.zeros(0).split(2)] == [0]
    assert minflow.zeros(2, 0).unbind(1) == ()


def test_split_pieces_get_their_own_grads():
    x = minflow.arange(6.0, requires_grad=True)
    a, b, c = x.split([1, 2, 3])
    (a * 1 + b.sum() * 2 + c.sum() * 3).sum().backward()
    assert x.grad.tolist() == [1.0, 2.0, 2.0, 3.0, 3.0, 3.0]


def test_inplace_and_out_triangles():
    x = minflow.ones(2, 2)
    assert x.tril_() is x and x.tolist() == [[1.0, 0.0], [1.0, 1.0]]
    assert x.triu_(0).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    out = minflow.empty(2, 2)
    assert minflow.triu(minflow.ones(2, 2), 1, out=out) is out and out.sum().item() == 1.0


def test_meta_device_infers_shapes():
    x = minflow.zeros(2, 3, 4, device="meta")
    assert minflow.cat([x, x], 2).shape == (2, 3, 8)
    assert [p.shape for p in x.split([1, 2], 1)] == [(2, 1, 4), (2, 2, 4)]
    assert minflow.nn.functional.pad(x, (1, -1, 2, 2)).shape == (2, 7, 4)


def test_narrow_takes_a_0d_integer_tensor_start():
    x = minflow.arange(5)
    assert x.narrow(0, minflow.tensor(1), 3).tolist() == [1, 2, 3]
    for bad in (minflow.tensor(True), minflow.tensor([1]), minflow.tensor(1.0)):
        with pytest.raises(RuntimeError, match="0-dim integral Tensor"):
            x.narrow(0, bad, 1)


def test_unbind_of_0d_is_index_error():
    with pytest.raises(IndexError, match="no dimensions"):
        minflow.tensor(1.0).unbind(0)

"""Shape ops driven from one table: forward vs numpy for several dtypes and memory layouts,
gradcheck and double backward, views sharing memory, errors, and a PyTorch cross-check.

Table functions take the namespace first (``m``: minflow or torch), so the same line runs
on both libraries.
"""
import numpy as np
import pytest

import minflow
from minflow.autograd import gradcheck, gradgradcheck
from minflow.ops.shape import viewable

DTYPES = ("float64", "float32", "float16", "int64", "bool")
LAYOUTS = ("contiguous", "strided", "transposed")


def _split_at(a, sizes, axis):
    return tuple(np.split(a, np.cumsum(sizes)[:-1], axis))


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
    "narrow": (lambda m, x: x.narrow(1, -3, 2), lambda a: a[:, 1:3], [(2, 4)], True),
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


def sample(shape, dtype, seed=0):
    values = np.random.default_rng(seed).uniform(-2.0, 2.0, shape)
    if dtype == "bool":
        return values > 0
    if dtype in ("int32", "int64"):
        return np.round(values * 3).astype(dtype)
    return values.astype(dtype)


def view_of(leaf, layout):
    """The view ``make`` hands out: every other element, or a transpose, of ``leaf``."""
    if layout == "strided":
        return leaf.unbind(-1)[0]
    if layout == "transposed" and leaf.ndim >= 2:
        return leaf.permute(tuple(range(leaf.ndim))[::-1])
    return leaf


def make(a, device, layout, requires_grad=False):
    """A leaf tensor and a view of it with ``a``'s values in the given memory layout."""
    if layout == "strided":
        a = np.stack([a, np.zeros_like(a)], -1)
    elif layout == "transposed":
        a = np.ascontiguousarray(a.transpose(tuple(range(a.ndim))[::-1]))
    leaf = minflow.tensor(a, device=device, requires_grad=requires_grad)
    return leaf, view_of(leaf, layout)


def as_tuple(out):
    return out if isinstance(out, tuple) else (out,)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_matches_numpy(name, dtype, layout, device):
    fn, ref, shapes, _ = CASES[name]
    arrays = [sample(s, dtype, seed) for seed, s in enumerate(shapes)]
    tensors = [make(a, device, layout)[1] for a in arrays]
    moved = {"strided": 1, "transposed": 2}.get(layout, 99)
    if sum(n > 1 for n in arrays[0].shape) >= moved:     # else the layout is still contiguous
        assert not tensors[0].is_contiguous()
    outs, expected = as_tuple(fn(minflow, *tensors)), as_tuple(ref(*arrays))
    assert len(outs) == len(expected)
    for out, exp in zip(outs, expected):
        assert out.dtype.name == dtype and tuple(out.shape) == exp.shape
        np.testing.assert_array_equal(out.cpu().numpy(), exp)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_grads(name, layout, device):
    fn, _, shapes, _ = CASES[name]
    leaves = tuple(make(sample(s, "float64", seed), device, layout, requires_grad=True)[0]
                   for seed, s in enumerate(shapes))
    # the op sees the (non-contiguous) views; gradcheck perturbs the leaves under them
    check = lambda *xs: fn(minflow, *(view_of(x, layout) for x in xs))     # noqa: E731
    assert gradcheck(check, leaves)
    assert gradgradcheck(check, leaves)


@pytest.mark.parametrize("name", sorted(CASES))
def test_views_share_memory_and_version(name, device):
    fn, ref, shapes, is_view = CASES[name]
    arrays = [sample(s, "float64", seed) for seed, s in enumerate(shapes)]
    tensors = [minflow.tensor(a, device=device) for a in arrays]
    outs = as_tuple(fn(minflow, *tensors))
    tensors[0].add_(10.0)       # seen through views, not by copies
    arrays_after = [arrays[0] + 10.0] + arrays[1:]
    for out, exp in zip(outs, as_tuple(ref(*(arrays_after if is_view else arrays)))):
        np.testing.assert_array_equal(out.cpu().numpy(), exp)
        shared = out._version is not None and out._version is tensors[0]._version
        assert shared == is_view


@pytest.mark.parametrize("name", ["reshape", "flatten", "squeeze", "permute", "t", "narrow",
                                  "split", "chunk", "unbind", "unsqueeze"])
def test_writes_to_a_view_reach_the_base(name, device):
    fn, _, shapes, _ = CASES[name]
    x = minflow.tensor(sample(shapes[0], "float64"), device=device)
    for out in as_tuple(fn(minflow, x)):
        out.fill_(7.0)
    written = sum(o.numel() for o in as_tuple(fn(minflow, x)))
    assert int((x == 7.0).sum().item()) == written


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
    assert x.permute(2, 0, 1).shape == (4, 2, 3) and x.flatten(1).shape == (2, 12)
    assert minflow.cat([x, x], 2).shape == (2, 3, 8) and x.repeat(1, 2, 1, 1).shape == (1, 4, 3, 4)
    assert [p.shape for p in x.split([1, 2], 1)] == [(2, 1, 4), (2, 2, 4)]
    assert minflow.nn.functional.pad(x, (1, -1, 2, 2)).shape == (2, 7, 4)


X = np.arange(6.0).reshape(2, 3)
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
    (lambda m, x: x.narrow(1, 2, 2), RuntimeError, r"start \(2\) \+ length \(2\) exceeds", True),
    (lambda m, x: x.narrow(1, -4, 1), IndexError, "start out of range", True),
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
    (lambda m, x: m.nn.functional.pad(x, (1, 1), mode="reflect"), NotImplementedError,
     "mode 'reflect' is not implemented", False),
    (lambda m, x: m.nn.functional.pad(x, (1, 1), mode="wrap"), NotImplementedError,
     "Unrecognised padding mode wrap", True),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors(index):
    fn, exc, match, _ = ERRORS[index]
    with pytest.raises(exc, match=match):
        fn(minflow, minflow.tensor(X))


def test_against_torch():
    torch = pytest.importorskip("torch")
    for name, (fn, _, shapes, _) in sorted(CASES.items()):
        arrays = [sample(s, "float64", seed) for seed, s in enumerate(shapes)]
        ours = [minflow.tensor(a, requires_grad=True) for a in arrays]
        theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
        out_ours, out_theirs = as_tuple(fn(minflow, *ours)), as_tuple(fn(torch, *theirs))
        assert len(out_ours) == len(out_theirs), name
        weights = [np.random.default_rng(1).standard_normal(tuple(o.shape)) for o in out_theirs]
        for o, t in zip(out_ours, out_theirs):
            np.testing.assert_array_equal(o.detach().numpy(), t.detach().numpy(), err_msg=name)
        sum(minflow.sum(o * minflow.tensor(w)) for o, w in zip(out_ours, weights)).backward()
        sum((t * torch.tensor(w)).sum() for t, w in zip(out_theirs, weights)).backward()
        for x, t in zip(ours, theirs):
            assert (x.grad is None) == (t.grad is None), name
            if t.grad is not None:
                np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-12,
                                           err_msg=name)
    for fn, exc, _, same in ERRORS:
        if same:
            with pytest.raises(exc):
                fn(torch, torch.tensor(X))

import numpy as np
import pytest

import minflow
from minflow.autograd import gradcheck, gradgradcheck

SHAPE = (3, 4, 5)
A = np.arange(60, dtype=np.float64).reshape(SHAPE) / 7 - 4
S = slice(None)


class I(list):
    """An int64 index tensor in a case (a list, or a number for a 0-d tensor)."""

    def __init__(self, value):
        super().__init__([value])


class B(I):
    """A bool mask tensor in a case."""


def build(index, device):
    """The case's index for minflow (tensors on ``device``) and for numpy (arrays)."""
    if isinstance(index, tuple):
        pairs = [build(i, device) for i in index]
        return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)
    if isinstance(index, I):
        arr = np.array(index[0], dtype=bool if isinstance(index, B) else np.int64)
        return minflow.tensor(arr, device=device), arr
    return index, index


MASK2 = [[True, False, True, False], [False, False, False, False], [True, True, False, True]]

# name: (index, numpy reference or None for a[index] with arrays for tensors)
GETITEM = {
    "int": (1, None),
    "negative_ints": ((-1, 2), None),
    "slices": ((slice(1, None), slice(None, None, 2)), None),
    "slice_past_end": ((slice(0, 10, 3),), None),
    "empty_slice": ((slice(2, 1),), None),
    "none_ellipsis": ((None, Ellipsis, 1), None),
    "ellipsis_middle": ((0, Ellipsis, None), None),
    "empty_tuple": ((), None),
    "list_with_repeats": ([2, 0, 2], None),
    "empty_list": ([], None),
    "tensor_2d": (I([[0, 1], [2, 2]]), None),
    "tensor_0d": (I(1), None),
    "negative_tensor": (I([-1, 0]), None),
    "broadcast_pair": ((I([[0], [2]]), I([1, 3])), None),
    "separated_pair": ((I([0, 2]), S, I([1, 4])), None),
    "adjacent_after_slice": ((S, I([0, 3]), I([1, 1])), None),
    "none_between_tensors": ((I([0, 1]), None, I([1, 2])), None),
    # torch applies ints first (numpy would count 0 as an advanced index here)
    "int_then_tensor": ((0, S, I([0, 2])), lambda a: a[0][:, [0, 2]]),
    "mask_1d": (B([True, False, True]), None),
    "mask_2d": (B(MASK2), None),
    "mask_after_slice": ((S, B([False, True, True, False])), None),
    "mask_with_tensor": ((B([True, False, True]), I([0, 3])), None),
    "python_true": (True, None),
    "python_false": ((Ellipsis, False), None),
}


def _input(dtype, device, contiguous=True):
    a = A if dtype is not minflow.bool else A > 0
    a = a.astype(dtype.np)
    if contiguous:
        return minflow.tensor(a, device=device), a
    wide = np.repeat(a, 2, axis=-1)           # every other column is the data
    x = minflow.tensor(wide, device=device)[..., ::2]
    assert not x.is_contiguous()
    return x, a


def _np(t):
    return t.detach().cpu().numpy()


@pytest.mark.parametrize("dtype", [minflow.float32, minflow.float64, minflow.int64,
                                   minflow.bool], ids=lambda d: d.name)
@pytest.mark.parametrize("contiguous", [True, False])
@pytest.mark.parametrize("name", sorted(GETITEM))
def test_getitem_matches_numpy(name, dtype, contiguous, device):
    index, ref = GETITEM[name]
    x, a = _input(dtype, device, contiguous)
    ours, theirs = build(index, device)
    out = x[ours]
    expected = ref(a) if ref else a[theirs]
    assert out.dtype is dtype and tuple(out.shape) == expected.shape
    np.testing.assert_array_equal(_np(out), expected)


@pytest.mark.parametrize("name", sorted(GETITEM))
def test_getitem_grads(name, device):
    index, _ = GETITEM[name]
    ours, _ = build(index, device)
    x = minflow.tensor(A, device=device, requires_grad=True)
    assert gradcheck(lambda t: t[ours], (x,))
    assert gradgradcheck(lambda t: t[ours] ** 2, (x,))


def test_repeated_indices_accumulate_grads(device):
    x = minflow.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
    x[[0, 2, 0, 0]].sum().backward()
    assert x.grad.tolist() == [3.0, 0.0, 1.0]


def test_basic_indexing_is_a_view(device):
    x = minflow.zeros(3, 4, device=device)
    row, col, adv = x[1], x[:, 1:3], x[[0, 1]]
    assert row._base is x and col._base is x and adv._base is None
    row[2] = 7.0                        # writes through to x, bumps the shared version
    assert x[1, 2].item() == 7.0 and col[1, 1].item() == 7.0 and adv[1, 2].item() == 0.0
    assert x._version_value == row._version_value == col._version_value == 1
    x[0, 0].fill_(5.0)                  # a 0-d view is still a view
    assert x[0, 0].item() == 5.0
    if device == "cpu":
        assert np.shares_memory(col.numpy(), x.numpy())


def test_advanced_indexing_of_a_contiguous_tensor_and_index_select_are_contiguous(device):
    """As torch: x[:, idx] of a contiguous x, and index_select of any x, can be viewed."""
    x = minflow.arange(24.0, device=device).reshape(2, 3, 4)
    index = minflow.tensor([2, 0], device=device)
    for out in (x[:, [2, 0]], x[:, :, index], x.index_select(1, index),
                x.transpose(0, 2).index_select(1, index)):
        assert out.is_contiguous()
    assert x[:, [2, 0]].view(-1).tolist() == x.cpu().numpy()[:, [2, 0]].reshape(-1).tolist()


def test_inplace_change_of_a_saved_view_is_detected():
    x = minflow.tensor(A, requires_grad=True)
    y = x * 1.0
    view = y[0:2]
    z = (view * view).sum()
    y[2] = 0.0                           # does not touch view's data but bumps its version
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()


def _set_int_then_tensor(a, value):
    a[0][:, [0, 2]] = value                 # torch's placement, see GETITEM


# name: (index, value, numpy reference or None for a[index] = value)
SETITEM = {
    "int_scalar": (1, 5.0, None),
    "slice_broadcast_row": ((S, 0), np.arange(5.0), None),
    "ellipsis_none": ((Ellipsis, None, 1), -1.0, None),
    "leading_ones_value": (0, np.ones((1, 1, 4, 5)), None),
    "tensor_rows": (I([0, 2]), np.ones((1, 4, 5)) * 3, None),
    "tensor_pair": ((I([0, 2]), S, I([1, 4])), np.array([[1.0], [2.0]]), None),
    "int_then_tensor": ((0, S, I([0, 2])), np.array([9.0, -9.0]), _set_int_then_tensor),
    "mask_full": (B(A > 0), 0.0, None),
    "mask_full_tensor_value": (B(A < 0), np.array(2.5), None),
    "mask_2d": (B(MASK2), np.arange(5.0), None),
    "mask_after_int": ((1, B([True, False, False, True])), 8.0, None),
}


def _reference_set(a, index, value, ref):
    out = a.copy()
    if ref is not None:
        ref(out, value)
    else:
        out[build(index, "cpu")[1]] = value
    return out


@pytest.mark.parametrize("dtype", [minflow.float32, minflow.float64, minflow.int64],
                         ids=lambda d: d.name)
@pytest.mark.parametrize("name", sorted(SETITEM))
def test_setitem_matches_numpy(name, dtype, device):
    index, value, ref = SETITEM[name]
    a = A.astype(dtype.np)
    x = minflow.tensor(a, device=device)
    ours = build(index, device)[0]
    x[ours] = minflow.tensor(value, device=device) if isinstance(value, np.ndarray) else value
    np.testing.assert_array_equal(_np(x), _reference_set(a, index, value, ref))


@pytest.mark.parametrize("name", sorted(SETITEM))
def test_setitem_grads_reach_input_and_value(name, device):
    index, value, _ = SETITEM[name]
    ours = build(index, device)[0]
    x = minflow.tensor(A, device=device, requires_grad=True)
    v = minflow.tensor(np.asarray(value) + 0.5, dtype=minflow.float64, device=device,
                       requires_grad=True)

    def put(x, v):
        h = x * 1.0
        h[ours] = v * v
        return h
    assert gradcheck(put, (x, v)) and gradgradcheck(put, (x, v))


def test_setitem_on_views_and_leaves():
    base = minflow.zeros(2, 4)
    view = base[1]
    view[1:3] = minflow.tensor([1, 2])             # int value cast to float32
    assert base.tolist() == [[0.0] * 4, [0.0, 1.0, 2.0, 0.0]]
    ints = minflow.zeros(3, dtype=minflow.int64)
    ints[[0, 1]] = minflow.tensor([1.7, -2.7])       # cast like copy_: truncation
    assert ints.tolist() == [1, -2, 0]
    leaf = minflow.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        leaf[0] = 1.0
    with minflow.no_grad():
        leaf[0] = 1.0
    assert leaf.tolist() == [1.0, 0.0, 0.0] and leaf.is_leaf


def test_setitem_gives_a_plain_tensor_a_grad_fn_from_value():
    x = minflow.zeros(4)
    v = minflow.tensor(2.0, requires_grad=True)
    x[1:3] = v
    assert x.requires_grad
    (x * minflow.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    assert v.grad.item() == 5.0


def _scatter_reference(a, dim, index, src, add):
    out = a.copy()
    for pos in np.ndindex(*index.shape):
        target = list(pos)
        target[dim] = index[pos]
        if add:
            out[tuple(target)] += src[pos]
        else:
            out[tuple(target)] = src[pos]
    return out


RNG = np.random.default_rng(0)
GATHER_INDEX = RNG.integers(-4, 4, size=(2, 3, 5))       # smaller than A apart from dim 1
SCATTER_INDEX = RNG.integers(0, 4, size=(2, 3, 4))
TAKE_INDEX = RNG.integers(-5, 5, size=(1, 4, 2))
SRC = RNG.standard_normal((3, 4, 5))
MASK = np.array([True, False, False, True, True])


def _t(a, device, grad=False):
    return minflow.tensor(a, device=device, requires_grad=grad)


def _like(a, x):
    """``a`` as a tensor with x's dtype and device (src / values of the FUNCTIONS cases)."""
    return minflow.tensor(np.asarray(a).astype(x.dtype.np), device=x.device)


# name: (fn of (x, device), numpy reference of x's data a)
FUNCTIONS = {
    "index_select": (lambda x, d: x.index_select(1, _t([3, 0, 3], d)),
                     lambda a: np.take(a, [3, 0, 3], axis=1)),
    "index_select_neg_dim": (lambda x, d: minflow.index_select(x, -1, _t([4], d)),
                             lambda a: a[..., [4]]),
    "gather": (lambda x, d: x.gather(1, _t(GATHER_INDEX, d)),
               lambda a: np.take_along_axis(a[:2, :, :5], GATHER_INDEX % 4, axis=1)),
    "scatter_add": (lambda x, d: x.scatter_add(1, _t(SCATTER_INDEX, d), _like(SRC, x)),
                    lambda a: _scatter_reference(a, 1, SCATTER_INDEX, SRC.astype(a.dtype), True)),
    "scatter": (lambda x, d: minflow.scatter(x, 2, _t(SCATTER_INDEX[:, :, :1], d), _like(SRC, x)),
                lambda a: _scatter_reference(a, 2, SCATTER_INDEX[:, :, :1], SRC.astype(a.dtype),
                                             False)),
    "scatter_value": (lambda x, d: x.scatter(0, _t(SCATTER_INDEX[:1] % 3, d), value=-1.0),
                      lambda a: _scatter_reference(a, 0, SCATTER_INDEX[:1] % 3,
                                                   np.full((1, 3, 4), -1, a.dtype), False)),
    "masked_select": (lambda x, d: x.masked_select(_t(MASK, d)),
                      lambda a: a[np.broadcast_to(MASK, a.shape)]),
    "take_along_dim": (lambda x, d: x.take_along_dim(_t(TAKE_INDEX, d), 2),
                       lambda a: np.take_along_axis(a, np.broadcast_to(TAKE_INDEX, (3, 4, 2)), 2)),
    "take_along_dim_flat": (lambda x, d: minflow.take_along_dim(x, _t([59, 0, 7], d)),
                            lambda a: a.reshape(-1)[[59, 0, 7]]),
    "index_put_accumulate": (
        lambda x, d: x.index_put((_t([0, 2, 0], d), _t([1, 1, 1], d)), _like(SRC[:3, 0], x),
                                 accumulate=True),
        lambda a: _add_at(a, (np.array([0, 2, 0]), np.array([1, 1, 1])),
                          SRC[:3, 0].astype(a.dtype))),
    "index_put_mask": (lambda x, d: x.index_put((_t(A > 1, d),), _like(-1, x)),
                       lambda a: np.where(A > 1, -1, a)),
}


def _add_at(a, index, values):
    out = a.copy()
    np.add.at(out, index, values)
    return out


@pytest.mark.parametrize("dtype", [minflow.float32, minflow.float64, minflow.int64],
                         ids=lambda d: d.name)
@pytest.mark.parametrize("contiguous", [True, False])
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_functions_match_numpy(name, dtype, contiguous, device):
    fn, ref = FUNCTIONS[name]
    x, a = _input(dtype, device, contiguous)
    out = fn(x, device)
    assert out.dtype is dtype
    np.testing.assert_allclose(_np(out), ref(a), rtol=1e-6 if dtype is minflow.float32 else 0)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_functions_grads(name, device):
    fn, _ = FUNCTIONS[name]
    x = minflow.tensor(A, device=device, requires_grad=True)
    assert gradcheck(lambda t: fn(t, device), (x,))
    assert gradgradcheck(lambda t: fn(t, device) ** 2, (x,))


def test_grads_of_src_and_values(device):
    x = _t(A, device, grad=True)
    src = _t(SRC, device, grad=True)
    index = _t(SCATTER_INDEX, device)
    small = _t(SCATTER_INDEX[:, :, :1], device)
    for fn in (lambda x, s: minflow.scatter_add(x, 1, index, s),
               lambda x, s: minflow.scatter(x, 2, small, s),     # src larger than index
               lambda x, s: x.index_put((index[0, 0] % 3,), s[0, 0, :4].reshape(4, 1),
                                        accumulate=True),
               lambda x, s: x.index_put((_t([0, 2, 1], device), _t([3, 1, 0], device)),
                                        s[0, 0, 0])):
        assert gradcheck(fn, (x, src)) and gradgradcheck(lambda a, b: fn(a, b) ** 2, (x, src))


def test_nonzero(device):
    a = np.array([[0, 1, 0], [2, 0, 3]])
    x = _t(a, device)
    np.testing.assert_array_equal(_np(x.nonzero()), np.argwhere(a))
    rows, cols = minflow.nonzero(x, as_tuple=True)
    assert rows.tolist() == [0, 1, 1] and cols.tolist() == [1, 0, 2]
    assert x.nonzero().dtype is minflow.int64
    assert tuple(minflow.nonzero(_t(5.0, device)).shape) == (1, 0)


def test_int32_indices_and_indices_on_another_device():
    x = minflow.tensor(A)
    i32 = minflow.tensor([2, 0], dtype=minflow.int32)
    np.testing.assert_array_equal(x[i32].numpy(), A[[2, 0]])
    np.testing.assert_array_equal(x.gather(0, i32.reshape(2, 1, 1)).numpy(),
                                  A[[2, 0]][:, :1, :1])
    np.testing.assert_array_equal(x[np.array([1, 1])].numpy(), A[[1, 1]])


def test_meta_device_infers_shapes_and_refuses_masks():
    x = minflow.zeros(*SHAPE, device="meta")
    assert x[0, :, minflow.zeros(2, 3, dtype=minflow.int64, device="meta")].shape == (4, 2, 3)
    assert x[None, 1:, ::2].shape == (1, 2, 2, 5)
    assert x.gather(2, minflow.zeros(3, 4, 1, dtype=minflow.int64, device="meta")).shape \
        == (3, 4, 1)
    mask = minflow.zeros(3, dtype=minflow.bool, device="meta")
    with pytest.raises(RuntimeError, match="nonzero: the output shape depends on the data"):
        x[mask]


X = minflow.tensor(A)
L = minflow.tensor
ERRORS = [
    (lambda: X[3], IndexError, "getitem: index 3 is out of bounds for dimension 0 with size 3"),
    (lambda: X[:, -5], IndexError, "index -5 is out of bounds for dimension 1 with size 4"),
    (lambda: X[0, 0, 0, 0], IndexError, "too many indices for tensor of dimension 3"),
    (lambda: X[::-1], ValueError, "step must be greater than zero"),
    (lambda: X[::0], ValueError, "slice step cannot be zero"),
    (lambda: X[1.5:], TypeError, "slice indices must be integers"),
    (lambda: X[L([0, 3])], IndexError, "index: index 3 is out of bounds for dimension 0 with "
                                       "size 3"),
    (lambda: X[:, L([-5])], IndexError, "index -5 is out of bounds for dimension 1 with size 4"),
    (lambda: X[L([True, False])], IndexError, r"The shape of the mask \[2\] at index 0 does "
                                              r"not match the shape of the indexed tensor"),
    (lambda: X[L([0.5])], IndexError, "tensors used as indices must be long, int, byte or bool"),
    (lambda: X[1.5], IndexError, r"only integers, slices \(`:`\), ellipsis"),
    (lambda: X[..., 0, ...], IndexError, "an index can only have a single ellipsis"),
    (lambda: X[L([0, 1]), L([0, 1, 2])], IndexError, r"shape mismatch: indexing tensors could "
                                                     r"not be broadcast together with shapes"),
    (lambda: X.clone().__setitem__(0, minflow.ones(3)), RuntimeError,
     r"setitem_: shape mismatch: value tensor of shape \[3\] cannot be broadcast to indexing "
     r"result of shape \[4, 5\]"),
    (lambda: X.clone().__setitem__(0, [1.0]), TypeError, "can't assign a list to a Tensor"),
    (lambda: X.gather(0, L([0])), RuntimeError, "gather: Index tensor must have the same "
                                                "number of dimensions as input"),
    (lambda: X.gather(1, minflow.zeros(4, 1, 1, dtype=minflow.int64)), RuntimeError,
     r"Size does not match at dimension 0: expected index \[4, 1, 1\] to be no larger"),
    (lambda: X.gather(1, minflow.zeros(1, 1, 1)), RuntimeError, "expected dtype int32 or int64"),
    (lambda: X.gather(1, minflow.full((1, 1, 1), 7)), RuntimeError,
     "gather: index 7 is out of bounds for dimension 1 with size 4"),
    (lambda: X.scatter(0, minflow.full((1, 1, 1), 9), 1.0), RuntimeError,
     "scatter: index 9 is out of bounds for dimension 0 with size"),
    (lambda: X.scatter_add(0, minflow.full((1, 1, 1), 9), minflow.ones_like(X)), RuntimeError,
     "scatter_add: index 9 is out of bounds for dimension 0 with size"),
    (lambda: X.index_select(0, L([[0]])), IndexError, "Index is supposed to be a vector"),
    (lambda: X.index_select(0, L([0.0])), RuntimeError, "Expected dtype int32 or int64"),
    (lambda: X.index_select(3, L([0])), IndexError, "index_select: Dimension out of range"),
    (lambda: X.scatter_add(0, L([[[0]]]), minflow.ones(1, 1, 1)), RuntimeError,
     "scatter_add: expected src with the dtype of input"),
    (lambda: X.scatter_add(0, minflow.zeros(2, 2, 2, dtype=minflow.int64),
                           minflow.ones(1, 1, 1, dtype=minflow.float64)), RuntimeError,
     r"and no larger than src \[1, 1, 1\]"),
    (lambda: X.masked_select(minflow.ones(5)), RuntimeError, "expected BoolTensor for mask"),
    (lambda: X.index_put((L([0]),), minflow.ones(1)), RuntimeError,
     "Index put requires the source and destination dtypes match"),
    (lambda: X.index_put(L([0]), X[0]), TypeError, "expected indices to be a tuple of Tensors and values"),
    (lambda: X.take_along_dim(L([0]), 1), RuntimeError, "input and indices should have the "
                                                         "same number of dimensions"),
    (lambda: X.scatter(0, L([[[0]]])), TypeError, "expected either src .a Tensor. or value"),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors(case):
    fn, kind, match = ERRORS[case]
    with pytest.raises(kind, match=match):
        fn()


TORCH_INDEXES = [1, (S, 0), (Ellipsis, None, slice(1, 4, 2)), (I([2, 0, 2]), S, I([1, 4, 1])),
                 (I([[0], [2]]), I([1, 3])), (0, S, I([0, 2])), B(A > 0), (S, B(MASK2[0])),
                 (1, Ellipsis, B(MASK)), (I([0, 2]), None, I([1, 2])), True]


def _both(index, torch):
    mf, arrays = build(index, "cpu")
    if isinstance(arrays, tuple):
        return mf, tuple(torch.from_numpy(a) if isinstance(a, np.ndarray) else a for a in arrays)
    return mf, torch.from_numpy(arrays) if isinstance(arrays, np.ndarray) else arrays


def test_against_torch_getitem_and_setitem():
    torch = pytest.importorskip("torch")
    for index in TORCH_INDEXES:
        ours, theirs = _both(index, torch)
        x, t = minflow.tensor(A, requires_grad=True), torch.tensor(A, requires_grad=True)
        out, ref = x[ours], t[theirs]
        np.testing.assert_array_equal(_np(out), ref.detach().numpy())
        seed = RNG.standard_normal(tuple(ref.shape))
        out.backward(minflow.tensor(seed))
        ref.backward(torch.tensor(seed))
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-12)
        v = minflow.tensor(1.5, dtype=minflow.float64, requires_grad=True)
        tv = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)
        h, th = x * 2.0, t * 2.0
        h[ours] = v * 3.0
        th[theirs] = tv * 3.0
        np.testing.assert_array_equal(_np(h), th.detach().numpy())
        (h * minflow.tensor(A)).sum().backward()
        (th * torch.tensor(A)).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-12)
        np.testing.assert_allclose(v.grad.item(), tv.grad.item(), rtol=1e-12)


def test_against_torch_functions():
    torch = pytest.importorskip("torch")
    idx = torch.from_numpy(SCATTER_INDEX)
    pairs = {
        "gather": (lambda x: x.gather(1, _t(GATHER_INDEX % 4, "cpu")),
                   lambda t: t.gather(1, torch.from_numpy(GATHER_INDEX % 4))),
        "scatter_add": (lambda x: x.scatter_add(1, _t(SCATTER_INDEX, "cpu"), x[:2, :3, :4] ** 2),
                        lambda t: t.scatter_add(1, idx, t[:2, :3, :4] ** 2)),
        "scatter": (lambda x: x.scatter(1, _t(SCATTER_INDEX[:, :1], "cpu"), x[:2, :1, :4] * 3),
                    lambda t: t.scatter(1, idx[:, :1], t[:2, :1, :4] * 3)),
        "index_select": (lambda x: x.index_select(2, _t([4, 4, 0], "cpu")),
                         lambda t: t.index_select(2, torch.tensor([4, 4, 0]))),
        "masked_select": (lambda x: x.masked_select(x > 0), lambda t: t.masked_select(t > 0)),
        "take_along_dim": (lambda x: x.take_along_dim(_t(TAKE_INDEX % 5, "cpu"), 2),
                           lambda t: t.take_along_dim(torch.from_numpy(TAKE_INDEX % 5), 2)),
        "index_put": (lambda x: x.index_put((_t([1, 1], "cpu"),), x[0] * 2, accumulate=True),
                      lambda t: t.index_put((torch.tensor([1, 1]),), t[0] * 2, accumulate=True)),
    }
    for name, (ours, theirs) in pairs.items():
        x, t = minflow.tensor(A, requires_grad=True), torch.tensor(A, requires_grad=True)
        out, ref = ours(x), theirs(t)
        np.testing.assert_allclose(_np(out), ref.detach().numpy(), rtol=1e-12, err_msg=name)
        seed = RNG.standard_normal(tuple(ref.shape))
        out.backward(minflow.tensor(seed))
        ref.backward(torch.tensor(seed))
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-12, err_msg=name)
    np.testing.assert_array_equal(minflow.tensor(A > 0).nonzero().numpy(),
                                  torch.tensor(A > 0).nonzero().numpy())

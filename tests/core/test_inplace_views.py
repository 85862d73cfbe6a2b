"""In-place ops on views under autograd (core/inplace.py): the base gets a CopySlices
node, the view and every other view of that base read themselves back out of it."""
import numpy as np
import pytest

import minflow
from minflow.autograd import gradcheck, gradgradcheck

X = np.random.default_rng(0).standard_normal((4, 3))
W = np.random.default_rng(1).standard_normal((4, 3))


def _slice_mul(L, x, w):
    h = x * 1
    h[0:2].mul_(2)
    return h


def _flat_view_add(L, x, w):
    h = x * 1
    h.view(-1).add_(1)
    return h * h


def _setitem_on_a_view(L, x, w):
    h = x * 1
    h[0:2][0] = 5                       # Tensor.__setitem__ on a view of h
    return h * w


def _transpose_zero(L, x, w):
    h = x * 1
    h.t().zero_()
    return h + x


def _view_times_tensor(L, x, w):
    h = x * 1
    v = h[1:3]
    v.mul_(w[1:3])
    return h * v.sum()


def _base_changed_under_a_view(L, x, w):
    h = x * 1
    v = h[0:2]
    h.mul_(2)                           # v is out of date: its grad must see the mul
    return v * 3


def _plain_buffer_filled_from_grad(L, x, w):
    b = L.zeros(4, 3, dtype=x.dtype)
    b[1:3].copy_(x[0:2] * w[0:2])
    return b * w


def _two_views_of_one_base(L, x, w):
    h = x * 1
    row, col = h[0], h[:, 1]
    row.mul_(3)
    col.add_(w[:, 0])
    return (row * 2).sum() + (col * col).sum() + h.sum()


def _view_chain_of_transpose_and_slice(L, x, w):
    h = x * 1
    v = h.transpose(0, 1)[1:]
    v.mul_(v.detach() + 1)
    return h.exp()


def _unsqueeze_then_index(L, x, w):
    h = x * 1
    h.unsqueeze(0)[0, 1:].mul_(2)
    return h


def _narrow_mul(L, x, w):
    h = x * 1
    h.narrow(1, 1, 2).mul_(w[:, :2])
    return h


def _base_changed_without_grad(L, x, w):
    h = x * 1
    v = h[0]
    with L.no_grad():
        h.mul_(2)
    return v * 3


def _view_of_a_view(L, x, w):
    h = x * 1
    v = h[1:]
    u = v[:, 1]
    u.mul_(4)
    v.add_(1)
    return h * u.sum()


def _strided_view_of_a_reshape(L, x, w):
    h = x.t() * 1
    h.reshape(-1)[::2].mul_(3)
    return h


def _overwritten_non_view(L, x, w):
    h = x * 1
    h.zero_()
    return h + x


CASES = [_slice_mul, _flat_view_add, _setitem_on_a_view, _transpose_zero, _view_times_tensor,
         _base_changed_under_a_view, _plain_buffer_filled_from_grad, _two_views_of_one_base,
         _view_chain_of_transpose_and_slice, _unsqueeze_then_index, _narrow_mul,
         _base_changed_without_grad, _view_of_a_view, _strided_view_of_a_reshape,
         _overwritten_non_view]


def _run(L, case):
    x = L.tensor(X, requires_grad=True)
    w = L.tensor(W, requires_grad=True)
    out = case(L, x, w)
    out.backward(L.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape))))
    grads = [None if t.grad is None else t.grad.numpy() for t in (x, w)]
    return out.detach().numpy(), grads


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__.strip("_"))
def test_values_and_gradients_match_torch(case):
    torch = pytest.importorskip("torch")
    ours, theirs = _run(minflow, case), _run(torch, case)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)
    for g_ours, g_theirs in zip(ours[1], theirs[1]):
        assert (g_ours is None) == (g_theirs is None)
        if g_ours is not None:
            np.testing.assert_allclose(g_ours, g_theirs, rtol=1e-12)


def test_slice_mul_gradient_by_hand():
    x = minflow.ones(3, 2, requires_grad=True)
    h = x * 1
    h[0:2].mul_(2)
    h.sum().backward()
    assert x.grad.tolist() == [[2.0, 2.0], [2.0, 2.0], [1.0, 1.0]]


def test_grad_fn_names_of_base_and_views_as_torch():
    x = minflow.ones(4, 3, requires_grad=True)
    h = x * 1
    view, other = h[0:2], h[1]
    assert h.grad_fn.name() == "MulBackward0"
    view.mul_(2)
    assert h.grad_fn.name() == "CopySlices"
    assert view.grad_fn.name() == other.grad_fn.name() == "AsStridedBackward0"
    assert view.grad_fn.next_edges[0][0] is h.grad_fn        # read out of the new base
    assert h._version_value == view._version_value == other._version_value == 1


def test_plain_buffer_takes_a_history_from_the_written_value():
    x = minflow.tensor([1.0, 2.0], requires_grad=True)
    buf = minflow.zeros(4)
    buf.narrow(0, 1, 2).copy_(x * 3)
    assert buf.requires_grad and buf.grad_fn.name() == "CopySlices"
    (buf * minflow.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    assert x.grad.tolist() == [6.0, 9.0]


def test_gradcheck_and_double_backward_through_views():
    def f(x, w):
        h = x * x
        h[1:].mul_(w[1:])
        h.t()[0].add_(w[0, :3] * x[0, :3])
        return h.sin()

    x = minflow.tensor(np.random.default_rng(2).standard_normal((3, 4)), requires_grad=True)
    w = minflow.tensor(np.random.default_rng(3).standard_normal((3, 4)), requires_grad=True)
    assert gradcheck(f, (x, w))
    assert gradgradcheck(f, (x, w))


def test_non_contiguous_base():
    base = minflow.from_numpy(np.arange(12.0).reshape(3, 4).T.copy().T)    # Fortran order
    x = minflow.ones(4, 3, dtype=minflow.float64, requires_grad=True)
    assert not base.is_contiguous()
    base[1:, 1].copy_(x[0, :2] * 5)
    (base * base).sum().backward()
    expected = np.zeros((4, 3))
    expected[0, :2] = 2 * 25
    np.testing.assert_allclose(x.grad.numpy(), expected)


@pytest.mark.parametrize("make, message", [
    (lambda x: x[0], "a view of a leaf Variable that requires grad"),
    (lambda x: (x * 1).expand(2, 4, 3), "more than one element of the written-to tensor"),
], ids=["view of leaf", "expanded view"])
def test_unsupported_in_place_on_views_raise(make, message):
    x = minflow.ones(4, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match=message):
        make(x).mul_(2)


def test_view_made_without_grad_cannot_be_changed_with_grad():
    h = minflow.ones(3, requires_grad=True) * 1
    with minflow.no_grad():
        view = h[0:2]
    with pytest.raises(RuntimeError, match="created in no_grad mode"):
        view.mul_(2)
    with minflow.no_grad():
        view.mul_(2)                        # both under no_grad: fine, as torch
    assert h.tolist() == [2.0, 2.0, 1.0]


def test_detach_is_not_a_view_for_autograd():
    x = minflow.ones(3, requires_grad=True)
    h = x * 1
    detached = h.detach()
    assert detached._base is None
    detached.mul_(5)                        # changes h's data, not its history
    assert h.grad_fn.name() == "MulBackward0" and h.tolist() == [5.0, 5.0, 5.0]


def test_fill_of_a_non_leaf_keeps_it_requiring_grad_with_zero_gradient():
    x = minflow.ones(3, requires_grad=True)
    h = x * 2
    h.fill_(7.0)
    assert h.requires_grad and h.grad_fn.name() == "FillBackward0"
    h.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


def test_in_place_on_views_without_grad_still_writes_through():
    base = minflow.zeros(2, 3)
    base[1][1:] = 4.0
    base.t()[0].add_(1.0)
    assert base.tolist() == [[1.0, 0.0, 0.0], [1.0, 4.0, 4.0]]
    assert not base.requires_grad

import numpy as np
import pytest

import minflow
from minflow.autograd import gradcheck, gradgradcheck


def leaf(values, dtype=minflow.float64):
    return minflow.tensor(values, dtype=dtype, requires_grad=True)


def test_backward_accumulates_into_leaves():
    x = leaf([1.0, 2.0])
    (x * x).sum().backward()
    (x * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2 + 3, 4 + 3])


def test_shared_subexpression_and_broadcast():
    x = leaf([[1.0], [2.0]])
    y = leaf([1.0, 2.0, 3.0])
    z = x * y + x
    z.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[9.0], [9.0]])   # sum(y) + 3
    np.testing.assert_allclose(y.grad.numpy(), [3.0, 3.0, 3.0])


def test_non_scalar_backward_needs_gradient():
    x = leaf([1.0, 2.0])
    y = x * 2
    with pytest.raises(RuntimeError, match="implicitly created only for scalar"):
        y.backward()
    y.backward(minflow.tensor([1.0, 10.0], dtype=minflow.float64))
    assert x.grad.tolist() == [2.0, 20.0]


def test_second_backward_through_freed_graph():
    x = leaf([1.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [4.0]
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_hooks_and_retain_grad():
    x = leaf([1.0, 2.0])
    seen = []
    x.register_hook(lambda g: seen.append(g.tolist()))
    y = x * 2
    y.retain_grad()
    handle = y.register_hook(lambda g: g * 10)
    y.sum().backward()
    assert y.grad.tolist() == [10.0, 10.0]     # retained grad sees the hooked value
    assert seen == [[20.0, 20.0]] and x.grad.tolist() == [20.0, 20.0]
    handle.remove()
    x.grad = None
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_leaf_used_twice_calls_hook_once_with_total():
    x = leaf([1.0])
    calls = []
    x.register_hook(lambda g: calls.append(g.item()))
    (x * 2 + x * 3).sum().backward()
    assert calls == [5.0]


def test_autograd_grad_and_allow_unused():
    x, y = leaf([3.0]), leaf([4.0])
    z = (x * x).sum()
    (gx,) = minflow.autograd.grad(z, x, retain_graph=True)
    assert gx.tolist() == [6.0] and x.grad is None
    with pytest.raises(RuntimeError, match="allow_unused"):
        minflow.autograd.grad(z, [x, y], retain_graph=True)
    assert minflow.autograd.grad(z, [x, y], allow_unused=True)[1] is None


def test_higher_order_gradients():
    x = leaf([2.0])
    y = (x ** 3).sum()
    (g,) = minflow.autograd.grad(y, x, create_graph=True)
    (gg,) = minflow.autograd.grad(g.sum(), x)
    assert g.tolist() == [12.0] and gg.tolist() == [12.0]   # 3x^2, 6x


def test_version_counter_detects_inplace_change_of_saved_tensor():
    x = leaf([1.0, 2.0])
    y = x.exp()          # saves its output
    z = y.sum()
    with minflow.no_grad():
        y.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation.*exp"):
        z.backward()


def test_inplace_on_non_leaf_keeps_gradients_right():
    x = leaf([1.0, 2.0])
    y = x * 1
    y.mul_(x)            # y = x * x
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 4.0]


def test_no_grad_and_decorators():
    x = leaf([1.0])
    with minflow.no_grad():
        assert not (x * 2).requires_grad
        with minflow.enable_grad():
            assert (x * 2).requires_grad

    @minflow.no_grad()
    def f(t):
        return t * 2
    assert not f(x).requires_grad and minflow.is_grad_enabled()
    minflow.set_grad_enabled(False)
    assert not minflow.is_grad_enabled()
    minflow.set_grad_enabled(True)
    with minflow.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert minflow.is_grad_enabled()


def test_integer_outputs_do_not_require_grad():
    x = leaf([1.0, 2.0])
    assert not (x > 1).requires_grad
    assert x.detach().requires_grad is False and x.detach().is_leaf


def test_requires_grad_only_for_floats():
    with pytest.raises(RuntimeError, match="floating point"):
        minflow.tensor([1, 2], requires_grad=True)


@pytest.mark.parametrize("fn", [
    lambda a, b: a * b + a / b, lambda a, b: (a - b).abs().sqrt(),
    lambda a, b: a.sigmoid() * b.tanh(), lambda a, b: minflow.maximum(a, b) ** 2,
    lambda a, b: minflow.where(a > b, a.exp(), b.log1p()),
    lambda a, b: a.clamp(-0.5, 0.5) * b.sin() + b.cos(),
])
def test_composites_gradcheck(fn):
    a = minflow.tensor([[0.3, -1.2, 2.0]], dtype=minflow.float64, requires_grad=True)
    b = minflow.tensor([[0.7], [1.9]], dtype=minflow.float64, requires_grad=True)
    assert gradcheck(fn, (a, b))
    assert gradgradcheck(fn, (a, b))


class Cube(minflow.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x)
        ctx.k = k
        return x * x * x * k

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * 3 * x * x * ctx.k, None


def test_custom_function():
    x = leaf([1.0, 2.0])
    y = Cube.apply(x, 2.0)
    assert y.grad_fn.name() == "CubeBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [6.0, 24.0]
    assert gradcheck(lambda t: Cube.apply(t, 0.5), (leaf([0.3, -1.1]),))
    with minflow.no_grad():
        assert not Cube.apply(x, 1.0).requires_grad


def test_detect_anomaly_names_op_and_source_line():
    x = leaf([0.0, 1.0])
    with minflow.autograd.detect_anomaly():
        y = x.sqrt()           # d sqrt / dx at 0 is inf
        with pytest.raises(RuntimeError, match=r"SqrtBackward0.*'sqrt'.*test_autograd.py:\d+"):
            y.sum().backward()
    z = x.sqrt().sum()
    z.backward()               # without anomaly mode the inf goes through silently
    assert np.isinf(x.grad.numpy()[0])

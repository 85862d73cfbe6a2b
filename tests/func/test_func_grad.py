"""minflow.func.grad / grad_and_value: values, pytrees, nesting, and which results stay
differentiable (those that reach tensors from outside the transform), against
torch.func where torch is installed."""
from collections import OrderedDict, namedtuple

import numpy as np
import pytest

import minflow
from minflow.func import grad, grad_and_value


def test_values_argnums_and_pytrees():
    x = minflow.tensor([1.0, 2.0])
    assert grad(lambda a: (a ** 3).sum())(x).tolist() == [3.0, 12.0]
    ga, gb = grad(lambda a, b: (a * b * b).sum(), argnums=(0, 1))(x, x + 1)
    assert ga.tolist() == [4.0, 9.0] and gb.tolist() == [4.0, 12.0]
    assert grad(lambda a, b: (a * b).sum(), argnums=-1)(x, x * 3).tolist() == [1.0, 2.0]
    g = grad(lambda d: (d["w"] * d["b"][0]).sum())(OrderedDict(w=x, b=[x * 2]))
    assert type(g) is OrderedDict and list(g) == ["w", "b"]
    assert g["w"].tolist() == [2.0, 4.0] and g["b"][0].tolist() == [1.0, 2.0]
    pair = namedtuple("pair", "a b")
    assert type(grad(lambda p: (p.a * p.b).sum())(pair(x, x))) is pair
    # an input the output does not use gets zeros
    assert grad(lambda a, b: a.sum(), argnums=1)(x, x).tolist() == [0.0, 0.0]


def test_nested_grad_is_the_second_derivative():
    x = minflow.tensor([0.5, 1.0])
    second = grad(lambda a: grad(lambda b: b.sin().sum())(a).sum())(x)
    np.testing.assert_allclose(second.numpy(), -np.sin([0.5, 1.0]), rtol=1e-6)


def test_results_detached_unless_they_reach_outside_tensors():
    x = minflow.tensor([1.0, 2.0])
    w = minflow.tensor([3.0, 4.0], requires_grad=True)
    assert not grad(lambda a: (a ** 2).sum())(x).requires_grad
    closed_over = grad(lambda a: (a * w).sum() ** 2)(x)          # depends on w
    assert closed_over.requires_grad
    assert minflow.autograd.grad(closed_over.sum(), w)[0].tolist() == [36.0, 50.0]
    of_outer = grad(lambda a: (a ** 3).sum())(w)                 # 3 w^2, differentiable
    assert minflow.autograd.grad(of_outer.sum(), w)[0].tolist() == [18.0, 24.0]
    with minflow.no_grad():
        assert not grad(lambda a: (a * w).sum() ** 2)(x).requires_grad


def test_has_aux_and_grad_and_value():
    x = minflow.tensor([1.0, 2.0])
    g, aux = grad(lambda a: ((a ** 2).sum(), {"double": a * 2}), has_aux=True)(x)
    assert g.tolist() == [2.0, 4.0] and aux["double"].tolist() == [2.0, 4.0]
    assert not aux["double"].requires_grad
    g, (value, aux) = grad_and_value(lambda a: ((a ** 2).sum(), 7), has_aux=True)(x)
    assert value.item() == 5.0 and aux == 7 and not value.requires_grad


@pytest.mark.parametrize("call, error, fragment", [
    (lambda lib, x: lib.func.grad(lambda a: a ** 2)(x), RuntimeError,
     "Expected f(*args) to return a scalar Tensor, got tensor with 1 dims"),
    (lambda lib, x: lib.func.grad(lambda a: 3.0)(x), RuntimeError,
     "Expected f(*args) to return a Tensor, got float"),
    (lambda lib, x: lib.func.grad(lambda a: a.sum(), argnums=2)(x), RuntimeError,
     "grad: Got argnum=2, but only 1 positional inputs"),
    (lambda lib, x: lib.func.grad(lambda a: a.sum(), argnums=1.0)(x), RuntimeError,
     "grad: argnums must be int or Tuple[int, ...], got: float"),
    (lambda lib, x: lib.func.grad(lambda a: a.sum(), argnums=())(x), RuntimeError,
     "grad: argnums must be non-empty"),
    (lambda lib, x: lib.func.grad(lambda a: a.sum(), has_aux=True)(x), RuntimeError,
     "output of function f should be a tuple: (output, aux) if has_aux is True"),
    (lambda lib, x: lib.func.grad(lambda a: a.sum())(3.0), ValueError,
     "grad: expected the arguments at argnums to be Tensors (or pytrees of them), got float"),
    (lambda lib, x: lib.func.grad(lambda a: a.sum())(x.long()), RuntimeError,
     "grad: only Tensors of floating point dtype can require gradients, got int64"),
])
def test_errors_as_torch(call, error, fragment):
    with pytest.raises(error) as info:
        call(minflow, minflow.tensor([1.0, 2.0]))
    assert fragment in str(info.value)
    torch = pytest.importorskip("torch")
    with pytest.raises(error):
        call(torch, torch.tensor([1.0, 2.0]))


def _penalty_and_maml(lib):
    """A gradient penalty and a MAML step written with torch.func.grad: the values and
    the grads that reach the module's parameters through the transform."""
    lin = lib.nn.Linear(2, 1)
    with lib.no_grad():
        lin.weight.copy_(lib.tensor([[0.5, -1.5]]))
        lin.bias.fill_(0.1)
    xs, ys = lib.tensor([[1.0, 2.0], [0.5, -1.0]]), lib.tensor([[1.0], [0.0]])
    g = lib.func.grad(lambda a: lib.tanh(lin(a)).sum())(xs)
    penalty = ((g.norm(2, dim=1) - 1) ** 2).mean()
    penalty.backward()
    penalty_grad = lin.weight.grad.clone()
    lin.zero_grad()

    params = OrderedDict(lin.named_parameters())

    def loss_fn(p, a, y):
        return ((lib.func.functional_call(lin, p, (a,)) - y) ** 2).mean()

    grads = lib.func.grad(loss_fn)(params, xs, ys)
    fast = {k: v - 0.1 * grads[k] for k, v in params.items()}
    meta = loss_fn(fast, xs, ys)
    meta.backward()
    return [g, penalty, penalty_grad, meta, lin.weight.grad, lin.bias.grad]


def test_gradient_penalty_and_maml_through_grad_match_torch():
    torch = pytest.importorskip("torch")
    for got, expected in zip(_penalty_and_maml(minflow), _penalty_and_maml(torch)):
        np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(),
                                   rtol=1e-5, atol=1e-6)

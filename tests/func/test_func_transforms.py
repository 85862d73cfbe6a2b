"""minflow.func's transforms: values against closed forms (and against torch.func where it
is installed), nesting, pytrees of arguments, and torch's errors."""
import numpy as np
import pytest

import minflow
from minflow import func

X = np.array([0.5, -1.0, 2.0])
W = np.array([[1.0, 2.0, 0.5], [-1.0, 0.0, 3.0]])


def t(a, **kw):
    return minflow.tensor(a, dtype=minflow.float64, **kw)


def test_grad_and_value_of_a_scalar_function():
    g, value = func.grad_and_value(lambda x: (x ** 3).sum())(t(X))
    np.testing.assert_allclose(g.numpy(), 3 * X ** 2)
    assert value.item() == pytest.approx((X ** 3).sum())
    assert not g.requires_grad and g.grad_fn is None        # plain tensors at the top level


def test_grad_argnums_pytrees_and_aux():
    def loss(params, x):
        return ((params["w"] @ x + params["b"]) ** 2).sum(), x.sum()
    params = {"w": t(W), "b": t([1.0, -1.0])}
    grads, aux = func.grad(loss, has_aux=True)(params, t(X))
    r = W @ X + [1.0, -1.0]
    np.testing.assert_allclose(grads["w"].numpy(), 2 * np.outer(r, X))
    np.testing.assert_allclose(grads["b"].numpy(), 2 * r)
    assert aux.item() == pytest.approx(X.sum())
    gx, gw = func.grad(lambda x, w: (w @ x).sum(), argnums=(0, 1))(t(X), t(W))
    np.testing.assert_allclose(gx.numpy(), W.sum(0))
    np.testing.assert_allclose(gw.numpy(), np.tile(X, (2, 1)))


def test_transforms_nest():
    third = func.grad(func.grad(func.grad(lambda x: x.sin())))(t(0.3))
    assert third.item() == pytest.approx(-np.cos(0.3))
    np.testing.assert_allclose(func.hessian(lambda x: (x ** 3).sum())(t(X)).numpy(),
                               np.diag(6 * X))


def test_vjp_jvp_and_jacobians():
    out, vjp_fn = func.vjp(lambda x: x.exp(), t(X))
    (g,) = vjp_fn(t([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(g.numpy(), np.exp(X) * [1, 2, 3])
    out, tangent = func.jvp(lambda x: x.exp(), (t(X),), (t([1.0, 0.0, 1.0]),))
    np.testing.assert_allclose(tangent.numpy(), np.exp(X) * [1, 0, 1])
    for transform in (func.jacrev, func.jacfwd):
        np.testing.assert_allclose(transform(lambda w, x: w @ x, argnums=1)(t(W), t(X)).numpy(),
                                   W)


def test_vmap_maps_dims_and_stacks_outputs():
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(func.vmap(lambda row, w: w @ row, in_dims=(1, None))(
        t(x), t(np.ones((4, 2)))).numpy(), (np.ones((4, 2)) @ x).T)
    total, doubled = func.vmap(lambda r: (r.sum(), r * 2), out_dims=(0, 1))(t(x))
    np.testing.assert_allclose(total.numpy(), x.sum(1))
    np.testing.assert_allclose(doubled.numpy(), (x * 2).T)
    # per-sample gradients: vmap over grad
    per_sample = func.vmap(func.grad(lambda w, xi: (w @ xi) ** 2), in_dims=(None, 0))(
        t([1.0, 2.0, 3.0]), t(x))
    np.testing.assert_allclose(per_sample.numpy(), 2 * (x @ [1, 2, 3])[:, None] * x)


def test_ensemble_with_stack_module_state():
    models = [minflow.nn.Linear(3, 2).double() for _ in range(3)]
    params, buffers = func.stack_module_state(models)
    assert params["weight"].shape == (3, 2, 3) and params["weight"].requires_grad
    out = func.vmap(lambda p, b, x: func.functional_call(models[0], (p, b), (x,)),
                    in_dims=(0, 0, None))(params, buffers, t(X))
    for i, m in enumerate(models):
        np.testing.assert_allclose(out[i].detach().numpy(), m(t(X)).detach().numpy())


@pytest.mark.parametrize("call, error, message", [
    (lambda: func.grad(lambda x: x * 2)(t(X)), RuntimeError,
     "Expected f\\(\\*args\\) to return a scalar Tensor, got tensor with 1 dims"),
    (lambda: func.grad(lambda x: x.sum())(minflow.tensor([1, 2])), RuntimeError,
     "only Tensors of floating point dtype can require gradients"),
    (lambda: func.grad(lambda x: x.sum(), argnums=2)(t(X)), RuntimeError, "Got argnum=2"),
    (lambda: func.vmap(lambda a, b: a + b)(t(np.ones((2, 3))), t(np.ones((3, 3)))), ValueError,
     "same size in the mapped dimension, got sizes \\[2, 3\\]"),
    (lambda: func.vmap(lambda a: a, in_dims=(None,))(t(X)), ValueError,
     "at least one input must be a Tensor mapped over"),
    (lambda: func.vmap(lambda a: 1.0)(t(X)), ValueError, "must only return Tensors"),
    (lambda: func.vmap(lambda a, n: a * n)(t(X), 2), ValueError,
     "cannot vmap over non-Tensor arguments"),
    (lambda: func.stack_module_state([]), RuntimeError, "Expected at least one model"),
])
def test_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_matches_torch_func():
    torch = pytest.importorskip("torch")
    f = lambda L: (lambda x: (x.sin() * x ** 2).sum())     # noqa: E731
    ours = func.hessian(f(minflow))(t(X)).numpy()
    theirs = torch.func.hessian(f(torch))(torch.tensor(X)).numpy()
    np.testing.assert_allclose(ours, theirs, 1e-12)
    ours = func.vmap(func.jacrev(lambda x: x.exp() * x.sum()))(t(np.eye(3))).numpy()
    theirs = torch.func.vmap(torch.func.jacrev(lambda x: x.exp() * x.sum()))(
        torch.tensor(np.eye(3))).numpy()
    np.testing.assert_allclose(ours, theirs, 1e-12)


def test_linearize_matches_jvp_and_torch():
    x = minflow.tensor([0.3, 1.2, -0.7], dtype=minflow.float64)
    f = lambda a: (a.sin() * a).cumsum(0)       # noqa: E731
    out, jvp_fn = minflow.func.linearize(f, x)
    np.testing.assert_allclose(out.numpy(), f(x).numpy())
    tangent = minflow.tensor([1.0, -2.0, 0.5], dtype=minflow.float64)
    np.testing.assert_allclose(jvp_fn(tangent).numpy(),
                               minflow.func.jvp(f, (x,), (tangent,))[1].numpy())
    with pytest.raises(RuntimeError, match="tangent 0 has shape"):
        jvp_fn(minflow.ones(2, dtype=minflow.float64))
    torch = pytest.importorskip("torch")
    t_out, t_fn = torch.func.linearize(f, torch.tensor(x.numpy()))
    np.testing.assert_allclose(jvp_fn(tangent).numpy(),
                               t_fn(torch.tensor(tangent.numpy())).numpy(), rtol=1e-12)


def test_functionalize_and_replace_all_batch_norm_modules():
    assert minflow.func.functionalize(minflow.exp) is minflow.exp
    with pytest.raises(RuntimeError, match="remove must be"):
        minflow.func.functionalize(minflow.exp, remove="views")
    model = minflow.nn.Sequential(minflow.nn.Conv2d(1, 2, 3), minflow.nn.BatchNorm2d(2))
    assert minflow.func.replace_all_batch_norm_modules_(model) is model
    bn = model[1]
    assert bn.running_mean is None and bn.running_var is None and not bn.track_running_stats
    out = model.eval()(minflow.randn(4, 1, 5, 5))       # batch statistics even in eval
    np.testing.assert_allclose(out.mean(dim=(0, 2, 3)).detach().numpy(), 0, atol=1e-5)

"""minflow.autograd.functional against torch.autograd.functional: jacobian, hessian, vjp,
jvp, vhp, hvp over single and tuple inputs and outputs, create_graph and strict."""
import numpy as np
import pytest

import minflow
from minflow.autograd import functional as AF

RNG = np.random.default_rng(0)
A, B = RNG.normal(size=(3,)), RNG.normal(size=(2, 3))


def _two_outputs(lib):
    return lambda x, y: ((lib.sin(x) * y).sum(0), x.exp() * y[1].sum())


def _scalar(lib):
    return lambda x, y: (x ** 2 * y).sum() + x.prod() * y[0, 1]


def _numpy(value):
    if isinstance(value, tuple):
        return [_numpy(v) for v in value]
    return value.detach().numpy()


def _close(ours, theirs):
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _close(a, b)
    else:
        assert tuple(ours.shape) == tuple(theirs.shape)
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(),
                                   rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("tupled", [True, False])
def test_jacobian_and_hessian_as_torch(tupled):
    torch = pytest.importorskip("torch")

    def run(lib, name, fn):
        x, y = lib.tensor(A), lib.tensor(B)
        f = fn(lib) if tupled else (lambda x: fn(lib)(x, y))
        return getattr(lib.autograd.functional, name)(f, (x, y) if tupled else x)
    for name, fn in (("jacobian", _two_outputs), ("hessian", _scalar)):
        _close(run(minflow, name, fn), run(torch, name, fn))
    single = [lib.autograd.functional.jacobian(lambda x: x.exp() * 2, lib.tensor(A))
              for lib in (minflow, torch)]
    _close(*single)


@pytest.mark.parametrize("name", ["vjp", "jvp", "vhp", "hvp"])
@pytest.mark.parametrize("tupled", [True, False])
def test_products_as_torch(name, tupled):
    torch = pytest.importorskip("torch")
    w = RNG.normal(size=(2, 3))

    def run(lib):
        x, y = lib.tensor(A), lib.tensor(B)
        if name == "vjp":
            f, v = _two_outputs(lib), (lib.tensor(w[0]), lib.tensor(w[1]))
        elif name == "jvp":
            f, v = _two_outputs(lib), (lib.tensor(w[0]), lib.tensor(w * 0.5))
        else:
            f, v = _scalar(lib), (lib.tensor(w[0]), lib.tensor(w))
        if not tupled:
            g = f
            f = (lambda x: g(x, y)) if name in ("vhp", "hvp") else (lambda x: g(x, y)[0])
            v = v[0] if name != "vjp" else v[0][:3]
            return getattr(lib.autograd.functional, name)(f, x, v)
        return getattr(lib.autograd.functional, name)(f, (x, y), v)
    for ours, theirs in zip(run(minflow), run(torch)):
        _close(ours, theirs)


def test_create_graph_keeps_results_differentiable():
    torch = pytest.importorskip("torch")

    def run(lib):
        x = lib.tensor(A, requires_grad=True)
        f = lambda t: (t ** 3).sum()   # noqa: E731
        _, g = lib.autograd.functional.vjp(lambda t: t.sin() * t, x, lib.tensor(B[0]),
                                           create_graph=True)
        h = lib.autograd.functional.hessian(f, x, create_graph=True)
        _, hv = lib.autograd.functional.hvp(f, x, lib.tensor(B[1]), create_graph=True)
        (g.sum() + h.sum() + hv.sum()).backward()
        return x.grad
    _close(run(minflow), run(torch))
    no_graph = AF.jacobian(lambda t: t * 2, minflow.tensor(A, requires_grad=True))
    assert not no_graph.requires_grad


def test_independent_inputs_zero_or_strict():
    x, y = minflow.tensor(A), minflow.tensor(B)
    jac = AF.jacobian(lambda a, b: a * 2, (x, y))
    assert jac[1].shape == (3, 2, 3) and not jac[1].any().item()
    _, g = AF.vjp(lambda a, b: a * 2, (x, y), minflow.ones(3))
    assert g[1].tolist() == np.zeros((2, 3)).tolist()
    with pytest.raises(RuntimeError, match="vjp: The output of the user-provided function is "
                                           "independent of input 1. This is not allowed in "
                                           "strict mode."):
        AF.vjp(lambda a, b: a * 2, (x, y), minflow.ones(3), strict=True)
    with pytest.raises(RuntimeError, match="jacobian: Output 0 of the user-provided function "
                                           "does not require gradients"):
        AF.jacobian(lambda a: minflow.ones(2), x, strict=True)
    with pytest.raises(RuntimeError, match="jacobian: Output 0 of the user-provided function "
                                           "is independent of input 1"):
        AF.jacobian(lambda a, b: a * 2, (x, y), strict=True)


@pytest.mark.parametrize("call, error, fragment", [
    (lambda x: AF.vjp(lambda t: t * 2, x), RuntimeError,
     "vjp: The vector v can only be None if the user-provided function returns a single "
     "Tensor with a single element"),
    (lambda x: AF.jvp(lambda t: t * 2, x), RuntimeError,
     "jvp: The vector v can only be None if the input to the user-provided function is a "
     "single Tensor with a single element"),
    (lambda x: AF.hessian(lambda t: t * 2, x), RuntimeError,
     "hessian: The Tensor returned by the function given to hessian should contain a single "
     "element"),
    (lambda x: AF.vjp(lambda t: t * 2, x, minflow.ones(4)), RuntimeError,
     r"vjp: v has invalid size: should be \[3\] but got \[4\]"),
    (lambda x: AF.jacobian(lambda t: t, [1.0]), TypeError,
     "jacobian: the inputs given to jacobian must be either a Tensor or a tuple of Tensors "
     "but the value at index 0 has type list"),
    (lambda x: AF.jacobian(lambda t: 2.0, x), TypeError,
     "jacobian: the outputs of the user-provided function given to jacobian must be"),
    (lambda x: AF.jacobian(lambda t: t, x, strategy="forward-mode"), NotImplementedError,
     "jacobian: minflow has no forward-mode autograd"),
])
def test_errors(call, error, fragment):
    with pytest.raises(error, match=fragment):
        call(minflow.tensor(A))


def test_default_v_for_one_element():
    out, g = AF.vjp(lambda t: (t * t).sum(), minflow.tensor(A))
    np.testing.assert_allclose(g.numpy(), 2 * A)
    out, g = AF.jvp(lambda t: t * 3, minflow.tensor([2.0]))
    assert g.tolist() == [3.0]

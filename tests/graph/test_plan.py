"""The compiled plan: same outputs as eager, signature checks, parameters shared with eager
code, gradients accumulated into .grad, fresh random draws per run."""
import numpy as np
import pytest

import minflow
import minflow.graph as mg
import minflow.nn.functional as nnF


def _mlp(x, w1, b1, w2):
    h = nnF.gelu(nnF.linear(x, w1, b1))
    return nnF.log_softmax(h @ w2, 1), h.mean()


def _params(seed=0):
    minflow.manual_seed(seed)
    return [minflow.randn(8, 4, requires_grad=True), minflow.randn(8, requires_grad=True),
            minflow.randn(8, 3, requires_grad=True)]


def test_traced_function_gives_eager_outputs():
    params = _params()
    x = minflow.randn(5, 4)
    plan = mg.compile(mg.trace_function(_mlp, x, *params))
    for got, expected in zip(plan(x, *params), _mlp(x, *params)):
        assert got.dtype is expected.dtype and got.shape == expected.shape
        np.testing.assert_allclose(got.numpy(), expected.detach().numpy(), rtol=1e-6)


def test_parameters_are_shared_with_eager_code():
    w = minflow.ones(3)
    with mg.trace() as g:
        x = mg.placeholder(g, (3,))
        mg.set_outputs(g, x * w)
    plan = mg.compile(g)
    w.mul_(2)                   # an eager in-place update, as an optimizer makes
    assert plan(minflow.ones(3))[0].tolist() == [2.0, 2.0, 2.0]


def test_grads_accumulate_into_param_grad_like_eager():
    params = _params()
    x = minflow.randn(5, 4)
    with mg.trace() as g:
        logp, _ = _mlp(mg.placeholder(g, (5, 4)), *params)
        logp.sum().backward()
    plan = mg.compile(g)
    plan(x)
    first = [p.grad.numpy().copy() for p in params]
    plan(x)
    for p, g1 in zip(params, first):
        np.testing.assert_allclose(p.grad.numpy(), 2 * g1, rtol=1e-6)
    eager = [p.detach().requires_grad_() for p in params]
    _mlp(x, *eager)[0].sum().backward()
    for e, g1 in zip(eager, first):
        np.testing.assert_allclose(g1, e.grad.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("bad, message", [
    (lambda: (minflow.ones(4, 3),), r"input 0 \('x'\): expected float32\[2, 3\] on cpu, got "
                                    r"float32\[4, 3\] on cpu"),
    (lambda: (minflow.ones(2, 3, dtype=minflow.float64),), r"expected float32\[2, 3\] on cpu, "
                                                            r"got float64\[2, 3\]"),
    (lambda: (minflow.ones(2, 3, device="meta"),), r"got float32\[2, 3\] on meta"),
])
def test_signature_mismatch_names_the_input(bad, message):
    with mg.trace() as g:
        mg.set_outputs(g, mg.placeholder(g, (2, 3), name="x").exp())
    with pytest.raises(RuntimeError, match=message):
        mg.compile(g)(*bad())


def test_wrong_input_count_or_type():
    plan = mg.compile(mg.trace_function(lambda x: x + 1, minflow.ones(2)))
    with pytest.raises(TypeError, match=r"expected 1 inputs \(input0\), got 2"):
        plan(minflow.ones(2), minflow.ones(2))
    with pytest.raises(TypeError, match="input 0 .*expected a Tensor, got list"):
        plan([1.0, 2.0])


def test_a_resized_parameter_is_a_signature_error():
    w = minflow.ones(3)
    plan = mg.compile(mg.trace_function(lambda x: x * w, minflow.ones(3)))
    w.data = minflow.ones(4)
    with pytest.raises(RuntimeError, match=r"const %1: expected float32\[3\] on cpu, got "
                                           r"float32\[4\]"):
        plan(minflow.ones(3))


def test_dropout_draws_fresh_values_each_run_from_the_generator():
    plan = mg.compile(mg.trace_function(lambda x: nnF.dropout(x, 0.5), minflow.ones(64)))
    x = minflow.ones(64)
    minflow.manual_seed(5)
    a, b = plan(x)[0].tolist(), plan(x)[0].tolist()
    minflow.manual_seed(5)
    assert a != b and plan(x)[0].tolist() == a
    minflow.manual_seed(5)
    assert nnF.dropout(x, 0.5).tolist() == a


def test_views_and_promotion_run_as_in_eager():
    def fn(x, i):
        return x.T[1:] * 2 + i, (x[:, 0] > 0).sum(), x.to(minflow.float64) / 3
    x, i = minflow.randn(3, 4), minflow.tensor([1, 2, 3])
    got = mg.compile(mg.trace_function(fn, x, i))(x, i)
    for a, b in zip(got, fn(x, i)):
        assert a.dtype is b.dtype
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_plan_runs_on_each_device_with_grads(device):
    minflow.manual_seed(0)
    params = [p.detach().to(device).requires_grad_() for p in _params()]
    x = minflow.randn(5, 4, device=device)
    with mg.trace() as g:
        logp, mean = _mlp(mg.placeholder(g, (5, 4), device=device), *params)
        (logp.sum() + mean).backward()
        mg.set_outputs(g, logp)
    (got,) = mg.compile(g)(x)
    graph_grads = [p.grad.cpu().numpy() for p in params]
    for p in params:
        p.grad = None
    logp, mean = _mlp(x, *params)
    (logp.sum() + mean).backward()
    assert got.device == logp.device
    np.testing.assert_allclose(got.cpu().numpy(), logp.detach().cpu().numpy(), rtol=1e-5)
    for p, grad in zip(params, graph_grads):
        np.testing.assert_allclose(grad, p.grad.cpu().numpy(), rtol=1e-4, atol=1e-6)

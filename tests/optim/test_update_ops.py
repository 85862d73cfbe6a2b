"""The update ops themselves, on every device and float dtype: one step against numpy,
in place (same storage, version bumped), and their error messages."""
import numpy as np
import pytest

import minflow
from minflow.core.device import array_module
from minflow.kernels.registry import find_kernel
from minflow.ops import optim as ops
from minflow.ops.registry import get_op
from minflow.ops import optim_adam, optim_rprop_asgd

DTYPES = [minflow.float16, minflow.float32, minflow.float64]
P, G = np.array([1.0, -2.0, 0.5]), np.array([0.5, 0.25, -1.0])


def _t(values, dtype, device):
    return minflow.tensor(values, dtype=dtype, device=device)


def _sgd(dtype, device):
    buf = _t([1.0, 1.0, 1.0], dtype, device)
    return ops.sgd_update, [buf], {"lr": 0.5, "momentum": 0.5, "dampening": 0.5}, \
        P - 0.5 * (0.5 * 1.0 + 0.5 * G)


def _adam(dtype, device):
    m, v, step = (_t(np.zeros(3), dtype, device), _t(np.zeros(3), dtype, device),
                  _t(0.0, minflow.float32, device))
    return ops.adam_update, [m, v, None, step], {"lr": 0.1}, P - 0.1 * np.sign(G)


def _rmsprop(dtype, device):
    v, step = _t(np.zeros(3), dtype, device), _t(0.0, minflow.float32, device)
    return ops.rmsprop_update, [v, None, None, step], {"lr": 0.01, "alpha": 0.75}, \
        P - 0.01 * G / np.sqrt(0.25 * G * G)


def _adagrad(dtype, device):
    s, step = _t(np.ones(3), dtype, device), _t(0.0, minflow.float32, device)
    return ops.adagrad_update, [s, step], {"lr": 0.5}, P - 0.5 * G / np.sqrt(1 + G * G)


def _adadelta(dtype, device):
    v, u = _t(np.zeros(3), dtype, device), _t(np.ones(3), dtype, device)
    step = _t(0.0, minflow.float32, device)
    # v = 0.5 g^2; delta = sqrt(1 + eps) / sqrt(v + eps) * g; param -= 0.5 * delta
    eps = 1e-6
    return ops.adadelta_update, [v, u, step], {"lr": 0.5, "rho": 0.5}, \
        P - 0.5 * np.sqrt(1 + eps) / np.sqrt(0.5 * G * G + eps) * G


def _adamax(dtype, device):
    m, u = _t(np.zeros(3), dtype, device), _t(np.zeros(3), dtype, device)
    return optim_adam.adamax_update, [m, u, _t(0.0, minflow.float32, device)], {"lr": 0.1}, \
        P - 0.1 * np.sign(G)


def _radam(dtype, device):
    # the first step is plain momentum (rho_1 = 1 <= 5): param -= lr * m / (1 - beta1)
    m, v = _t(np.zeros(3), dtype, device), _t(np.zeros(3), dtype, device)
    return optim_adam.radam_update, [m, v, _t(0.0, minflow.float32, device)], {"lr": 0.1}, \
        P - 0.1 * G


def _rprop(dtype, device):
    # prev has the signs of G but the last: step sizes * 1.2, 1.2, and 0.5 (that step skipped)
    prev, size = _t([1.0, 1.0, 1.0], dtype, device), _t([0.1, 0.2, 0.4], dtype, device)
    return optim_rprop_asgd.rprop_update, [prev, size, _t(0.0, minflow.float32, device)], {}, \
        P - np.sign(G) * np.array([0.12, 0.24, 0.0])


def _asgd(dtype, device):
    eta, mu = _t(0.1, minflow.float32, device), _t(1.0, minflow.float32, device)
    return optim_rprop_asgd.asgd_update, [_t(np.zeros(3), dtype, device), eta, mu,
                                          _t(0.0, minflow.float32, device)], \
        {"lr": 0.1, "lambd": 0.5}, P * (1 - 0.5 * 0.1) - 0.1 * G


CASES = {"sgd_update": _sgd, "adam_update": _adam, "rmsprop_update": _rmsprop,
         "adagrad_update": _adagrad, "adadelta_update": _adadelta, "adamax_update": _adamax,
         "radam_update": _radam, "rprop_update": _rprop, "asgd_update": _asgd}


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("name", sorted(CASES))
def test_one_step_in_place(name, dtype, device):
    fn, states, attrs, expected = CASES[name](dtype, device)
    param, grad = _t(P, dtype, device), _t(G, dtype, device)
    data, version = param._data, param._version_value
    param._share_version()                               # as when saved for backward
    with minflow.no_grad():
        out = fn(param, grad, *states, **attrs)
    assert out is param and param._data is data
    assert param._version_value == version + 1
    tol = 2e-3 if dtype is minflow.float16 else 1e-6
    np.testing.assert_allclose(param.cpu().numpy(), expected, rtol=tol, atol=tol)
    if states[-1] is not None and states[-1].shape == ():
        assert states[-1].item() == 1.0


def _sgd_call(param, grad, buf, **attrs):
    return ops.sgd_update(param, grad, buf, **dict({"lr": 0.1, "momentum": 0.9}, **attrs))


def _adam_call(param, grad, exp_avg, step=None, **attrs):
    step = minflow.tensor(0.0) if step is None else step
    return ops.adam_update(param, grad, exp_avg, minflow.zeros(3), None, step,
                           **dict({"lr": 0.1}, **attrs))


@pytest.mark.parametrize("call, error, message", [
    (lambda: _sgd_call(minflow.zeros(3), minflow.zeros(3, dtype=minflow.float64),
                       minflow.zeros(3)),
     RuntimeError, r"sgd_update: expected grad with param's shape \[3\] and dtype float32, "
                   r"got shape \[3\] and dtype float64"),
    (lambda: _sgd_call(minflow.zeros(3), minflow.zeros(3), minflow.zeros(2)),
     RuntimeError, r"sgd_update: expected momentum_buffer with param's shape \[3\]"),
    (lambda: _sgd_call(minflow.zeros(3), minflow.zeros(3), None),
     ValueError, "sgd_update: expected a momentum_buffer tensor when momentum != 0, got None"),
    (lambda: _sgd_call(minflow.zeros(3), [0.0, 0.0, 0.0], minflow.zeros(3)),
     TypeError, "sgd_update: expected grad to be a Tensor, got list"),
    (lambda: _sgd_call(minflow.zeros(3, dtype=minflow.int64),
                       minflow.zeros(3, dtype=minflow.int64), None, momentum=0.0),
     TypeError, "sgd_update: expected param with dtype in .*float.*, got int64"),
    (lambda: _sgd_call(minflow.zeros(3), minflow.zeros(3), minflow.zeros(3), lr=-1.0),
     ValueError, "sgd_update: attr 'lr' expected >= 0.0, got -1.0"),
    (lambda: _sgd_call(minflow.zeros(3), minflow.zeros(3), minflow.zeros(3), dampening=0.5,
                       nesterov=True),
     ValueError, "sgd_update: Nesterov momentum requires a momentum and zero dampening"),
    (lambda: _adam_call(minflow.zeros(3), minflow.zeros(3), minflow.zeros(3, 1)),
     RuntimeError, r"adam_update: expected exp_avg with param's shape \[3\] and dtype "
                   r"float32, got shape \[3, 1\]"),
    (lambda: _adam_call(minflow.zeros(3), minflow.zeros(3), minflow.zeros(3),
                        step=minflow.zeros(1)),
     RuntimeError, r"adam_update: expected step to be a 0-d float tensor \(the step count\), "
                   r"got shape \[1\]"),
    (lambda: _adam_call(minflow.zeros(3), minflow.zeros(3), minflow.zeros(3), amsgrad=True),
     ValueError, "adam_update: expected a max_exp_avg_sq tensor when amsgrad=True, got None"),
    (lambda: _adam_call(minflow.zeros(3), minflow.zeros(3), minflow.zeros(3), betas=(1.0, 0.5)),
     ValueError, r"adam_update: attr 'betas' expected two floats in \[0, 1\), got \(1.0, 0.5\)"),
    (lambda: _adam_call(minflow.zeros(3), minflow.zeros(3), minflow.zeros(3), eps="small"),
     TypeError, "adam_update: attr 'eps' expected float, got 'small'"),
    (lambda: ops.rmsprop_update(minflow.zeros(3), minflow.zeros(3), minflow.zeros(3), None,
                                None, minflow.tensor(0.0), lr=0.1, centered=True),
     ValueError, "rmsprop_update: expected a grad_avg tensor when centered=True, got None"),
    (lambda: ops.adagrad_update(minflow.zeros(3), minflow.zeros(3), minflow.zeros(3),
                                minflow.tensor(0), lr=0.1),
     RuntimeError, "adagrad_update: expected step to be a 0-d float tensor"),
    (lambda: ops.adagrad_update(minflow.zeros(3), minflow.zeros(3, device="meta"),
                                minflow.zeros(3), minflow.tensor(0.0), lr=0.1),
     RuntimeError, "adagrad_update: expected all tensors to be on the same device"),
])
def test_bad_inputs_raise_naming_op_and_argument(call, error, message):
    with minflow.no_grad(), pytest.raises(error, match=message):
        call()


def test_bad_call_leaves_everything_untouched():
    param, buf = minflow.ones(3), minflow.ones(3)
    with minflow.no_grad(), pytest.raises(RuntimeError):
        _sgd_call(param, minflow.ones(2), buf)
    assert param.tolist() == buf.tolist() == [1.0, 1.0, 1.0]
    assert param._version_value == 0


def test_update_of_a_param_that_requires_grad_needs_no_grad():
    w = minflow.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="sgd_update: a leaf Variable that requires grad is "
                                           "being used in an in-place operation"):
        ops.sgd_update(w, minflow.ones(3), lr=0.1)
    with minflow.no_grad():
        ops.sgd_update(w, minflow.ones(3), lr=0.5)
    assert w.tolist() == [0.5, 0.5, 0.5] and w.requires_grad and w.grad_fn is None


def test_ops_are_declared_mutable_and_not_differentiable():
    for name in CASES:
        op = minflow.ops.get_op(name)
        assert "no_grad" in op.traits and "no_side_effect" not in op.traits
        mutable = [i.name for i in op.inputs if i.mutable]
        assert mutable[0] == "param" and "grad" not in mutable
        assert op.outputs == ("param_out",)


def test_meta_device_infers_without_running():
    param = minflow.zeros(3, device="meta")
    with minflow.no_grad():
        out = ops.sgd_update(param, minflow.zeros(3, device="meta"), lr=0.1)
    assert out is param


@pytest.mark.parametrize("dtype", [minflow.float32, minflow.float64], ids=lambda d: d.name)
@pytest.mark.parametrize("attrs", [
    {}, {"momentum": 0.9}, {"momentum": 0.9, "init_buffer": True},
    {"momentum": 0.9, "dampening": 0.3, "weight_decay": 0.01},
    {"momentum": 0.9, "nesterov": True}, {"weight_decay": 0.01, "maximize": True}])
@pytest.mark.parametrize("shape", [(3,), (300, 200)])       # one block, several
def test_sgd_kernel_overwriting_its_grad_gives_the_same_step(attrs, shape, dtype, device):
    xp = array_module(minflow.device(device).type)
    kernel = find_kernel(get_op("sgd_update"), minflow.device(device).type, dtype, (), {})
    assert kernel.overwrites == ("grad",)
    step = kernel.bind()
    rng = np.random.default_rng(0)
    param, grad, buf = (xp.asarray(rng.normal(size=shape).astype(dtype.np)) for _ in range(3))
    full = {"lr": 0.1, "momentum": 0.0, "dampening": 0.0, "weight_decay": 0.0,
            "nesterov": False, "maximize": False, "init_buffer": False, **attrs}
    results = []
    for overwrite in (False, True):
        p, gr, b = param.copy(), grad.copy(), buf.copy()
        step(p, gr, b, None, overwrite=overwrite, **full)
        results.append((p, b, gr))
    (p0, b0, g0), (p1, b1, _) = results
    host = np.asarray if xp is np else xp.asnumpy
    np.testing.assert_array_equal(host(p1), host(p0))
    np.testing.assert_array_equal(host(b1), host(b0))
    np.testing.assert_array_equal(host(g0), host(grad))        # untouched without overwrite

"""sgd_update_foreach (one op call for a list of parameters) against sgd_update run per
parameter, and SGD's choice between them (``foreach``)."""
import numpy as np
import pytest

import minflow
from minflow.ops import optim as ops

# the largest is above the per-parameter kernel's 65536-element scratch: updated in blocks
SHAPES = [(300, 257), (5,), (), (256, 256)]
OPTIONS = [
    {},
    {"weight_decay": 0.1},
    {"maximize": True},
    {"momentum": 0.9},
    {"momentum": 0.9, "dampening": 0.25, "weight_decay": 0.01},
    {"momentum": 0.9, "nesterov": True},
    {"momentum": 0.5, "nesterov": True, "weight_decay": 0.1, "maximize": True},
]


def _arrays(seed, dtype):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(dtype) for shape in SHAPES]


@pytest.mark.parametrize("dtype", [minflow.float32, minflow.float64], ids=lambda d: d.name)
@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "plain")
def test_foreach_equals_one_update_per_param(options, dtype, device):
    np_dtype = dtype.np
    momentum = options.get("momentum", 0.0)
    results = []
    for foreach in (False, True):
        params = [minflow.tensor(a, device=device) for a in _arrays(0, np_dtype)]
        buffers = [minflow.empty(a.shape, dtype=dtype, device=device)
                   for a in _arrays(0, np_dtype)] if momentum else None
        grads_now = [minflow.tensor(a, device=device) for a in _arrays(1, np_dtype)]
        for step in range(3):       # the first step fills the momentum buffers
            attrs = dict(options, lr=0.1, init_buffer=step == 0)
            if foreach:
                out = ops.sgd_update_foreach(params, grads_now, buffers, **attrs)
                assert out == params
            else:
                for i, (p, g) in enumerate(zip(params, grads_now)):
                    ops.sgd_update(p, g, buffers[i] if buffers else None, **attrs)
        results.append([p.cpu().numpy() for p in params] +
                       ([b.cpu().numpy() for b in buffers] if buffers else []))
    for per_param, together in zip(*results):
        np.testing.assert_array_equal(together, per_param)


def test_foreach_writes_in_place_bumps_versions_and_leaves_grads_alone():
    params = [minflow.ones(3), minflow.ones(70000)]
    grads = [minflow.full((3,), 2.0), minflow.full((70000,), 2.0)]
    buffers = [minflow.zeros(3), minflow.zeros(70000)]
    data = [p._data for p in params]
    versions = [t._version_value for t in params + buffers]
    for t in params + buffers:
        t._share_version()                       # as when saved for backward
    ops.sgd_update_foreach(params, grads, buffers, lr=0.5, momentum=0.9, init_buffer=True)
    assert [p._data for p in params] == data
    assert [t._version_value for t in params + buffers] == [v + 1 for v in versions]
    for p, g, b in zip(params, grads, buffers):
        assert np.all(p.numpy() == 0.0) and np.all(g.numpy() == 2.0) and np.all(b.numpy() == 2.0)


@pytest.mark.parametrize("call, error, message", [
    (lambda: ops.sgd_update_foreach([], [], lr=0.1),
     TypeError, r"sgd_update_foreach: expected params to be a non-empty list of tensors"),
    (lambda: ops.sgd_update_foreach([minflow.zeros(2)] * 2, [minflow.zeros(2)], lr=0.1),
     ValueError, r"sgd_update_foreach: expected grads to have one tensor per param \(2\), got 1"),
    (lambda: ops.sgd_update_foreach([minflow.zeros(2), minflow.zeros(3)],
                                    [minflow.zeros(2), minflow.zeros(2)], lr=0.1),
     RuntimeError, r"sgd_update_foreach: params\[1\]: expected grad with param's shape \[3\]"),
    (lambda: ops.sgd_update_foreach([minflow.zeros(2)], [minflow.zeros(2)], lr=0.1,
                                    momentum=0.9),
     TypeError, r"sgd_update_foreach: expected momentum_buffers to be a non-empty list"),
    (lambda: ops.sgd_update_foreach([minflow.zeros(2), minflow.zeros(2, dtype=minflow.float64)],
                                    [minflow.zeros(2), minflow.zeros(2, dtype=minflow.float64)],
                                    lr=0.1),
     TypeError, r"sgd_update_foreach: expected every param to have the dtype of params\[0\] "
                r"\(float32\), got float64 for params\[1\]"),
    (lambda: ops.sgd_update_foreach([minflow.zeros(2), minflow.zeros(2, device="meta")],
                                    [minflow.zeros(2), minflow.zeros(2, device="meta")], lr=0.1),
     RuntimeError, "sgd_update_foreach: expected all tensors to be on the same device"),
    (lambda: ops.sgd_update_foreach([minflow.zeros(2)] * 2, [minflow.zeros(2)] * 2,
                                    [minflow.zeros(2), None], lr=0.1, momentum=0.9),
     ValueError, r"sgd_update_foreach: params\[1\]: expected a momentum_buffer tensor when "
                 r"momentum != 0, got None"),
    (lambda: ops.sgd_update_foreach([minflow.zeros(2)], [minflow.zeros(2)], lr=-0.1),
     ValueError, "sgd_update_foreach: attr 'lr' expected >= 0.0, got -0.1"),
])
def test_foreach_bad_inputs_raise_naming_op_and_argument(call, error, message):
    with minflow.no_grad(), pytest.raises(error, match=message):
        call()


def test_foreach_refuses_params_that_require_grad_outside_no_grad():
    w = minflow.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="sgd_update_foreach: a leaf Variable that requires "
                                           "grad"):
        ops.sgd_update_foreach([w], [minflow.ones(3)], lr=0.1)


def _train(foreach, params_dtypes=(minflow.float32,) * 3, **options):
    rng = np.random.default_rng(2)
    params = [minflow.tensor(rng.standard_normal(4), dtype=dtype, requires_grad=True)
              for dtype in params_dtypes]
    opt = minflow.optim.SGD(params, lr=0.1, foreach=foreach, **options)
    for step in range(3):
        for i, p in enumerate(params):
            if step == 0 and i == 1:
                continue                # no grad yet: its momentum buffer starts a step later
            p.grad = minflow.tensor(rng.standard_normal(4), dtype=p.dtype)
        opt.step()
        opt.zero_grad()
    return [p.detach().numpy() for p in params], opt


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "plain")
def test_sgd_same_result_with_and_without_foreach(options):
    dtypes = (minflow.float32, minflow.float64, minflow.float32)   # two foreach batches
    per_param, _ = _train(False, dtypes, **options)
    for foreach in (None, True):
        together, opt = _train(foreach, dtypes, **options)
        for a, b in zip(together, per_param):
            np.testing.assert_array_equal(a, b)
    assert opt.param_groups[0]["foreach"] is True
    assert set(opt.state_dict()["state"]) == ({0, 1, 2} if options.get("momentum") else set())


def test_sgd_traced_into_a_graph_keeps_one_update_op_per_param():
    w, b = minflow.ones(2, requires_grad=True), minflow.ones(1, requires_grad=True)
    opt = minflow.optim.SGD([w, b], lr=0.5)
    with minflow.graph.trace() as g:
        (w * w).sum().add(b.sum()).backward()
    minflow.graph.optim.add_update_ops(g, opt)
    assert [node.op for node in g.nodes if node.role == "optimizer"] == ["sgd_update"] * 2

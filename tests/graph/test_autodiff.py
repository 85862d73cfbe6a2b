"""Graph backward: for every differentiable op, graph gradients equal eager ones (float64,
cpu); grads of one value are summed; no_grad, detach and requires_grad stop gradients;
errors name the op and the source line."""
import numpy as np
import pytest

import minflow
import minflow.graph as mg
from minflow.core.dispatch import apply
from minflow.ops import all_ops, get_op
from _graph_cases import CASES, EAGER_ONLY, EXCLUDED, make_inputs

TOL = dict(rtol=1e-10, atol=1e-12)
OPS = all_ops()     # at collection, as tests/ops/test_coverage.py: before tests define ops


def _as_tuple(out):
    return out if isinstance(out, tuple) else (out,)


def _loss(outs, weights):
    """sum(out * weight) over the float outputs: weights make every grad element differ."""
    total = None
    for out, w in zip(outs, weights):
        if out.dtype.is_floating_point:
            term = (out * w).sum()
            total = term if total is None else total + term
    return total


def _weights(outs, seed=1):
    rng = np.random.default_rng(seed)
    return [minflow.tensor(rng.uniform(0.5, 1.5, tuple(o.shape)), dtype=o.dtype) for o in outs]


def _eager(fn, leaves):
    minflow.manual_seed(3)
    outs = _as_tuple(fn(*leaves))
    weights = _weights(outs)
    _loss(outs, weights).backward()
    grads = [t.grad for t in leaves]
    for t in leaves:
        t.grad = None
    return outs, weights, grads


def _graph(fn, leaves, weights):
    with mg.trace() as g:
        outs = _as_tuple(fn(*leaves))
        _loss(outs, weights).backward()
        mg.set_outputs(g, outs)
    minflow.manual_seed(3)
    results = mg.compile(g)()
    return g, results, [t.grad for t in leaves]


@pytest.mark.parametrize("key", sorted(CASES))
def test_graph_grads_equal_eager(key):
    fn = CASES[key][0]
    leaves = make_inputs(key)
    outs, weights, expected = _eager(fn, leaves)
    g, results, grads = _graph(fn, leaves, weights)
    for out, res in zip(outs, results):
        assert res.dtype is out.dtype and res.shape == out.shape
        np.testing.assert_allclose(res.numpy(), out.detach().numpy(), **TOL)
    for leaf, exp, got in zip(leaves, expected, grads):
        assert (got is None) == (exp is None), f"{key}: grad presence differs"
        if exp is not None:
            np.testing.assert_allclose(got.numpy(), exp.numpy(), **TOL)
    name = key.split("/")[0]
    if name != "composite":
        assert name in {n.op for n in g.nodes if n.role == "forward"}, f"{key}: op not traced"


def test_every_differentiable_op_has_a_case_or_a_reason():
    covered = {key.split("/")[0] for key in CASES}
    missing = [op.name for op in OPS if op.differentiable and op.name not in covered
               and op.name not in EXCLUDED and op.name not in EAGER_ONLY]
    assert not missing, (f"differentiable ops without a graph-gradient case: {missing}; add "
                         f"one to tests/graph/_graph_cases.py")
    assert all(get_op(name).differentiable for name in EXCLUDED)


def _excluded_call(name, leaf):
    """A call of each excluded op with leaf (3, 4) among its inputs; its float outputs."""
    stats = minflow.ones(3, 1, dtype=minflow.float64)
    if name == "batch_norm_grad":
        args = (leaf.T, leaf.T, None, stats[:, 0], stats[:, 0])
        attrs = {"training": True, "eps": 1e-5}
    elif name == "layer_norm_grad":
        args, attrs = (leaf, leaf, None, stats, stats), {"normalized_shape": (4,)}
    elif name == "ctc_loss_grad":
        args = (leaf[0, :1], leaf.log_softmax(1)[:, None], minflow.tensor([[1]]),
                minflow.tensor([3]), minflow.tensor([1]))
        attrs = {"blank": 0, "zero_infinity": False}
    else:
        args = (leaf.sum(), leaf.log_softmax(1), minflow.tensor([0, 1, 3]), None)
        attrs = {"ignore_index": -100, "reduction": "mean"}
    return [o for o in _as_tuple(apply(get_op(name), args, attrs)) if o.dtype.is_floating_point]


@pytest.mark.parametrize("name", sorted(EXCLUDED))
def test_excluded_op_fails_clearly_at_backward(name):
    leaf = minflow.ones(3, 4, dtype=minflow.float64, requires_grad=True)
    error, match = mg.GraphBuildError, (rf"'{name}' \(traced at .*test_autodiff.py:\d+\) is "
                                        rf"differentiable but has no grad function")
    if name == "ctc_loss_grad":     # a grad function that raises, as torch's
        error, match = RuntimeError, (r"derivative for ctc_loss_grad is not implemented(.|\n)*"
                                      r"while adding the grad ops of 'ctc_loss_grad' traced")
    with mg.trace():
        loss = sum(o.sum() for o in _excluded_call(name, leaf))
        with pytest.raises(error, match=match):
            loss.backward()


def _traced_grads(fn, *params):
    with mg.trace() as g:
        fn(*params).backward()
    mg.compile(g)()
    return [p.grad for p in params]


def test_grads_of_one_value_are_summed():
    w = minflow.tensor([2.0], requires_grad=True)
    (grad,) = _traced_grads(lambda w: (w * w + w.exp() + w).sum(), w)
    assert np.isclose(grad.item(), 2 * 2.0 + np.exp(2.0) + 1)


def test_no_grad_detach_and_frozen_params_stop_gradients():
    w, frozen = minflow.tensor([3.0], requires_grad=True), minflow.tensor([5.0])

    def fn(w, frozen):
        with minflow.no_grad():
            c = w * 10
        return (w * c + w.detach() * w + w * frozen).sum()
    grads = _traced_grads(fn, w, frozen)
    assert grads[0].tolist() == [30.0 + 3.0 + 5.0] and grads[1] is None


def test_two_backward_calls_accumulate():
    w = minflow.tensor([1.0, 2.0], requires_grad=True)
    with mg.trace() as g:
        (w * 3).sum().backward()
        (w * w).sum().backward()
    mg.compile(g)()
    assert w.grad.tolist() == [3.0 + 2.0, 3.0 + 4.0]


def test_backward_needs_a_scalar_loss_and_a_trace():
    w = minflow.ones(3, requires_grad=True)
    with mg.trace():
        y = w * 2
        with pytest.raises(mg.GraphBuildError, match=r"needs a scalar loss .*got shape \[3\]"):
            y.backward()
        with pytest.raises(mg.GraphBuildError, match="gradient="):
            y.sum().backward(minflow.ones(()))
    with pytest.raises(mg.GraphBuildError, match="while its graph is being built"):
        y.backward()
    with pytest.raises(AttributeError, match="only exist while their graph is built"):
        y.sum()


def test_a_registered_generator_replaces_the_derived_one(monkeypatch):
    from minflow.graph import grad_conf

    def exp_conf(ctx):          # a deliberately different grad: 7 * grad_out
        ctx.bind_input_grad("input", ctx.output_grad("out") * 7)
    monkeypatch.setitem(grad_conf._CONFS, "exp", exp_conf)
    w = minflow.ones(2, requires_grad=True)
    assert _traced_grads(lambda w: w.exp().sum(), w)[0].tolist() == [7.0, 7.0]


def test_register_grad_conf_checks():
    with pytest.raises(ValueError, match="no_grad trait"):
        mg.register_grad_conf("argmax")(lambda ctx: None)
    with pytest.raises(KeyError, match="no op named"):
        mg.register_grad_conf("not_an_op")(lambda ctx: None)


def test_errors_in_grad_ops_name_the_forward_op(monkeypatch):
    from minflow.graph import grad_conf

    def bad_conf(ctx):
        ctx.bind_input_grad("input", ctx.output_grad("out").sum(0))
    monkeypatch.setitem(grad_conf._CONFS, "exp", bad_conf)
    w = minflow.ones(2, 3, requires_grad=True)
    with mg.trace():
        loss = w.exp().sum()
        with pytest.raises(mg.GraphBuildError, match=r"grad ops of 'exp' \(traced at .*"
                                                     r"test_autodiff.py:\d+\) gave a gradient "
                                                     r"of shape \[3\] for an input of shape"):
            loss.backward()

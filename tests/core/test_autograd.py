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
    assert y.grad_fn.name() == "CubeBackward"      # as torch: no overload number
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


def test_detect_anomaly_without_nan_check_keeps_anomaly_mode():
    x = leaf([0.0, 1.0])
    with minflow.autograd.detect_anomaly(check_nan=False):
        assert minflow.autograd.is_anomaly_enabled()
        assert not minflow.autograd.is_anomaly_check_nan_enabled()
        y = x.sqrt()
        assert y.grad_fn.source.startswith(__file__)        # forward traces still recorded
        y.sum().backward()                                   # the inf is not an error
    assert np.isinf(x.grad.numpy()[0]) and not minflow.autograd.is_anomaly_enabled()


def test_anomaly_mode_names_the_forward_line_of_a_failing_backward():
    class Broken(minflow.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, grad_out):
            raise ValueError("broken backward")

    x = leaf([1.0])
    with minflow.autograd.set_detect_anomaly(True, check_nan=False):
        y = Broken.apply(x)
        with pytest.warns(UserWarning, match=r"BrokenBackward.*test_autograd.py:\d+"):
            with pytest.raises(ValueError, match="broken backward"):
                y.sum().backward()
    assert not minflow.autograd.is_anomaly_enabled()       # set_detect_anomaly restored it


def test_grad_materialize_grads():
    x, y = leaf([3.0]), leaf([4.0, 5.0])
    z = (x * x).sum()
    gx, gy = minflow.autograd.grad(z, [x, y], retain_graph=True, materialize_grads=True)
    assert gx.tolist() == [6.0] and gy.tolist() == [0.0, 0.0] and not gy.requires_grad
    gy = minflow.autograd.grad(z, [x, y], create_graph=True, materialize_grads=True)[1]
    assert gy.requires_grad
    with pytest.raises(ValueError, match="allow_unused to be True or not passed"):
        minflow.autograd.grad(z, [x, y], allow_unused=False, materialize_grads=True)


def test_grad_materialize_grads_matches_torch():
    torch = pytest.importorskip("torch")

    def run(L):
        x = L.tensor([3.0], dtype=L.float64, requires_grad=True)
        y = L.tensor([4.0, 5.0], dtype=L.float64, requires_grad=True)
        gx, gy = L.autograd.grad((x * x).sum(), [x, y], materialize_grads=True)
        return gx.tolist(), gy.tolist(), gy.dtype is L.float64

    assert run(minflow) == run(torch)


class TwoOutputs(minflow.autograd.Function):
    seen = []

    @staticmethod
    def forward(ctx, x, materialize):
        ctx.set_materialize_grads(materialize)
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, grad_a, grad_b):
        TwoOutputs.seen.append((grad_a is None, grad_b is None))
        grad_a = 0 if grad_a is None else grad_a * 2
        grad_b = 0 if grad_b is None else grad_b * 3
        return grad_a + grad_b, None


@pytest.mark.parametrize("materialize", [True, False])
def test_function_set_materialize_grads(materialize):
    TwoOutputs.seen.clear()
    x = leaf([1.0, 2.0])
    a, _ = TwoOutputs.apply(x, materialize)
    a.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    assert TwoOutputs.seen == [(False, not materialize)]   # unused output: zeros or None


NAMED = {    # ops whose grad_fn minflow names as torch does
    "add": lambda L, x, y: x + y, "add scalar": lambda L, x, y: x + 2,
    "sub": lambda L, x, y: x - y, "mul": lambda L, x, y: x * y, "div": lambda L, x, y: x / y,
    "neg": lambda L, x, y: -x, "pow scalar": lambda L, x, y: x ** 2,
    "exp": lambda L, x, y: x.exp(), "log": lambda L, x, y: y.log(),
    "abs": lambda L, x, y: x.abs(), "tanh": lambda L, x, y: x.tanh(),
    "sigmoid": lambda L, x, y: x.sigmoid(), "relu": lambda L, x, y: x.relu(),
    "sum": lambda L, x, y: x.sum(), "amax": lambda L, x, y: x.amax(1),
    "permute": lambda L, x, y: x.permute(1, 0), "unsqueeze": lambda L, x, y: x.unsqueeze(0),
    "index": lambda L, x, y: x[[0, 1]], "cat": lambda L, x, y: L.cat([x, y]),
    "clone": lambda L, x, y: x.clone(), "softmax": lambda L, x, y: x.softmax(1),
    "log_softmax": lambda L, x, y: x.log_softmax(1), "maximum": lambda L, x, y: L.maximum(x, y),
    "where": lambda L, x, y: L.where(x > 0, x, y),
    "base after in-place on a view": lambda L, x, y: (lambda h: (h[0].mul_(2), h)[1])(x * 1),
    "view after in-place on it": lambda L, x, y: (x * 1)[0:1].mul_(2),
}


@pytest.mark.parametrize("name", NAMED)
def test_grad_fn_names_match_torch(name):
    torch = pytest.importorskip("torch")
    names = []
    for L in (minflow, torch):
        x = L.tensor([[1.0, -2.0, 3.0], [0.5, 1.5, -0.5]], requires_grad=True)
        y = L.tensor([[2.0, 1.0, 0.5], [1.0, 3.0, 2.0]], requires_grad=True)
        fn = NAMED[name](L, x, y).grad_fn
        names.append(fn.name() if L is minflow else type(fn).__name__)
    assert names[0] == names[1]


def test_numpy_floating_point_warnings_do_not_reach_the_user():
    import subprocess
    import sys
    code = ("import numpy as np, minflow\n"
            "t = minflow.tensor([1.0, 0.0, -1.0])\n"
            "t / 0, t.log(), t.sqrt(), t // 0, t % 0, t.reciprocal()\n"
            "minflow.tensor([60000.0], dtype=minflow.float16) * 4\n"
            "np.array([1.0]) / 0   # the user's own numpy still warns\n")
    err = subprocess.run([sys.executable, "-W", "default", "-c", code], capture_output=True,
                         text=True, check=True).stderr
    assert err.count("RuntimeWarning") == 1 and "<string>:5" in err, err


# ---- leaf gradients: taken over when nothing else holds them, added to in place -----------

def _count_clones(monkeypatch):
    from minflow.core.namespace import F
    calls = []
    clone = F.clone
    monkeypatch.setattr(F, "clone", lambda *a, **k: calls.append(1) or clone(*a, **k))
    return calls


def test_leaf_takes_over_a_fresh_grad_without_copying(monkeypatch):
    clones = _count_clones(monkeypatch)
    x = minflow.ones(3, requires_grad=True)
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0] and not clones


def test_leaf_copies_a_grad_held_elsewhere(monkeypatch):
    clones = _count_clones(monkeypatch)
    kept = []
    x = minflow.ones(3, requires_grad=True)
    x.register_hook(kept.append)
    (x * 2).sum().backward()
    assert len(clones) == 1 and x.grad is not kept[0]
    x.grad.add_(1.0)
    assert kept[0].tolist() == [2.0, 2.0, 2.0]
    g0 = minflow.ones(3)
    y = minflow.ones(3, requires_grad=True)
    (y + 0).backward(g0)        # add's backward passes g0 itself along
    y.grad.mul_(5)
    assert g0.tolist() == [1.0, 1.0, 1.0] and y.grad.tolist() == [5.0, 5.0, 5.0]


def test_leaf_grad_accumulates_in_place_as_torch():
    x = minflow.ones(3, requires_grad=True)
    (x * 2).sum().backward()
    first = x.grad
    (x * 3).sum().backward()
    assert x.grad is first and first.tolist() == [5.0, 5.0, 5.0]


def test_inplace_add_writes_into_shared_storage():
    a = np.zeros(3, np.float32)
    t = minflow.from_numpy(a)
    view = t[1:]
    t.add_(minflow.ones(3), alpha=2)
    t.sub_(minflow.ones(3))
    t.mul_(3)
    assert a.tolist() == [3.0, 3.0, 3.0] and view.tolist() == [3.0, 3.0]
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        minflow.ones(1).add_(minflow.ones(3))
    with pytest.raises(RuntimeError, match="can't be cast"):
        minflow.ones(3, dtype=minflow.int64).add_(minflow.ones(3))


def test_graph_never_backpropagated_is_freed_by_refcount():
    """Dropping the output of a recorded graph frees its nodes and saved tensors at once
    (as torch), not at some later cyclic garbage collection: nothing on the tape refers
    back to a node strongly."""
    import gc
    import weakref
    w = minflow.ones(3, requires_grad=True)
    enabled = gc.isenabled()
    gc.disable()
    try:
        hidden = (w * 2).exp()
        out = (hidden * hidden).sum()
        refs = [weakref.ref(out.grad_fn), weakref.ref(hidden.grad_fn)]
        saved = weakref.ref(hidden)         # saved by the product node (its input)
        del hidden
        assert saved() is not None          # still held by the graph
        del out
        assert [r() for r in refs] == [None, None] and saved() is None
    finally:
        if enabled:
            gc.enable()


def test_function_saving_its_output_is_freed_by_refcount():
    """A custom Function that saves its own output: the output is kept as its array on the
    context (re-made on unpack), so no cycle holds the node."""
    import gc
    import weakref

    class Exp(minflow.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y

    w = minflow.tensor([0.0, 1.0], requires_grad=True)
    enabled = gc.isenabled()
    gc.disable()
    try:
        y = Exp.apply(w)
        ref = weakref.ref(y.grad_fn)
        Exp.apply(w).sum().backward()
        np.testing.assert_allclose(w.grad.numpy(), np.exp([0.0, 1.0]), rtol=1e-6)
        del y
        assert ref() is None
    finally:
        if enabled:
            gc.enable()


def test_next_functions_walk_the_graph_as_torch():
    x = minflow.ones(2, requires_grad=True)
    y = (x * minflow.ones(2)).sum()
    (mul, nr), = y.grad_fn.next_functions
    assert nr == 0 and mul.name() == "MulBackward0"
    (acc, _), (absent, absent_nr) = mul.next_functions
    assert acc.name() == "AccumulateGrad" and acc.variable is x and acc.next_functions == ()
    assert (absent, absent_nr) == (None, 0)         # an input that needs no grad


def test_legacy_variable_is_a_detached_tensor():
    x = minflow.ones(2) * 2
    v = minflow.autograd.Variable(x, requires_grad=True)
    assert v is not x and v.is_leaf and v.requires_grad and isinstance(x, minflow.autograd.Variable)
    assert not minflow.autograd.Variable(x).requires_grad
    with pytest.raises(TypeError, match="data has to be a tensor, but got list"):
        minflow.autograd.Variable([1.0])


@pytest.mark.parametrize("as_iterable", [
    lambda params: (p for p in params),                      # model.parameters()
    lambda params: dict(enumerate(params)).values(),         # OrderedDict(...).values()
    lambda params: params[0],                                # one tensor
], ids=["generator", "dict_values", "tensor"])
def test_grad_and_backward_take_any_iterable_of_inputs(as_iterable):
    x, y = leaf([3.0]), leaf([4.0])
    grads = minflow.autograd.grad((x * x * y).sum(), as_iterable([x, y]))
    assert [g.tolist() for g in grads] == [[24.0], [9.0]][:len(grads)]
    (x * y).sum().backward(inputs=as_iterable([x, y]))
    assert x.grad.tolist() == [4.0]
    z = x * 2
    minflow.autograd.backward(t for t in [z.sum()])
    assert x.grad.tolist() == [6.0]


def test_grad_with_grad_outputs_from_a_generator_matches_torch():
    torch = pytest.importorskip("torch")
    results = []
    for lib in (minflow, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        outs = [x * x, x.sum()]
        grads = lib.autograd.grad(outs, (t for t in [x]),
                                  grad_outputs=(g for g in [lib.tensor([1.0, -1.0]),
                                                            lib.tensor(3.0)]))
        results.append(grads[0].tolist())
    assert results[0] == results[1] == [5.0, -1.0]


def test_legacy_variable_as_torch():
    torch = pytest.importorskip("torch")
    results = []
    for lib in (minflow, torch):
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        v, w = lib.autograd.Variable(x), lib.autograd.Variable(y, requires_grad=True)
        w.sum().backward()
        v[0] = 5.0                                  # an alias of x's storage
        results.append((v.requires_grad, v.is_leaf, w.is_leaf, w.grad.tolist(), x.grad,
                        x.detach().tolist(), isinstance(y, lib.autograd.Variable),
                        list(lib.autograd.Variable().shape)))
    assert results[0] == results[1]
    with pytest.warns(UserWarning, match="volatile was removed"):
        minflow.autograd.Variable(minflow.ones(1), volatile=True)


def _batched_grads(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = lib.tensor([0.5], requires_grad=True)
    y, s = x ** 2 * w, (x * w).sum()
    jacobian = lib.autograd.grad(y, x, lib.eye(3), retain_graph=True, is_grads_batched=True)
    both = lib.autograd.grad([y, s], [x, w], [lib.eye(3)[:2], lib.tensor([1.0, -2.0])],
                             retain_graph=True, is_grads_batched=True)
    hessian_rows = lib.autograd.grad(y, x, lib.eye(3), create_graph=True,
                                     is_grads_batched=True)[0]
    second = lib.autograd.grad(hessian_rows.sum(), w)[0]
    return [t.detach().numpy() for t in (*jacobian, *both, hessian_rows, second)]


def test_grad_is_grads_batched_matches_torch():
    torch = pytest.importorskip("torch")
    got, expected = _batched_grads(minflow), _batched_grads(torch)
    assert len(got) == len(expected) == 5
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-6)


def test_grad_is_grads_batched_checks_grad_outputs():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="the first dim of each grad_output is the batch "
                                           "dim and the rest must match its output"):
        minflow.autograd.grad(x * 2, x, minflow.ones(2, dtype=minflow.float64),
                              is_grads_batched=True)

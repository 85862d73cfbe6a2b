"""autograd.graph.saved_tensors_hooks / save_on_cpu / disable_saved_tensors_hooks."""
import numpy as np
import pytest

import minflow
from minflow.autograd.graph import (disable_saved_tensors_hooks, save_on_cpu,
                                    saved_tensors_hooks)


def _mlp_grads(x, hooks=None):
    minflow.manual_seed(0)
    model = minflow.nn.Sequential(minflow.nn.Linear(4, 8), minflow.nn.Tanh(),
                                  minflow.nn.Linear(8, 3))
    if hooks is None:
        loss = minflow.nn.functional.cross_entropy(model(x), minflow.tensor([0, 2]))
    else:
        with hooks:
            loss = minflow.nn.functional.cross_entropy(model(x), minflow.tensor([0, 2]))
    loss.backward()
    return [p.grad.numpy() for p in model.parameters()]


def test_packed_tensors_come_back_through_unpack_and_grads_are_unchanged():
    x = minflow.tensor(np.random.default_rng(0).standard_normal((2, 4)).astype(np.float32))
    store, packs, unpacks = {}, [], []

    def pack(t):                 # keep a numpy copy under a key, as an offloader would
        key = len(store)
        store[key] = (t.detach().numpy().copy(), t.dtype)
        packs.append(key)
        return key

    def unpack(key):
        unpacks.append(key)
        array, dtype = store[key]
        return minflow.tensor(array, dtype=dtype)

    expected = _mlp_grads(x)
    got = _mlp_grads(x, saved_tensors_hooks(pack, unpack))
    for e, g in zip(expected, got):
        np.testing.assert_allclose(g, e, rtol=1e-6)
    assert packs and sorted(unpacks) == sorted(packs)


def test_innermost_hooks_apply_and_outside_nothing_is_packed():
    seen = []
    x = minflow.ones(2, requires_grad=True)
    with saved_tensors_hooks(lambda t: seen.append("outer") or t, lambda t: t):
        with saved_tensors_hooks(lambda t: seen.append("inner") or t, lambda t: t):
            y = x * x
        z = y.exp()
    w = z * 3.0             # saves nothing that needs grad... and is outside the hooks
    assert seen == ["inner", "inner", "outer"]
    w.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * np.exp(1.0) * 2, rtol=1e-6)


def test_double_backward_through_unpacked_outputs():
    x = minflow.tensor([1.5, -0.5], requires_grad=True)
    with saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t):
        y = x.exp()         # exp saves its output
        (g,) = minflow.autograd.grad(y.sum(), x, create_graph=True)
    (gg,) = minflow.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), np.exp([1.5, -0.5]), rtol=1e-6)


def test_custom_function_saved_tensors_go_through_the_hooks():
    class Cube(minflow.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x * x * g

    packed = []
    x = minflow.tensor([2.0], requires_grad=True)
    with saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        y = Cube.apply(x)
    y.backward()
    assert len(packed) == 1 and x.grad.item() == 12.0


def test_save_on_cpu_keeps_values_and_grads():
    x = minflow.tensor([0.3, 1.2], requires_grad=True)
    with save_on_cpu(pin_memory=False):
        (x.sin() * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos([0.3, 1.2]) * [0.3, 1.2]
                               + np.sin([0.3, 1.2]), rtol=1e-6)


def test_errors():
    with pytest.raises(TypeError, match="must be callable"):
        saved_tensors_hooks(None, lambda t: t)
    with disable_saved_tensors_hooks("no hooks here"):
        with pytest.raises(RuntimeError, match="no hooks here"):
            with saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    x = minflow.ones(1, requires_grad=True)
    with saved_tensors_hooks(lambda t: t, lambda t: "not a tensor"):
        y = x * x
    with pytest.raises(TypeError, match="unpack hook of saved_tensors_hooks must return a "
                                        "Tensor, got str"):
        y.backward()


def test_same_pack_calls_as_torch_for_elementwise_ops():
    torch = pytest.importorskip("torch")
    counts = {}
    for lib in (torch, minflow):
        calls = []
        x = lib.tensor([0.5, 1.5], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: calls.append(tuple(t.shape)) or t,
                                                    lambda t: t):
            y = (x.exp() * x.sin()).sum()
        y.backward()
        counts[lib.__name__] = (len(calls), x.grad.tolist())
    assert counts["minflow"][0] == counts["torch"][0]
    np.testing.assert_allclose(counts["minflow"][1], counts["torch"][1], rtol=1e-6)

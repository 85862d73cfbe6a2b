"""addcmul and addcdiv (functions, Tensor methods, in-place forms): values and grads
against torch, broadcasting, and their errors."""
import numpy as np
import pytest

import minflow

RNG = np.random.RandomState(0)
A, B, C = RNG.randn(3, 4), RNG.randn(3, 4), RNG.rand(4) + 0.5


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
def test_values_and_grads_match_torch(name):
    torch = pytest.importorskip("torch")
    ours = [minflow.tensor(v, requires_grad=True) for v in (A, B, C)]
    theirs = [torch.tensor(v, requires_grad=True) for v in (A, B, C)]
    out = getattr(minflow, name)(*ours, value=0.37)
    expected = getattr(torch, name)(*theirs, value=0.37)
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-12)
    out.sum().backward()
    expected.sum().backward()
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
def test_method_and_inplace(name):
    x = minflow.tensor(A)
    expected = getattr(minflow, name)(x, minflow.tensor(B), minflow.tensor(C), value=2)
    assert np.array_equal(getattr(x, name)(minflow.tensor(B), minflow.tensor(C),
                                           value=2).numpy(), expected.numpy())
    assert getattr(x, name + "_")(minflow.tensor(B), minflow.tensor(C), value=2) is x
    assert np.array_equal(x.numpy(), expected.numpy())


@pytest.mark.parametrize("call, error, match", [
    (lambda: minflow.addcmul(minflow.ones(2), minflow.ones(3), minflow.ones(2)), RuntimeError,
     "addcmul: the shapes cannot be broadcast together: input \\[2\\], tensor1 \\[3\\]"),
    (lambda: minflow.addcmul(minflow.ones(2), minflow.ones(2), minflow.ones(2), value="a"),
     TypeError, "addcmul: expected value to be a number, got str"),
    (lambda: minflow.addcdiv(minflow.ones(2), minflow.ones(2), 2.0), TypeError,
     "addcdiv: expected tensor2 to be a Tensor, got float"),
    (lambda: minflow.addcdiv(minflow.ones(2), minflow.tensor([1, 2]), minflow.tensor([1, 2])),
     RuntimeError, "addcdiv: integer division is not supported"),
])
def test_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize("call", [
    lambda t, x, a, b: t.addcmul(x, a, b, value=3.14),
    lambda t, x, a, b: t.addcdiv(x, a, b.abs() + 0.5, value=3.14),
    lambda t, x, a, b: t.lerp(x, a, 0.4),
    lambda t, x, a, b: t.lerp(x, a, b),
    lambda t, x, a, b: t.addr(x, a[0], b[:, 0], beta=0.6, alpha=0.2),
    lambda t, x, a, b: t.baddbmm(x, a[None], b[None], beta=0.2, alpha=0.6)[0],
    lambda t, x, a, b: t.mvlgamma(x.abs() + 3, 3),
], ids=["addcmul", "addcdiv", "lerp", "lerp_tensor", "addr", "baddbmm", "mvlgamma"])
def test_float16_rounds_as_torch(call):
    """float16 results bit for bit: computed in float32 and rounded once, or op by op,
    as torch's cpu kernels do."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    data = [rng.standard_normal((8, 8)).astype(np.float16) * 4 for _ in range(3)]
    ours = call(minflow, *(minflow.tensor(d) for d in data))
    theirs = call(torch, *(torch.tensor(d) for d in data))
    assert ours.dtype is minflow.float16
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())

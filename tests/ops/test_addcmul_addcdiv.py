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

"""minflow.func.vmap (a loop over the mapped dimension): values, gradients, nesting with
grad and the randomness modes, against torch.func.vmap where torch is installed."""
import numpy as np
import pytest

import minflow

X = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=np.float32)


def _per_sample_grads(lib, x):
    w = lib.tensor([0.5, -1.0])

    def loss(w, a, y):
        return ((a * w).sum() - y) ** 2
    return lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))(w, x,
                                                                     lib.tensor([1.0, 2.0, 3.0]))


CALLS = {
    "sum": lambda lib, x: lib.func.vmap(lambda a: a.sum())(x),
    "unmapped_arg": lambda lib, x: lib.func.vmap(lambda a, b: a * b, in_dims=(0, None))(
        x, lib.tensor([1.0, -1.0])),
    "in_dim_1": lambda lib, x: lib.func.vmap(lambda a: a.sum(), in_dims=1)(x),
    "out_dim_1": lambda lib, x: lib.func.vmap(lambda a: a * 2, out_dims=1)(x),
    "out_dim_negative": lambda lib, x: lib.func.vmap(lambda a: a * 2, out_dims=-1)(x),
    "pytree_in": lambda lib, x: lib.func.vmap(lambda d: d["a"] * d["b"])({"a": x, "b": x + 1}),
    "nested_in_dims": lambda lib, x: lib.func.vmap(lambda d, s: d["a"] * s,
                                                   in_dims=({"a": 1}, None))({"a": x}, 2.0),
    "tuple_out": lambda lib, x: lib.func.vmap(lambda a: (a, a.sum()), out_dims=(0, 0))(x)[1],
    "matmul_dims": lambda lib, x: lib.func.vmap(lambda a, b: a @ b, in_dims=(0, 1))(
        x, x.t().contiguous()),
    "nested_vmap": lambda lib, x: lib.func.vmap(lib.func.vmap(lambda a: a * 3))(x),
    "unbatched_result": lambda lib, x: lib.func.vmap(lambda a: lib.ones(2))(x),
    "per_sample_grads": _per_sample_grads,
}


@pytest.mark.parametrize("name", list(CALLS))
def test_values_as_torch(name):
    torch = pytest.importorskip("torch")
    got = CALLS[name](minflow, minflow.tensor(X))
    expected = CALLS[name](torch, torch.tensor(X))
    assert got.shape == expected.shape
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6)


def test_gradients_flow_through_to_outside_tensors():
    w = minflow.tensor([0.5, -1.0], requires_grad=True)
    out = minflow.func.vmap(lambda a: (a * w).sum().tanh())(minflow.tensor(X))
    out.sum().backward()
    expected = (1 - np.tanh(X @ [0.5, -1.0]) ** 2) @ X
    np.testing.assert_allclose(w.grad.numpy(), expected, rtol=1e-5)


def test_randomness_modes():
    ones = minflow.ones(4, 16)
    with pytest.raises(RuntimeError, match="vmap: called random operation while in "
                                           "randomness error mode"):
        minflow.func.vmap(lambda a: minflow.nn.functional.dropout(a, 0.5))(ones)
    same = minflow.func.vmap(lambda a: minflow.nn.functional.dropout(a, 0.5),
                             randomness="same")(ones)
    different = minflow.func.vmap(lambda a: minflow.nn.functional.dropout(a, 0.5),
                                  randomness="different")(ones)
    assert bool((same == same[0]).all()) and not bool((different == different[0]).all())
    minflow.rand(1)                         # random ops work again after the error mode


@pytest.mark.parametrize("call, error, fragment", [
    (lambda lib, x: lib.func.vmap(lambda a: a.sum(), in_dims=(0, 0))(x), ValueError,
     "in_dims is not compatible with the structure of `inputs`"),
    (lambda lib, x: lib.func.vmap(lambda a, b: a.sum())(x, lib.ones(4)), ValueError,
     "vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
     "[3, 4]"),
    (lambda lib, x: lib.func.vmap(lambda a: a.sum(), in_dims=None)(x), ValueError,
     "expected `in_dims` to be int or a (potentially nested) tuple"),
    (lambda lib, x: lib.func.vmap(lambda a: 3.0)(x), ValueError,
     "must only return Tensors, got type"),
    (lambda lib, x: lib.func.vmap(lambda a: a.sum(), in_dims=2)(x), ValueError,
     "Got in_dim=2 for some input, but that input is a Tensor of dimensionality 2"),
    (lambda lib, x: lib.func.vmap(lambda a, s: a * s, in_dims=(0, 0))(x, 2.0), ValueError,
     "Got in_dim=0 for an input but the input is of type"),
    (lambda lib, x: lib.func.vmap(lambda a: a.sum(), randomness="bad")(x), RuntimeError,
     "Only allowed values for randomness are 'error', 'different', or 'same'. Got bad"),
])
def test_errors_as_torch(call, error, fragment):
    with pytest.raises(error) as info:
        call(minflow, minflow.tensor(X))
    assert fragment in str(info.value)
    torch = pytest.importorskip("torch")
    with pytest.raises(error):
        call(torch, torch.tensor(X))

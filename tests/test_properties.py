"""Property tests (hypothesis): broadcasting, reductions and indexing agree with numpy."""
import numpy as np
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import minflow

SETTINGS = settings(max_examples=60, deadline=None)
floats = st.floats(-100, 100, allow_nan=False, width=32)


@SETTINGS
@given(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=4, max_side=4),
       st.sampled_from(["add", "mul", "sub", "maximum"]))
def test_broadcasting_matches_numpy(shapes, name):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shapes.input_shapes[0]).astype(np.float32)
    b = rng.standard_normal(shapes.input_shapes[1]).astype(np.float32)
    out = getattr(minflow, name)(minflow.tensor(a), minflow.tensor(b))
    ref = {"add": np.add, "mul": np.multiply, "sub": np.subtract, "maximum": np.maximum}[name]
    assert out.shape == shapes.result_shape
    np.testing.assert_allclose(out.numpy(), ref(a, b), rtol=1e-6)


@SETTINGS
@given(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3))
def test_broadcast_gradients_sum_back_to_input_shapes(shapes):
    a = minflow.ones(*shapes.input_shapes[0], dtype=minflow.float64, requires_grad=True)
    b = minflow.ones(*shapes.input_shapes[1], dtype=minflow.float64, requires_grad=True)
    (a * b * 2).sum().backward()
    n = int(np.prod(shapes.result_shape))
    assert a.grad.shape == a.shape and b.grad.shape == b.shape
    assert np.isclose(a.grad.numpy().sum(), 2 * n) and np.isclose(b.grad.numpy().sum(), 2 * n)


@st.composite
def array_and_dims(draw):
    arr = draw(hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=4, max_side=4),
                          elements=floats))
    dims = draw(st.lists(st.integers(-arr.ndim, arr.ndim - 1), unique_by=lambda d: d % arr.ndim,
                         min_size=1, max_size=arr.ndim))
    return arr, tuple(dims), draw(st.booleans())


@SETTINGS
@given(array_and_dims(), st.sampled_from(["sum", "mean", "amax", "amin", "logsumexp"]))
def test_reductions_match_numpy(case, name):
    arr, dims, keepdim = case
    x = minflow.tensor(arr)
    out = getattr(minflow, name)(x, dims, keepdim=keepdim)
    axes = tuple(d % arr.ndim for d in dims)
    if name == "logsumexp":
        m = arr.max(axis=axes, keepdims=True)
        ref = np.log(np.exp(arr - m).sum(axis=axes, keepdims=True)) + m
        ref = ref if keepdim else ref.squeeze(axis=axes)
    else:
        ref = getattr(np, {"amax": "max", "amin": "min"}.get(name, name))(
            arr, axis=axes, keepdims=keepdim)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-9, atol=1e-9)


def _positive_steps(index):
    """minflow follows PyTorch, which rejects negative slice steps (numpy allows them)."""
    parts = index if isinstance(index, tuple) else (index,)
    return all(not isinstance(p, slice) or p.step is None or p.step > 0 for p in parts)


@st.composite
def basic_index(draw):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5))
    return shape, draw(hnp.basic_indices(shape, allow_newaxis=True, allow_ellipsis=True)
                       .filter(_positive_steps))


@SETTINGS
@given(basic_index())
def test_basic_indexing_matches_numpy(case):
    shape, index = case
    arr = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    x = minflow.tensor(arr, requires_grad=True)
    out = x[index]
    np.testing.assert_array_equal(out.detach().numpy(), arr[index])
    out.sum().backward()
    expected = np.zeros(shape)
    expected[index] = 1.0          # basic indexing selects each element at most once
    np.testing.assert_array_equal(x.grad.numpy(), expected)

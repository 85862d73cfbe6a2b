"""The ``out=`` argument of torch's functions that take one: results written into out (a
tuple of tensors for tuple results), torch's dtype and memory-overlap rules."""
import inspect
import warnings

import numpy as np
import pytest

import minflow
from minflow.core.functional import OUT_ADDED


def test_every_listed_function_shows_out_in_its_signature():
    missing = [name for name in sorted(OUT_ADDED) if hasattr(minflow, name)
               and "out" not in inspect.signature(getattr(minflow, name)).parameters]
    assert missing == []


@pytest.mark.parametrize("name, args, kwargs", [
    ("cat", lambda a: ([a, a],), {"dim": 1}),
    ("stack", lambda a: ([a, a],), {}),
    ("mm", lambda a: (a, a.T), {}),
    ("gather", lambda a: (a, 1, minflow.tensor([[1, 0]] * 3)), {}),
    ("index_select", lambda a: (a, 0, minflow.tensor([2, 0])), {}),
    ("where", lambda a: (a > 0.5, a, -a), {}),
    ("cumsum", lambda a: (a, 1), {}),
    ("logsumexp", lambda a: (a, 1), {}),
    ("diag", lambda a: (a,), {}),
    ("masked_select", lambda a: (a, a > 0.5), {}),
])
def test_result_is_written_into_out(name, args, kwargs):
    a = minflow.tensor(np.arange(12, dtype=np.float32).reshape(3, 4) / 11)
    expected = getattr(minflow, name)(*args(a), **kwargs)
    out = minflow.empty(0, dtype=expected.dtype)
    got = getattr(minflow, name)(*args(a), **kwargs, out=out)
    assert got is out
    np.testing.assert_array_equal(out.numpy(), expected.numpy())


def test_tuple_results_go_into_a_tuple_of_outs_of_the_same_named_type():
    a = minflow.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
    values, indices = minflow.empty(0), minflow.empty(0, dtype=minflow.int64)
    got = minflow.sort(a, 1, out=(values, indices))
    assert got.values is values and got.indices is indices
    assert type(got) is type(minflow.sort(a, 1))
    assert values.tolist() == [[1.0, 2.0, 3.0], [0.0, 4.0, 5.0]]
    assert indices.tolist() == [[1, 2, 0], [0, 2, 1]]
    got = minflow.max(a, 1, out=(values, indices))
    assert values.tolist() == [3.0, 5.0] and indices.tolist() == [0, 1]
    with pytest.raises(TypeError, match=r"max\(\): argument 'out' must be tuple of 2 Tensors"):
        minflow.max(a, 1, out=values)


def test_creation_functions_take_dtype_and_device_from_out():
    out = minflow.empty(0, dtype=minflow.int64)
    assert minflow.zeros(2, 3, out=out) is out
    assert out.dtype is minflow.int64 and out.shape == (2, 3)
    f = minflow.empty(0, dtype=minflow.float64)
    assert minflow.arange(3, out=f).tolist() == [0.0, 1.0, 2.0] and f.dtype is minflow.float64
    with pytest.raises(RuntimeError, match="dtype float32 does not match dtype of out"):
        minflow.ones(2, dtype=minflow.float32, out=f)


def test_out_dtype_rules_follow_torch():
    a = minflow.rand(3, 4)
    # most functions: out must have the result's dtype exactly
    with pytest.raises(RuntimeError, match="expected out tensor to have dtype float32, but "
                                           "got float64"):
        minflow.mm(a, a.T, out=minflow.empty(0, dtype=minflow.float64))
    # the joins and a few more: any dtype the result casts to
    wide = minflow.empty(0, dtype=minflow.float64)
    minflow.cat([a, a], out=wide)
    assert wide.dtype is minflow.float64 and wide.shape == (6, 4)
    with pytest.raises(RuntimeError, match="can't be cast"):
        minflow.cat([a, a], out=minflow.empty(0, dtype=minflow.int64))


def test_out_may_not_overlap_the_inputs_of_index_and_join_functions():
    a = minflow.rand(3, 4)
    with pytest.raises(RuntimeError, match="cat: unsupported operation: some elements of the "
                                           "input tensor and the written-to tensor"):
        minflow.cat([a, a], out=a)
    with pytest.raises(RuntimeError, match="index_select: unsupported operation"):
        minflow.index_select(a, 0, minflow.tensor([0, 1, 2]), out=a)
    # more than one element of out at one address
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        minflow.mm(a, a.T, out=minflow.zeros(1, 3).expand(3, 3))


def test_out_and_autograd_do_not_mix():
    a = minflow.rand(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        minflow.cat([a, a], out=minflow.empty(0))


def test_resizing_a_non_empty_out_warns_as_torch():
    a = minflow.rand(2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        minflow.cat([a, a], out=minflow.empty(0))      # empty: resized silently
    with pytest.warns(UserWarning, match="was resized since it had shape"):
        minflow.cat([a, a], out=minflow.empty(2, 3))


def test_cat_of_a_tensor_is_a_type_error_as_torch():
    with pytest.raises(TypeError, match=r"cat\(\): argument 'tensors' \(position 1\) must be "
                                        r"tuple of Tensors, not Tensor"):
        minflow.cat(minflow.rand(2, 3))


def test_integer_arange_whose_step_truncates_to_zero_is_a_value_error():
    with pytest.raises(ValueError, match="step must be nonzero"):
        minflow.arange(0, 4, 0.5, dtype=minflow.int64)
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        minflow.arange(0, 4, 0)

import numpy as np
import pytest

import minflow


def test_metadata_surface():
    x = minflow.zeros(2, 3, dtype=minflow.float64)
    assert x.shape == (2, 3) and x.size() == (2, 3) and x.size(-1) == 3
    assert x.ndim == 2 and x.dim() == 2 and x.numel() == 6
    assert repr(x.shape) == "minflow.Size([2, 3])"
    assert x.dtype is minflow.float64 and x.device == "cpu"
    assert x.is_leaf and not x.requires_grad and x.grad is None and x.grad_fn is None


def test_item_tolist_numpy():
    x = minflow.tensor([[1, 2], [3, 4]])
    assert x.tolist() == [[1, 2], [3, 4]]
    assert minflow.tensor(2.5).item() == 2.5
    with pytest.raises(RuntimeError, match="4 elements"):
        x.item()
    assert isinstance(x.numpy(), np.ndarray)
    with pytest.raises(RuntimeError, match="requires grad"):
        minflow.ones(1, requires_grad=True).numpy()


def test_from_numpy_shares_memory_and_tensor_copies():
    a = np.zeros(3, dtype=np.float32)
    shared, copied = minflow.from_numpy(a), minflow.tensor(a)
    a[0] = 7
    assert shared.tolist()[0] == 7 and copied.tolist()[0] == 0
    assert minflow.tensor(np.zeros(2)).dtype is minflow.float64   # numpy keeps its dtype
    assert minflow.tensor([1.0, 2]).dtype is minflow.float32
    assert minflow.tensor([True]).dtype is minflow.bool


def test_conversions():
    x = minflow.tensor([1.7, -2.2])
    assert x.long().tolist() == [1, -2] and x.long().dtype is minflow.int64
    assert x.double().dtype is minflow.float64 and x.int().dtype is minflow.int32
    assert x.bool().tolist() == [True, True] and x.half().dtype is minflow.float16
    assert x.to(minflow.float64).dtype is minflow.float64
    assert x.float() is x
    c = x.clone()
    c.add_(1)
    assert x.tolist() != c.tolist()


def test_operators_and_reflected():
    x = minflow.tensor([1.0, 2.0, 4.0])
    np.testing.assert_allclose((2 - x).numpy(), [1, 0, -2])
    np.testing.assert_allclose((2 / x).numpy(), [2, 1, 0.5])
    np.testing.assert_allclose((x ** 2).numpy(), [1, 4, 16])
    np.testing.assert_allclose((2 ** x).numpy(), [2, 4, 16])
    np.testing.assert_allclose((x // 3).numpy(), [0, 0, 1])
    np.testing.assert_allclose((-x % 3).numpy(), [2, 1, 2])
    np.testing.assert_allclose(abs(-x).numpy(), [1, 2, 4])
    assert (x > 1.5).tolist() == [False, True, True] and (x == 2).dtype is minflow.bool


def test_repr_like_pytorch():
    assert repr(minflow.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    assert repr(minflow.tensor([1, 2])) == "tensor([1, 2])"
    assert repr(minflow.tensor(3.5)) == "tensor(3.5000)"
    assert repr(minflow.tensor([1.5], dtype=minflow.float64)) == \
        "tensor([1.5000], dtype=minflow.float64)"
    assert repr(minflow.ones(1, requires_grad=True)) == "tensor([1.], requires_grad=True)"
    assert "grad_fn=<MulBackward0>" in repr(minflow.ones(1, requires_grad=True) * 2)


def test_factories():
    assert minflow.arange(1, 4).tolist() == [1, 2, 3]
    assert minflow.arange(0, 1, 0.5).tolist() == [0.0, 0.5]
    assert minflow.full((2,), 1.5).tolist() == [1.5, 1.5]
    assert minflow.eye(2, 3).shape == (2, 3)
    assert minflow.zeros_like(minflow.ones(2, dtype=minflow.int32)).dtype is minflow.int32
    assert minflow.linspace(0, 1, 5).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    r = minflow.randint(0, 5, (1000,))
    assert r.dtype is minflow.int64 and 0 <= r.numpy().min() and r.numpy().max() < 5
    with pytest.raises(RuntimeError, match="negative dimension"):
        minflow.zeros(-1)


def test_random_is_reproducible():
    minflow.manual_seed(3)
    a = minflow.randn(4).tolist()
    minflow.manual_seed(3)
    assert minflow.randn(4).tolist() == a
    g = minflow.Generator().manual_seed(5)
    b = minflow.rand(3, generator=g).tolist()
    assert minflow.rand(3, generator=minflow.Generator().manual_seed(5)).tolist() == b
    u = minflow.rand(10000).numpy()
    assert 0 <= u.min() and u.max() < 1 and abs(u.mean() - 0.5) < 0.02


def test_inplace_and_out():
    x = minflow.tensor([1.0, 2.0])
    y = x.add_(1).mul_(2)
    assert y is x and x.tolist() == [4.0, 6.0]
    out = minflow.empty(2)
    assert minflow.add(x, 1, out=out) is out and out.tolist() == [5.0, 7.0]
    i = minflow.tensor([1, 2])
    with pytest.raises(RuntimeError, match="can't be cast"):
        i.add_(0.5)
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        minflow.zeros(1).add_(minflow.zeros(3))
    x.clamp_(min=5)
    assert x.tolist() == [5.0, 6.0]


def test_inplace_on_leaf_requiring_grad_is_an_error():
    w = minflow.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        w.add_(1)
    with minflow.no_grad():
        w.add_(1)
    assert w.tolist() == [2.0, 2.0]


def test_bool_and_len():
    assert len(minflow.zeros(3, 2)) == 3
    assert bool(minflow.tensor([1.0])) is True
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(minflow.zeros(2))


def test_fill_zero_copy_inplace():
    x = minflow.ones(2, 2)
    base = x.numpy()
    assert x.fill_(2.5) is x and base.tolist() == [[2.5, 2.5], [2.5, 2.5]]
    assert x.zero_().tolist() == [[0.0, 0.0], [0.0, 0.0]]
    x.copy_(minflow.tensor([1, 2]))
    assert x.tolist() == [[1.0, 2.0], [1.0, 2.0]] and x.dtype is minflow.float32
    src = minflow.tensor([1.0, 2.0], requires_grad=True)
    y = minflow.zeros(2)
    y.copy_(src)
    (y * 3).sum().backward()
    assert src.grad.tolist() == [3.0, 3.0]


def test_augmented_assignment_operators_write_in_place():
    """&=, |=, ^=, //=, %= and **= change the tensor itself (as torch), like += does."""
    x = minflow.tensor([5, 6, -7])
    alias = x
    x &= 3
    x |= 8
    x ^= 1
    x //= 2
    x %= 5
    x **= 2
    a = np.array([5, 6, -7])
    a = (((((a & 3) | 8) ^ 1) // 2) % 5) ** 2
    assert alias is x and x.tolist() == a.tolist()
    f = minflow.tensor([1.5, 2.0], requires_grad=True)
    g = f * 1
    g **= 2
    g.sum().backward()
    assert f.grad.tolist() == [3.0, 4.0]


def test_python_conversions_and_contains_as_torch():
    # float()/int() of several elements: a ValueError (item() raises a RuntimeError)
    with pytest.raises(ValueError, match="only one element tensors can be converted"):
        float(minflow.ones(2))
    with pytest.raises(RuntimeError, match="2 elements cannot be converted"):
        minflow.ones(2).item()
    assert complex(minflow.tensor(2.0)) == 2 + 0j
    x = minflow.tensor([[1, 2], [3, 4]])
    assert 3 in x and 5 not in x and minflow.tensor([2, 4]) in x
    with pytest.raises(RuntimeError, match="only supports Tensor or scalar"):
        "a" in x
    assert isinstance(minflow.float16, minflow.dtype)


def test_tensors_in_a_list_are_numbers():
    # as torch: each tensor in a list is one number, whatever its shape
    assert minflow.tensor([minflow.tensor([1.0]), minflow.tensor([[2.0]])]).shape == (2,)
    mixed = minflow.tensor([minflow.tensor(1), minflow.tensor(2.5)])
    assert mixed.dtype is minflow.float32 and mixed.tolist() == [1.0, 2.5]
    with pytest.raises(ValueError, match="only one element tensors"):
        minflow.tensor([minflow.ones(2), minflow.ones(2)])

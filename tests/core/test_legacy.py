"""torch's legacy constructors: Tensor(*sizes), Tensor(data), LongTensor(...) and the
typed isinstance checks."""
import numpy as np
import pytest

import minflow


@pytest.mark.parametrize("make, shape, dtype", [
    (lambda: minflow.Tensor(), [0], minflow.float32),
    (lambda: minflow.Tensor(2, 3), [2, 3], minflow.float32),
    (lambda: minflow.Tensor(minflow.Size([2, 3])), [2, 3], minflow.float32),
    (lambda: minflow.Tensor((2, 3)), [2], minflow.float32),           # a tuple is data
    (lambda: minflow.Tensor(np.array([1, 2])), [2], minflow.float32),
    (lambda: minflow.LongTensor([1.7, 2.0]), [2], minflow.int64),
    (lambda: minflow.DoubleTensor(4), [4], minflow.float64),
    (lambda: minflow.IntTensor([[1], [2]]), [2, 1], minflow.int32),
    (lambda: minflow.BoolTensor([True]), [1], minflow.bool),
    (lambda: minflow.HalfTensor(1), [1], minflow.float16),
])
def test_shape_and_dtype(make, shape, dtype):
    t = make()
    assert list(t.shape) == shape and t.dtype is dtype


def test_values_and_aliasing():
    assert minflow.Tensor([[1, 2]]).tolist() == [[1.0, 2.0]]
    assert minflow.LongTensor([1.7, -2.5]).tolist() == [1, -2]
    source = minflow.ones(2, requires_grad=True)
    alias = minflow.Tensor(source)                  # shares storage, detached
    alias[0] = 5.0
    assert source.tolist() == [5.0, 1.0] and not alias.requires_grad


def test_parameter_of_legacy_tensor():
    weight = minflow.nn.Parameter(minflow.Tensor(3, 2))
    minflow.nn.init.zeros_(weight)
    assert weight.shape == (3, 2) and weight.requires_grad


def test_isinstance_checks_dtype():
    assert isinstance(minflow.ones(1), minflow.FloatTensor)
    assert not isinstance(minflow.ones(1, dtype=minflow.int64), minflow.FloatTensor)
    assert isinstance(minflow.tensor([1]), minflow.LongTensor)
    assert not isinstance([1.0], minflow.FloatTensor)


@pytest.mark.parametrize("make, error, match", [
    (lambda: minflow.Tensor(2.5), TypeError, r"Tensor\(\): data must be a sequence, got float"),
    (lambda: minflow.Tensor("ab"), TypeError, r"data must be a sequence, got str"),
    (lambda: minflow.LongTensor(2, 3.0), TypeError,
     r"LongTensor\(\): expected sizes \(ints\) or one sequence of data, got \(int, float\)"),
    (lambda: minflow.FloatTensor(minflow.tensor([1])), TypeError,
     r"FloatTensor\(\): expected a tensor of dtype float32, got int64"),
    (lambda: minflow.Tensor(-1), RuntimeError, r"negative dimension -1"),
])
def test_errors(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_same_errors_as_torch():
    torch = pytest.importorskip("torch")
    for args in [(2.5,), ("ab",), (2, 3.0), (-1,)]:
        with pytest.raises(Exception) as expected:
            torch.Tensor(*args)
        with pytest.raises(Exception) as got:
            minflow.Tensor(*args)
        assert type(got.value) is type(expected.value), args


def test_type_takes_a_legacy_type_and_moves_to_its_device(device):
    x = minflow.tensor([1.5, -2.0], device=device)
    for target, dtype in [(minflow.LongTensor, minflow.int64),
                          ("torch.DoubleTensor", minflow.float64)]:
        cast = x.type(target)
        assert cast.dtype is dtype and cast.device.type == "cpu"
    assert x.type(minflow.LongTensor).tolist() == [1, -2]
    if device == "cuda":
        on_gpu = x.cpu().type("torch.cuda.HalfTensor")
        assert on_gpu.device.type == "cuda" and on_gpu.dtype is minflow.float16


def test_type_of_legacy_types_as_torch():
    torch = pytest.importorskip("torch")
    for name in ["FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "BoolTensor"]:
        got = minflow.tensor([0.0, 1.5, -2.5]).type(getattr(minflow, name))
        expected = torch.tensor([0.0, 1.5, -2.5]).type(getattr(torch, name))
        assert got.tolist() == expected.tolist() and got.type() == "minflow." + name
    with pytest.raises(ValueError, match=r"type: invalid type 'torch\.cuda\.cuda\.FloatTensor'"):
        minflow.ones(1).type("torch.cuda.cuda.FloatTensor")

import pytest

import minflow
from minflow.core.device import cuda_is_available


def test_parse_and_intern():
    assert minflow.device("cuda:1").index == 1
    assert minflow.device("cuda:1") is minflow.device("cuda:1")
    assert str(minflow.device("cpu")) == "cpu"
    assert minflow.device("cpu") == "cpu"


@pytest.mark.parametrize("bad", ["tpu", "cuda:x", "cpu:0", "cuda:-1"])
def test_unknown_device_names_it(bad):
    with pytest.raises(RuntimeError, match=bad.split(":")[0]):
        minflow.device(bad)


@pytest.mark.skipif(cuda_is_available(), reason="checks the no-GPU error")
def test_cuda_without_gpu_is_a_clear_error():
    with pytest.raises(RuntimeError, match="cuda"):
        minflow.zeros(2, device="cuda")
    with pytest.raises(RuntimeError, match="cuda"):
        minflow.tensor([1.0]).cuda()


def test_meta_device_infers_without_data():
    x = minflow.zeros(2, 3, device="meta")
    y = (x * 2 + 1).exp().sum(0)
    assert y.shape == (3,) and y.device.type == "meta" and y.dtype is minflow.float32
    with pytest.raises(RuntimeError, match="meta"):
        y.item()


def test_mixed_devices_name_the_op():
    a = minflow.zeros(2)
    b = minflow.zeros(2, device="meta")
    with pytest.raises(RuntimeError, match="add: expected all tensors to be on the same device"):
        a + b


def test_to_device_roundtrip(device):
    x = minflow.tensor([1.0, 2.0], requires_grad=True)
    y = x.to(device)
    assert y.device.type == device
    (y * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]

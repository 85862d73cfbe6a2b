"""pin_memory / is_pinned / share_memory_ / is_shared, and DataLoader(pin_memory=True)."""

import os
import warnings

import numpy as np
import pytest

import minflow
from minflow.utils.data import DataLoader, TensorDataset

needs_gpu = pytest.mark.skipif(not minflow.cuda.is_available(), reason="needs a GPU")
no_gpu = pytest.mark.skipif(minflow.cuda.is_available(), reason="behaviour without a GPU")


@no_gpu
def test_pin_memory_without_an_accelerator_raises_as_torch():
    x = minflow.ones(2)
    assert x.is_pinned() is False
    with pytest.raises(RuntimeError, match="Cannot access accelerator device when none is "
                                           "available."):
        x.pin_memory()


@no_gpu
def test_pin_memory_matches_torch_cpu_build():
    torch = pytest.importorskip("torch")
    if torch.accelerator.is_available():
        pytest.skip("torch sees an accelerator here")
    with pytest.raises(RuntimeError) as theirs:
        torch.ones(2).pin_memory()
    with pytest.raises(RuntimeError) as ours:
        minflow.ones(2).pin_memory()
    assert str(theirs.value) in str(ours.value)
    assert minflow.ones(2).is_pinned() == torch.ones(2).is_pinned()


@needs_gpu
def test_pin_memory_with_a_gpu_copies_once_and_keeps_grads():
    x = minflow.tensor([1.0, 2.0], requires_grad=True)
    pinned = x.pin_memory()
    assert pinned.is_pinned() and not x.is_pinned()
    assert pinned.pin_memory() is pinned and pinned.tolist() == [1.0, 2.0]
    (pinned * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    assert pinned.to("cuda", non_blocking=True).tolist() == [1.0, 2.0]
    with pytest.raises(RuntimeError, match="only dense CPU tensors can be pinned"):
        minflow.ones(2, device="cuda").pin_memory()
    assert not minflow.ones(2, device="cuda").is_pinned()


def test_share_memory_moves_data_that_forked_processes_share():
    x = minflow.tensor([1.0, 2.0, 3.0])
    assert not x.is_shared()
    assert x.share_memory_() is x and x.is_shared() and x.tolist() == [1.0, 2.0, 3.0]
    assert x[1:].is_shared() and x.share_memory_() is x
    if not hasattr(os, "fork"):
        return
    pid = os.fork()
    if pid == 0:                              # the child changes the shared data in place
        x.add_(10.0)
        os._exit(0)
    os.waitpid(pid, 0)
    assert x.tolist() == [11.0, 12.0, 13.0]


def test_share_memory_refuses_data_held_elsewhere():
    x = minflow.ones(4)
    view = x[:2]
    with pytest.raises(RuntimeError, match="share_memory_: the tensor's data is also held "
                                           "elsewhere"):
        x.share_memory_()
    with pytest.raises(RuntimeError, match="share_memory_"):
        view.share_memory_()


def test_share_memory_matches_torch_flags():
    torch = pytest.importorskip("torch")
    ours, theirs = minflow.zeros(3), torch.zeros(3)
    assert ours.is_shared() == theirs.is_shared()
    assert ours.share_memory_().is_shared() == theirs.share_memory_().is_shared()


def test_module_share_memory_moves_parameters_buffers_and_grads():
    model = minflow.nn.Sequential(minflow.nn.Linear(2, 2), minflow.nn.BatchNorm1d(2))
    model(minflow.ones(3, 2)).sum().backward()
    weight = model[0].weight
    assert model.share_memory() is model and model[0].weight is weight
    assert all(p.is_shared() and p.grad.is_shared() for p in model.parameters())
    assert all(b.is_shared() for b in model.buffers())


@no_gpu
def test_dataloader_pin_memory_warns_and_loads_unpinned_as_torch():
    dataset = TensorDataset(minflow.arange(5.0))
    loader = DataLoader(dataset, batch_size=2, pin_memory=True, pin_memory_device="cuda")
    assert loader.pin_memory is True
    with pytest.warns(UserWarning) as record:
        batches = list(loader)
    messages = [str(w.message) for w in record]
    assert ("'pin_memory' argument is set as true but no accelerator is found, then device "
            "pinned memory won't be used.") in messages
    assert any(m.startswith("pin_memory_device is deprecated") for m in messages)
    assert [b.tolist() for (b,) in batches] == [[0.0, 1.0], [2.0, 3.0], [4.0]]
    assert not batches[0][0].is_pinned()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        list(DataLoader(dataset, batch_size=2))         # no warning without pin_memory


@no_gpu
def test_dataloader_pin_memory_warning_is_torchs():
    torch = pytest.importorskip("torch")
    if torch.accelerator.is_available():
        pytest.skip("torch sees an accelerator here")
    data = torch.utils.data.TensorDataset(torch.arange(3.0))
    with pytest.warns(UserWarning) as theirs:
        list(torch.utils.data.DataLoader(data, pin_memory=True))
    with pytest.warns(UserWarning) as ours:
        list(DataLoader(TensorDataset(minflow.arange(3.0)), pin_memory=True))
    assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]


@needs_gpu
def test_dataloader_pins_every_tensor_of_a_batch():
    samples = [{"x": minflow.ones(2), "y": (minflow.tensor(1), "label")} for _ in range(4)]
    for batch in DataLoader(samples, batch_size=2, pin_memory=True):
        assert batch["x"].is_pinned() and batch["y"][0].is_pinned()
        np.testing.assert_array_equal(batch["x"].numpy(), np.ones((2, 2), np.float32))


def test_to_accepts_non_blocking(device):
    x = minflow.tensor([1.0, 2.0])
    assert x.to(device, non_blocking=True).tolist() == [1.0, 2.0]
    if device == "cuda":
        assert x.cuda(non_blocking=True).device.type == "cuda"

"""nn.DataParallel: torch's behaviour on no GPU or one; several GPUs raise a clear error."""

import numpy as np
import pytest

import minflow
from minflow import nn

needs_gpu = pytest.mark.skipif(not minflow.cuda.is_available(), reason="needs a GPU")
no_gpu = pytest.mark.skipif(minflow.cuda.is_available(), reason="behaviour without a GPU")


def _model():
    minflow.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))


def test_forward_backward_and_state_dict_go_through_to_the_module():
    inner = _model()
    model = nn.DataParallel(inner)
    assert model.module is inner and isinstance(model, nn.Module)
    assert nn.parallel.DataParallel is nn.DataParallel
    assert list(model.state_dict()) == ["module." + k for k in inner.state_dict()]
    x = minflow.randn(5, 3, device=inner[0].weight.device)
    np.testing.assert_allclose(model(x).detach().cpu().numpy(),
                               inner(x).detach().cpu().numpy())
    model(x).sum().backward()
    assert inner[0].weight.grad is not None
    assert [p is q for p, q in zip(model.parameters(), inner.parameters())] == [True] * 4


def test_kwargs_pass_through():
    class Scale(nn.Module):
        def forward(self, x, *, factor=1.0):
            return x * factor
    assert nn.DataParallel(Scale())(minflow.ones(2), factor=3.0).tolist() == [3.0, 3.0]


@no_gpu
def test_without_a_gpu_only_the_module_is_kept_as_torch():
    model = nn.DataParallel(_model(), device_ids=[0, 1], output_device=1, dim=1)
    assert model.device_ids == []
    assert not hasattr(model, "dim") and not hasattr(model, "output_device")
    assert model(minflow.ones(2, 3)).shape == (2, 2)


def test_state_dict_loads_into_torch_and_back():
    torch = pytest.importorskip("torch")
    ours = nn.DataParallel(_model())            # on cuda:0 where there is a GPU, as torch's
    theirs = torch.nn.DataParallel(torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(),
                                                       torch.nn.Linear(4, 2)))
    if torch.cuda.is_available():
        theirs.cuda()
    assert list(ours.state_dict()) == list(theirs.state_dict())
    theirs.load_state_dict({k: torch.from_numpy(v.cpu().numpy().copy())
                            for k, v in ours.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    np.testing.assert_allclose(ours(minflow.tensor(x)).detach().cpu().numpy(),
                               theirs(torch.from_numpy(x)).detach().cpu().numpy(), rtol=1e-6)
    if not torch.cuda.is_available():
        assert theirs.device_ids == ours.device_ids == []


@needs_gpu
def test_one_gpu_moves_the_module_and_inputs():
    model = nn.DataParallel(_model(), device_ids=[0])
    assert model.device_ids == [0] and model.output_device == 0 and model.dim == 0
    assert model.module[0].weight.device == minflow.device("cuda:0")
    out = model({"x": minflow.ones(2, 3)}["x"])                    # a cpu input goes to cuda:0
    assert out.device == minflow.device("cuda:0")
    model.module.cpu()
    with pytest.raises(RuntimeError, match=r"module must have its parameters and buffers on "
                                           r"device cuda:0 \(device_ids\[0\]\)"):
        model(minflow.ones(2, 3))


@needs_gpu
def test_several_gpus_raise_a_clear_error():
    with pytest.raises(RuntimeError, match=r"DataParallel: device_ids=\[0, 1\] names 2 GPUs, "
                                           r"but splitting a batch over several GPUs"):
        nn.DataParallel(_model(), device_ids=[0, 1])
    with pytest.raises(ValueError, match="DataParallel: expected device_ids to name cuda "
                                         "devices"):
        nn.DataParallel(_model(), device_ids=["cpu"])

"""Lazy layers and nn.Buffer against torch: materialisation from the first input, torch's
init statistics, repr and class before and after, state_dict loading, errors."""
import numpy as np
import pytest

import minflow
import minflow.nn as nn

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("make, tmake, shape", [
    (lambda: nn.LazyLinear(3), lambda: torch.nn.LazyLinear(3), (2, 5)),
    (lambda: nn.LazyLinear(3, bias=False), lambda: torch.nn.LazyLinear(3, bias=False), (5,)),
    (lambda: nn.LazyConv1d(4, 3, groups=2), lambda: torch.nn.LazyConv1d(4, 3, groups=2),
     (2, 6, 9)),
    (lambda: nn.LazyConv2d(4, 3, padding=1), lambda: torch.nn.LazyConv2d(4, 3, padding=1),
     (2, 5, 6)),
    (lambda: nn.LazyBatchNorm1d(), lambda: torch.nn.LazyBatchNorm1d(), (4, 3)),
    (lambda: nn.LazyBatchNorm2d(affine=False), lambda: torch.nn.LazyBatchNorm2d(affine=False),
     (2, 3, 4, 4)),
    (lambda: nn.LazyConv3d(4, 2, stride=2), lambda: torch.nn.LazyConv3d(4, 2, stride=2),
     (2, 3, 4, 4, 4)),
    (lambda: nn.LazyConv3d(2, 3, padding=1, bias=False),
     lambda: torch.nn.LazyConv3d(2, 3, padding=1, bias=False), (3, 4, 4, 4)),
    (lambda: nn.LazyConvTranspose1d(4, 3, stride=2, groups=2),
     lambda: torch.nn.LazyConvTranspose1d(4, 3, stride=2, groups=2), (2, 6, 5)),
    (lambda: nn.LazyConvTranspose1d(3, 2), lambda: torch.nn.LazyConvTranspose1d(3, 2), (4, 7)),
    (lambda: nn.LazyConvTranspose2d(4, 3, stride=2, padding=1, output_padding=1),
     lambda: torch.nn.LazyConvTranspose2d(4, 3, stride=2, padding=1, output_padding=1),
     (2, 5, 4, 4)),
    (lambda: nn.LazyConvTranspose3d(2, 2, stride=2, bias=False, dilation=1),
     lambda: torch.nn.LazyConvTranspose3d(2, 2, stride=2, bias=False, dilation=1),
     (1, 3, 2, 3, 2)),
    (lambda: nn.LazyBatchNorm3d(momentum=0.3), lambda: torch.nn.LazyBatchNorm3d(momentum=0.3),
     (2, 3, 2, 2, 2)),
    (lambda: nn.LazyInstanceNorm1d(), lambda: torch.nn.LazyInstanceNorm1d(), (2, 3, 6)),
    (lambda: nn.LazyInstanceNorm2d(affine=False), lambda: torch.nn.LazyInstanceNorm2d(
        affine=False), (2, 3, 4, 4)),
    (lambda: nn.LazyInstanceNorm2d(bias=False), lambda: torch.nn.LazyInstanceNorm2d(
        bias=False), (2, 3, 4, 4)),
    (lambda: nn.LazyInstanceNorm3d(track_running_stats=False),
     lambda: torch.nn.LazyInstanceNorm3d(track_running_stats=False), (2, 3, 2, 3, 3)),
    (lambda: nn.LazyInstanceNorm3d(affine=False, track_running_stats=False),
     lambda: torch.nn.LazyInstanceNorm3d(affine=False, track_running_stats=False),
     (2, 3, 2, 3, 3)),
])
def test_lazy_layer_materialises_like_torch(make, tmake, shape):
    m, tm = make(), tmake()
    assert repr(m) == repr(tm)
    assert m.has_uninitialized_params() == tm.has_uninitialized_params()
    x = np.random.RandomState(0).randn(*shape).astype(np.float32)
    out, tout = m(minflow.tensor(x)), tm(torch.tensor(x))
    assert type(m).__name__ == type(tm).__name__ and repr(m) == repr(tm)
    assert tuple(out.shape) == tuple(tout.shape)
    sd, tsd = m.state_dict(), tm.state_dict()
    assert list(sd) == list(tsd)
    for k, v in tsd.items():
        assert tuple(sd[k].shape) == tuple(v.shape), k
        assert str(sd[k].dtype).split(".")[1] == str(v.dtype).split(".")[1], k
    # same weights give the same output (the materialised layer is the plain one)
    m.load_state_dict({k: minflow.tensor(v.numpy()) for k, v in tsd.items()})
    m.eval(), tm.eval()
    np.testing.assert_allclose(m(minflow.tensor(x)).detach().numpy(),
                               tm(torch.tensor(x)).detach().numpy(), 1e-5, 1e-6)


def test_lazy_linear_init_statistics_are_torchs():
    minflow.manual_seed(0)
    m = nn.LazyLinear(200)
    m(minflow.ones(1, 300))
    bound = 1 / np.sqrt(300)
    w = m.weight.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.95 * bound
    assert abs(w.std() - bound / np.sqrt(3)) < 0.02 * bound


def test_load_state_dict_into_lazy_module_and_train():
    src = nn.Linear(4, 2)
    lazy = nn.LazyLinear(2)
    lazy.load_state_dict(src.state_dict())
    x = minflow.randn(3, 4)
    np.testing.assert_allclose(lazy(x).detach().numpy(), src(x).detach().numpy())
    assert type(lazy) is nn.Linear and lazy.in_features == 4
    lazy(x).sum().backward()
    assert lazy.weight.grad is not None


def test_uninitialized_parameter_refuses_shape_and_errors():
    m = nn.LazyLinear(2)
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized"):
        m.weight.shape
    assert repr(m.weight) == "<UninitializedParameter>"
    conv = nn.LazyConv2d(4, 3)
    with pytest.raises(RuntimeError, match=r"Expected 3D \(unbatched\) or 4D \(batched\) input "
                                           r"to LazyConv2d"):
        conv(minflow.ones(5, 5))
    with pytest.raises(ValueError, match="in_channels \\(3\\) must be divisible by groups"):
        nn.LazyConv2d(4, 3, groups=2)(minflow.ones(1, 3, 5, 5))


def test_buffer_assignment_registers_as_torch():
    m, tm = nn.Module(), torch.nn.Module()
    m.a = nn.Buffer(minflow.ones(2))
    m.b = nn.Buffer(minflow.zeros(1), persistent=False)
    tm.a = torch.nn.Buffer(torch.ones(2))
    tm.b = torch.nn.Buffer(torch.zeros(1), persistent=False)
    assert list(m.state_dict()) == list(tm.state_dict())
    assert [n for n, _ in m.named_buffers()] == [n for n, _ in tm.named_buffers()]
    assert not list(m.parameters())
    m.a = minflow.full((2,), 3.0)                 # a plain tensor replaces the buffer's value
    assert m.state_dict()["a"].tolist() == [3.0, 3.0]
    with pytest.raises(TypeError, match="expected data to be a minflow Tensor"):
        nn.Buffer([1.0])


def test_lazy_norms_train_their_running_stats_as_torch():
    x = np.random.RandomState(1).randn(4, 3, 5, 5).astype(np.float32)
    for make, tmake in [(nn.LazyInstanceNorm2d, torch.nn.LazyInstanceNorm2d),
                        (nn.LazyBatchNorm3d, torch.nn.LazyBatchNorm3d)]:
        data = x if make is nn.LazyInstanceNorm2d else x[..., None]
        m, tm = make(), tmake()
        for _ in range(2):
            out, tout = m(minflow.tensor(data)), tm(torch.tensor(data))
        np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), 1e-4, 1e-5)
        for name in ("running_mean", "running_var", "num_batches_tracked"):
            np.testing.assert_allclose(getattr(m, name).numpy(), getattr(tm, name).numpy(),
                                       1e-5, 1e-6)
        m.eval(), tm.eval()
        np.testing.assert_allclose(m(minflow.tensor(data)).detach().numpy(),
                                   tm(torch.tensor(data)).detach().numpy(), 1e-4, 1e-5)


def test_lazy_instance_norm_takes_the_channels_of_an_unbatched_input():
    m = nn.LazyInstanceNorm1d()
    assert m(minflow.randn(3, 6)).shape == (3, 6) and m.num_features == 3
    assert m.weight.shape == (3,) and type(m) is nn.InstanceNorm1d


def test_lazy_transposed_conv_errors_and_state_dict_loading():
    with pytest.raises(ValueError, match="in_channels \\(3\\) must be divisible by groups"):
        nn.LazyConvTranspose1d(4, 3, groups=2)(minflow.ones(1, 3, 5))
    with pytest.raises(RuntimeError, match="Expected 2D \\(unbatched\\) or 3D \\(batched\\) "
                                           "input to LazyConvTranspose1d"):
        nn.LazyConvTranspose1d(4, 3)(minflow.ones(1, 1, 3, 5))
    src = nn.ConvTranspose2d(6, 4, 3, groups=2)
    lazy = nn.LazyConvTranspose2d(4, 3, groups=2)
    lazy.load_state_dict(src.state_dict())
    assert lazy.in_channels == 6
    x = minflow.randn(1, 6, 4, 4)
    np.testing.assert_allclose(lazy(x).detach().numpy(), src(x).detach().numpy())
    assert type(lazy) is nn.ConvTranspose2d

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
])
def test_lazy_layer_materialises_like_torch(make, tmake, shape):
    m, tm = make(), tmake()
    assert repr(m) == repr(tm)
    assert m.has_uninitialized_params() and tm.has_uninitialized_params()
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

"""bfloat16: storage in ml_dtypes' numpy type, arithmetic through the float32 kernels with
one rounding per op (as torch's cpu kernels), promotion, autograd, autocast's cpu default,
and agreement with torch."""
import os

import numpy as np
import pytest

import minflow

BF16 = minflow.bfloat16
RTOL = 2.0 ** -7        # a couple of bfloat16 ulps


def _values(shape, seed=0, positive=False):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(np.float32)
    return np.abs(x) + 0.1 if positive else x


def test_rounding_to_nearest_even_and_the_dtype_facts():
    x = minflow.tensor([1.0, 1.00390625, 1.01171875, 3.14159, 1e-40, 3.5e38])
    assert x.bfloat16().float().tolist()[:4] == [1.0, 1.0, 1.015625, 3.140625]
    assert BF16.itemsize == 2 and BF16.is_floating_point and BF16.is_signed
    info = minflow.finfo(BF16)
    assert (info.eps, info.bits, info.resolution) == (2.0 ** -7, 16, 0.01)
    assert minflow.tensor([0.1], dtype=BF16).dtype is BF16
    assert minflow.zeros(2, dtype="bfloat16").dtype is BF16


@pytest.mark.parametrize("a, b, expected", [
    (minflow.bfloat16, minflow.float16, minflow.float32),
    (minflow.bfloat16, minflow.float32, minflow.float32),
    (minflow.bfloat16, minflow.int64, minflow.bfloat16),
    (minflow.bfloat16, minflow.bool, minflow.bfloat16),
    (minflow.bfloat16, minflow.float64, minflow.float64),
])
def test_promotion_as_torch(a, b, expected):
    assert minflow.promote_types(a, b) is expected
    x, y = minflow.ones(2, dtype=a), minflow.ones(2, dtype=b)
    assert (x + y).dtype is expected
    assert (minflow.ones(2, dtype=BF16) * 2.5).dtype is BF16


def test_views_share_memory_and_in_place_ops_write_through():
    x = minflow.arange(6.0).bfloat16()
    v = x.view(2, 3)[1]
    v.add_(1.0)
    assert x.float().tolist() == [0.0, 1.0, 2.0, 4.0, 5.0, 6.0]
    assert x.reshape(3, 2).t().dtype is BF16


def test_conversions_and_checkpoints(tmp_path):
    x = minflow.tensor([1.5, -2.25]).bfloat16()
    with pytest.raises(TypeError, match="unsupported ScalarType BFloat16"):
        x.numpy()
    assert x.tolist() == [1.5, -2.25] and x[0].item() == 1.5
    assert repr(x) == "tensor([ 1.5000, -2.2500], dtype=minflow.bfloat16)"
    path = os.path.join(tmp_path, "x.mf")
    minflow.save({"x": x}, path)
    y = minflow.load(path)["x"]
    assert y.dtype is BF16 and y.tolist() == [1.5, -2.25]
    model = minflow.nn.Linear(3, 2).bfloat16()
    assert model.weight.dtype is BF16 and model(minflow.ones(4, 3, dtype=BF16)).dtype is BF16


def test_cuda_refuses_bfloat16_clearly():
    if not minflow.cuda.is_available():
        pytest.skip("needs a GPU")
    with pytest.raises(TypeError, match="bfloat16 tensors are cpu only"):
        minflow.ones(2, dtype=BF16, device="cuda")


# ---- against torch ---------------------------------------------------------------------



def _torch():
    return pytest.importorskip("torch")


def _pair(torch, array):
    return minflow.tensor(array).bfloat16(), torch.tensor(array).bfloat16()


def _same(ours, theirs, rtol=RTOL, atol=0.0):
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(ours.float().detach().numpy(),
                               theirs.float().detach().numpy(), rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", ["exp", "tanh", "sigmoid", "relu", "neg", "abs", "square",
                                  "sin", "floor"])
def test_unary_ops_match_torch(name):
    torch = _torch()
    ours, theirs = _pair(torch, _values((64,)))
    _same(getattr(ours, name)(), getattr(theirs, name)())


@pytest.mark.parametrize("name", ["log", "sqrt", "rsqrt", "reciprocal"])
def test_positive_domain_ops_match_torch(name):
    torch = _torch()
    ours, theirs = _pair(torch, _values((64,), positive=True))
    _same(getattr(ours, name)(), getattr(theirs, name)())


def test_binary_ops_reductions_and_products_match_torch():
    torch = _torch()
    (a, ta), (b, tb) = _pair(torch, _values((8, 16))), _pair(torch, _values((8, 16), 1))
    for op in ("add", "sub", "mul", "div", "maximum"):
        _same(getattr(a, op)(b), getattr(ta, op)(tb))
    big, tbig = _pair(torch, _values((4096,), 2))
    _same(big.sum(), tbig.sum(), rtol=2 ** -6)       # accumulated in float32, rounded once
    _same(big.mean(), tbig.mean(), rtol=2 ** -6, atol=1e-3)
    _same(a.softmax(-1), ta.softmax(-1), atol=1e-3)
    _same(a @ b.T, ta @ tb.T, rtol=2 ** -6, atol=2e-2)
    w, tw = _pair(torch, _values((4, 3, 3, 3), 3))
    img, timg = _pair(torch, _values((2, 3, 8, 8), 4))
    _same(minflow.nn.functional.conv2d(img, w), torch.nn.functional.conv2d(timg, tw),
          rtol=2 ** -6, atol=5e-2)


def test_a_bfloat16_mlp_trains_like_torch():
    torch = _torch()
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((32, 8)).astype(np.float32), rng.integers(0, 3, 32)
    weights = [rng.standard_normal(s).astype(np.float32) * 0.3 for s in
               ((16, 8), (16,), (3, 16), (3,))]
    losses = {}
    for lib in (torch, minflow):
        model = lib.nn.Sequential(lib.nn.Linear(8, 16), lib.nn.Tanh(), lib.nn.Linear(16, 3))
        with lib.no_grad():
            for p, w in zip(model.parameters(), weights):
                p.copy_(lib.tensor(w))
        model = model.bfloat16()
        opt = lib.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
        inputs, target = lib.tensor(x).bfloat16(), lib.tensor(y)
        run = []
        for _ in range(15):
            loss = lib.nn.functional.cross_entropy(model(inputs), target)
            opt.zero_grad()
            loss.backward()
            opt.step()
            run.append(float(loss.float()))
        assert all(p.grad.dtype is p.dtype for p in model.parameters())
        losses[lib.__name__] = run
    assert losses["minflow"][-1] < 0.7 * losses["minflow"][0]
    np.testing.assert_allclose(losses["minflow"], losses["torch"], rtol=3e-2)


def test_cpu_autocast_defaults_to_bfloat16_as_torch():
    torch = _torch()
    arrays = [_values((4, 8)), _values((5, 8), 1)]
    for lib in (torch, minflow):
        x, w = (lib.tensor(a) for a in arrays)
        with lib.autocast("cpu"):
            assert lib.get_autocast_dtype("cpu") is lib.bfloat16
            out = lib.nn.functional.linear(x, w)
            reduced = out.prod()
        assert out.dtype is lib.bfloat16 and reduced.dtype is lib.float32
        if lib is torch:
            expected = out
    _same(out, expected, rtol=2 ** -6, atol=2e-2)


def test_graph_mode_refuses_bfloat16_clearly():
    model = minflow.nn.Linear(3, 2).bfloat16()

    class Net(minflow.nn.Graph):
        def __init__(self):
            super().__init__()
            self.model = model

        def build(self, x):
            return self.model(x)

    with pytest.raises(TypeError, match="bfloat16 runs in eager mode only"):
        Net()(minflow.ones(4, 3, dtype=BF16))

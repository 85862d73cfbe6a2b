"""minflow.amp: autocast's casting lists and GradScaler, against torch.amp on cpu."""
import warnings

import numpy as np
import pytest

import minflow
from minflow import nn

F16 = dict(device_type="cpu", dtype=minflow.float16)


def _functions(lib):
    """name -> f(x) for a 4 x 4 float x, written once for both libraries."""
    F = lib.nn.functional
    target = lib.tensor([0, 1, 2, 3])
    return {
        "mm": lambda x: lib.mm(x, x), "matmul": lambda x: x @ x, "bmm": lambda x: lib.bmm(x[None], x[None]),
        "addmm": lambda x: lib.addmm(x, x, x), "baddbmm": lambda x: lib.baddbmm(x[None], x[None], x[None]),
        "linear": lambda x: F.linear(x, x, x[0]), "mv": lambda x: lib.mv(x, x[0]),
        "dot": lambda x: lib.dot(x[0], x[1]), "addmv": lambda x: lib.addmv(x[0], x, x[1]),
        "outer": lambda x: lib.outer(x[0], x[1]), "tensordot": lambda x: lib.tensordot(x, x, 1),
        "einsum": lambda x: lib.einsum("ij,jk->ik", x, x),
        "conv2d": lambda x: F.conv2d(x[None, None], x[None, None, :3, :3]),
        "conv1d": lambda x: F.conv1d(x[None], x[:2, :, None]),
        "conv_transpose2d": lambda x: F.conv_transpose2d(x[None, None], x[None, None, :3, :3]),
        "sdpa": lambda x: F.scaled_dot_product_attention(x[None], x[None], x[None]),
        "softmax": lambda x: F.softmax(x, 1), "log_softmax": lambda x: F.log_softmax(x, 1),
        "exp": lib.exp, "sum": lib.sum, "prod": lib.prod, "cumsum": lambda x: lib.cumsum(x, 0),
        "pow": lambda x: x ** 2, "relu": F.relu, "add": lambda x: x + x,
        "layer_norm": lambda x: F.layer_norm(x, (4,)), "group_norm": lambda x: F.group_norm(x[None], 2),
        "batch_norm": lambda x: F.batch_norm(x, None, None, training=True),
        "cross_entropy": lambda x: F.cross_entropy(x, target),
        "nll_loss": lambda x: F.nll_loss(x, target), "mse_loss": lambda x: F.mse_loss(x, x * 2),
        "l1_loss": lambda x: F.l1_loss(x, x * 2), "smooth_l1_loss": lambda x: F.smooth_l1_loss(x, x * 2),
        "kl_div": lambda x: F.kl_div(x, x.abs(), reduction="batchmean"),
        "bce_with_logits": lambda x: F.binary_cross_entropy_with_logits(x, x.sigmoid()),
        "bce": lambda x: F.binary_cross_entropy(x.sigmoid(), x.sigmoid()),
        "cdist": lambda x: lib.cdist(x, x), "cat": lambda x: lib.cat([x, x.float()]),
        "inverse": lambda x: lib.inverse(x + 4 * lib.eye(4, dtype=x.dtype)),
        "gelu": F.gelu, "max_pool2d": lambda x: F.max_pool2d(x[None, None], 2),
    }


@pytest.mark.parametrize("name", sorted(_functions(minflow)))
def test_result_dtypes_as_torch(name):
    torch = pytest.importorskip("torch")
    base = np.random.default_rng(0).standard_normal((4, 4)).astype(np.float32)
    for dtype in ("float32", "float16", "float64"):
        with torch.autocast("cpu", dtype=torch.float16):
            expected = _functions(torch)[name](torch.tensor(base.astype(dtype)))
        with minflow.autocast(**F16):
            got = _functions(minflow)[name](minflow.tensor(base.astype(dtype)))
        assert got.dtype.name == str(expected.dtype)[6:], (name, dtype)
        np.testing.assert_allclose(got.detach().numpy().astype(np.float64),
                                   expected.detach().numpy().astype(np.float64),
                                   rtol=2e-2, atol=2e-2)


def _mlp(lib, weights):
    model = lib.nn.Sequential(lib.nn.Linear(6, 8), lib.nn.ReLU(), lib.nn.Linear(8, 3))
    with lib.no_grad():
        for p, w in zip(model.parameters(), weights):
            p.copy_(lib.tensor(w))
    return model


def _weights():
    rng = np.random.default_rng(1)
    return [rng.standard_normal(s).astype(np.float32) * 0.5
            for s in ((8, 6), (8,), (3, 8), (3,))]


def test_training_step_under_autocast_as_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal((5, 6)).astype(np.float32), np.array([0, 1, 2, 1, 0])
    results = {}
    for lib in (torch, minflow):
        model = _mlp(lib, _weights())
        with lib.autocast("cpu", dtype=lib.float16):
            out = model(lib.tensor(x))
            loss = lib.nn.functional.cross_entropy(out, lib.tensor(y))
        loss.backward()
        results[lib] = (out, loss, [p.grad for p in model.parameters()])
    (t_out, t_loss, t_grads), (m_out, m_loss, m_grads) = results[torch], results[minflow]
    assert m_out.dtype is minflow.float16 and m_loss.dtype is minflow.float32
    np.testing.assert_allclose(m_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-2,
                               atol=1e-2)
    assert m_loss.item() == pytest.approx(t_loss.item(), rel=1e-3)
    for g, e in zip(m_grads, t_grads):
        assert g.dtype is minflow.float32            # back through the casts to the weights
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=2e-2, atol=2e-3)


def test_backward_runs_without_autocast():
    w = minflow.ones(3, 3, requires_grad=True)
    with minflow.autocast(**F16):
        out = (w @ w).float().sum()
        grad_inside, = minflow.autograd.grad(out, w, retain_graph=True)
    grad_outside, = minflow.autograd.grad(out, w)
    assert grad_inside.dtype is grad_outside.dtype is minflow.float32
    assert minflow.equal(grad_inside, grad_outside)


def test_regions_nest_and_restore():
    a = minflow.ones(2, 2)
    assert not minflow.is_autocast_enabled("cpu")
    with minflow.autocast(**F16):
        assert minflow.is_autocast_enabled("cpu") and not minflow.is_autocast_enabled()
        assert minflow.get_autocast_dtype("cpu") is minflow.float16
        with minflow.autocast("cpu", enabled=False):
            assert (a @ a).dtype is minflow.float32
        assert (a @ a).dtype is minflow.float16
    assert (a @ a).dtype is minflow.float32

    @minflow.autocast(**F16)
    def product(x):
        return x @ x
    assert product(a).dtype is minflow.float16 and (a @ a).dtype is minflow.float32


def test_autocast_in_a_graph_equals_eager():
    weights = _weights()
    x, y = minflow.randn(5, 6), minflow.tensor([0, 1, 2, 1, 0])

    class Step(nn.Graph):
        def __init__(self, model):
            super().__init__()
            self.model = model

        def build(self, x, y):
            with minflow.autocast(**F16):
                return nn.functional.cross_entropy(self.model(x), y)

    with minflow.autocast(**F16):
        eager = nn.functional.cross_entropy(_mlp(minflow, weights)(x), y)
    assert Step(_mlp(minflow, weights))(x, y).item() == eager.item()


def test_autocast_errors_and_warnings():
    with pytest.raises(RuntimeError, match="unsupported autocast device_type 'tpu'"):
        minflow.autocast("tpu")
    with pytest.raises(ValueError, match="expected `device_type` of type `str`"):
        minflow.autocast(minflow.device("cpu"))
    assert minflow.autocast("cpu").fast_dtype is minflow.bfloat16      # cpu's default
    if not minflow.cuda.is_available():
        with pytest.warns(UserWarning):         # bfloat16 is cpu only in minflow
            minflow.autocast("cuda", dtype=minflow.bfloat16)
    with pytest.warns(UserWarning, match="target dtype is not supported. Disabling"):
        region = minflow.autocast("cpu", dtype=minflow.float32)
    with region:
        assert not minflow.is_autocast_enabled("cpu")
    if not minflow.cuda.is_available():
        with pytest.warns(UserWarning, match="CUDA is not available. Disabling autocast"):
            minflow.autocast("cuda")
        with pytest.warns(FutureWarning, match="minflow.cuda.amp.autocast"):
            minflow.cuda.amp.autocast(enabled=False)


# ---- GradScaler --------------------------------------------------------------------------
def _scaled_run(lib, steps, **options):
    """(scale, params) after each step of a tiny regression whose loss is scaled
    to overflow float32 at first, so the scaler backs off and then grows."""
    torch_like = lib
    w = torch_like.nn.Parameter(torch_like.tensor([1.0, -2.0]))
    opt = torch_like.optim.SGD([w], lr=0.01, momentum=0.9)
    scaler = torch_like.amp.GradScaler("cpu", **options)
    x = torch_like.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]])
    y = torch_like.tensor([1.0, 0.0, 2.0])
    history = []
    for _ in range(steps):
        opt.zero_grad()
        loss = ((x @ w - y) ** 2).mean()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        history.append((scaler.get_scale(), w.detach().numpy().copy()))
    return history, scaler.state_dict()


def test_grad_scaler_as_torch():
    torch = pytest.importorskip("torch")
    options = dict(init_scale=2.0 ** 126, growth_factor=4.0, backoff_factor=0.25,
                   growth_interval=3)
    expected, expected_state = _scaled_run(torch, 12, **options)
    got, state = _scaled_run(minflow, 12, **options)
    assert state == expected_state
    for (scale, w), (t_scale, t_w) in zip(got, expected):
        assert scale == t_scale
        np.testing.assert_allclose(w, t_w, rtol=1e-6)
    scales = [s for s, _ in got]
    changes = {np.sign(b - a) for a, b in zip(scales, scales[1:])}
    assert {-1.0, 1.0} <= changes                                # it backed off and grew
    skipped = [np.array_equal(a, b) for (_, a), (_, b) in zip(got, got[1:])]
    assert any(skipped) and not all(skipped)                     # overflowing steps skipped


def test_grad_scaler_protocol_errors():
    w = nn.Parameter(minflow.ones(2))
    opt = minflow.optim.SGD([w], lr=0.1)
    scaler = minflow.amp.GradScaler("cpu")
    with pytest.raises(RuntimeError, match="did not use scaler.scale"):
        scaler.step(opt)
    scaler.scale(w.sum()).backward()
    scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        scaler.unscale_(opt)
    scaler.step(opt)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) is being called after step"):
        scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
        scaler.step(opt, closure=lambda: None)
    scaler.update()
    half = nn.Parameter(minflow.ones(2, dtype=minflow.float16))
    half_opt = minflow.optim.SGD([half], lr=0.1)
    scaler.scale(half.sum()).backward()
    with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients"):
        scaler.unscale_(half_opt)
    with pytest.raises(ValueError, match="growth factor must be > 1.0"):
        minflow.amp.GradScaler("cpu", growth_factor=1.0)


def test_disabled_grad_scaler_passes_through():
    w = nn.Parameter(minflow.ones(2))
    opt = minflow.optim.SGD([w], lr=0.5)
    scaler = minflow.amp.GradScaler("cpu", enabled=False)
    loss = w.sum()
    assert scaler.scale(loss) is loss and scaler.get_scale() == 1.0
    loss.backward()
    scaler.step(opt)
    scaler.update()
    assert w.tolist() == [0.5, 0.5] and scaler.state_dict() == {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if not minflow.cuda.is_available():
            assert not minflow.amp.GradScaler().is_enabled()        # cuda without a GPU
    state = minflow.amp.GradScaler("cpu", init_scale=4.0).state_dict()
    restored = minflow.amp.GradScaler("cpu")
    restored.load_state_dict(state)
    assert restored.state_dict() == state
    with pytest.raises(RuntimeError, match="source state dict is empty"):
        restored.load_state_dict({})


def _square_function(**fwd_options):
    seen = []

    class Square(minflow.autograd.Function):
        @staticmethod
        @minflow.amp.custom_fwd(device_type="cpu", **fwd_options)
        def forward(ctx, x):
            seen.append(("forward", x.dtype, minflow.is_autocast_enabled("cpu")))
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @minflow.amp.custom_bwd(device_type="cpu")
        def backward(ctx, grad):
            seen.append(("backward", minflow.is_autocast_enabled("cpu")))
            (x,) = ctx.saved_tensors
            return 2 * x * grad
    return Square, seen


def test_custom_fwd_casts_inputs_and_custom_bwd_restores_autocast():
    square, seen = _square_function(cast_inputs=minflow.float32)
    x = minflow.ones(2, dtype=minflow.float16, requires_grad=True)
    with minflow.autocast("cpu", dtype=minflow.float16):
        y = square.apply(x)
    y.sum().backward()
    # cast_inputs: float32 inputs, forward and backward without autocast
    assert seen == [("forward", minflow.float32, False), ("backward", False)]
    assert y.dtype is minflow.float32 and x.grad.tolist() == [2.0, 2.0]
    square, seen = _square_function()
    with minflow.autocast("cpu", dtype=minflow.float16):
        y = square.apply(minflow.ones(2, requires_grad=True))
    y.sum().backward()
    # without cast_inputs: backward runs under the forward's autocast state
    assert seen == [("forward", minflow.float32, True), ("backward", True)]
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        minflow.amp.custom_fwd(device_type=None)

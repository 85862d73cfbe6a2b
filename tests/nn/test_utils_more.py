"""nn.utils against torch: the hook-based weight_norm / spectral_norm, conv/linear-BatchNorm
fusion, skip_init, get_total_norm / clip_grads_with_norm_ and functional_call."""
import warnings

import numpy as np
import pytest

import minflow
import minflow.nn as nn
from minflow.nn import utils
from _train_graph import TrainGraph

torch = pytest.importorskip("torch")


def to_mf(t):
    return minflow.tensor(t.detach().numpy())


def load_from_torch(module, torch_module):
    module.load_state_dict({k: to_mf(v) for k, v in torch_module.state_dict().items()})


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@pytest.mark.parametrize("dim", [0, 1, None])
def test_legacy_weight_norm_matches_torch(dim):
    tm, m = torch.nn.Linear(4, 3), nn.Linear(4, 3)
    load_from_torch(m, tm)
    quiet(torch.nn.utils.weight_norm, tm, dim=dim)
    with pytest.warns(FutureWarning, match="parametrizations.weight_norm"):
        utils.weight_norm(m, dim=dim)
    assert list(m.state_dict()) == list(tm.state_dict()) == ["bias", "weight_g", "weight_v"]
    x = np.random.RandomState(0).randn(5, 4).astype(np.float32)
    out, tout = m(minflow.tensor(x)), tm(torch.tensor(x))
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), 1e-5, 1e-6)
    out.square().sum().backward()
    tout.square().sum().backward()
    for name in ("weight_g", "weight_v", "bias"):
        np.testing.assert_allclose(getattr(m, name).grad.numpy(),
                                   getattr(tm, name).grad.numpy(), 1e-4, 1e-5, err_msg=name)
    with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks"):
        quiet(utils.weight_norm, m, dim=dim)
    utils.remove_weight_norm(m)
    torch.nn.utils.remove_weight_norm(tm)
    assert list(m.state_dict()) == list(tm.state_dict())
    np.testing.assert_allclose(m.weight.detach().numpy(), tm.weight.detach().numpy(), 1e-5)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found"):
        utils.remove_weight_norm(m)


def test_legacy_spectral_norm_matches_torch():
    tm, m = torch.nn.Conv2d(2, 3, 2), nn.Conv2d(2, 3, 2)
    load_from_torch(m, tm)
    torch.nn.utils.spectral_norm(tm)
    utils.spectral_norm(m)
    assert list(m.state_dict()) == list(tm.state_dict())
    load_from_torch(m, tm)           # same u, v
    x = np.random.RandomState(1).randn(2, 2, 4, 4).astype(np.float32)
    for mode in ("train", "eval", "train"):
        getattr(m, mode)(), getattr(tm, mode)()
        out, tout = m(minflow.tensor(x)), tm(torch.tensor(x))
        np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), 1e-5, 1e-5)
    out.sum().backward()
    tout.sum().backward()
    np.testing.assert_allclose(m.weight_orig.grad.numpy(), tm.weight_orig.grad.numpy(),
                               1e-4, 1e-5)
    utils.remove_spectral_norm(m)
    torch.nn.utils.remove_spectral_norm(tm)
    assert list(m.state_dict()) == list(tm.state_dict())
    np.testing.assert_allclose(m.weight.detach().numpy(), tm.weight.detach().numpy(), 1e-5)
    with pytest.raises(ValueError, match="spectral_norm of 'weight' not found"):
        utils.remove_spectral_norm(m)


def _trained_bn(bn, tbn, channels, shape):
    rs = np.random.RandomState(2)
    bn.weight.data = minflow.tensor(rs.rand(channels).astype(np.float32) + 0.5)
    bn.bias.data = minflow.tensor(rs.randn(channels).astype(np.float32))
    bn.running_mean.copy_(minflow.tensor(rs.randn(channels).astype(np.float32)))
    bn.running_var.copy_(minflow.tensor(rs.rand(channels).astype(np.float32) + 0.1))
    tbn.load_state_dict({k: torch.tensor(v.numpy()) for k, v in bn.state_dict().items()})
    return bn.eval(), tbn.eval()


@pytest.mark.parametrize("transpose", [False, True])
def test_fuse_conv_bn_matches_torch(transpose):
    if transpose:
        tconv, conv = torch.nn.ConvTranspose2d(3, 4, 2), nn.ConvTranspose2d(3, 4, 2)
    else:
        tconv, conv = torch.nn.Conv2d(3, 4, 2, bias=False), nn.Conv2d(3, 4, 2, bias=False)
    load_from_torch(conv, tconv)
    bn, tbn = _trained_bn(nn.BatchNorm2d(4), torch.nn.BatchNorm2d(4), 4, None)
    fused = utils.fuse_conv_bn_eval(conv.eval(), bn, transpose=transpose)
    tfused = torch.nn.utils.fuse_conv_bn_eval(tconv.eval(), tbn, transpose=transpose)
    for k, v in tfused.state_dict().items():
        np.testing.assert_allclose(fused.state_dict()[k].numpy(), v.numpy(), 1e-5, 1e-6)
    x = minflow.randn(2, 3, 5, 5)
    np.testing.assert_allclose(fused(x).detach().numpy(), bn(conv(x)).detach().numpy(),
                               1e-4, 1e-5)
    assert isinstance(fused.weight, nn.Parameter) and fused is not conv
    with pytest.raises(AssertionError, match="Fusion only for eval"):
        utils.fuse_conv_bn_eval(conv.train(), bn)


def test_fuse_linear_bn_matches_torch():
    tlin, lin = torch.nn.Linear(3, 4), nn.Linear(3, 4)
    load_from_torch(lin, tlin)
    bn, tbn = _trained_bn(nn.BatchNorm1d(4), torch.nn.BatchNorm1d(4), 4, None)
    fused = utils.fuse_linear_bn_eval(lin.eval(), bn)
    tfused = torch.nn.utils.fuse_linear_bn_eval(tlin.eval(), tbn)
    for k, v in tfused.state_dict().items():
        np.testing.assert_allclose(fused.state_dict()[k].numpy(), v.numpy(), 1e-5, 1e-6)
    with pytest.raises(AssertionError, match="linear.out_features == bn.num_features"):
        utils.fuse_linear_bn_eval(nn.Linear(3, 5).eval(), bn)


def test_skip_init():
    m = utils.skip_init(nn.Linear, 4, 3, bias=False, dtype=minflow.float64)
    assert m.weight.device.type == "cpu" and m.weight.dtype == minflow.float64
    assert tuple(m.weight.shape) == (3, 4) and m.bias is None
    with pytest.raises(RuntimeError, match="Expected a Module"):
        utils.skip_init(int)


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf"), -float("inf")])
def test_get_total_norm_and_clip_grads_with_norm_match_torch(norm_type):
    rs = np.random.RandomState(3)
    grads = [rs.randn(3, 2), rs.randn(4)]
    total = utils.get_total_norm([minflow.tensor(g) for g in grads], norm_type)
    ttotal = torch.nn.utils.get_total_norm([torch.tensor(g) for g in grads], norm_type)
    np.testing.assert_allclose(total.item(), ttotal.item(), 1e-12)
    ps = [nn.Parameter(minflow.zeros(*g.shape, dtype=minflow.float64)) for g in grads]
    tps = [torch.nn.Parameter(torch.zeros(*g.shape, dtype=torch.float64)) for g in grads]
    for p, tp, g in zip(ps, tps, grads):
        p.grad, tp.grad = minflow.tensor(g), torch.tensor(g)
    utils.clip_grads_with_norm_(ps, 0.5, total)
    torch.nn.utils.clip_grads_with_norm_(tps, 0.5, ttotal)
    for p, tp in zip(ps, tps):
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), 1e-12)


class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(2, 2)
        self.b = nn.Linear(2, 2)
        self.b.weight = self.a.weight

    def forward(self, x):
        return self.b(self.a(x))


def test_functional_call_swaps_for_one_call_and_gives_grads():
    m = nn.Linear(2, 1)
    w = minflow.tensor([[2.0, -1.0]], requires_grad=True)
    out = utils.stateless.functional_call(m, {"weight": w}, minflow.tensor([[1.0, 3.0]]))
    out.sum().backward()
    np.testing.assert_allclose(out.item(), -1.0 + m.bias.item(), 1e-6)
    assert w.grad.tolist() == [[1.0, 3.0]] and m.weight.grad is None
    assert isinstance(m.weight, nn.Parameter)
    assert minflow.func.functional_call is utils.stateless.functional_call


def test_functional_call_tied_weights_and_strict_match_torch():
    m = Tied()
    w = minflow.eye(2)
    out = utils.stateless.functional_call(m, {"a.weight": w}, (minflow.ones(1, 2),))
    expected = (minflow.ones(1, 2) + m.a.bias) + m.b.bias
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), 1e-6)
    with pytest.raises(ValueError, match="which are tied"):
        utils.stateless.functional_call(m, {"a.weight": w, "b.weight": 2 * w},
                                        (minflow.ones(1, 2),))
    with pytest.raises(RuntimeError, match="Missing key"):
        utils.stateless.functional_call(m, {"a.weight": w}, (minflow.ones(1, 2),),
                                        strict=True)
    with pytest.raises(ValueError, match="appeared in multiple dictionaries"):
        utils.stateless.functional_call(m, ({"a.bias": w[0]}, {"a.bias": w[1]}),
                                        (minflow.ones(1, 2),))


@pytest.mark.parametrize("apply", [utils.weight_norm, utils.spectral_norm])
def test_hook_based_norms_train_the_same_in_nn_graph(apply):
    minflow.manual_seed(0)
    eager, compiled = quiet(apply, nn.Linear(4, 3)), quiet(apply, nn.Linear(4, 3))
    compiled.load_state_dict(eager.state_dict())
    opt = minflow.optim.SGD(eager.parameters(), lr=0.1)
    graph = TrainGraph(compiled, minflow.optim.SGD(compiled.parameters(), lr=0.1))
    x, y = minflow.randn(8, 4), minflow.randn(8, 3)
    for _ in range(3):
        loss = (eager(x) - y).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        np.testing.assert_allclose(graph(x, y).item(), loss.item(), 1e-5)
    for key, value in eager.state_dict().items():
        np.testing.assert_allclose(compiled.state_dict()[key].numpy(), value.numpy(), 1e-5,
                                   1e-6, err_msg=key)


def test_functional_call_on_a_parametrized_module_matches_torch():
    tm, m = torch.nn.Linear(3, 2), nn.Linear(3, 2)
    load_from_torch(m, tm)
    torch.nn.utils.parametrizations.weight_norm(tm)
    utils.parametrizations.weight_norm(m)
    x = np.random.RandomState(4).randn(4, 3).astype(np.float32)
    w = np.random.RandomState(5).randn(2, 3).astype(np.float32)
    v = np.random.RandomState(6).randn(2, 3).astype(np.float32)
    for key, value in (("weight", w), ("parametrizations.weight.original1", v)):
        out = utils.stateless.functional_call(m, {key: minflow.tensor(value)},
                                              (minflow.tensor(x),))
        tout = torch.func.functional_call(tm, {key: torch.tensor(value)}, (torch.tensor(x),))
        np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), 1e-5, 1e-6,
                                   err_msg=key)
    np.testing.assert_allclose(m(minflow.tensor(x)).detach().numpy(),
                               tm(torch.tensor(x)).detach().numpy(), 1e-5, 1e-6)


def test_checkpoint_passes_keyword_arguments():
    from minflow.utils.checkpoint import checkpoint
    x = minflow.tensor([1.0, 2.0], requires_grad=True)
    y = checkpoint(lambda t, scale: (t * scale).exp().sum(), x, scale=0.5, use_reentrant=False)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 0.5 * np.exp(0.5 * np.array([1.0, 2.0])), 1e-6)

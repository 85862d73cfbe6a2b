"""RMSNorm, Fold/Unfold, the shuffle layers, Bilinear, LocalResponseNorm, LPPool1d/2d and
the newer losses against torch.nn: torch's weights copied in,
outputs, input and parameter grads compared; state_dict keys and shapes, repr and default
init."""
import numpy as np
import pytest

import minflow

torch = pytest.importorskip("torch")

from test_nn_torch_parity import Case, assert_close, build_torch, run, same_repr  # noqa: E402

rng = np.random.RandomState(11)
IMG = rng.randn(2, 4, 5, 6)

CASES = {
    "rmsnorm": Case(lambda L: L.nn.RMSNorm(6), [IMG]),
    "rmsnorm_2d_eps": Case(lambda L: L.nn.RMSNorm([5, 6], eps=1e-3), [IMG]),
    "rmsnorm_plain": Case(lambda L: L.nn.RMSNorm((6,), elementwise_affine=False), [IMG]),
    "unfold": Case(lambda L: L.nn.Unfold((2, 3), dilation=(1, 2), padding=1, stride=2), [IMG]),
    "fold": Case(lambda L: L.nn.Fold((4, 5), (2, 2), padding=(0, 1)), [rng.randn(2, 12, 18)]),
    "pixel_shuffle": Case(lambda L: L.nn.PixelShuffle(2), [IMG]),
    "pixel_unshuffle": Case(lambda L: L.nn.PixelUnshuffle(2), [rng.randn(2, 3, 4, 6)]),
    "channel_shuffle": Case(lambda L: L.nn.ChannelShuffle(2), [IMG]),
    "gaussian_nll": Case(lambda L: L.nn.GaussianNLLLoss(full=True, eps=0.1),
                         [IMG, IMG * 0.5, np.abs(IMG[..., :1])], grad_idx=(0, 1, 2)),
    "poisson_nll": Case(lambda L: L.nn.PoissonNLLLoss(reduction="sum"), [IMG, np.abs(IMG)]),
    "poisson_nll_rates": Case(lambda L: L.nn.PoissonNLLLoss(False, eps=1e-3),
                              [np.abs(IMG), np.round(np.abs(IMG))], grad_idx=(0, 1)),
    "multi_margin": Case(lambda L: L.nn.MultiMarginLoss(p=2, margin=0.5), [
        IMG[:, 0, 0], np.array([5, 0])]),
    "multi_margin_weight": Case(lambda L: L.nn.MultiMarginLoss(
        weight=L.tensor(np.arange(1.0, 7.0)), reduction="none"), [IMG[:, 0, 0], np.array([1, 2])]),
    "bilinear": Case(lambda L: L.nn.Bilinear(6, 5, 3), [IMG, IMG[..., :5]], grad_idx=(0, 1)),
    "bilinear_no_bias": Case(lambda L: L.nn.Bilinear(6, 6, 2, bias=False), [IMG, IMG * 2],
                             grad_idx=(0, 1)),
    "local_response_norm": Case(lambda L: L.nn.LocalResponseNorm(3, 0.1, 0.6, 1.5), [IMG]),
    "lp_pool1d": Case(lambda L: L.nn.LPPool1d(2, 3, stride=2), [IMG[:, :, 0]]),
    "lp_pool2d": Case(lambda L: L.nn.LPPool2d(1.5, (2, 2)), [np.abs(IMG)]),
    "triplet_with_distance": Case(lambda L: L.nn.TripletMarginWithDistanceLoss(swap=True),
                                  [IMG[:, 0], IMG[:, 1], IMG[:, 2]], grad_idx=(0, 1, 2)),
    "dropout1d_eval": Case(lambda L: L.nn.Dropout1d(0.3), [IMG[:, :, 0]], train=False),
    "alpha_dropout_eval": Case(lambda L: L.nn.AlphaDropout(0.3), [IMG], train=False),
    "multilabel_margin": Case(lambda L: L.nn.MultiLabelMarginLoss(), [
        IMG[:, 0, 0], np.array([[5, 1, -1, 0, 0, 0], [2, 3, 4, -1, 5, 5]])]),
}


@pytest.mark.parametrize("name", CASES)
def test_layer_matches_torch(name):
    case = CASES[name]
    torch_mod = build_torch(case.build).double()
    with torch.no_grad():                  # weights other than the init's ones
        for p in torch_mod.parameters():
            p.copy_(torch.tensor(rng.randn(*p.shape)))
    state = {k: v.detach().numpy().copy() for k, v in torch_mod.state_dict().items()}
    ours = run(minflow, case, state)

    def build_again(L):
        return torch_mod if L is torch else case.build(L)
    theirs = run(torch, Case(build_again, case.inputs, case.kwargs, case.train,
                             case.grad_idx, case.warmup, case.same_input))
    assert_close(ours, theirs, 1e-10, name)


@pytest.mark.parametrize("name", CASES)
def test_state_dict_repr_and_init_match_torch(name):
    build = CASES[name].build
    ours, theirs = build(minflow), build_torch(build)
    assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in theirs.state_dict().items()]
    same_repr(repr(ours), repr(theirs))
    for (key, mine), other in zip(ours.state_dict().items(), theirs.state_dict().values()):
        if name.startswith("bilinear"):      # random init: the same bounds
            bound = 1 / np.sqrt(ours.in1_features)
            assert np.abs(mine.numpy()).max() <= bound and np.abs(other.numpy()).max() <= bound
        else:
            np.testing.assert_array_equal(mine.numpy(), other.numpy(), err_msg=key)
        assert str(mine.dtype).split(".")[-1] == str(other.dtype).split(".")[-1]


def test_rmsnorm_factory_kwargs_and_reset():
    norm = minflow.nn.RMSNorm(3, dtype=minflow.float64)
    assert norm.weight.dtype is minflow.float64 and norm.weight.requires_grad
    with minflow.no_grad():
        norm.weight.mul_(3.0)
    norm.reset_parameters()
    assert norm.weight.tolist() == [1.0, 1.0, 1.0]
    assert not hasattr(minflow.nn.RMSNorm(3), "bias")


def test_bilinear_default_init_statistics_match_torch():
    """weight and bias ~ U(-k, k), k = 1/sqrt(in1_features): the bounds, and the moments
    of the 102400 weights (mean 0, std k / sqrt(3))."""
    ours, theirs = minflow.nn.Bilinear(64, 32, 50), torch.nn.Bilinear(64, 32, 50)
    k = 1 / np.sqrt(64)
    for layer in (ours, theirs):
        weight, bias = layer.weight.detach().numpy(), layer.bias.detach().numpy()
        assert np.abs(weight).max() <= k and np.abs(bias).max() <= k
        assert np.abs(weight).max() > 0.99 * k
        assert abs(weight.mean()) < 0.01 * k
        assert abs(weight.std() - k / np.sqrt(3)) < 0.01 * k


def test_nll_loss_2d_is_the_deprecated_nll_loss():
    x, t = rng.randn(2, 3, 4, 5), rng.randint(0, 3, (2, 4, 5))
    with pytest.warns(FutureWarning, match="NLLLoss2d` has been deprecated"):
        ours = minflow.nn.NLLLoss2d(reduction="sum")
    with pytest.warns(FutureWarning):
        theirs = torch.nn.NLLLoss2d(reduction="sum")
    assert isinstance(ours, minflow.nn.NLLLoss) and repr(ours) == repr(theirs)
    assert ours(minflow.tensor(x), minflow.tensor(t)).item() == pytest.approx(
        theirs(torch.tensor(x), torch.tensor(t)).item(), rel=1e-12)

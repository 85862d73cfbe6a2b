"""PyTorch parity of the newer minflow.nn layers (activations, distances, losses,
upsampling, GroupNorm, ConvTranspose2d, 1-D and adaptive max pools), on the harness of
test_nn_torch_parity.py: torch's weights copied in, outputs and all grads compared, plus
state_dict keys/shapes and repr. Recurrent layers: test_recurrent.py."""
import numpy as np
import pytest

import minflow

torch = pytest.importorskip("torch")

from test_nn_torch_parity import Case, assert_close, build_torch, run, same_repr  # noqa: E402

rng = np.random.RandomState(3)
X4, Y4 = rng.randn(4, 5) * 3, rng.randn(4, 5) * 3
IMG = rng.randn(2, 3, 5, 6)
SIGNS = np.sign(rng.randn(4, 5))
LOGP = np.log(np.exp(X4) / np.exp(X4).sum(1, keepdims=True))
PROBS = rng.rand(4, 5)

CASES = {
    "hardsigmoid": Case(lambda L: L.nn.Hardsigmoid(), [X4]),
    "hardswish": Case(lambda L: L.nn.Hardswish(), [X4]),
    "mish": Case(lambda L: L.nn.Mish(), [X4]),
    "logsigmoid": Case(lambda L: L.nn.LogSigmoid(), [X4]),
    "softsign": Case(lambda L: L.nn.Softsign(), [X4]),
    "cosine_similarity": Case(lambda L: L.nn.CosineSimilarity(dim=0), [X4, Y4],
                              grad_idx=(0, 1)),
    "pairwise_distance": Case(lambda L: L.nn.PairwiseDistance(p=3, keepdim=True), [X4, Y4],
                              grad_idx=(0, 1)),
    "smooth_l1": Case(lambda L: L.nn.SmoothL1Loss(beta=0.5), [X4, Y4], grad_idx=(0, 1)),
    "huber": Case(lambda L: L.nn.HuberLoss(reduction="sum", delta=2.0), [X4, Y4],
                  grad_idx=(0, 1)),
    "kl_div_batchmean": Case(lambda L: L.nn.KLDivLoss(reduction="batchmean"), [LOGP, PROBS],
                             grad_idx=(0, 1)),
    "kl_div_log_target": Case(lambda L: L.nn.KLDivLoss(reduction="none", log_target=True),
                              [LOGP, np.log(PROBS)], grad_idx=(0, 1)),
    "soft_margin": Case(lambda L: L.nn.SoftMarginLoss(), [X4, SIGNS]),
    "margin_ranking": Case(lambda L: L.nn.MarginRankingLoss(0.5), [X4, Y4, SIGNS],
                           grad_idx=(0, 1)),
    "upsample_nearest": Case(lambda L: L.nn.Upsample(scale_factor=2), [IMG]),
    "upsample_nearest_1d": Case(lambda L: L.nn.Upsample(size=11), [rng.randn(2, 3, 5)]),
    "upsample_bilinear": Case(lambda L: L.nn.Upsample(scale_factor=(1.5, 2.5),
                                                      mode="bilinear"), [IMG]),
    "upsample_bilinear_corners": Case(lambda L: L.nn.Upsample(size=(4, 9), mode="bilinear",
                                                              align_corners=True), [IMG]),
    "upsample_linear": Case(lambda L: L.nn.Upsample(scale_factor=3, mode="linear"),
                            [rng.randn(2, 3, 5)]),
    "upsampling_nearest2d": Case(lambda L: L.nn.UpsamplingNearest2d(size=(7, 4)), [IMG]),
    "upsampling_bilinear2d": Case(lambda L: L.nn.UpsamplingBilinear2d(scale_factor=2), [IMG]),
    "groupnorm": Case(lambda L: L.nn.GroupNorm(3, 6), [rng.randn(2, 6, 4, 3)]),
    "groupnorm_plain": Case(lambda L: L.nn.GroupNorm(2, 4, eps=1e-3, affine=False),
                            [rng.randn(3, 4, 5)]),
    "groupnorm_no_bias": Case(lambda L: L.nn.GroupNorm(1, 3, bias=False), [IMG]),
    "conv_transpose2d": Case(lambda L: L.nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1,
                                                            output_padding=1), [IMG]),
    "conv_transpose2d_groups": Case(lambda L: L.nn.ConvTranspose2d(
        4, 6, (3, 2), stride=(1, 2), groups=2, dilation=2, bias=False), [rng.randn(2, 4, 4, 5)]),
    "conv_transpose2d_output_size": Case(lambda L: L.nn.ConvTranspose2d(3, 2, 3, stride=2),
                                         [IMG], {"output_size": [12, 14]}),
    "conv_transpose2d_unbatched": Case(lambda L: L.nn.ConvTranspose2d(3, 2, 2, stride=2),
                                       [IMG[0]]),
    "maxpool1d": Case(lambda L: L.nn.MaxPool1d(3, stride=2, padding=1), [rng.randn(2, 3, 9)]),
    "avgpool1d": Case(lambda L: L.nn.AvgPool1d(3, 2, 1, count_include_pad=False),
                      [rng.randn(2, 3, 9)]),
    "adaptive_maxpool": Case(lambda L: L.nn.AdaptiveMaxPool2d((2, 4)), [IMG]),
    "adaptive_maxpool_even": Case(lambda L: L.nn.AdaptiveMaxPool2d((None, 3)), [IMG]),
}


@pytest.mark.parametrize("name", CASES)
def test_layer_matches_torch(name):
    case = CASES[name]
    torch_mod = build_torch(case.build).double()
    state = {k: v.detach().numpy().copy() for k, v in torch_mod.state_dict().items()}
    ours = run(minflow, case, state)

    def build_again(L):
        return torch_mod if L is torch else case.build(L)
    theirs = run(torch, Case(build_again, case.inputs, case.kwargs, case.train,
                             case.grad_idx, case.warmup, case.same_input))
    assert_close(ours, theirs, case.tol, name)


@pytest.mark.parametrize("name", CASES)
def test_state_dict_and_repr_match_torch(name):
    build = CASES[name].build
    ours, theirs = build(minflow), build_torch(build)
    assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in theirs.state_dict().items()]
    same_repr(repr(ours), repr(theirs))


def test_conv_transpose_default_init_matches_torch():
    # torch: weight and bias ~ U(-k, k), k = 1/sqrt(fan_in), fan_in = weight.size(1) * kH * kW
    for build, fan_in in ((lambda L: L.nn.ConvTranspose2d(64, 32, 3), 32 * 9),
                          (lambda L: L.nn.ConvTranspose2d(32, 64, 2, groups=4), 16 * 4)):
        ours, theirs = build(minflow), build(torch)
        assert tuple(ours.weight.shape) == tuple(theirs.weight.shape)
        bound = 1 / np.sqrt(fan_in)
        assert np.abs(theirs.weight.detach().numpy()).max() <= bound
        for p in (ours.weight, ours.bias):
            values = np.abs(p.detach().numpy())
            assert values.max() <= bound and values.max() > 0.8 * bound


def test_layer_errors():
    with pytest.raises(ValueError, match="num_channels \\(5\\) must be divisible by num_groups"):
        minflow.nn.GroupNorm(2, 5)
    with pytest.raises(ValueError, match="must be divisible by groups"):
        minflow.nn.ConvTranspose2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="requested an output size of \\[20, 20\\]"):
        minflow.nn.ConvTranspose2d(3, 2, 3, stride=2)(minflow.ones(1, 3, 5, 6),
                                                      output_size=(20, 20))
    with pytest.raises(ValueError, match="reduction must be one of"):
        minflow.nn.KLDivLoss(reduction="avg")

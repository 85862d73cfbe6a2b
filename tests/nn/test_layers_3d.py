"""The 3-D layers, the 3-D padding modules, Dropout3d, LPPool3d and MaxUnpool1d/2d/3d:
repr, state_dict keys and shapes, init and forward (with torch's weights loaded) against
PyTorch where it is installed; init bounds and errors without it."""
import math

import numpy as np
import pytest

import minflow
import minflow.nn as nn

RNG = np.random.default_rng(7)

# name: (args, kwargs, input shape)
LAYERS = {
    "Conv3d": ((4, 8, 3), {}, (2, 4, 5, 5, 5)),
    "Conv3d/same_reflect": ((4, 8, (3, 2, 1)), dict(padding="same", padding_mode="reflect",
                                                     groups=2, dilation=(1, 2, 1)),
                            (2, 4, 5, 6, 5)),
    "Conv3d/circular": ((4, 8, 3), dict(padding=1, padding_mode="circular", stride=2),
                        (2, 4, 5, 6, 5)),
    "Conv3d/replicate": ((4, 8, 3), dict(padding=(1, 0, 1), padding_mode="replicate",
                                         bias=False), (4, 5, 6, 5)),
    "ConvTranspose3d": ((4, 2, 3), dict(stride=2, padding=1, output_padding=1),
                        (2, 4, 3, 3, 3)),
    "ConvTranspose3d/groups": ((4, 6, (2, 3, 2)), dict(groups=2, dilation=(1, 1, 2)),
                               (4, 3, 3, 3)),
    "MaxPool3d": ((2,), {}, (2, 3, 4, 4, 4)),
    "MaxPool3d/options": (((2, 3, 2),), dict(stride=1, padding=(1, 1, 0), dilation=(1, 1, 2),
                                             ceil_mode=True), (3, 4, 5, 6)),
    "AvgPool3d": (((2, 1, 2),), dict(stride=1, padding=(1, 0, 1), ceil_mode=True,
                                     count_include_pad=False, divisor_override=3),
                  (2, 3, 4, 4, 4)),
    "AdaptiveAvgPool3d": (((2, None, 3),), {}, (2, 3, 4, 5, 7)),
    "AdaptiveMaxPool3d": (((2, None, 3),), {}, (2, 3, 4, 5, 7)),
    "BatchNorm3d": ((3,), {}, (2, 3, 4, 5, 7)),
    "BatchNorm3d/no_affine": ((3,), dict(affine=False, momentum=None), (2, 3, 2, 3, 2)),
    "InstanceNorm3d": ((3,), dict(affine=True, track_running_stats=True), (2, 3, 4, 5, 7)),
    "InstanceNorm3d/unbatched": ((3,), {}, (3, 4, 5, 7)),
    "LPPool3d": ((2, 2), {}, (2, 3, 4, 4, 4)),
    "ZeroPad3d": ((1,), {}, (2, 3, 4, 4, 4)),
    "ConstantPad3d": (((1, 2, 3, 4, 5, 6), 2.5), {}, (2, 3, 4, 4, 4)),
    "ReflectionPad3d": ((1,), {}, (2, 3, 4, 4, 4)),
    "ReplicationPad3d": (((1, 2, 0, 1, 2, 0),), {}, (3, 4, 4, 4)),
    "CircularPad3d": ((1,), {}, (2, 3, 4, 4, 4)),
    "Dropout3d": ((0.3,), {}, (2, 3, 4, 4, 4)),
}


@pytest.mark.parametrize("key", sorted(LAYERS))
def test_layer_matches_torch(key):
    torch = pytest.importorskip("torch")
    name = key.split("/")[0]
    args, kwargs, shape = LAYERS[key]
    theirs, ours = getattr(torch.nn, name)(*args, **kwargs), getattr(nn, name)(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    state = theirs.state_dict()
    assert list(ours.state_dict()) == list(state)
    assert [tuple(t.shape) for t in ours.state_dict().values()] == [
        tuple(t.shape) for t in state.values()]
    ours.load_state_dict({k: minflow.tensor(v.numpy()) for k, v in state.items()})
    if name == "Dropout3d":
        ours.eval(), theirs.eval()
    x = RNG.standard_normal(shape).astype(np.float32)
    np.testing.assert_allclose(ours(minflow.tensor(x)).detach().numpy(),
                               theirs(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-5)
    for buffer, value in theirs.state_dict().items():     # running statistics after a step
        np.testing.assert_allclose(ours.state_dict()[buffer].numpy(), value.numpy(),
                                   rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_max_unpool_modules_match_torch(dims):
    torch = pytest.importorskip("torch")
    shape = {1: (2, 3, 8), 2: (2, 3, 6, 5), 3: (2, 3, 4, 6, 5)}[dims]
    x = RNG.standard_normal(shape)
    pool = getattr(torch.nn, f"MaxPool{dims}d")(2, stride=2, return_indices=True)
    theirs = getattr(torch.nn, f"MaxUnpool{dims}d")(2, stride=2)
    ours = getattr(nn, f"MaxUnpool{dims}d")(2, stride=2)
    assert repr(ours) == repr(theirs)
    values, indices = pool(torch.tensor(x))
    expected = theirs(values, indices, output_size=shape)
    got = ours(minflow.tensor(values.numpy()), minflow.tensor(indices.numpy()),
               output_size=shape)
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_conv3d_init_bounds_follow_the_fan_in():
    conv = nn.Conv3d(4, 6, (3, 2, 2), groups=2)
    bound = 1 / math.sqrt(2 * 3 * 2 * 2)     # kaiming_uniform(a=sqrt(5)) of fan_in
    assert conv.weight.shape == (6, 2, 3, 2, 2)
    assert np.abs(conv.weight.detach().numpy()).max() <= bound
    assert np.abs(conv.bias.detach().numpy()).max() <= bound
    up = nn.ConvTranspose3d(4, 6, 2, groups=2)
    assert up.weight.shape == (4, 3, 2, 2, 2)
    assert np.abs(up.weight.detach().numpy()).max() <= 1 / math.sqrt(3 * 8)


def test_conv_transpose3d_output_size_argument():
    up = nn.ConvTranspose3d(2, 2, 3, stride=2)
    x = minflow.ones(1, 2, 3, 3, 3)
    assert up(x, output_size=(8, 7, 8)).shape == (1, 2, 8, 7, 8)
    with pytest.raises(ValueError, match="ConvTranspose3d: requested an output size"):
        up(x, output_size=(9, 7, 7))


def test_layers_train_in_a_graph():
    """A small 3-D network compiles in nn.Graph and its loss falls as in eager."""
    minflow.manual_seed(0)
    model = nn.Sequential(nn.Conv3d(1, 4, 3, padding=1), nn.BatchNorm3d(4), nn.ReLU(),
                          nn.MaxPool3d(2), nn.ConvTranspose3d(4, 2, 2, stride=2),
                          nn.AdaptiveAvgPool3d(1), nn.Flatten())
    optimizer = minflow.optim.SGD(model.parameters(), lr=0.1)

    class Step(nn.Graph):
        def __init__(self):
            super().__init__()
            self.model = model
            self.add_optimizer(optimizer)

        def build(self, x, y):
            loss = nn.functional.mse_loss(self.model(x), y)
            loss.backward()
            return loss

    x, y = minflow.randn(4, 1, 4, 4, 4), minflow.randn(4, 2)
    step = Step()
    losses = [float(step(x, y)) for _ in range(5)]
    assert losses[-1] < losses[0]

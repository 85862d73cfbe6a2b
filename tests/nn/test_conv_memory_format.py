"""nn.utils.convert_conv2d_weight_memory_format / convert_conv3d_weight_memory_format: the
same strides as torch's, values and outputs unchanged, other layers left alone."""
import numpy as np
import pytest

import minflow
import minflow.nn as nn


def _model(lib):
    return lib.nn.Sequential(lib.nn.Conv2d(3, 4, 2), lib.nn.Sequential(
        lib.nn.ConvTranspose2d(4, 2, 2), lib.nn.Conv3d(2, 2, 2)), lib.nn.Linear(2, 2))


@pytest.mark.parametrize("which", ["2d", "3d"])
def test_strides_as_torch(which):
    torch = pytest.importorskip("torch")
    ours, theirs = _model(minflow), _model(torch)
    convert, t_convert = (getattr(lib.nn.utils, f"convert_conv{which}_weight_memory_format")
                          for lib in (minflow, torch))
    fmt = "channels_last" if which == "2d" else "channels_last_3d"
    before = [p.detach().numpy().copy() for p in ours.parameters()]
    assert convert(ours, getattr(minflow, fmt)) is ours
    t_convert(theirs, getattr(torch, fmt))
    for p, tp, value in zip(ours.parameters(), theirs.parameters(), before):
        assert p.stride() == tp.stride()
        np.testing.assert_array_equal(p.detach().numpy(), value)
        assert isinstance(p, nn.Parameter) and p.requires_grad


def test_outputs_unchanged_and_training_works():
    minflow.manual_seed(0)
    conv = nn.Conv2d(3, 4, 3, padding=1)
    x = minflow.randn(2, 3, 5, 5)
    expected = conv(x).detach().numpy()
    nn.utils.convert_conv2d_weight_memory_format(conv, minflow.channels_last)
    np.testing.assert_allclose(conv(x).detach().numpy(), expected, rtol=1e-6, atol=1e-6)
    conv(x).sum().backward()
    assert conv.weight.grad.shape == conv.weight.shape

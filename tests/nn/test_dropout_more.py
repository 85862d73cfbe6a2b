"""Dropout1d, AlphaDropout and FeatureAlphaDropout: torch's structure (which elements or
channels share a draw), values (kept x maps to a * x + b, dropped to SELU's saturation
value mapped the same way), statistics (alpha dropout keeps zero mean and unit variance),
seeded reproducibility, gradients, eval mode and errors."""
import math

import numpy as np
import pytest

import minflow
import minflow.nn.functional as Fn

ALPHA = 1.7580993408473766


def _affine(p):
    a = 1 / math.sqrt((ALPHA ** 2 * p + 1) * (1 - p))
    return a, ALPHA * a * p


def test_dropout1d_drops_whole_channels_and_scales():
    minflow.manual_seed(0)
    x = minflow.ones(50, 8, 6, dtype=minflow.float64)
    out = Fn.dropout1d(x, 0.25).numpy()
    per_channel = out.reshape(50 * 8, 6)
    assert set(np.unique(per_channel)) <= {0.0, 1 / 0.75}
    assert (per_channel == per_channel[:, :1]).all()          # one draw per channel
    assert abs((per_channel[:, 0] == 0).mean() - 0.25) < 0.06
    unbatched = Fn.dropout1d(minflow.ones(40, 5, dtype=minflow.float64), 0.5).numpy()
    assert (unbatched == unbatched[:, :1]).all()


def test_alpha_dropout_values_and_statistics():
    p = 0.2
    minflow.manual_seed(1)
    x = minflow.randn(200000, dtype=minflow.float64)
    out = Fn.alpha_dropout(x, p, training=True).numpy()
    a, b = _affine(p)
    kept = np.isclose(out, a * x.numpy() + b)
    dropped = np.isclose(out, -ALPHA * a + b)
    assert (kept | dropped).all() and abs(dropped.mean() - p) < 0.01
    assert abs(out.mean()) < 0.01 and abs(out.std() - 1) < 0.01     # self-normalising


def test_feature_alpha_dropout_shares_a_draw_per_channel():
    minflow.manual_seed(2)
    x = minflow.zeros(30, 4, 3, 3, dtype=minflow.float64)
    out = Fn.feature_alpha_dropout(x, 0.5, training=True).numpy().reshape(120, 9)
    assert (out == out[:, :1]).all()
    a, b = _affine(0.5)
    assert set(np.round(np.unique(out), 12)) == set(np.round([b, -ALPHA * a + b], 12))


def test_seeded_reproducibility_and_grads():
    x = minflow.randn(6, 4, 5, requires_grad=True)
    for fn in (lambda t: Fn.dropout1d(t, 0.4), lambda t: Fn.alpha_dropout(t, 0.4, True),
               lambda t: Fn.feature_alpha_dropout(t, 0.4, True)):
        minflow.manual_seed(5)
        first = fn(x)
        minflow.manual_seed(5)
        second = fn(x)
        np.testing.assert_array_equal(first.detach().numpy(), second.detach().numpy())
        x.grad = None
        first.sum().backward()
        # the output is affine in x with slope mask * scale: the grad is that slope
        slope = first.detach().numpy() - fn_at_zero(fn, x)
        np.testing.assert_allclose(x.grad.numpy() * x.detach().numpy(), slope, atol=1e-6)


def fn_at_zero(fn, x):
    minflow.manual_seed(5)
    return fn(minflow.zeros_like(x)).detach().numpy()


def test_eval_mode_and_p_edge_cases():
    x = minflow.randn(3, 4, 5)
    for layer in (minflow.nn.Dropout1d(0.5), minflow.nn.AlphaDropout(0.5),
                  minflow.nn.FeatureAlphaDropout(0.5)):
        assert layer.eval()(x) is x
    assert Fn.alpha_dropout(x, 0.5) is x                   # training=False by default
    assert Fn.alpha_dropout(x, 0.0, training=True) is x
    assert Fn.alpha_dropout(x, 1.0, training=True).abs().sum().item() == 0.0
    y = x.clone()
    assert Fn.alpha_dropout(y, 0.3, training=True, inplace=True) is y


@pytest.mark.parametrize("call, error, match", [
    (lambda: Fn.dropout1d(minflow.ones(2, 3, 4, 5)), RuntimeError,
     "dropout1d: Expected 2D or 3D input, but received a 4D input"),
    (lambda: Fn.alpha_dropout(minflow.ones(3), 1.5), ValueError,
     "alpha_dropout: dropout probability has to be between 0 and 1, but got 1.5"),
    (lambda: minflow.nn.AlphaDropout(-0.1), ValueError,
     "AlphaDropout: dropout probability has to be between 0 and 1, but got -0.1"),
])
def test_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()

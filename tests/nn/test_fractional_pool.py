"""Fractional max pooling against torch: values, indices and gradients from the same random
samples, shapes from ratios, modules, and errors."""
import numpy as np
import pytest

import minflow
from minflow.nn import functional as F


@pytest.mark.parametrize("dims, shape, kernel, out, dtype", [
    (2, (2, 3, 11, 9), (3, 2), (5, 4), "float64"),
    (2, (3, 10, 10), 2, (6, 7), "float64"),
    (2, (1, 2, 7, 7), 3, 5, "float32"),
    (3, (2, 2, 7, 8, 9), (2, 3, 2), (4, 3, 5), "float64"),
    (3, (1, 6, 6, 6), 2, (4, 1, 3), "float32"),
])
def test_values_indices_and_grads_match_torch(dims, shape, kernel, out, dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(dtype)
    planes = (shape[0] if len(shape) == dims + 2 else 1, shape[-dims - 1])
    samples = rng.random(planes + (dims,)).astype(dtype)
    results = []
    for lib, fn in ((torch, getattr(torch.nn.functional, f"fractional_max_pool{dims}d")),
                    (minflow, getattr(F, f"fractional_max_pool{dims}d"))):
        t = lib.tensor(x, requires_grad=True)
        values, indices = fn(t, kernel, output_size=out, return_indices=True,
                             _random_samples=lib.tensor(samples))
        (values * values).sum().backward()
        results.append((values.detach().numpy(), indices.numpy(), t.grad.numpy()))
    (tv, ti, tg), (mv, mi, mg) = results
    np.testing.assert_array_equal(mv, tv)
    np.testing.assert_array_equal(mi, ti)
    np.testing.assert_allclose(mg, tg, rtol=1e-6)


def test_output_ratio_random_samples_and_modules():
    x = minflow.randn(2, 3, 12, 10)
    assert F.fractional_max_pool2d(x, 2, output_ratio=0.5).shape == (2, 3, 6, 5)
    values, indices = F.fractional_max_pool2d_with_indices(x, 2, output_size=(7, 4))
    gathered = x.reshape(2, 3, -1).gather(2, indices.reshape(2, 3, -1)).reshape(2, 3, 7, 4)
    assert minflow.equal(gathered, values)                  # indices point at the maxima
    samples = minflow.rand(2, 3, 2)
    pool = minflow.nn.FractionalMaxPool2d(3, output_size=5, _random_samples=samples)
    assert minflow.equal(pool(x), pool(x))                  # fixed samples: deterministic
    assert "_random_samples" in dict(pool.named_buffers())
    assert minflow.nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.5, 0.5))(
        minflow.randn(1, 2, 8, 8, 8)).shape == (1, 2, 4, 4, 4)


def test_errors_as_torch():
    x = minflow.randn(1, 1, 5, 5)
    with pytest.raises(ValueError, match="requires specifying either an output_size or an "
                                         "output_ratio"):
        F.fractional_max_pool2d(x, 2)
    with pytest.raises(ValueError, match="output_ratio must be between 0 and 1"):
        F.fractional_max_pool2d(x, 2, output_ratio=1.5)
    with pytest.raises(RuntimeError, match="pool height 3 too large relative to input height 5"):
        F.fractional_max_pool2d(x, 3, output_size=4)
    with pytest.raises(RuntimeError, match="pool time 2 too large relative to input time 6"):
        F.fractional_max_pool3d(minflow.randn(1, 6, 6, 6), 2, output_size=5)
    with pytest.raises(RuntimeError, match="expected a 3D or 4D input"):
        F.fractional_max_pool2d(minflow.randn(5, 5), 2, output_size=2)
    with pytest.raises(RuntimeError, match=r"_random_samples.size\(2\) to equal 2, got 3"):
        F.fractional_max_pool2d(x, 2, output_size=2, _random_samples=minflow.rand(1, 1, 3))
    with pytest.raises(RuntimeError, match="no less than the input batch size 1"):
        F.fractional_max_pool2d(x, 2, output_size=2, _random_samples=minflow.rand(0, 1, 2))
    with pytest.raises(ValueError, match="only one of output_size and output_ratio"):
        minflow.nn.FractionalMaxPool2d(2, output_size=2, output_ratio=0.5)

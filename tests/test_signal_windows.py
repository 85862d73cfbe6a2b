"""minflow.signal.windows against torch.signal.windows: values and dtypes for symmetric
and periodic windows of 0, 1, 2 and more points, and the errors."""
import itertools

import numpy as np
import pytest

import minflow

torch = pytest.importorskip("torch")

NAMES = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "hamming", "hann",
         "kaiser", "nuttall"]


@pytest.mark.parametrize("name", NAMES)
def test_windows_match_torch(name):
    for M, sym, dtype in itertools.product((0, 1, 2, 5, 8), (True, False),
                                           ("float32", "float64")):
        ours = getattr(minflow.signal.windows, name)(M, sym=sym, dtype=getattr(minflow, dtype))
        theirs = getattr(torch.signal.windows, name)(M, sym=sym, dtype=getattr(torch, dtype))
        assert ours.dtype.name == str(theirs.dtype)[6:] and ours.shape == tuple(theirs.shape)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("M, sym", itertools.product((1, 4, 7), (True, False)))
def test_parametrized_windows_match_torch(M, sym):
    for call in (lambda w: w.general_cosine(M, a=[0.5, 0.3, 0.2], sym=sym),
                 lambda w: w.general_hamming(M, alpha=0.6, sym=sym),
                 lambda w: w.exponential(M, tau=2.0, center=None if sym else 1.0, sym=sym),
                 lambda w: w.gaussian(M, std=0.7, sym=sym),
                 lambda w: w.kaiser(M, beta=3.0, sym=sym)):
        np.testing.assert_allclose(call(minflow.signal.windows).numpy(),
                                   call(torch.signal.windows).numpy(), rtol=1e-5, atol=1e-6)


def test_requires_grad():
    assert minflow.signal.windows.hann(4, requires_grad=True).requires_grad


@pytest.mark.parametrize("call, message", [
    (lambda w, lib: w.hann(-1), "non-negative"),
    (lambda w, lib: w.exponential(3, tau=0), "Tau must be positive"),
    (lambda w, lib: w.exponential(3, center=1.0), "Center must be None for symmetric"),
    (lambda w, lib: w.gaussian(3, std=0), "Standard deviation must be positive"),
    (lambda w, lib: w.hann(3, dtype=lib.int64), "float32 or float64"),
    (lambda w, lib: w.kaiser(3, beta=-1), "beta must be non-negative"),
])
def test_errors_as_torch(call, message):
    with pytest.raises(ValueError, match=message):
        call(minflow.signal.windows, minflow)
    with pytest.raises(ValueError, match=message):
        call(torch.signal.windows, torch)

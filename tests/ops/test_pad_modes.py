"""F.pad's reflect / replicate / circular modes: values against numpy.pad, gradients by
finite differences, errors as PyTorch raises them, and torch itself where installed."""
import numpy as np
import pytest

import minflow
import minflow.nn.functional as F

NP_MODE = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}
CASES = [((2, 5), (2, 1)), ((1, 2, 4, 5), (1, 2, 3, 0)), ((2, 3, 4, 4), (1, 1, 2, 2)),
         ((1, 2, 3, 4, 5), (1, 1, 2, 1, 0, 2)), ((3, 4, 4), (1, 1, 1, 1))]


def _np_widths(ndim, pad):
    widths = [(0, 0)] * ndim
    for i in range(len(pad) // 2):
        widths[ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    return widths


@pytest.mark.parametrize("mode", sorted(NP_MODE))
@pytest.mark.parametrize("shape,pad", CASES)
def test_matches_numpy_pad(mode, shape, pad):
    x = np.random.default_rng(0).standard_normal(shape)
    out = F.pad(minflow.tensor(x), pad, mode=mode).numpy()
    np.testing.assert_array_equal(out, np.pad(x, _np_widths(x.ndim, pad), NP_MODE[mode]))


@pytest.mark.parametrize("mode", sorted(NP_MODE))
def test_gradcheck(mode):
    x = minflow.tensor(np.random.default_rng(1).standard_normal((2, 3, 4)), requires_grad=True)
    assert minflow.autograd.gradcheck(lambda t: F.pad(t, (2, 1, -1, 2), mode=mode), (x,))


@pytest.mark.parametrize("mode", sorted(NP_MODE))
@pytest.mark.parametrize("pad", [(2, 1), (-1, 2), (2, -1), (3, 3), (1, 1, 1, 1)])
def test_matches_torch(mode, pad):
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(2).standard_normal((2, 3, 3))
    try:
        want = torch.nn.functional.pad(torch.tensor(x), pad, mode=mode).numpy()
    except RuntimeError:
        with pytest.raises(RuntimeError, match="pad"):
            F.pad(minflow.tensor(x), pad, mode=mode)
        return
    np.testing.assert_array_equal(F.pad(minflow.tensor(x), pad, mode=mode).numpy(), want)


@pytest.mark.parametrize("call,error,match", [
    (lambda x: F.pad(x, (3, 0), mode="reflect"), RuntimeError, r"should be at most 2 for its size 3"),
    (lambda x: F.pad(x, (4, 0), mode="circular"), RuntimeError, "should be at most 3"),
    (lambda x: F.pad(x, (1, 1), mode="reflect", value=1.0), RuntimeError, "value argument"),
    (lambda x: F.pad(x, (1, 1, 1, 1, 1, 1), mode="replicate"), NotImplementedError,
     "padding size 6 is not supported for 3D input"),
    (lambda x: F.pad(x, (1, 1), mode="symmetric"), NotImplementedError, "symmetric"),
])
def test_errors(call, error, match):
    with pytest.raises(error, match=match):
        call(minflow.ones(2, 3, 3))

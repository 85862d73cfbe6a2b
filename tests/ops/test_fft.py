"""minflow.fft against torch.fft: values, dtypes, gradients (rfft / irfft's one-sided
halving and doubling included) and errors, over n / s, dim and every norm; stft / istft."""
import warnings

import numpy as np
import pytest

import minflow
from minflow.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

NORMS = (None, "backward", "ortho", "forward")
ONE_D = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
N_D = ("fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2", "fftn", "ifftn", "rfftn",
       "irfftn", "hfftn", "ihfftn")
REAL_ONLY = ("rfft", "ihfft", "rfft2", "rfftn", "ihfft2", "ihfftn")


def _data(shape, kind, seed=0):
    rng = np.random.default_rng(seed)
    data = rng.standard_normal(shape)
    return data + 1j * rng.standard_normal(shape) if kind == "complex" else data


def _loss(out):
    if out.is_complex():
        return (out * out.conj()).real.sum() + out.abs().sum()
    return (out * out).sum() + out.sum()


def _run(lib, fn, data, grad=True):
    x = lib.tensor(data, requires_grad=grad)
    out = fn(lib, x)
    value = out.detach()
    value = value.resolve_conj().numpy() if lib is torch else value.numpy()
    if not grad:
        return str(out.dtype).split(".")[1], value, None
    (g,) = lib.autograd.grad(_loss(out), [x])
    return (str(out.dtype).split(".")[1], value,
            g.resolve_conj().numpy() if lib is torch else g.numpy())


def _agree(fn, data, grad=True):
    (dtype, value, g), (t_dtype, t_value, t_g) = (_run(lib, fn, data, grad)
                                                  for lib in (minflow, torch))
    assert dtype == t_dtype
    assert value.shape == t_value.shape
    tol = 1e-5 if dtype in ("float32", "complex64") else 1e-10      # single vs double
    np.testing.assert_allclose(value, t_value, rtol=tol, atol=tol)
    if grad:
        np.testing.assert_allclose(g, t_g, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("n, dim", [(None, -1), (3, -1), (8, 0)])
@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("kind, shape", [("complex", (4, 5)), ("real", (4, 6)),
                                         ("real", (3, 5))])
def test_one_dimensional_transforms(name, n, dim, norm, kind, shape):
    if name in REAL_ONLY and kind == "complex":
        pytest.skip("a real-input transform")
    _agree(lambda lib, x: getattr(lib.fft, name)(x, n=n, dim=dim, norm=norm),
           _data(shape, kind))


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("s", [None, (3, 4), (5, -1)])
@pytest.mark.parametrize("name", N_D)
@pytest.mark.parametrize("kind, shape", [("complex", (2, 4, 5)), ("real", (2, 4, 6))])
def test_multi_dimensional_transforms(name, s, norm, kind, shape):
    if name in REAL_ONLY and kind == "complex":
        pytest.skip("a real-input transform")
    _agree(lambda lib, x: getattr(lib.fft, name)(x, s=s, norm=norm), _data(shape, kind))


@pytest.mark.parametrize("norm", NORMS)
def test_transforms_over_chosen_dims(norm):
    _agree(lambda lib, x: lib.fft.fftn(x, dim=(0, 2), norm=norm), _data((2, 3, 4), "complex"))
    _agree(lambda lib, x: lib.fft.rfftn(x, s=(4, 3), dim=(2, 0), norm=norm),
           _data((2, 3, 4), "real"))
    _agree(lambda lib, x: lib.fft.irfftn(x, s=(4, 7), dim=(2, 0), norm=norm),
           _data((2, 3, 4), "complex"))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "complex64", "complex128"])
@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "ihfft", "hfft", "irfft", "fft2"])
def test_output_dtypes_as_torch(name, dtype):
    if name in REAL_ONLY and dtype.startswith("complex"):
        pytest.skip("a real-input transform")
    data = _data((3, 4), "complex" if dtype.startswith("complex") else "real").astype(dtype)
    _agree(lambda lib, x: getattr(lib.fft, name)(x), data, grad=False)


def test_float32_results_are_rounded_from_the_double_computation():
    x = _data((64,), "real").astype(np.float32)
    ours = minflow.fft.fft(minflow.tensor(x))
    theirs = torch.fft.fft(torch.tensor(x))
    assert ours.dtype is minflow.complex64
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "rfft2",
                                  "irfftn", "fftn", "hfft2", "ihfftn"])
def test_gradcheck_and_double_backward(name):
    kind = "real" if name in REAL_ONLY else "complex"
    x = minflow.tensor(_data((3, 4), kind, seed=1), requires_grad=True)

    def fn(t):
        return getattr(minflow.fft, name)(t, norm="ortho")

    assert gradcheck(fn, (x,)) and gradgradcheck(fn, (x,))


def test_frequencies_and_shifts():
    for fn in (lambda lib: lib.fft.fftfreq(7, 0.5), lambda lib: lib.fft.rfftfreq(7, 0.5),
               lambda lib: lib.fft.fftfreq(8, dtype=lib.float64),
               lambda lib: lib.fft.rfftfreq(6, dtype=lib.float64)):
        ours, theirs = fn(minflow), fn(torch)
        assert ours.dtype.name == str(theirs.dtype)[6:]
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-7)
    _agree(lambda lib, x: lib.fft.fftshift(x), _data((3, 4), "complex"))
    _agree(lambda lib, x: lib.fft.ifftshift(x, dim=1), _data((3, 5), "complex"))
    _agree(lambda lib, x: lib.fft.fftshift(x, dim=(0,)), _data((5, 2), "real"))


def test_out_argument():
    x = minflow.tensor(_data((4,), "complex"))
    out = minflow.empty(4, dtype=minflow.complex128)
    assert minflow.fft.fft(x, out=out) is out
    np.testing.assert_allclose(out.numpy(), np.fft.fft(x.numpy()))


@pytest.mark.parametrize("call, error, message", [
    (lambda lib: lib.fft.fft(lib.ones(4), n=0), RuntimeError,
     "Invalid number of data points \\(0\\) specified"),
    (lambda lib: lib.fft.fft(lib.ones(4), norm="bad"), RuntimeError,
     "Invalid normalization mode"),
    (lambda lib: lib.fft.rfft(lib.ones(4, dtype=lib.complex64)), RuntimeError,
     "expects a real input tensor"),
    (lambda lib: lib.fft.fft(lib.ones(4), dim=2), IndexError, "Dimension out of range"),
    (lambda lib: lib.fft.fftn(lib.ones(4, 4), s=(2,), dim=(0, 1)), RuntimeError,
     "dim and shape arguments must have the same length"),
    (lambda lib: lib.fft.irfft(lib.ones(1, dtype=lib.complex64)), RuntimeError,
     "Invalid number of data points \\(0\\) specified"),
    (lambda lib: lib.fft.fft(lib.ones(4, dtype=lib.float16)), RuntimeError,
     "Unsupported dtype"),
])
def test_errors_as_torch(call, error, message):
    with pytest.raises(error, match=message):
        call(minflow)
    with pytest.raises(Exception) as theirs:
        call(torch)
    assert isinstance(theirs.value, error) or issubclass(error, type(theirs.value))


# ---- stft / istft --------------------------------------------------------------------------

def _hann(lib, n):
    return lib.hann_window(n, dtype=lib.float64)


@pytest.mark.filterwarnings("ignore:.*window was not provided")
@pytest.mark.parametrize("center, pad_mode", [(True, "reflect"), (True, "constant"),
                                              (True, "replicate"), (True, "circular"),
                                              (False, "reflect")])
@pytest.mark.parametrize("normalized", [False, True])
@pytest.mark.parametrize("hop, win, window", [(None, None, None), (3, 6, "hann_window"),
                                              (5, 8, "hamming_window")])
@pytest.mark.parametrize("shape", [(40,), (3, 37)])
def test_stft_as_torch(center, pad_mode, normalized, hop, win, window, shape):
    def fn(lib, x):
        w = None if window is None else getattr(lib, window)(win or 8, dtype=lib.float64)
        return lib.stft(x, 8, hop_length=hop, win_length=win, window=w, center=center,
                        pad_mode=pad_mode, normalized=normalized, return_complex=True)
    _agree(fn, _data(shape, "real"))


@pytest.mark.parametrize("center", [True, False])
@pytest.mark.parametrize("normalized", [False, True])
@pytest.mark.parametrize("hop, win, length", [(None, None, None), (3, 6, None),
                                              (2, 8, 45), (2, 8, 30)])
def test_istft_inverts_stft_as_torch(center, normalized, hop, win, length):
    if not center and length is None and hop == 3:
        pytest.skip("the window's edge leaves a zero envelope: both raise (tested below)")

    def fn(lib, x):
        w = lib.hamming_window(win or 8, dtype=lib.float64)
        spectrum = lib.stft(x, 8, hop_length=hop, win_length=win, window=w, center=center,
                            normalized=normalized, return_complex=True)
        return lib.istft(spectrum, 8, hop_length=hop, win_length=win, window=w,
                         center=center, normalized=normalized, length=length)
    if length is not None and length > 40:
        with pytest.warns(UserWarning, match="padding it with zeros"):
            _run(minflow, fn, _data((3, 40), "real"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # torch's own padding warning
        _agree(fn, _data((3, 40), "real"))


def test_stft_of_complex_signals_and_two_sided_spectra():
    signal = _data((40,), "complex")
    _agree(lambda lib, x: lib.stft(x, 8, window=_hann(lib, 8), return_complex=True), signal)
    _agree(lambda lib, x: lib.stft(x, 8, window=_hann(lib, 8), onesided=False,
                                   return_complex=True), _data((40,), "real"))
    _agree(lambda lib, x: lib.istft(lib.stft(x, 8, window=_hann(lib, 8), return_complex=True),
                                    8, window=_hann(lib, 8), onesided=False,
                                    return_complex=True), signal)


def test_stft_return_complex_false_is_the_deprecated_real_view():
    x = minflow.tensor(_data((40,), "real"))
    with pytest.warns(UserWarning, match="return_complex=False is deprecated"):
        pairs = minflow.stft(x, 8, window=_hann(minflow, 8), return_complex=False)
    spectrum = minflow.stft(x, 8, window=_hann(minflow, 8), return_complex=True)
    assert pairs.shape == (5, 21, 2)
    np.testing.assert_array_equal(pairs.numpy(), minflow.view_as_real(spectrum).numpy())


@pytest.mark.filterwarnings("ignore:.*window was not provided")
@pytest.mark.parametrize("call, message", [
    (lambda lib, x: lib.stft(x, 8), "stft requires the return_complex parameter"),
    (lambda lib, x: lib.stft(x, 8, win_length=9, return_complex=True),
     "expected 0 < win_length <= n_fft"),
    (lambda lib, x: lib.stft(x, 50, center=False, return_complex=True),
     "expected 0 < n_fft < 40"),
    (lambda lib, x: lib.stft(x.to(lib.complex128), 8, onesided=True, return_complex=True),
     "Cannot have onesided output if window or input is complex"),
    (lambda lib, x: lib.istft(x.reshape(5, 8), 8), "istft requires a complex-valued input"),
    (lambda lib, x: lib.istft(lib.stft(x, 8, return_complex=True), 8,
                              window=lib.zeros(8, dtype=lib.float64)),
     "window overlap add min"),
])
def test_stft_errors_as_torch(call, message):
    data = _data((40,), "real")
    with pytest.raises(RuntimeError, match=message):
        call(minflow, minflow.tensor(data))
    with pytest.raises(RuntimeError, match=message):
        call(torch, torch.tensor(data))


def test_window_functions_exist_for_stft():
    for name in ("hann_window", "hamming_window", "blackman_window", "bartlett_window",
                 "kaiser_window"):
        np.testing.assert_allclose(getattr(minflow, name)(9).numpy(),
                                   getattr(torch, name)(9).numpy(), rtol=1e-5, atol=1e-6)

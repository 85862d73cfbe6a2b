"""The short-time Fourier transform and its inverse, as torch.stft / torch.istft: composites
of pad, unfold, the window product, minflow.fft and (for istft) fold's overlap-add, so they
run on every device the transforms run on and differentiate without grad code of their own.
"""
import warnings

from .. import fft
from ..core import dtype as dtypes
from ..core.functional import public
from ..core.namespace import F
from ..core.tensor import Tensor
from .fold import fold
from .infer import check_int, check_tensor
from .join import pad


def _signature(name, input, n_fft, hop_length, win_length):
    return (f"{name}(input of shape {list(input.shape)}, n_fft={n_fft}, "
            f"hop_length={hop_length}, win_length={win_length})")


def _window(name, window, n_fft, win_length, input, where):
    """The window zero-padded to n_fft, centred; ones (with torch's warning) if None."""
    if window is None:
        warnings.warn(f"{name}: A window was not provided. A rectangular window will be "
                      f"applied; pass window=minflow.ones(n_fft) to choose it explicitly",
                      UserWarning, stacklevel=3)
        window = F.ones(win_length, dtype=dtypes.to_real(input.dtype), device=input.device)
    elif not isinstance(window, Tensor) or window.ndim != 1 or window.shape[0] != win_length:
        got = list(window.shape) if isinstance(window, Tensor) else type(window).__name__
        raise RuntimeError(f"{where}: expected a 1D window tensor of size equal to "
                           f"win_length={win_length}, but got window with size {got}")
    left = (n_fft - win_length) // 2
    if left or n_fft - win_length - left:
        window = pad(window, (left, n_fft - win_length - left))
    return window


def _lengths(where, n_fft, hop_length, win_length):
    n_fft = check_int(where, "n_fft", n_fft)
    hop_length = None if hop_length is None else check_int(where, "hop_length", hop_length)
    win_length = None if win_length is None else check_int(where, "win_length", win_length)
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if hop_length <= 0:
        raise RuntimeError(f"{where}: expected hop_length > 0, but got "
                           f"hop_length={hop_length}")
    if not 0 < win_length <= n_fft:
        raise RuntimeError(f"{where}: expected 0 < win_length <= n_fft, but got "
                           f"win_length={win_length}")
    return hop_length, win_length


@public(method=True)
def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None):
    """stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
    pad_mode='reflect', normalized=False, onesided=None, return_complex=None) -> Tensor

    The short-time Fourier transform of a signal (L,) or batch (B, L): the fft of each
    frame of n_fft samples, every hop_length samples, times the window (zero-padded to
    n_fft); ``center`` pads n_fft // 2 on both sides first (``pad_mode``). The result is
    (B?, n_fft // 2 + 1 if onesided else n_fft, frames); ``normalized`` scales by
    n_fft^(-1/2). Real inputs need ``return_complex`` (True; False gives the deprecated
    view_as_real form), as torch.

    >>> x = minflow.arange(16, dtype=minflow.float32)
    >>> minflow.stft(x, 8, window=minflow.hann_window(8), return_complex=True).shape
    minflow.Size([5, 9])
    """
    check_tensor("stft", "input", input)
    if input.ndim not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, got {input.ndim}D")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError(f"stft: expected a floating point or complex input, got "
                           f"{input.dtype.name}")
    hop_length, win_length = _lengths("stft", n_fft, hop_length, win_length)
    where = _signature("stft", input, n_fft, hop_length, win_length)
    complex_in = input.dtype.is_complex or (isinstance(window, Tensor) and
                                            window.dtype.is_complex)
    if return_complex is None:
        if not complex_in:
            raise RuntimeError("stft requires the return_complex parameter be given for real "
                               "inputs, and will further require that return_complex=True in "
                               "a future PyTorch release.")
        return_complex = True
    onesided = not complex_in if onesided is None else onesided
    if onesided and complex_in:
        raise RuntimeError(f"{where}: Cannot have onesided output if window or input is "
                           f"complex")
    x = input if input.ndim == 2 else input.reshape(1, -1)
    if center:
        half = n_fft // 2
        x = pad(x.unsqueeze(0), (half, half), mode=pad_mode).squeeze(0)
    if not 0 < n_fft <= x.shape[-1]:
        raise RuntimeError(f"{where}: expected 0 < n_fft < {x.shape[-1]}, but got "
                           f"n_fft={n_fft}")
    frames = x.unfold(-1, n_fft, hop_length) * _window("stft", window, n_fft, win_length,
                                                        input, where)
    norm = "ortho" if normalized else "backward"
    spectrum = (fft.rfft if onesided else fft.fft)(frames, dim=-1, norm=norm)
    spectrum = spectrum.transpose(-1, -2)
    if input.ndim == 1:
        spectrum = spectrum.squeeze(0)
    if not return_complex:
        warnings.warn("stft with return_complex=False is deprecated (as in torch); use "
                      "view_as_real on the complex result", UserWarning, stacklevel=2)
        return F.view_as_real(spectrum)
    return spectrum


@public(method=True)
def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    """istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
    normalized=False, onesided=None, length=None, return_complex=False) -> Tensor

    The inverse of :func:`stft`: each frame's inverse fft times the window, overlap-added
    and divided by the overlap-added squared window; ``center`` trims n_fft // 2 from the
    start (and the end, without ``length``); ``length`` trims or zero-pads the signal.

    >>> x = minflow.arange(16, dtype=minflow.float32)
    >>> w = minflow.hann_window(8)
    >>> y = minflow.istft(minflow.stft(x, 8, window=w, return_complex=True), 8, window=w)
    >>> bool(minflow.allclose(x, y, atol=1e-5))
    True
    """
    if not isinstance(input, Tensor) or not input.dtype.is_complex:
        raise RuntimeError("istft requires a complex-valued input tensor matching the output "
                           "from stft with return_complex=True.")
    if input.ndim not in (2, 3):
        raise RuntimeError(f"istft: expected a tensor with 2 or 3 dimensions of complex "
                           f"dtype, but got {input.ndim}D")
    hop_length, win_length = _lengths("istft", n_fft, hop_length, win_length)
    where = _signature("istft", input, n_fft, hop_length, win_length)
    spectrum = input if input.ndim == 3 else input.unsqueeze(0)
    n_freq, n_frames = spectrum.shape[-2], spectrum.shape[-1]
    onesided = n_freq != n_fft if onesided is None else onesided
    expected_freq = n_fft // 2 + 1 if onesided else n_fft
    if n_freq != expected_freq:
        raise RuntimeError(f"{where}: expected the frequency dimension (3rd to the last) of "
                           f"the input tensor to match n_fft / 2 + 1 when onesided=True, or "
                           f"n_fft otherwise; got {n_freq}")
    window = _window("istft", window, n_fft, win_length, input, where)
    norm = "ortho" if normalized else "backward"
    spectrum = spectrum.transpose(-1, -2)
    if onesided:
        if return_complex:
            raise RuntimeError(f"{where}: cannot have onesided output if return_complex=True")
        frames = fft.irfft(spectrum, n=n_fft, dim=-1, norm=norm)
    else:
        frames = fft.ifft(spectrum, n=n_fft, dim=-1, norm=norm)
        if not return_complex:
            frames = F.real(frames)
    frames = frames * window
    total = n_fft + hop_length * (n_frames - 1)
    signal = _overlap_add(frames, total, hop_length)
    envelope = _overlap_add(F.expand(window * window, (1, n_frames, n_fft)), total,
                            hop_length)
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else total - n_fft // 2 if center else total
    signal, envelope = signal[:, start:end], envelope[:, start:end]
    if bool((envelope.abs() < 1e-11).any()):
        raise RuntimeError(f"{where}: window overlap add min: 1; the window's squares must "
                           f"sum to more than 1e-11 everywhere (nonzero overlap)")
    signal = signal / envelope
    if end > total:
        warnings.warn("istft: the signal is shorter than length; padding it with zeros at "
                      "the end", UserWarning, stacklevel=2)
        signal = pad(signal, (0, end - total))
    return signal.squeeze(0) if input.ndim == 2 else signal


def _overlap_add(frames, total, hop_length):
    """Frames (B, n_frames, n_fft) summed into (B, total) signals, frame i starting at
    i * hop_length: fold with a 1 x n_fft kernel (real and imaginary parts apart)."""
    if frames.dtype.is_complex:
        return F.complex(_overlap_add(F.real(frames), total, hop_length),
                         _overlap_add(F.imag(frames), total, hop_length))
    n_fft = frames.shape[-1]
    columns = frames.transpose(-1, -2)
    out = fold(columns, (1, total), (1, n_fft), stride=(1, hop_length))
    return out.reshape(frames.shape[0], total)

"""``minflow.signal.windows``: torch.signal.windows' window functions, as composites of
minflow ops. ``sym=True`` (the default) gives a symmetric window for filter design,
``sym=False`` a periodic one for spectral analysis (stft), as torch's.

>>> minflow.signal.windows.hann(5)
tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
"""
import math as _math

from ..core import dtype as _dtypes
from ..core.namespace import F as _F
from ..core.tensor_options import strided as _strided

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
           "general_hamming", "hamming", "hann", "kaiser", "nuttall"]


def _check(name, M, dtype, layout):
    if layout is not None and layout is not _strided:
        raise ValueError(f"signal.windows.{name}: is implemented for strided tensors only, "
                         f"got: {layout!r}")
    if not isinstance(M, int) or isinstance(M, bool):     # torch: a TypeError
        raise TypeError(f"signal.windows.{name}: expected M to be an int, got {M!r} "
                        f"({type(M).__name__})")
    if M < 0:
        raise ValueError(f"signal.windows.{name}: requires a non-negative window length, "
                         f"got M={M}")
    dtype = _dtypes.get_default_dtype() if dtype is None else _dtypes.as_dtype(dtype)
    if dtype not in (_dtypes.float32, _dtypes.float64):
        raise ValueError(f"signal.windows.{name}: expects float32 or float64 dtypes, got "
                         f"{dtype.name}")
    return dtype


def _done(window, requires_grad):
    return window.requires_grad_() if requires_grad else window


def _trivial(M, dtype, device, requires_grad):
    """The window of 0 or 1 points (empty, or [1]), or None for longer ones."""
    if M > 1:
        return None
    return _done(_F.ones(M, dtype=dtype, device=device), requires_grad)


def _span(M, sym):
    """The denominator of the window's phase: M - 1 (symmetric) or M (periodic)."""
    return M - 1 if sym else M


def general_cosine(M, *, a, sym=True, dtype=None, layout=None, device=None,
                   requires_grad=False):
    """general_cosine(M, *, a, sym=True, dtype=None, device=None, requires_grad=False)

    w[n] = sum_i (-1)^i a_i cos(2 pi i n / N), N = M - 1 (symmetric) or M (periodic).

    >>> minflow.signal.windows.general_cosine(3, a=[0.5, 0.5])
    tensor([0., 1., 0.])
    """
    dtype = _check("general_cosine", M, dtype, layout)
    if not isinstance(a, (list, tuple)):
        raise TypeError(f"signal.windows.general_cosine: Coefficients must be a list/tuple, "
                        f"got {type(a).__name__}")
    if not a:
        raise ValueError("signal.windows.general_cosine: Coefficients cannot be empty")
    trivial = _trivial(M, dtype, device, requires_grad)
    if trivial is not None:
        return trivial
    n = _F.arange(M, dtype=dtype, device=device) * (2 * _math.pi / _span(M, sym))
    window = sum((-1) ** i * coefficient * _F.cos(n * i) for i, coefficient in enumerate(a))
    return _done(window, requires_grad)


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=None, device=None,
                    requires_grad=False):
    """general_hamming(M, *, alpha=0.54, sym=True, ...): alpha - (1 - alpha) cos(2 pi n / N).

    >>> minflow.signal.windows.general_hamming(3, alpha=0.5)
    tensor([0., 1., 0.])
    """
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """hann(M, *, sym=True, ...): 0.5 - 0.5 cos(2 pi n / N).

    >>> minflow.signal.windows.hann(3)
    tensor([0., 1., 0.])
    """
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def hamming(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """hamming(M, *, sym=True, ...): 0.54 - 0.46 cos(2 pi n / N).

    >>> minflow.signal.windows.hamming(3)
    tensor([0.0800, 1.0000, 0.0800])
    """
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def blackman(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """blackman(M, *, sym=True, ...): 0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N).

    >>> minflow.signal.windows.blackman(3)
    tensor([-1.4901e-08,  1.0000e+00, -1.4901e-08])
    """
    _check("blackman", M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, device=device,
                          requires_grad=requires_grad)


def nuttall(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """nuttall(M, *, sym=True, ...): the four-term minimum Blackman-Harris cosine window.

    >>> round(minflow.signal.windows.nuttall(3)[1].item(), 6)
    1.0
    """
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym,
                          dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def cosine(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """cosine(M, *, sym=True, ...): sin(pi (n + 1/2) / N'), N' = M (symmetric) or M + 1.

    >>> minflow.signal.windows.cosine(3)
    tensor([0.5000, 1.0000, 0.5000])
    """
    dtype = _check("cosine", M, dtype, layout)
    trivial = _trivial(M, dtype, device, requires_grad) if M == 0 else None
    if trivial is not None:
        return trivial
    width = M if sym or M == 1 else M + 1
    n = _F.arange(M, dtype=dtype, device=device) + 0.5
    return _done(_F.sin(n * (_math.pi / width)), requires_grad)


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=None, device=None,
                requires_grad=False):
    """exponential(M, *, center=None, tau=1.0, sym=True, ...): exp(-|n - center| / tau),
    centred on the window by default.

    >>> minflow.signal.windows.exponential(3)
    tensor([0.3679, 1.0000, 0.3679])
    """
    dtype = _check("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"signal.windows.exponential: Tau must be positive, got: {tau} "
                         f"instead.")
    if sym and center is not None:
        raise ValueError("signal.windows.exponential: Center must be None for symmetric "
                         "windows")
    if M == 0:
        return _done(_F.ones(0, dtype=dtype, device=device), requires_grad)
    if center is None:
        center = (M - 1 if sym or M == 1 else M) / 2.0
    n = _F.arange(M, dtype=dtype, device=device)
    return _done(_F.exp(-_F.abs(n - center) / tau), requires_grad)


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=None, device=None,
             requires_grad=False):
    """gaussian(M, *, std=1.0, sym=True, ...): exp(-(n - c)^2 / (2 std^2)), c the centre.

    >>> minflow.signal.windows.gaussian(3)
    tensor([0.6065, 1.0000, 0.6065])
    """
    dtype = _check("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"signal.windows.gaussian: Standard deviation must be positive, got: "
                         f"{std} instead.")
    if M == 0:
        return _done(_F.ones(0, dtype=dtype, device=device), requires_grad)
    center = (M - 1 if sym or M == 1 else M) / 2.0
    n = (_F.arange(M, dtype=dtype, device=device) - center) / (std * _math.sqrt(2))
    return _done(_F.exp(-n * n), requires_grad)


def bartlett(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """bartlett(M, *, sym=True, ...): the triangular window 1 - |2n / N - 1|.

    >>> minflow.signal.windows.bartlett(5)
    tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
    """
    dtype = _check("bartlett", M, dtype, layout)
    trivial = _trivial(M, dtype, device, requires_grad)
    if trivial is not None:
        return trivial
    n = _F.arange(M, dtype=dtype, device=device) * (2.0 / _span(M, sym))
    return _done(1 - _F.abs(n - 1), requires_grad)


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=None, device=None,
           requires_grad=False):
    """kaiser(M, *, beta=12.0, sym=True, ...): I0(beta sqrt(1 - (2n / N - 1)^2)) / I0(beta).

    >>> minflow.signal.windows.kaiser(3, beta=0.0)
    tensor([1., 1., 1.])
    """
    dtype = _check("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"signal.windows.kaiser: beta must be non-negative, got: {beta} "
                         f"instead.")
    return _F.kaiser_window(M, periodic=not sym, beta=beta, dtype=dtype, device=device,
                            requires_grad=requires_grad)

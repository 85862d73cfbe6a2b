"""``minflow.fft``: torch.fft's discrete Fourier transforms, with its names, arguments
(``n`` / ``s`` to trim or zero-pad the input, ``dim``, ``norm``), dtypes and gradients.

Each function resizes its input, then runs one of three ops (ops/fft.py): ``fft_c2c``,
``fft_r2c`` (one-sided, as rfft) or ``fft_c2r`` (as irfft). Real inputs of fft / ifft are
made complex first (float32 -> complex64, float64 -> complex128, integers -> the default
complex dtype); hfft / hfft2 / hfftn and ihfft / ihfft2 / ihfftn are the irfft and rfft
forms of the conjugate, with the norm swapped.

>>> minflow.fft.fft(minflow.tensor([1.0, 0.0, 0.0, 0.0]))
tensor([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j])
"""
from .core import dtype as _dtypes
from .core.dispatch import apply as _apply
from .core.inplace import write_out as _write_out
from .core.namespace import F as _F
from .core.tensor import Tensor as _Tensor
from .core.tensor_options import tensor_options as _tensor_options
from .ops.fft import FFT_C2C as _C2C, FFT_C2R as _C2R, FFT_R2C as _R2C, NORMS as _NORMS
from .ops.fft import swapped as _swapped
from .ops.infer import check_int as _check_int
from .ops.join import PAD as _PAD

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2",
           "irfft2", "hfft2", "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn",
           "fftfreq", "rfftfreq", "fftshift", "ifftshift"]


# ---- arguments -----------------------------------------------------------------------------

def _check_input(name, input):
    if not isinstance(input, _Tensor):
        raise TypeError(f"fft.{name}: expected input to be a Tensor, got "
                        f"{type(input).__name__}")
    if input.dtype in (_dtypes.float16, _dtypes.bfloat16):
        raise RuntimeError(f"fft.{name}: Unsupported dtype {input.dtype.name}; use float32 "
                           f"or float64")


def _norm(name, norm):
    norm = "backward" if norm is None else norm
    if norm not in _NORMS:
        raise RuntimeError(f"fft.{name}: Invalid normalization mode: {norm!r}; expected "
                           f"one of {list(_NORMS)} or None")
    return norm


def _dims(name, input, s, dim):
    """(dims, sizes) as torch resolves them: ``dim`` None means the last len(s) dims (all
    with no s); ``s`` None keeps the input's sizes; -1 in s keeps that dim's size."""
    ndim = input.ndim
    if dim is None:
        dims = list(range(ndim - len(s), ndim)) if s is not None else list(range(ndim))
    else:
        dims = [_check_int(f"fft.{name}", "dim", d) for d in _listed(dim)]
    if s is not None:
        s = [_check_int(f"fft.{name}", "n" if len(s) == 1 else "s", n) for n in s]
    if s is not None and len(s) != len(dims):
        raise RuntimeError(f"fft.{name}: When given, dim and shape arguments must have the "
                           f"same length, got s={list(s)} and dim={dims}")
    for d in dims:
        if not -max(ndim, 1) <= d < max(ndim, 1) or ndim == 0:
            raise IndexError(f"fft.{name}: Dimension out of range (expected to be in range "
                             f"of [{-max(ndim, 1)}, {max(ndim, 1) - 1}], but got {d})")
    dims = [d % ndim for d in dims]
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"fft.{name}: FFT dims must be unique, got {dims}")
    sizes = [input.shape[d] for d in dims] if s is None else \
        [input.shape[d] if n == -1 else n for d, n in zip(dims, s)]
    for n in sizes:
        if n < 1:
            raise RuntimeError(f"fft.{name}: Invalid number of data points ({n}) specified")
    return dims, sizes


def _resized(input, dims, sizes):
    """``input`` trimmed or zero-padded at the end of each dim to its size."""
    for d, n in zip(dims, sizes):
        have = input.shape[d]
        if have > n:
            input = _F.narrow(input, d, 0, n)
        elif have < n:
            pad = (0, 0) * (input.ndim - 1 - d) + (0, n - have)
            input = _apply(_PAD, (input,), {"pad": pad, "value": 0})
    return input


def _as_complex(input):
    if input.dtype.is_complex:
        return input
    real = input if input.dtype.is_floating_point else \
        _F.cast(input, _dtypes.get_default_dtype())
    return _F.cast(real, _dtypes.to_complex(real.dtype))


def _as_real(name, input):
    if input.dtype.is_complex:
        raise RuntimeError(f"fft.{name}: expects a real input tensor, but got "
                           f"{input.dtype.name}")
    return input if input.dtype.is_floating_point else \
        _F.cast(input, _dtypes.get_default_dtype())


def _done(result, out, name):
    return result if out is None else _write_out(result, out, f"fft.{name}")


# ---- the transforms ------------------------------------------------------------------------

def _c2c(name, input, s, dim, norm, forward, out):
    _check_input(name, input)
    dims, sizes = _dims(name, input, s, dim)
    x = _resized(_as_complex(input), dims, sizes)
    result = _apply(_C2C, (x,), {"dim": tuple(dims), "norm": _norm(name, norm),
                                 "forward": forward})
    return _done(result, out, name)


def _r2c(name, input, s, dim, norm, out, conjugate=False):
    _check_input(name, input)
    dims, sizes = _dims(name, input, s, dim)
    x = _resized(_as_real(name, input), dims, sizes)
    norm = _norm(name, norm)
    result = _apply(_R2C, (x,), {"dim": tuple(dims), "norm": _swapped(norm) if conjugate
                                 else norm})
    return _done(_F.conj_physical(result) if conjugate else result, out, name)


def _c2r(name, input, s, dim, norm, out, conjugate=False):
    """irfftn: the last dim's output size is s[-1], else 2 * (m - 1) for m one-sided
    values; the input keeps s[-1] // 2 + 1 of them."""
    _check_input(name, input)
    dims, sizes = _dims(name, input, s, dim)
    if s is None or s[-1] == -1:
        sizes[-1] = 2 * (input.shape[dims[-1]] - 1)
        if sizes[-1] < 1:
            raise RuntimeError(f"fft.{name}: Invalid number of data points ({sizes[-1]}) "
                               f"specified")
    x = _resized(_as_complex(input), dims, sizes[:-1] + [sizes[-1] // 2 + 1])
    norm = _norm(name, norm)
    if conjugate:
        x, norm = _F.conj_physical(x), _swapped(norm)
    result = _apply(_C2R, (x,), {"dim": tuple(dims), "norm": norm, "last_dim_size": sizes[-1]})
    return _done(result, out, name)


def _one(n):
    return None if n is None else (n,)


def fft(input, n=None, dim=-1, norm=None, *, out=None):
    """fft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor

    The one-dimensional discrete Fourier transform, X[k] = sum_j x[j] e^(-2 pi i jk / n),
    of ``input`` trimmed or zero-padded to ``n`` along ``dim``.

    >>> minflow.fft.fft(minflow.tensor([1.0, 2.0, 3.0, 4.0]))
    tensor([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j])
    """
    return _c2c("fft", input, _one(n), dim, norm, True, out)


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    """ifft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor

    The inverse of :func:`fft`: x[j] = (1/n) sum_k X[k] e^(2 pi i jk / n).

    >>> minflow.fft.ifft(minflow.tensor([10.0, -2 + 2j, -2, -2 - 2j]))
    tensor([1.+0.j, 2.+0.j, 3.+0.j, 4.+0.j])
    """
    return _c2c("ifft", input, _one(n), dim, norm, False, out)


def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor: :func:`fftn`
    over the last two dims.

    >>> minflow.fft.fft2(minflow.ones(2, 2))
    tensor([[4.+0.j, 0.+0.j],
            [0.+0.j, 0.+0.j]])
    """
    return _c2c("fft2", input, s, dim, norm, True, out)


def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor: the inverse of
    :func:`fft2`.

    >>> minflow.fft.ifft2(minflow.fft.fft2(minflow.eye(2))).real
    tensor([[1., 0.],
            [0., 1.]])
    """
    return _c2c("ifft2", input, s, dim, norm, False, out)


def fftn(input, s=None, dim=None, norm=None, *, out=None):
    """fftn(input, s=None, dim=None, norm=None, *, out=None) -> Tensor

    The N-dimensional Fourier transform over ``dim`` (all dims; the last len(s) with ``s``),
    each trimmed or zero-padded to its size in ``s``.

    >>> minflow.fft.fftn(minflow.ones(2, 3)).abs().sum().item()
    6.0
    """
    return _c2c("fftn", input, s, dim, norm, True, out)


def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    """ifftn(input, s=None, dim=None, norm=None, *, out=None) -> Tensor: the inverse of
    :func:`fftn`.

    >>> minflow.fft.ifftn(minflow.fft.fftn(minflow.ones(2, 3))).real.tolist()
    [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
    """
    return _c2c("ifftn", input, s, dim, norm, False, out)


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    """rfft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor

    The Fourier transform of a real input, one-sided: the n // 2 + 1 frequencies 0..n/2
    (the rest are their conjugates).

    >>> minflow.fft.rfft(minflow.tensor([1.0, 2.0, 3.0, 4.0]))
    tensor([10.+0.j, -2.+2.j, -2.+0.j])
    """
    return _r2c("rfft", input, _one(n), dim, norm, out)


def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    """irfft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor

    The inverse of :func:`rfft`: a real signal of length ``n`` (default 2 * (m - 1) for m
    one-sided values) whose spectrum's first half is ``input``.

    >>> minflow.fft.irfft(minflow.tensor([10.0, -2 + 2j, -2]))
    tensor([1., 2., 3., 4.])
    """
    return _c2r("irfft", input, _one(n), dim, norm, out)


def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor: :func:`rfftn`
    over the last two dims.

    >>> minflow.fft.rfft2(minflow.ones(2, 4)).shape
    minflow.Size([2, 3])
    """
    return _r2c("rfft2", input, s, dim, norm, out)


def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor: the inverse
    of :func:`rfft2`.

    >>> minflow.fft.irfft2(minflow.fft.rfft2(minflow.ones(2, 4))).tolist()
    [[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]]
    """
    return _c2r("irfft2", input, s, dim, norm, out)


def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    """rfftn(input, s=None, dim=None, norm=None, *, out=None) -> Tensor

    The N-dimensional Fourier transform of a real input, one-sided in the last of ``dim``.

    >>> minflow.fft.rfftn(minflow.ones(2, 3, 4)).shape
    minflow.Size([2, 3, 3])
    """
    return _r2c("rfftn", input, s, dim, norm, out)


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    """irfftn(input, s=None, dim=None, norm=None, *, out=None) -> Tensor: the inverse of
    :func:`rfftn`, real, 2 * (m - 1) long in the last of ``dim`` unless ``s`` says.

    >>> minflow.fft.irfftn(minflow.fft.rfftn(minflow.ones(2, 4))).tolist()
    [[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]]
    """
    return _c2r("irfftn", input, s, dim, norm, out)


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    """hfft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor

    The Fourier transform of a Hermitian-symmetric signal given by its first half: a real
    spectrum of length ``n`` (default 2 * (m - 1)). ``irfft`` of the conjugate, scaled as a
    forward transform.

    >>> minflow.fft.hfft(minflow.tensor([1.0, 2.0, 3.0]))
    tensor([ 8., -2.,  0., -2.])
    """
    return _c2r("hfft", input, _one(n), dim, norm, out, conjugate=True)


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    """ihfft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor

    The inverse of :func:`hfft`: the one-sided conjugate spectrum of a real input, scaled
    as an inverse transform.

    >>> minflow.fft.ihfft(minflow.tensor([8.0, -2.0, 0.0, -2.0]))
    tensor([1.-0.j, 2.-0.j, 3.-0.j])
    """
    return _r2c("ihfft", input, _one(n), dim, norm, out, conjugate=True)


def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor: :func:`hfftn`
    over the last two dims.

    >>> minflow.fft.hfft2(minflow.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor([[10., -2.],
            [-4.,  0.]])
    """
    return _c2r("hfft2", input, s, dim, norm, out, conjugate=True)


def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor: the inverse
    of :func:`hfft2`.

    >>> minflow.fft.ihfft2(minflow.tensor([[10.0, -2.0], [-4.0, 0.0]]))
    tensor([[1.-0.j, 2.-0.j],
            [3.-0.j, 4.-0.j]])
    """
    return _r2c("ihfft2", input, s, dim, norm, out, conjugate=True)


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    """hfftn(input, s=None, dim=None, norm=None, *, out=None) -> Tensor

    The N-dimensional Fourier transform of a signal Hermitian-symmetric in the last of
    ``dim``, given by its first half there: a real result, 2 * (m - 1) long in that dim
    unless ``s`` says. ``irfftn`` of the conjugate, scaled as a forward transform.

    >>> minflow.fft.hfftn(minflow.ones(2, 2)).tolist()
    [[4.0, 0.0], [0.0, 0.0]]
    """
    return _c2r("hfftn", input, s, dim, norm, out, conjugate=True)


def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    """ihfftn(input, s=None, dim=None, norm=None, *, out=None) -> Tensor: the inverse of
    :func:`hfftn`, one-sided in the last of ``dim``.

    >>> minflow.fft.ihfftn(minflow.ones(2, 4)).shape
    minflow.Size([2, 3])
    """
    return _r2c("ihfftn", input, s, dim, norm, out, conjugate=True)


# ---- frequencies and shifts ----------------------------------------------------------------

@_tensor_options(name="fft.fftfreq")
def fftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False):
    """fftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False) -> Tensor

    The sample frequencies of an n-point fft with spacing ``d``: [0, 1, ..., -1] / (d n).

    >>> minflow.fft.fftfreq(4)
    tensor([ 0.0000,  0.2500, -0.5000, -0.2500])
    """
    steps = _F.arange(n, dtype=dtype or _dtypes.get_default_dtype(), device=device)
    result = _F.where(steps < (n + 1) // 2, steps, steps - n) / (d * n)
    return result.requires_grad_() if requires_grad else result


@_tensor_options(name="fft.rfftfreq")
def rfftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False):
    """rfftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False) -> Tensor

    The sample frequencies of an n-point rfft: [0, 1, ..., n // 2] / (d n).

    >>> minflow.fft.rfftfreq(4)
    tensor([0.0000, 0.2500, 0.5000])
    """
    result = _F.arange(n // 2 + 1, dtype=dtype or _dtypes.get_default_dtype(),
                       device=device) / (d * n)
    return result.requires_grad_() if requires_grad else result


def _listed(dim):
    """An int or a sequence of ints as a list (anything else as a one-item list, for the
    int check to name)."""
    return list(dim) if isinstance(dim, (list, tuple)) else [dim]


def _shift_dims(name, input, dim):
    if not isinstance(input, _Tensor):
        raise TypeError(f"fft.{name}: expected input to be a Tensor, got "
                        f"{type(input).__name__}")
    if dim is None:
        return tuple(range(input.ndim))
    return tuple(_check_int(f"fft.{name}", "dim", d) for d in _listed(dim))


def fftshift(input, dim=None):
    """fftshift(input, dim=None) -> Tensor: the zero frequency moved to the centre of
    ``dim`` (all dims by default): a roll by n // 2.

    >>> minflow.fft.fftshift(minflow.fft.fftfreq(4))
    tensor([-0.5000, -0.2500,  0.0000,  0.2500])
    """
    dims = _shift_dims("fftshift", input, dim)
    return _F.roll(input, tuple(input.shape[d] // 2 for d in dims), dims) if dims else input


def ifftshift(input, dim=None):
    """ifftshift(input, dim=None) -> Tensor: the inverse of :func:`fftshift` (a roll by
    -(n // 2)).

    >>> minflow.fft.ifftshift(minflow.fft.fftshift(minflow.fft.fftfreq(5))).tolist()[:2]
    [0.0, 0.20000000298023224]
    """
    dims = _shift_dims("ifftshift", input, dim)
    return _F.roll(input, tuple(-(input.shape[d] // 2) for d in dims), dims) if dims else input

"""interpolate and its deprecated aliases, with PyTorch's signatures (minflow.nn.functional
takes ``__all__``).

A composite: each spatial dim is resampled in turn, the last first, by index_select at
source indices and weights computed on the host from the sizes alone (upsample_taps.py):
one tap for the nearest modes, two (linear), four (bicubic) or, with antialias=True, every
neighbour under the widened filter. Grads come from index_select's (a scatter-add).
float16 and bfloat16 input is resampled in float32 and rounded once, as torch's CPU kernels
do; uint8 input (bilinear, bicubic, lanczos) in torch's fixed-point integer arithmetic,
rounding to uint8 after each dim. 'area' is adaptive_avg_pool1d / 2d / 3d.
"""
import warnings

import numpy as np

from ..core import dtype as dtypes
from ..core.functional import public
from ..core.namespace import F
from ..core.tensor import Tensor
from . import upsample_taps as taps
from .opmath import in_float32

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear"]

_MODES = ("nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear", "lanczos",
          "area")
# the modes that take one input ndim only
_NDIM = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5, "lanczos": 4}
_UINT8 = ("nearest", "nearest-exact", "bilinear", "bicubic", "lanczos")


def _per_dim(name, value, dims, cast):
    """``value`` (a number or a sequence of ``dims`` numbers) as a tuple of ``dims``."""
    if isinstance(value, (tuple, list)):
        if len(value) != dims:
            raise ValueError(f"interpolate: Input and {name} must have the same number of "
                             f"spatial dimensions, but got input with spatial dimensions of "
                             f"{dims} and {name} of length {len(value)}. Please provide "
                             f"input tensor in (N, C, d1, d2, ...,dK) format and {name} in "
                             f"(o1, o2, ...,oK) format.")
        return tuple(cast(v) for v in value)
    return (cast(value),) * dims


def _size(value):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"interpolate: expected size to be one of int or Tuple[int] or "
                        f"Tuple[int, int] or Tuple[int, int, int], but got size with types "
                        f"{type(value).__name__}")
    return int(value)


def _output_size(input, size, scale_factor, recompute_scale_factor):
    """(output sizes, the scales the index maps use: None per dim where out / in is)."""
    dims, spatial = input.ndim - 2, tuple(input.shape[2:])
    if (size is None) == (scale_factor is None):
        raise ValueError("interpolate: only one of size or scale_factor should be defined"
                         if size is not None else
                         "interpolate: either size or scale_factor should be defined")
    if size is not None:
        if recompute_scale_factor:
            raise ValueError("interpolate: recompute_scale_factor is not meaningful with an "
                             "explicit size.")
        return _per_dim("size", size, dims, _size), (None,) * dims
    scales = _per_dim("scale_factor", scale_factor, dims, float)
    out = tuple(int(np.floor(s * f)) for s, f in zip(spatial, scales))
    return out, (None,) * dims if recompute_scale_factor else scales


def _check(input, mode, align_corners, antialias):
    """torch's checks, in torch's order (so that the first error is torch's)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"interpolate(): argument 'input' must be Tensor, not "
                        f"{type(input).__name__}")
    if align_corners is not None and mode in ("nearest", "nearest-exact", "area"):
        raise ValueError("interpolate: align_corners option can only be set with the "
                         "interpolating modes: linear | bilinear | bicubic | trilinear")
    if antialias and (mode not in ("bilinear", "bicubic", "lanczos") or input.ndim != 4):
        raise ValueError(f"interpolate: the anti-alias option is restricted to the bilinear, "
                         f"bicubic and lanczos modes and requires a 4-D tensor as input, got "
                         f"mode {mode!r} with {input.ndim}-D input")
    if mode not in _MODES:
        raise NotImplementedError(f"interpolate: mode {mode!r} is not supported; expected one "
                                  f"of {list(_MODES)}")
    expected = _NDIM.get(mode)
    if input.ndim not in (3, 4, 5) or (expected and input.ndim != expected):
        raise NotImplementedError(f"interpolate: got {input.ndim}D input with mode {mode!r}; "
                                  f"expected {f'{expected}D' if expected else '3D, 4D or 5D'} "
                                  f"(N, C, ...) input")
    if mode == "lanczos" and (align_corners or not antialias):
        raise ValueError("interpolate: mode 'lanczos' requires antialias=True and does not "
                         f"support align_corners=True, got antialias={antialias!r} and "
                         f"align_corners={align_corners!r}")
    if not (input.dtype.is_floating_point or (input.dtype is dtypes.uint8 and mode in _UINT8)):
        raise NotImplementedError(f"interpolate: expected a floating point input (or uint8 "
                                  f"for the modes {', '.join(_UINT8)}), got "
                                  f"{input.dtype.name} with mode {mode!r}")


@public
def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """interpolate(input, size=None, scale_factor=None, mode='nearest', align_corners=None,
    recompute_scale_factor=None, antialias=False) -> Tensor

    Resamples the spatial dims of (N, C, L), (N, C, H, W) or (N, C, D, H, W) input to
    ``size``, or to floor(in * scale_factor). nearest: out[i] = x[min(floor(i * s),
    in - 1)], s = in / out (or 1 / scale_factor); nearest-exact rounds (i + 0.5) * s;
    linear (3-D) / bilinear (4-D) / trilinear (5-D) weigh the two neighbours of the source
    position s * (i + 0.5) - 0.5 (align_corners=False) or i * (in - 1) / (out - 1), dim by
    dim; bicubic (4-D) weighs the four neighbours floor(src) - 1 .. floor(src) + 2 (clamped
    to the border) with Keys' cubic convolution kernel (a = -0.75), without clamping the
    result; area averages (adaptive_avg_pool1d / 2d / 3d). antialias=True (bilinear,
    bicubic and lanczos, 4-D input) resamples as PIL: when shrinking, the filter (the
    triangle, the cubic with a = -0.5, or Lanczos-3) widens by the scale, and each output's
    weights are normalised to sum 1; lanczos requires it. uint8 input (nearest modes,
    bilinear, bicubic, lanczos) is resampled in torch's fixed-point arithmetic and
    rounded and clamped to 0..255.

    >>> x = minflow.tensor([[[[1.0, 2.0]]]])
    >>> minflow.nn.functional.interpolate(x, scale_factor=2).tolist()
    [[[[1.0, 1.0, 2.0, 2.0], [1.0, 1.0, 2.0, 2.0]]]]
    >>> image = minflow.tensor([[[[0, 255]]]], dtype=minflow.uint8)
    >>> minflow.nn.functional.interpolate(image, size=(1, 4), mode="bilinear").tolist()
    [[[[0, 64, 191, 255]]]]
    """
    _check(input, mode, align_corners, antialias)
    out_size, scales = _output_size(input, size, scale_factor, recompute_scale_factor)
    if min(out_size) <= 0:
        raise RuntimeError(f"interpolate: Input and output sizes should be greater than 0, "
                           f"but got input ({', '.join(map(str, input.shape[2:]))}) and "
                           f"output ({', '.join(map(str, out_size))})")
    if mode == "area":
        return _area(input, out_size)
    if mode in ("nearest", "nearest-exact"):
        return _nearest(input, out_size, scales, mode == "nearest-exact")
    if input.dtype is dtypes.uint8:
        return _resample_uint8(input, out_size, scales, mode, bool(align_corners), antialias)
    return _resample(input, out_size, scales, mode, bool(align_corners), antialias)


def _area(input, out_size):
    """adaptive_avg_pool1d / 2d / 3d; float16 averaged in float32 by the 1d and 2d pools,
    as torch's.

    NOTE: torch's adaptive_avg_pool3d sums float16 windows in float16: the 3d pool's own
    float16 arithmetic decides 5-D area."""
    if input.ndim == 5:
        return F.adaptive_avg_pool3d(input, out_size)
    if input.ndim == 4:
        return in_float32(lambda x: F.adaptive_avg_pool2d(x, out_size), input)
    return in_float32(lambda x: F.adaptive_avg_pool1d(x, out_size[0]), input)


def _nearest(x, out_size, scales, exact):
    """x[..., index_d, ...] dim by dim.

    NOTE: torch's 4-D kernel for small outputs (out_h + out_w <= 128) computes the source
    indices in float32 and maps out == in and out == 2 in directly; its generic kernel
    (3-D, 5-D, larger 4-D outputs) computes them in the input's precision (float32 for
    uint8), with no shortcut: the two differ where scale_factor is not out / in."""
    small = x.ndim == 4 and sum(out_size) <= 128
    real = np.float64 if x.dtype is dtypes.float64 and not small else np.float32
    for i in reversed(range(x.ndim - 2)):
        index = taps.nearest_index(x.shape[i + 2], out_size[i], scales[i], exact, real, small)
        x = F.index_select(x, i + 2, F.tensor(index, device=x.device))
    return x


def _taps(in_size, out_size, scale, mode, align_corners, antialias, real, stored):
    if antialias:
        return taps.antialias_taps(in_size, out_size, scale, align_corners, mode, real)
    if mode == "bicubic":
        return taps.cubic_taps(in_size, out_size, scale, align_corners, real, stored)
    return taps.linear_taps(in_size, out_size, scale, align_corners, real, stored)


def _resampled_dims(x, out_size, mode, antialias):
    """The spatial dims to resample, the last first.

    NOTE: torch copies a dim whose size does not change, whatever scale_factor says,
    except in plain bicubic (whose taps then still weigh neighbours)."""
    dims = reversed(range(x.ndim - 2))
    if mode == "bicubic" and not antialias and x.dtype.is_floating_point:
        return list(dims)
    return [i for i in dims if x.shape[i + 2] != out_size[i]]


def _resample(input, out_size, scales, mode, align_corners, antialias):
    """Floating input resampled dim by dim, the last first: the sums then nest as torch's,
    h0 (w0 x00 + w1 x01) + h1 (...); float16 and bfloat16 in float32, rounded once."""
    half = input.dtype if input.dtype in (dtypes.float16, dtypes.bfloat16) else None
    x = F.cast(input, dtypes.float32) if half else input
    real = np.float64 if x.dtype is dtypes.float64 else np.float32
    stored = half.np.type if half and _half_weights(mode, antialias, out_size) else real
    dims = _resampled_dims(input, out_size, mode, antialias)
    if not dims:
        return F.clone(input)
    for i in dims:
        indices, weights = _taps(x.shape[i + 2], out_size[i], scales[i], mode, align_corners,
                                 antialias, real, stored)
        out = None
        for index, weight in zip(indices, weights):
            tap = F.mul(_gather(x, i + 2, index), _along(x, i + 2, weight))
            out = tap if out is None else F.add(out, tap)
        x = out
    return F.cast(x, half) if half else x


def _half_weights(mode, antialias, out_size):
    """Whether torch's CPU kernel stores float16 input's weights in float16.

    NOTE: torch's generic kernel (linear, bicubic, trilinear, and bilinear to large outputs)
    stores the weights in the input's dtype; its bilinear kernel for outputs with
    out_h + out_w <= 128 (or 3 channels on one thread), and the antialiased ones, keep
    them in float32."""
    return not antialias and (mode != "bilinear" or sum(out_size) > 128)


def _resample_uint8(x, out_size, scales, mode, align_corners, antialias):
    """uint8 x resampled as torch's uint8 kernels: per dim (the last first, skipping those
    that keep their size), integer weights w scaled by 2**p and out = clamp((2**(p - 1) +
    sum_k w_k x_k) >> p, 0, 255), that is round(sum_k weight_k x_k) saturated."""
    dims = _resampled_dims(x, out_size, mode, antialias)
    if not dims:
        return F.clone(x)
    for i in dims:
        if antialias:
            indices, weights = taps.antialias_taps(x.shape[i + 2], out_size[i], scales[i],
                                                   align_corners, mode, np.float64)
            largest = float(np.max(weights))
        else:
            indices, weights, largest = taps.uint8_taps(x.shape[i + 2], out_size[i],
                                                        scales[i], align_corners, mode)
        ints, precision = taps.fixed_point(weights, largest)
        # int32 sums, as torch's: precision <= 22 keeps 255 * sum_k |w_k| below 2**31
        wide, total = F.cast(x, dtypes.int32), 1 << (precision - 1)
        for index, weight in zip(indices, ints):
            total = F.add(F.mul(_gather(wide, i + 2, index), _along(x, i + 2, weight)), total)
        x = F.cast(F.clamp(F.bitwise_right_shift(total, precision), 0, 255), dtypes.uint8)
    return x


def _gather(x, dim, index):
    return F.index_select(x, dim, F.tensor(index, device=x.device))


def _along(x, dim, values):
    """``values`` (numpy) as a tensor of x's dtype (int32 for integers) shaped to
    broadcast along ``dim`` of x."""
    shape = [1] * x.ndim
    shape[dim] = len(values)
    dtype = x.dtype if x.dtype.is_floating_point else dtypes.int32
    return F.reshape(F.tensor(values, dtype=dtype, device=x.device), tuple(shape))


@public
def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """upsample(input, size=None, scale_factor=None, mode='nearest', align_corners=None)
    -> Tensor

    interpolate under its deprecated name (warns, as torch).

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     minflow.nn.functional.upsample(minflow.ones(1, 1, 2), scale_factor=2).shape
    minflow.Size([1, 1, 4])
    """
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


@public
def upsample_nearest(input, size=None, scale_factor=None):
    """upsample_nearest(input, size=None, scale_factor=None) -> Tensor

    interpolate with mode='nearest', under its deprecated name (warns, as torch).

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     minflow.nn.functional.upsample_nearest(minflow.tensor([[[1.0, 2.0]]]), 4).tolist()
    [[[1.0, 1.0, 2.0, 2.0]]]
    """
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


@public
def upsample_bilinear(input, size=None, scale_factor=None):
    """upsample_bilinear(input, size=None, scale_factor=None) -> Tensor

    interpolate with mode='bilinear' and align_corners=True, under its deprecated name
    (warns, as torch).

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     minflow.nn.functional.upsample_bilinear(minflow.tensor([[[[0.0, 3.0]]]]),
    ...                                             size=(1, 4)).tolist()
    [[[[0.0, 1.0, 2.0, 3.0]]]]
    """
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)

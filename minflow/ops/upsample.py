"""interpolate, with PyTorch's signature (minflow.nn.functional takes ``__all__``).

A composite: each spatial dim is resampled in turn by index_select at source indices
computed on the host from the sizes alone (never from data), and, for the interpolating
modes, a weighted sum of the two (linear) or four (bicubic) neighbours, or with
antialias=True of every neighbour under the widened filter. Grads come from index_select's
(a scatter-add).
'area' is adaptive_avg_pool2d (or 3d for 5-D input).
"""
import math

import numpy as np

from ..core import dtype as dtypes
from ..core.functional import public
from ..core.namespace import F
from ..core.tensor import Tensor

__all__ = ["interpolate", "upsample"]

_MODES = ("nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear", "area")
# the interpolating modes and the input ndim each takes
_LINEAR = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}
_CUBIC_A = -0.75        # the cubic convolution's parameter, as torch (Keys' kernel)
# antialias=True resamples as PIL: the filter and its half-width, in input pixels at scale 1
_ANTIALIAS = {"bilinear": 1, "bicubic": 2}


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
        return _per_dim("size", size, dims, int), (None,) * dims
    scales = _per_dim("scale_factor", scale_factor, dims, float)
    out = tuple(math.floor(s * f) for s, f in zip(spatial, scales))
    return out, (None,) * dims if recompute_scale_factor else scales


def _scale(in_size, out_size, scale, align_corners, real):
    """Source step per output index, in the input's compute precision, as torch."""
    if align_corners:
        return real((in_size - 1) / (out_size - 1)) if out_size > 1 else real(0)
    return real(1.0 / scale) if scale is not None and scale > 0 else real(in_size / out_size)


def _nearest_index(in_size, out_size, scale, exact):
    dst = np.arange(out_size, dtype=np.float32)
    if not exact and out_size == in_size:
        return np.arange(out_size)
    if not exact and out_size == 2 * in_size:
        return np.arange(out_size) // 2
    step = _scale(in_size, out_size, scale, False, np.float32)
    src = np.floor((dst + np.float32(0.5)) * step if exact else dst * step)
    return np.minimum(src.astype(np.int64), in_size - 1)


def _linear_weights(in_size, out_size, scale, align_corners, real):
    """(index0, index1, lambda0, lambda1): out = lambda0 x[index0] + lambda1 x[index1]."""
    step = _scale(in_size, out_size, scale, align_corners, real)
    dst = np.arange(out_size, dtype=real)
    src = step * dst if align_corners else np.maximum(step * (dst + real(0.5)) - real(0.5), 0)
    index0 = src.astype(np.int64)
    index1 = index0 + (index0 < in_size - 1)
    lambda1 = np.clip(src - index0, 0, 1).astype(real)
    return index0, index1, real(1) - lambda1, lambda1


def _cubic_weights(in_size, out_size, scale, align_corners, real):
    """(indices, weights): four taps each, out = sum_k weights[k] x[indices[k]] with the
    taps at floor(src) - 1 .. floor(src) + 2 clamped to the input (torch's border)."""
    step = _scale(in_size, out_size, scale, align_corners, real)
    dst = np.arange(out_size, dtype=real)
    # NOTE: unlike the linear modes, the source position is not clamped at 0
    src = step * dst if align_corners else step * (dst + real(0.5)) - real(0.5)
    index = np.minimum(np.floor(src).astype(np.int64), in_size - 1)
    t = np.clip(src - index, 0, 1).astype(real)
    rest = 1 - t
    weights = [_keys_cubic(d, _CUBIC_A, real) for d in (t + 1, t, rest, rest + 1)]
    indices = [np.clip(index + k - 1, 0, in_size - 1) for k in range(4)]
    return indices, weights


def _keys_cubic(x, a, real):
    """Keys' cubic convolution kernel at distances ``x``: 0 from |x| = 2 on."""
    x, a = np.abs(x), real(a)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.where(x < 1, near, np.where(x < 2, far, 0)).astype(real)


def _aa_filter(mode, x, real):
    """PIL's filters: the triangle, or Keys' cubic with a = -0.5 (not torch's -0.75)."""
    if mode == "bilinear":
        return np.maximum(1 - np.abs(x), 0).astype(real)
    return _keys_cubic(x, -0.5, real)


def _antialias_weights(in_size, out_size, scale, align_corners, mode, real):
    """(indices, weights) of antialiased resampling (torch's, after PIL): when shrinking,
    the filter widens by the scale and so covers every input pixel under an output one;
    each output's weights are normalised to sum 1 (so borders need no clamped taps)."""
    step = _scale(in_size, out_size, scale, align_corners, real)
    support = real(_ANTIALIAS[mode] * max(step, 1))
    taps = 2 * math.ceil(support) + 1
    center = step * (np.arange(out_size, dtype=real) + real(0.5))
    low = np.maximum((center - support + real(0.5)).astype(np.int64), 0)
    size = np.minimum((center + support + real(0.5)).astype(np.int64), in_size) - low
    offsets = np.arange(taps)
    invscale = real(1) / step if step >= 1 else real(1)
    position = (offsets + low[:, None] - center[:, None] + real(0.5)) * invscale
    weights = np.where(offsets < size[:, None], _aa_filter(mode, position, real), real(0))
    total = weights.sum(axis=1, keepdims=True)
    weights = np.where(total != 0, weights / np.where(total != 0, total, 1), weights)
    indices = np.minimum(low[:, None] + offsets, in_size - 1)
    return list(indices.T), list(weights.astype(real).T)


def _weighted_taps(x, dim, indices, weights, device):
    """sum_k weights[k] * x.index_select(dim, indices[k]), summed left to right."""
    out = None
    for index, weight in zip(indices, weights):
        tap = F.mul(F.index_select(x, dim, F.tensor(index, device=device)),
                    F.cast(_along(x, dim, weight, device), x.dtype))
        out = tap if out is None else F.add(out, tap)
    return out


def _along(x, dim, values, device):
    """``values`` (numpy) as a tensor shaped to broadcast along ``dim`` of x."""
    shape = [1] * x.ndim
    shape[dim] = len(values)
    return F.reshape(F.tensor(values, device=device), tuple(shape))


def _check(input, mode, align_corners, antialias):
    if not isinstance(input, Tensor):
        raise TypeError(f"interpolate(): argument 'input' must be Tensor, not "
                        f"{type(input).__name__}")
    if mode not in _MODES:
        raise NotImplementedError(f"interpolate: mode {mode!r} is not supported; expected one "
                                  f"of {list(_MODES)}")
    if align_corners is not None and mode not in _LINEAR:
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if antialias and (mode not in _ANTIALIAS or input.ndim != 4):
        raise ValueError(f"interpolate: the anti-alias option is restricted to the bilinear and "
                         f"bicubic modes and requires a 4-D tensor as input, got mode "
                         f"{mode!r} with {input.ndim}-D input")
    expected = _LINEAR.get(mode)
    if input.ndim not in (3, 4, 5) or (expected and input.ndim != expected):
        raise NotImplementedError(f"interpolate: got {input.ndim}D input with mode {mode!r}; "
                                  f"expected {f'{expected}D' if expected else '3D, 4D or 5D'} "
                                  f"(N, C, ...) input")
    nearest = mode in ("nearest", "nearest-exact")
    if not (input.dtype.is_floating_point or (nearest and input.dtype is dtypes.uint8)):
        raise RuntimeError(f"interpolate: expected a floating point input (or uint8 for the "
                           f"nearest modes), got {input.dtype.name} with mode {mode!r}")


@public
def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """interpolate(input, size=None, scale_factor=None, mode='nearest', align_corners=None,
    recompute_scale_factor=None, antialias=False) -> Tensor

    Resamples the spatial dims of (N, C, L), (N, C, H, W) or (N, C, D, H, W) input to
    ``size``, or to floor(in * scale_factor). nearest: out[i] = x[min(floor(i * s),
    in - 1)], s = in / out (or 1 / scale_factor); nearest-exact rounds (i + 0.5) * s;
    linear / bilinear / trilinear weigh the two neighbours of the source position
    s * (i + 0.5) - 0.5 (align_corners=False) or i * (in - 1) / (out - 1), dim by dim;
    bicubic weighs the four neighbours floor(src) - 1 .. floor(src) + 2 (clamped to the
    border) with Keys' cubic convolution kernel (a = -0.75), without clamping the result;
    area averages (adaptive_avg_pool2d / 3d). antialias=True (bilinear and bicubic, 4-D
    input) resamples as PIL: when shrinking, the filter (the triangle, or the cubic with
    a = -0.5) widens by the scale, and each output's weights are normalised to sum 1.

    >>> x = minflow.tensor([[[[1.0, 2.0]]]])
    >>> minflow.nn.functional.interpolate(x, scale_factor=2).tolist()
    [[[[1.0, 1.0, 2.0, 2.0], [1.0, 1.0, 2.0, 2.0]]]]
    """
    _check(input, mode, align_corners, antialias)
    out_size, scales = _output_size(input, size, scale_factor, recompute_scale_factor)
    if min(out_size) <= 0:
        raise RuntimeError(f"interpolate: Input and output sizes should be greater than 0, "
                           f"but got input ({', '.join(map(str, input.shape[2:]))}) and "
                           f"output ({', '.join(map(str, out_size))})")
    if mode == "area":
        if input.ndim == 3:
            pooled = F.adaptive_avg_pool2d(F.unsqueeze(input, 2), (1, out_size[0]))
            return F.squeeze(pooled, 2)
        pool = F.adaptive_avg_pool2d if input.ndim == 4 else F.adaptive_avg_pool3d
        return pool(input, out_size)
    device, x = input.device, input
    real = np.float64 if input.dtype is dtypes.float64 else np.float32
    # the last dim first: the sums then nest as torch's, h0 (w0 x00 + w1 x01) + h1 (...)
    for i in reversed(range(input.ndim - 2)):
        dim, in_size = i + 2, input.shape[i + 2]
        if antialias:
            indices, weights = _antialias_weights(in_size, out_size[i], scales[i],
                                                  bool(align_corners), mode, real)
            x = _weighted_taps(x, dim, indices, weights, device)
        elif mode == "bicubic":
            indices, weights = _cubic_weights(in_size, out_size[i], scales[i],
                                              bool(align_corners), real)
            x = _weighted_taps(x, dim, indices, weights, device)
        elif mode in _LINEAR:
            idx0, idx1, lam0, lam1 = _linear_weights(in_size, out_size[i], scales[i],
                                                     bool(align_corners), real)
            x = _weighted_taps(x, dim, (idx0, idx1), (lam0, lam1), device)
        else:
            index = _nearest_index(in_size, out_size[i], scales[i], mode == "nearest-exact")
            x = F.index_select(x, dim, F.tensor(index, device=device))
    return x


@public
def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """upsample(input, size=None, scale_factor=None, mode='nearest', align_corners=None)
    -> Tensor

    interpolate under its deprecated name.

    >>> minflow.nn.functional.upsample(minflow.ones(1, 1, 2), scale_factor=2).shape
    minflow.Size([1, 1, 4])
    """
    return interpolate(input, size, scale_factor, mode, align_corners)

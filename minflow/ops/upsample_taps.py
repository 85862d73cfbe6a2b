"""Where each output of one resampled dim reads, and with what weights (interpolate's tables).

Computed on the host with numpy from the sizes alone (never from data), so the same tables
serve every device and graph mode. A table is ``(indices, weights)``: lists of arrays of
length ``out_size``, one pair per tap, out[i] = sum_k weights[k][i] * x[indices[k][i]].
Each function follows torch's CPU kernel step by step, in the precision torch uses
(``real``: float32 for float16 and float32 input, float64 for float64 input and for the
weights of uint8 input).
"""
import math

import numpy as np

CUBIC_A = -0.75     # the cubic convolution's parameter, as torch (Keys' kernel)
# antialias=True resamples as PIL: each filter's half-width in input pixels at scale 1
SUPPORT = {"bilinear": 1, "bicubic": 2, "lanczos": 3}


def source_scale(in_size, out_size, scale, align_corners, real):
    """Source step per output index, in the input's compute precision, as torch."""
    if align_corners:
        return real((in_size - 1) / (out_size - 1)) if out_size > 1 else real(0)
    return real(1.0 / scale) if scale is not None and scale > 0 else real(in_size / out_size)


def nearest_index(in_size, out_size, scale, exact, real, shortcut):
    """nearest: floor(i * s); nearest-exact: floor((i + 0.5) * s); clamped to the input.
    ``shortcut`` maps out == in and out == 2 in directly (whatever the scale)."""
    if shortcut and not exact and out_size == in_size:
        return np.arange(out_size)
    if shortcut and not exact and out_size == 2 * in_size:
        return np.arange(out_size) // 2
    dst = np.arange(out_size, dtype=real)
    step = source_scale(in_size, out_size, scale, False, real)
    src = np.floor((dst + real(0.5)) * step if exact else dst * step)
    return np.minimum(src.astype(np.int64), in_size - 1)


def _source_index(in_size, out_size, scale, align_corners, cubic, real):
    """The real source position of each output index (torch's
    area_pixel_compute_source_index): clamped at 0 except for the cubic taps."""
    step = source_scale(in_size, out_size, scale, align_corners, real)
    dst = np.arange(out_size, dtype=real)
    if align_corners:
        return step * dst
    src = step * (dst + real(0.5)) - real(0.5)
    return src if cubic else np.maximum(src, real(0))


def _floor_and_fraction(src, in_size, real):
    """(index, t): index = floor(src) capped at in_size - 1, t = src - index clamped to
    [0, 1] (torch's guard_index_and_lambda).

    NOTE: torch floors with floorf, in float32 whatever the precision of src."""
    index = np.minimum(np.floor(src.astype(np.float32)).astype(np.int64), in_size - 1)
    return index, np.clip(src - index, 0, 1).astype(real)


def linear_taps(in_size, out_size, scale, align_corners, real, stored=None):
    """Two taps: x[i0] (1 - t) + x[i1] t, i1 = i0 + 1 but at the last input; the weights
    in dtype ``stored`` (default ``real``), 1 - t computed from the stored t as torch."""
    stored = stored or real
    src = _source_index(in_size, out_size, scale, align_corners, False, real)
    index, t = _floor_and_fraction(src, in_size, real)
    t = t.astype(stored)
    return [index, index + (index < in_size - 1)], [(real(1) - t).astype(stored), t]


def cubic_taps(in_size, out_size, scale, align_corners, real, stored=None):
    """Four taps at floor(src) - 1 .. floor(src) + 2, clamped to the border, weighed by
    Keys' cubic convolution kernel (a = -0.75); the weights in dtype ``stored``."""
    src = _source_index(in_size, out_size, scale, align_corners, True, real)
    index, t = _floor_and_fraction(src, in_size, real)
    rest = real(1) - t
    weights = [keys_cubic(d, CUBIC_A, real) for d in (t + real(1), t, rest, rest + real(1))]
    indices = [np.clip(index + k - 1, 0, in_size - 1) for k in range(4)]
    return indices, [w.astype(stored or real) for w in weights]


def keys_cubic(x, a, real):
    """Keys' cubic convolution kernel at distances ``x``: 0 from |x| = 2 on.

    >>> taps = minflow.ops.upsample_taps
    >>> taps.keys_cubic(np.array([0.0, 0.5, 1.5, 2.0]), -0.75, np.float64).tolist()
    [1.0, 0.59375, -0.09375, 0.0]
    """
    x, a = np.abs(x), real(a)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.where(x < 1, near, np.where(x < 2, far, 0)).astype(real)


def _sinc(x):
    safe = np.where(x == 0, 1, np.pi * x)
    return np.where(x == 0, 1, np.sin(safe) / safe)


def filter_at(mode, x, real):
    """PIL's filters: the triangle, Keys' cubic with a = -0.5 (not torch's -0.75 of plain
    bicubic), or Lanczos-3, sinc(x) sinc(x / 3) on [-3, 3)."""
    if mode == "bilinear":
        return np.maximum(1 - np.abs(x), 0).astype(real)
    if mode == "bicubic":
        return keys_cubic(x, -0.5, real)
    return np.where((x >= -3) & (x < 3), _sinc(x) * _sinc(x / 3), 0).astype(real)


def _sum_taps(weights):
    """Each row's sum, left to right as torch (numpy's sum pairs terms differently)."""
    total = weights[:, 0].copy()
    for k in range(1, weights.shape[1]):
        total += weights[:, k]
    return total


def antialias_taps(in_size, out_size, scale, align_corners, mode, real):
    """Antialiased resampling (torch's, after PIL): when shrinking, the filter widens by
    the scale and so covers every input pixel under an output one; each output's weights
    are normalised to sum 1 (so borders need no clamped taps)."""
    step = source_scale(in_size, out_size, scale, align_corners, real)
    support = real(SUPPORT[mode] * max(step, 1))
    taps = 2 * math.ceil(support) + 1
    center = step * (np.arange(out_size, dtype=real) + real(0.5))
    low = np.maximum((center - support + real(0.5)).astype(np.int64), 0)
    size = np.minimum((center + support + real(0.5)).astype(np.int64), in_size) - low
    offsets = np.arange(taps)
    invscale = real(1) / step if step >= 1 else real(1)
    position = (offsets + low[:, None] - center[:, None] + real(0.5)) * invscale
    weights = np.where(offsets < size[:, None], filter_at(mode, position, real), real(0))
    total = _sum_taps(weights)[:, None]
    weights = np.where(total != 0, weights / np.where(total != 0, total, 1), weights)
    indices = np.minimum(low[:, None] + offsets, in_size - 1)
    return list(indices.T), list(weights.astype(real).T)


def uint8_taps(in_size, out_size, scale, align_corners, mode):
    """(indices, weights, largest): torch's uint8 bilinear / bicubic taps (antialias=False),
    in float64. The taps floor(src) - 1 .. floor(src) + 2 (cubic) or floor(src),
    floor(src) + 1 (linear) that fall outside the input add their weight to the border
    tap instead; ``largest`` is the largest weight seen while adding, which sets the
    fixed-point precision."""
    taps = 2 if mode == "bilinear" else 4
    real = np.float64
    src = _source_index(in_size, out_size, scale, align_corners, taps == 4, real)
    index, t = _floor_and_fraction(src, in_size, real)
    half = taps // 2
    low = index - half + 1
    start = np.maximum(low, 0)
    size = np.clip(np.minimum(index + half + 1, in_size) - start, 0, taps)
    weights, largest = np.zeros((out_size, taps)), 0.0
    rows, slot = np.arange(out_size), np.zeros(out_size, dtype=np.int64)
    for j in range(taps):
        distance = (j + 1 - half) - t
        value = (filter_at("bilinear", distance, real) if taps == 2
                 else keys_cubic(distance, CUBIC_A, real))
        slot = np.where(low + j <= 0, 0, np.where(low + j >= in_size - 1, size - 1, slot))
        weights[rows, slot] += value
        largest = max(largest, weights[rows, slot].max())
        slot = slot + 1
    indices = np.minimum(start[:, None] + np.arange(taps), in_size - 1)
    return list(indices.T), list(weights.T), largest


def fixed_point(weights, largest):
    """(int weights, precision): float64 weights as integers scaled by 2**precision, the
    largest precision (at most 22) that keeps ``largest`` in int16, rounded half away
    from 0 (torch's uint8 kernels, after PIL).

    >>> taps = minflow.ops.upsample_taps
    >>> ints, precision = taps.fixed_point([np.array([0.25]), np.array([0.75])], 0.75)
    >>> precision, [w.tolist() for w in ints]
    (15, [[8192], [24576]])
    """
    weights = np.stack(weights)
    precision = 0
    while precision < 22 and int(0.5 + largest * (1 << (precision + 1))) < (1 << 15):
        precision += 1
    scaled = weights * (1 << precision)
    ints = np.trunc(scaled + np.where(scaled < 0, -0.5, 0.5)).astype(np.int64)
    return list(ints), precision

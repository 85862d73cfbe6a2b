"""Fractional max pooling (Graham, 2014), as torch's fractional_max_pool2d/3d.

Each output cell takes the max of a ``kernel_size`` window whose start along a dim is
``int((i + u) * alpha) - int(u * alpha)``, alpha = (input - kernel) / (output - 1), for one
random u in [0, 1) per sample, plane and dim (the last window ends at the input's edge):
windows at pseudo-random strides between 1 and 2 that shrink the input by a fraction.
``_random_samples`` (N, C, dims) fixes the u's, as torch's; they are drawn otherwise.

Composite: the window starts are computed on the host from the u's, every window is
gathered with one ``take_along_dim`` and reduced with ``max`` (the first maximum, NaN
first, in the window's row-major order, as torch's kernel), so autograd gives torch's
gradient (the output grads added at the maxima).
"""
import numpy as np

from ..core.device import to_numpy
from ..core.functional import public
from ..core.namespace import F
from .conv import _pair

__all__ = ["fractional_max_pool2d", "fractional_max_pool3d",
           "fractional_max_pool2d_with_indices", "fractional_max_pool3d_with_indices"]


def _starts(samples, size, out, kernel):
    """(planes, out) window starts along one dim, from the (planes,) u's, as torch's
    generate_intervals (computed in float64, truncated toward zero)."""
    u = samples.astype(np.float64)
    if out == 1:
        return np.full((u.size, 1), size - kernel, np.int64)
    alpha = (size - kernel) / (out - 1)
    i = np.arange(out - 1, dtype=np.float64)
    starts = np.trunc((i + u[:, None]) * alpha) - np.trunc(u * alpha)[:, None]
    return np.concatenate([starts, np.full((u.size, 1), size - kernel)], 1).astype(np.int64)


def _ratios(name, value, dims):
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (float(value),) * dims
    if isinstance(value, (tuple, list)) and len(value) == dims:
        return tuple(float(v) for v in value)
    raise ValueError(f"{name} requires output_ratio to either be a single number or a tuple "
                     f"of {dims} numbers, got {value!r}")


def _check_samples(name, samples, n, c, dims):
    """torch's checks: (at least n, c, dims); extra rows are not used."""
    shape = tuple(samples.shape)
    if len(shape) != 3:
        raise RuntimeError(f"{name}(): expected _random_samples to have 3 dimensions, got "
                           f"{len(shape)}")
    if shape[0] < n:
        raise RuntimeError(f"{name}(): expected _random_samples.size(0) no less than the "
                           f"input batch size {n}, got {shape[0]}")
    if shape[1] != c:
        raise RuntimeError(f"{name}(): expected _random_samples.size(1) to equal the input "
                           f"channel size {c}, got {shape[1]}")
    if shape[2] != dims:
        raise RuntimeError(f"{name}(): expected _random_samples.size(2) to equal {dims}, got "
                           f"{shape[2]}")


def _pool(name, input, kernel_size, output_size, output_ratio, return_indices,
          _random_samples, dims):
    if input.ndim not in (dims + 1, dims + 2):
        raise RuntimeError(f"{name}(): expected a {dims + 1}D or {dims + 2}D input, got "
                           f"shape {list(input.shape)}")
    batched = input.ndim == dims + 2
    x = input if batched else F.unsqueeze(input, 0)
    n, c, spatial = x.shape[0], x.shape[1], tuple(x.shape[2:])
    kernel = _pair(name, "kernel_size", kernel_size, dims)
    if output_size is None:
        if output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output_size or an "
                             f"output_ratio")
        ratio = _ratios(name, output_ratio, dims)
        for r in ratio:
            if not 0 < r < 1:
                raise ValueError(f"{name}: output_ratio must be between 0 and 1 (got "
                                 f"{output_ratio})")
        output_size = [int(s * r) for s, r in zip(spatial, ratio)]
    out = _pair(name, "output_size", output_size, dims)
    names = ("height", "width") if dims == 2 else ("time", "height", "width")
    for dim, s, k, o in zip(names, spatial, kernel, out):
        # as torch: the 2-D pool's last window may end at the input's edge, the 3-D one's
        # must end before it
        if o + k - 1 > s or (dims == 3 and o + k - 1 == s):
            raise RuntimeError(f"{name}(): pool {dim} {k} too large relative to input {dim} "
                               f"{s} (output {dim} {o})")
        if o < 1 or k < 1:
            raise RuntimeError(f"{name}(): expected positive output and kernel sizes, got "
                               f"{out} and {kernel}")
    if _random_samples is None:
        _random_samples = F.rand(n, c, dims, dtype=x.dtype, device=x.device)
    else:
        _check_samples(name, _random_samples, n, c, dims)
    u = to_numpy(_random_samples.detach().float()._data)[:n].reshape(n * c, dims)
    # torch's 2-D kernel takes its u's in (width, height) order, the 3-D one in (t, h, w)
    order = (1, 0) if dims == 2 else (0, 1, 2)
    starts = [_starts(u[:, j], s, o, k)
              for j, s, o, k in zip(order, spatial, out, kernel)]
    # flat index (in the plane) of every window element: (planes, *out, *kernel)
    index = np.zeros((n * c,) + tuple(out) + tuple(kernel), np.int64)
    stride = 1
    for d in reversed(range(dims)):
        along = starts[d][:, :, None] + np.arange(kernel[d])       # (planes, out_d, k_d)
        shape = [n * c] + [1] * (2 * dims)
        shape[1 + d], shape[1 + dims + d] = out[d], kernel[d]
        index = index + (along * stride).reshape(shape)
        stride *= spatial[d]
    windows = int(np.prod(kernel))
    flat_index = F.tensor(index.reshape(n, c, -1), device=x.device)
    values = F.take_along_dim(F.reshape(x, (n, c, -1)), flat_index, 2)
    values = F.reshape(values, (n, c, int(np.prod(out)), windows))
    best, where = F.max(values, -1)
    indices = F.take_along_dim(F.reshape(flat_index, (n, c, -1, windows)),
                               F.unsqueeze(where, -1), -1)
    best = F.reshape(best, (n, c) + tuple(out))
    indices = F.reshape(indices, (n, c) + tuple(out))
    if not batched:
        best, indices = F.squeeze(best, 0), F.squeeze(indices, 0)
    return (best, indices) if return_indices else best


@public
def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
    return_indices=False, _random_samples=None) -> Tensor (and indices)

    Max pooling of (N, C, H, W) or (C, H, W) input over ``kernel_size`` windows at
    pseudo-random strides, to ``output_size`` or ``output_ratio`` of the input's size.

    >>> x = minflow.arange(16.0).reshape(1, 1, 4, 4)
    >>> minflow.nn.functional.fractional_max_pool2d(x, 2, output_size=2).tolist()
    [[[[5.0, 7.0], [13.0, 15.0]]]]
    """
    return _pool("fractional_max_pool2d", input, kernel_size, output_size, output_ratio,
                 return_indices, _random_samples, 2)


@public
def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
    return_indices=False, _random_samples=None) -> Tensor (and indices)

    fractional_max_pool2d over (N, C, T, H, W) or (C, T, H, W) input.

    >>> x = minflow.arange(27.0).reshape(1, 3, 3, 3)
    >>> minflow.nn.functional.fractional_max_pool3d(x, 2, output_size=1).tolist()
    [[[[26.0]]]]
    """
    return _pool("fractional_max_pool3d", input, kernel_size, output_size, output_ratio,
                 return_indices, _random_samples, 3)


@public
def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None,
                                       output_ratio=None, return_indices=False,
                                       _random_samples=None):
    """fractional_max_pool2d with return_indices=True: (values, indices), each index a
    position in its input plane (row * width + column).

    >>> x = minflow.arange(16.0).reshape(1, 1, 4, 4)
    >>> minflow.nn.functional.fractional_max_pool2d_with_indices(x, 2, 2)[1].tolist()
    [[[[5, 7], [13, 15]]]]
    """
    return fractional_max_pool2d(input, kernel_size, output_size, output_ratio, True,
                                 _random_samples)


@public
def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None,
                                       output_ratio=None, return_indices=False,
                                       _random_samples=None):
    """fractional_max_pool3d with return_indices=True: (values, indices), each index a
    position in its input volume.

    >>> x = minflow.arange(27.0).reshape(1, 3, 3, 3)
    >>> minflow.nn.functional.fractional_max_pool3d_with_indices(x, 2, 1)[1].tolist()
    [[[[26]]]]
    """
    return fractional_max_pool3d(input, kernel_size, output_size, output_ratio, True,
                                 _random_samples)

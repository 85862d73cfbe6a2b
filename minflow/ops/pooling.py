"""More pooling, with PyTorch's signatures (minflow.nn.functional takes ``__all__``).

Composites of the pooling ops in ops/conv.py and ops/conv3d.py: max_pool1d, avg_pool1d
and the adaptive 1-D pools pool a height of 1; adaptive_max_pool2d/3d are max_pool2d/3d
where the windows tile the input evenly, else one max over all (uneven) windows gathered
side by side; lp_pool1d/2d/3d are average pools of x^p, times the window size, to the
power 1/p; the ``*_with_indices`` functions are the pools with return_indices=True.
"""
import numpy as np

from ..core import dtype as dtypes
from ..core.functional import public
from ..core.namespace import F
from .conv import (_batched, _check_output_dims, _pair, _unbatched, adaptive_avg_pool2d,
                   avg_pool2d, max_pool2d)
from .conv3d import avg_pool3d, max_pool3d

__all__ = ["max_pool1d", "avg_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
           "adaptive_avg_pool1d", "adaptive_max_pool1d", "lp_pool1d", "lp_pool2d", "lp_pool3d",
           "max_pool1d_with_indices", "max_pool2d_with_indices", "max_pool3d_with_indices",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
           "adaptive_max_pool3d_with_indices"]


def _one(fn, name, value, default=None):
    if value is None or (isinstance(value, (tuple, list)) and not value):
        return default
    (value,) = _pair(fn, name, value, 1)
    return value


def _check_1d(fn, input, kernel_size, stride, padding, dilation, ceil_mode):
    """The 1-D arguments, checked here so that errors name ``fn`` and the 1-D values (the
    work is done by a 2-D pooling op)."""
    if not input.dtype.is_floating_point:
        raise dtypes.DTypeError(f"{fn}: expected a floating point input, got "
                                f"{input.dtype.name}")
    for name, value in (("kernel_size", kernel_size), ("stride", stride),
                        ("dilation", dilation)):
        if value <= 0:
            raise RuntimeError(f"{fn}: {name} should be greater than zero, got {value}")
    if not 0 <= padding <= (dilation * (kernel_size - 1) + 1) // 2:
        raise RuntimeError(f"{fn}: pad should be at least 0 and at most half of effective "
                           f"kernel size, but got pad={padding}, kernel_size={kernel_size} and "
                           f"dilation={dilation}")
    span = input.shape[-1] + 2 * padding - dilation * (kernel_size - 1) - 1
    size = (-(-span // stride) if ceil_mode else span // stride) + 1
    if size < 1:
        raise RuntimeError(f"{fn}: Given input size {list(input.shape)}, the calculated "
                           f"output length {size} is too small (kernel_size={kernel_size}, "
                           f"padding={padding}, dilation={dilation})")


@public
def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
    return_indices=False) -> Tensor, or (Tensor, indices)

    Max over windows of an (N, C, L) or (C, L) input: max_pool2d over a height of 1;
    indices are positions along L.

    >>> minflow.nn.functional.max_pool1d(minflow.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2).tolist()
    [[[3.0, 2.0]]]
    """
    fn = "max_pool1d"
    input, squeeze = _batched(fn, input, 3)
    k = _pair(fn, "kernel_size", kernel_size, 1)[0]
    stride, padding = _one(fn, "stride", stride, k), _one(fn, "padding", padding)
    dilation = _one(fn, "dilation", dilation)
    _check_1d(fn, input, k, stride, padding, dilation, ceil_mode)
    out = max_pool2d(F.unsqueeze(input, 2), (1, k), (1, stride), (0, padding), (1, dilation),
                     ceil_mode, return_indices)
    if return_indices:
        return tuple(_unbatched(F.squeeze(t, 2), squeeze) for t in out)
    return _unbatched(F.squeeze(out, 2), squeeze)


@public
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
    count_include_pad=True) -> Tensor

    Mean over windows of an (N, C, L) or (C, L) input: avg_pool2d over a height of 1.

    >>> minflow.nn.functional.avg_pool1d(minflow.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2).tolist()
    [[[2.0, 1.0]]]
    """
    fn = "avg_pool1d"
    input, squeeze = _batched(fn, input, 3)
    k = _pair(fn, "kernel_size", kernel_size, 1)[0]
    stride, padding = _one(fn, "stride", stride, k), _one(fn, "padding", padding)
    _check_1d(fn, input, k, stride, padding, 1, ceil_mode)
    out = avg_pool2d(F.unsqueeze(input, 2), (1, k), (1, stride), (0, padding), ceil_mode,
                     count_include_pad)
    return _unbatched(F.squeeze(out, 2), squeeze)


def _adaptive_size(fn, input, output_size, dims):
    size = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * dims
    what = "a pair" if dims == 2 else "a triple"
    if not all(s is None or (isinstance(s, int) and not isinstance(s, bool)) for s in size):
        raise TypeError(f"{fn}: expected output_size to be an int or {what} of ints or "
                        f"None, got {output_size!r}")
    if len(size) != dims or not all(s is None or s > 0 for s in size):
        raise RuntimeError(f"{fn}: expected output_size to be a positive int or {what} of "
                           f"positive ints or None, got {output_size!r}")
    return tuple(input.shape[2 + i] if s is None else s for i, s in enumerate(size))


def _adaptive_windows(size, out):
    """(out, K) positions of each window [floor(i size / out), ceil((i + 1) size / out))
    along one dim, K the largest window's size; a shorter window repeats its last position
    (which changes neither its max nor the first position of that max)."""
    i = np.arange(out)
    start, end = (i * size) // out, -((-(i + 1) * size) // out)
    return np.minimum(start[:, None] + np.arange(int((end - start).max())), end[:, None] - 1)


def _uneven_max(input, out_size):
    """(values, flat indices) of the max over each adaptive window, all windows at once:
    the windows gathered dim by dim into (N, C, *out_size, prod(K)), then one max."""
    (n, c), size, dims = tuple(input.shape[:2]), tuple(input.shape[2:]), len(out_size)
    windows = [_adaptive_windows(s, o) for s, o in zip(size, out_size)]
    x, position = input, np.zeros((1,) * 2 * dims, np.int64)
    for i, window in enumerate(windows):
        x = F.index_select(x, 2 + i, F.tensor(window.reshape(-1), device=input.device))
        shape = [1] * 2 * dims
        shape[i], shape[dims + i] = window.shape
        position = position * size[i] + window.reshape(shape)
    x = F.reshape(x, (n, c) + tuple(d for window in windows for d in window.shape))
    x = F.permute(x, (0, 1) + tuple(range(2, 2 + 2 * dims, 2)) + tuple(range(3, 3 + 2 * dims,
                                                                          2)))
    values, arg = F.max(F.reshape(x, (n, c) + tuple(out_size) + (-1,)), -1)
    table = F.tensor(position.reshape(tuple(out_size) + (-1,)), device=input.device)
    table = F.expand(table, (n, c) + tuple(table.shape))
    return values, F.squeeze(F.gather(table, -1, F.unsqueeze(arg, -1)), -1)


def _adaptive_max(fn, input, output_size, return_indices, dims):
    """adaptive_max_pool2d / 3d: one max pool where the windows tile each dim evenly."""
    _check_output_dims(fn, input, output_size)
    input, squeeze = _batched(fn, input, dims + 2,
                              f"{fn}(): Expected {dims + 1}D or {dims + 2}D tensor")
    if not input.dtype.is_floating_point:
        raise dtypes.DTypeError(f"{fn}: expected a floating point input, got "
                                f"{input.dtype.name}")
    if 0 in tuple(input.shape)[1:]:
        raise RuntimeError(f"{fn}(): Expected input to have non-zero size for non-batch "
                           f"dimensions, but input has sizes {list(input.shape)}")
    size, out_size = tuple(input.shape[2:]), _adaptive_size(fn, input, output_size, dims)
    if all(s % o == 0 for s, o in zip(size, out_size)):
        pool = max_pool2d if dims == 2 else max_pool3d
        out = pool(input, tuple(s // o for s, o in zip(size, out_size)), return_indices=True)
    else:
        out = _uneven_max(input, out_size)
    if return_indices:
        return tuple(_unbatched(t, squeeze) for t in out)
    return _unbatched(out[0], squeeze)


@public
def adaptive_max_pool2d(input, output_size, return_indices=False):
    """adaptive_max_pool2d(input, output_size, return_indices=False) -> Tensor, or
    (Tensor, indices)

    Max over windows that tile each dim into output_size (an int, or a pair whose None
    entries keep the input's size): window i of a dim of size H spans
    [floor(i * H / out), ceil((i + 1) * H / out)); indices are flat h * W + w positions.

    >>> x = minflow.arange(16.0).reshape(1, 1, 4, 4)
    >>> minflow.nn.functional.adaptive_max_pool2d(x, 1).tolist()
    [[[[15.0]]]]
    """
    return _adaptive_max("adaptive_max_pool2d", input, output_size, return_indices, 2)


@public
def adaptive_max_pool3d(input, output_size, return_indices=False):
    """adaptive_max_pool3d(input, output_size, return_indices=False) -> Tensor, or
    (Tensor, indices)

    Max over windows that tile each of D, H, W into output_size (an int, or a triple
    whose None entries keep the input's size), windows as adaptive_max_pool2d's;
    indices are flat d * H * W + h * W + w positions.

    >>> x = minflow.arange(27.0).reshape(1, 1, 3, 3, 3)
    >>> minflow.nn.functional.adaptive_max_pool3d(x, 2).tolist()
    [[[[[13.0, 14.0], [16.0, 17.0]], [[22.0, 23.0], [25.0, 26.0]]]]]
    """
    return _adaptive_max("adaptive_max_pool3d", input, output_size, return_indices, 3)


def _adaptive_1d(fn, pool, input, output_size, **kwargs):
    """``pool`` (a 2-D adaptive pool) over a height of 1, for an (N, C, L) or (C, L) input."""
    input, squeeze = _batched(fn, input, 3)
    if isinstance(output_size, (tuple, list)):
        if len(output_size) != 1:
            raise RuntimeError(f"{fn}: expected output_size to be an int or a tuple of one "
                               f"int, got {output_size!r}")
        (output_size,) = output_size
    if isinstance(output_size, bool) or not isinstance(output_size, int):
        raise TypeError(f"{fn}: expected output_size to be an int, got {output_size!r}")
    if output_size < 1:
        raise RuntimeError(f"{fn}: expected output_size to be a positive int, got "
                           f"{output_size!r}")
    out = pool(F.unsqueeze(input, 2), (1, output_size), **kwargs)
    if isinstance(out, tuple):
        return tuple(_unbatched(F.squeeze(t, 2), squeeze) for t in out)
    return _unbatched(F.squeeze(out, 2), squeeze)


@public
def adaptive_avg_pool1d(input, output_size):
    """adaptive_avg_pool1d(input, output_size) -> Tensor

    Mean over windows that tile the last dim of an (N, C, L) or (C, L) input into
    ``output_size``: window i spans [floor(i L / out), ceil((i + 1) L / out)).

    >>> minflow.nn.functional.adaptive_avg_pool1d(minflow.tensor([[[1.0, 3.0, 2.0]]]), 2).tolist()
    [[[2.0, 2.5]]]
    """
    return _adaptive_1d("adaptive_avg_pool1d", adaptive_avg_pool2d, input, output_size)


@public
def adaptive_max_pool1d(input, output_size, return_indices=False):
    """adaptive_max_pool1d(input, output_size, return_indices=False) -> Tensor, or
    (Tensor, indices)

    Max over windows that tile the last dim into ``output_size`` (as adaptive_avg_pool1d);
    indices are positions along L.

    >>> minflow.nn.functional.adaptive_max_pool1d(minflow.tensor([[[1.0, 3.0, 2.0]]]), 2).tolist()
    [[[3.0, 3.0]]]
    """
    return _adaptive_1d("adaptive_max_pool1d", adaptive_max_pool2d, input, output_size,
                        return_indices=return_indices)


def _lp_root(pooled, window, norm_type):
    """(sign(avg) * relu(|avg|) * window)^(1/p), torch's formula (NaN where avg < 0)."""
    kept = F.mul(F.sign(pooled), F.relu(F.abs(pooled)))
    return F.pow(F.mul(kept, window), 1.0 / norm_type)


@public
def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False) -> Tensor

    Power-average pooling over the last dim: out = (sum over each window of x^p)^(1/p),
    p = norm_type (p = inf would be max pooling; p = 1 sum pooling).

    >>> x = minflow.tensor([[[3.0, 4.0, 1.0, 1.0]]])
    >>> minflow.nn.functional.lp_pool1d(x, 2, 2).tolist()
    [[[5.0, 1.4142135381698608]]]
    """
    pooled = avg_pool1d(F.pow(input, norm_type), kernel_size, stride, 0, ceil_mode)
    (window,) = _pair("lp_pool1d", "kernel_size", kernel_size, 1)
    return _lp_root(pooled, window, norm_type)


@public
def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False) -> Tensor

    Power-average pooling over the last two dims: out = (sum over each window of
    x^p)^(1/p), p = norm_type.

    >>> x = minflow.tensor([[[[3.0, 4.0], [0.0, 0.0]]]])
    >>> minflow.nn.functional.lp_pool2d(x, 2, 2).tolist()
    [[[[5.0]]]]
    """
    kh, kw = _pair("lp_pool2d", "kernel_size", kernel_size)
    pooled = avg_pool2d(F.pow(input, norm_type), kernel_size, stride, 0, ceil_mode)
    return _lp_root(pooled, kh * kw, norm_type)


@public
def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False) -> Tensor

    Power-average pooling over the last three dims: out = (sum over each window of
    x^p)^(1/p), p = norm_type.

    >>> x = minflow.tensor([[[[[3.0, 4.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]]]]])
    >>> minflow.nn.functional.lp_pool3d(x, 2, 2).tolist()
    [[[[[5.0]]]]]
    """
    kd, kh, kw = _pair("lp_pool3d", "kernel_size", kernel_size, 3)
    pooled = avg_pool3d(F.pow(input, norm_type), kernel_size, stride, 0, ceil_mode)
    return _lp_root(pooled, kd * kh * kw, norm_type)


@public
def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
    ceil_mode=False, return_indices=False) -> (Tensor, indices)

    max_pool1d's values and indices, whatever return_indices says (as torch).

    >>> x = minflow.tensor([[[1.0, 3.0, 2.0, 0.0]]])
    >>> [t.tolist() for t in minflow.nn.functional.max_pool1d_with_indices(x, 2)]
    [[[[3.0, 2.0]]], [[[1, 2]]]]
    """
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


@public
def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
    ceil_mode=False, return_indices=False) -> (Tensor, indices)

    max_pool2d's values and flat h * W + w indices, whatever return_indices says.

    >>> x = minflow.arange(16.0).reshape(1, 1, 4, 4)
    >>> minflow.nn.functional.max_pool2d_with_indices(x, 2)[1].tolist()
    [[[[5, 7], [13, 15]]]]
    """
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


@public
def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
    ceil_mode=False, return_indices=False) -> (Tensor, indices)

    max_pool3d's values and flat d * H * W + h * W + w indices, whatever return_indices
    says.

    >>> x = minflow.arange(8.0).reshape(1, 1, 2, 2, 2)
    >>> minflow.nn.functional.max_pool3d_with_indices(x, 2)[1].tolist()
    [[[[[7]]]]]
    """
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


@public
def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool1d_with_indices(input, output_size, return_indices=False)
    -> (Tensor, indices)

    adaptive_max_pool1d's values and indices, whatever return_indices says.

    >>> x = minflow.tensor([[[1.0, 3.0, 2.0]]])
    >>> minflow.nn.functional.adaptive_max_pool1d_with_indices(x, 2)[1].tolist()
    [[[1, 1]]]
    """
    return adaptive_max_pool1d(input, output_size, True)


@public
def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool2d_with_indices(input, output_size, return_indices=False)
    -> (Tensor, indices)

    adaptive_max_pool2d's values and flat h * W + w indices, whatever return_indices says.

    >>> x = minflow.arange(16.0).reshape(1, 1, 4, 4)
    >>> minflow.nn.functional.adaptive_max_pool2d_with_indices(x, 1)[1].tolist()
    [[[[15]]]]
    """
    return adaptive_max_pool2d(input, output_size, True)


@public
def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool3d_with_indices(input, output_size, return_indices=False)
    -> (Tensor, indices)

    adaptive_max_pool3d's values and flat d * H * W + h * W + w indices, whatever
    return_indices says.

    >>> x = minflow.arange(8.0).reshape(1, 1, 2, 2, 2)
    >>> minflow.nn.functional.adaptive_max_pool3d_with_indices(x, 1)[1].tolist()
    [[[[[7]]]]]
    """
    return adaptive_max_pool3d(input, output_size, True)

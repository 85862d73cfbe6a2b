"""More pooling, with PyTorch's signatures (minflow.nn.functional takes ``__all__``).

Composites of the pooling ops in ops/conv.py: max_pool1d, avg_pool1d and the adaptive 1-D
pools pool a height of 1; adaptive_max_pool2d is max_pool2d where the windows tile the
input evenly, else a max over each (uneven) window in turn; lp_pool1d/2d are average
pools of x^p, times the window size, to the power 1/p.
"""
from ..core import dtype as dtypes
from ..core.functional import public
from ..core.namespace import F
from .conv import (_batched, _check_output_dims, _pair, _unbatched, adaptive_avg_pool2d,
                   avg_pool2d, max_pool2d)

__all__ = ["max_pool1d", "avg_pool1d", "adaptive_max_pool2d", "adaptive_avg_pool1d",
           "adaptive_max_pool1d", "lp_pool1d", "lp_pool2d"]


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
    k = _one(fn, "kernel_size", kernel_size)
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
    k = _one(fn, "kernel_size", kernel_size)
    stride, padding = _one(fn, "stride", stride, k), _one(fn, "padding", padding)
    _check_1d(fn, input, k, stride, padding, 1, ceil_mode)
    out = avg_pool2d(F.unsqueeze(input, 2), (1, k), (1, stride), (0, padding), ceil_mode,
                     count_include_pad)
    return _unbatched(F.squeeze(out, 2), squeeze)


def _adaptive_size(input, output_size):
    size = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * 2
    if not all(s is None or (isinstance(s, int) and not isinstance(s, bool)) for s in size):
        raise TypeError(f"adaptive_max_pool2d: expected output_size to be an int or a pair of "
                        f"ints or None, got {output_size!r}")
    if len(size) != 2 or not all(s is None or s > 0 for s in size):
        raise RuntimeError(f"adaptive_max_pool2d: expected output_size to be a positive int or "
                           f"a pair of positive ints or None, got {output_size!r}")
    return tuple(input.shape[2 + i] if s is None else s for i, s in enumerate(size))


def _bounds(i, size, out):
    return (i * size) // out, -((-(i + 1) * size) // out)


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
    _check_output_dims("adaptive_max_pool2d", input, output_size)
    input, squeeze = _batched("adaptive_max_pool2d", input, 4,
                              "adaptive_max_pool2d(): Expected 3D or 4D tensor")
    if not input.dtype.is_floating_point:
        raise dtypes.DTypeError(f"adaptive_max_pool2d: expected a floating point input, "
                                f"got {input.dtype.name}")
    if 0 in tuple(input.shape)[1:]:
        raise RuntimeError(f"adaptive_max_pool2d(): Expected input to have non-zero size for "
                           f"non-batch dimensions, but input has sizes {list(input.shape)}")
    (n, c, h, w), (oh, ow) = input.shape, _adaptive_size(input, output_size)
    if h % oh == 0 and w % ow == 0:     # even windows: one max_pool2d
        out = max_pool2d(input, (h // oh, w // ow), return_indices=True)
    else:
        values, indices = [], []
        for i in range(oh):
            top, bottom = _bounds(i, h, oh)
            for j in range(ow):
                left, right = _bounds(j, w, ow)
                window = input[:, :, top:bottom, left:right].reshape(n, c, -1)
                value, arg = F.max(window, -1)
                values.append(value)
                width = right - left
                indices.append((arg // width + top) * w + arg % width + left)
        out = tuple(F.reshape(F.stack(t, -1), (n, c, oh, ow)) for t in (values, indices))
    if return_indices:
        return tuple(_unbatched(t, squeeze) for t in out)
    return _unbatched(out[0], squeeze)


def _adaptive_1d(fn, pool, input, output_size, **kwargs):
    """``pool`` (a 2-D adaptive pool) over a height of 1, for an (N, C, L) or (C, L) input."""
    input, squeeze = _batched(fn, input, 3)
    if isinstance(output_size, (tuple, list)):
        if len(output_size) != 1:
            raise RuntimeError(f"{fn}: expected output_size to be an int or a tuple of one "
                               f"int, got {output_size!r}")
        (output_size,) = output_size
    if isinstance(output_size, bool) or not isinstance(output_size, int) or output_size < 1:
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

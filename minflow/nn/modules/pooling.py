"""Pooling layers: MaxPool2d, AvgPool2d, AdaptiveAvgPool2d and AdaptiveMaxPool2d over
(N, C, H, W) or (C, H, W) inputs; MaxPool1d, AvgPool1d, AdaptiveAvgPool1d and
AdaptiveMaxPool1d over (N, C, L) or (C, L); the 3-D pools over (N, C, D, H, W) or
(C, D, H, W); LPPool1d/2d/3d; MaxUnpool1d/2d/3d; FractionalMaxPool2d/3d."""
import numbers

from ...core.namespace import F
from .. import functional as nnF
from .conv import _ntuple
from .module import Module

__all__ = ["MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d", "AdaptiveMaxPool2d", "MaxPool1d",
           "AvgPool1d", "AdaptiveAvgPool1d", "AdaptiveMaxPool1d",
           "LPPool1d", "LPPool2d", "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d",
           "AdaptiveMaxPool3d", "LPPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d",
           "FractionalMaxPool2d", "FractionalMaxPool3d"]


class MaxPool2d(Module):
    """Max over each ``kernel_size`` window, moved by ``stride`` (default: kernel_size).

    >>> pool = minflow.nn.MaxPool2d(2)
    >>> pool
    MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
    >>> pool(minflow.arange(16.0).reshape(1, 1, 4, 4)).tolist()
    [[[[5.0, 7.0], [13.0, 15.0]]]]
    """

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"
                f", dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class AvgPool2d(Module):
    """Mean over each ``kernel_size`` window, moved by ``stride`` (default: kernel_size).

    >>> pool = minflow.nn.AvgPool2d(2)
    >>> pool(minflow.arange(16.0).reshape(1, 1, 4, 4)).tolist()
    [[[[2.5, 4.5], [10.5, 12.5]]]]
    """

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input):
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool2d(Module):
    """Mean pooling to a fixed ``output_size`` (int, or (H, W) with None keeping that dim).

    >>> minflow.nn.AdaptiveAvgPool2d((1, 1))(minflow.ones(2, 3, 5, 7)).shape
    minflow.Size([2, 3, 1, 1])
    """

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool2d(Module):
    """Max pooling to a fixed ``output_size`` (int, or (H, W) with None keeping that dim).

    >>> minflow.nn.AdaptiveMaxPool2d(1)(minflow.arange(4.0).reshape(1, 1, 2, 2)).tolist()
    [[[[3.0]]]]
    """

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class MaxPool1d(MaxPool2d):
    """Max over each ``kernel_size`` window along L, moved by ``stride`` (default: kernel_size).

    >>> minflow.nn.MaxPool1d(2)(minflow.tensor([[[1.0, 3.0, 2.0, 0.0]]])).tolist()
    [[[3.0, 2.0]]]
    """

    def forward(self, input):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


def _single(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


class AvgPool1d(Module):
    """Mean over each ``kernel_size`` window along L, moved by ``stride`` (default:
    kernel_size).

    >>> minflow.nn.AvgPool1d(2)(minflow.tensor([[[1.0, 3.0, 2.0, 0.0]]])).tolist()
    [[[2.0, 1.0]]]
    """

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool1d(Module):
    """Mean pooling of the last dim to a fixed ``output_size``.

    >>> minflow.nn.AdaptiveAvgPool1d(2)(minflow.ones(2, 3, 5)).shape
    minflow.Size([2, 3, 2])
    """

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return nnF.adaptive_avg_pool1d(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(Module):
    """Max pooling of the last dim to a fixed ``output_size``.

    >>> minflow.nn.AdaptiveMaxPool1d(1)(minflow.tensor([[[1.0, 3.0, 2.0]]])).tolist()
    [[[3.0]]]
    """

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input):
        return nnF.adaptive_max_pool1d(input, self.output_size, self.return_indices)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class _LPPoolNd(Module):
    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        if isinstance(norm_type, bool) or not isinstance(norm_type, numbers.Real):
            raise ValueError(f"{type(self).__name__}: expected norm_type to be a number, got "
                             f"{norm_type!r}")
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode

    def extra_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    """(sum of x^p over each window along L)^(1/p), p = norm_type.

    >>> minflow.nn.LPPool1d(2, 2)(minflow.tensor([[[3.0, 4.0]]])).tolist()
    [[[5.0]]]
    """

    def forward(self, input):
        return F.lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride,
                           self.ceil_mode)


class LPPool2d(_LPPoolNd):
    """(sum of x^p over each 2-D window)^(1/p), p = norm_type.

    >>> minflow.nn.LPPool2d(1, 2)(minflow.ones(1, 1, 4, 4)).tolist()
    [[[[4.0, 4.0], [4.0, 4.0]]]]
    """

    def forward(self, input):
        return F.lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride,
                           self.ceil_mode)


class LPPool3d(_LPPoolNd):
    """(sum of x^p over each 3-D window)^(1/p), p = norm_type.

    >>> minflow.nn.LPPool3d(1, 2)(minflow.ones(1, 1, 2, 2, 2)).tolist()
    [[[[[8.0]]]]]
    """

    def forward(self, input):
        return F.lp_pool3d(input, float(self.norm_type), self.kernel_size, self.stride,
                           self.ceil_mode)


class MaxPool3d(MaxPool2d):
    """Max over each ``kernel_size`` (kD, kH, kW) window, moved by ``stride`` (default:
    kernel_size).

    >>> pool = minflow.nn.MaxPool3d(2)
    >>> pool
    MaxPool3d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
    >>> pool(minflow.arange(8.0).reshape(1, 1, 2, 2, 2)).tolist()
    [[[[[7.0]]]]]
    """

    def forward(self, input):
        return F.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class AvgPool3d(AvgPool2d):
    """Mean over each ``kernel_size`` (kD, kH, kW) window, moved by ``stride`` (default:
    kernel_size).

    >>> minflow.nn.AvgPool3d(2)(minflow.arange(8.0).reshape(1, 1, 2, 2, 2)).tolist()
    [[[[[3.5]]]]]
    """

    def forward(self, input):
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class AdaptiveAvgPool3d(AdaptiveAvgPool2d):
    """Mean pooling to a fixed ``output_size`` (int, or (D, H, W) with None keeping that
    dim).

    >>> minflow.nn.AdaptiveAvgPool3d((1, 2, None))(minflow.ones(2, 3, 4, 5, 6)).shape
    minflow.Size([2, 3, 1, 2, 6])
    """

    def forward(self, input):
        return F.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool3d(AdaptiveMaxPool2d):
    """Max pooling to a fixed ``output_size`` (int, or (D, H, W) with None keeping that
    dim).

    >>> minflow.nn.AdaptiveMaxPool3d(1)(minflow.arange(8.0).reshape(1, 1, 2, 2, 2)).tolist()
    [[[[[7.0]]]]]
    """

    def forward(self, input):
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class _MaxUnpoolNd(Module):
    """The shared part of MaxUnpool1d/2d/3d: kernel_size, stride (default kernel_size) and
    padding as tuples, and forward(input, indices, output_size=None)."""

    _dims = 0

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        name, n = type(self).__name__, self._dims
        self.kernel_size = _ntuple(kernel_size, n, name, "kernel_size")
        self.stride = _ntuple(stride if stride is not None else kernel_size, n, name, "stride")
        self.padding = _ntuple(padding, n, name, "padding")

    def forward(self, input, indices, output_size=None):
        function = (nnF.max_unpool1d, nnF.max_unpool2d, nnF.max_unpool3d)[self._dims - 1]
        return function(input, indices, self.kernel_size, self.stride, self.padding,
                        output_size)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """The partial inverse of MaxPool1d: values back at their indices, zeros elsewhere.

    >>> pool, unpool = minflow.nn.MaxPool1d(2, return_indices=True), minflow.nn.MaxUnpool1d(2)
    >>> unpool
    MaxUnpool1d(kernel_size=(2,), stride=(2,), padding=(0,))
    >>> unpool(*pool(minflow.tensor([[[1.0, 3.0, 2.0, 0.0]]]))).tolist()
    [[[0.0, 3.0, 2.0, 0.0]]]
    """

    _dims = 1


class MaxUnpool2d(_MaxUnpoolNd):
    """The partial inverse of MaxPool2d: values back at their indices, zeros elsewhere.

    >>> pool, unpool = minflow.nn.MaxPool2d(2, return_indices=True), minflow.nn.MaxUnpool2d(2)
    >>> unpool(*pool(minflow.tensor([[[[1.0, 2.0], [3.0, 4.0]]]]))).tolist()
    [[[[0.0, 0.0], [0.0, 4.0]]]]
    """

    _dims = 2


class MaxUnpool3d(_MaxUnpoolNd):
    """The partial inverse of MaxPool3d: values back at their indices, zeros elsewhere.

    >>> pool, unpool = minflow.nn.MaxPool3d(2, return_indices=True), minflow.nn.MaxUnpool3d(2)
    >>> unpool(*pool(minflow.arange(8.0).reshape(1, 1, 2, 2, 2))).shape
    minflow.Size([1, 1, 2, 2, 2])
    """

    _dims = 3


def _repeat(value, n):
    """A number as an n-tuple of it; a sequence as a tuple (checked by the functional)."""
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


class _FractionalMaxPoolNd(Module):
    """Fractional max pooling (nn.functional.fractional_max_pool2d/3d) to ``output_size``
    or ``output_ratio`` of the input; ``_random_samples`` (a buffer when given) fixes the
    window strides, else they are drawn at each call."""

    dims = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None,
                 return_indices=False, _random_samples=None):
        super().__init__()
        name = type(self).__name__
        self.kernel_size = _repeat(kernel_size, self.dims)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = None if output_size is None else _repeat(output_size, self.dims)
        self.output_ratio = None if output_ratio is None else _repeat(output_ratio, self.dims)
        if self.output_ratio is not None and not all(
                isinstance(r, numbers.Real) and not isinstance(r, bool) for r in self.output_ratio):
            raise TypeError(f"{name}: expected output_ratio to be a number or a tuple of "
                            f"{self.dims} numbers, got {output_ratio!r}")
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling "
                             f"ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        pool = nnF.fractional_max_pool2d if self.dims == 2 else nnF.fractional_max_pool3d
        return pool(input, self.kernel_size, self.output_size, self.output_ratio,
                    self.return_indices, _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Fractional max pooling over (N, C, H, W) or (C, H, W) input.

    >>> pool = minflow.nn.FractionalMaxPool2d(2, output_ratio=0.5)
    >>> pool(minflow.ones(1, 3, 8, 8)).shape
    minflow.Size([1, 3, 4, 4])
    """

    dims = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Fractional max pooling over (N, C, T, H, W) or (C, T, H, W) input.

    >>> minflow.nn.FractionalMaxPool3d(2, output_size=3)(minflow.ones(2, 5, 5, 5)).shape
    minflow.Size([2, 3, 3, 3])
    """

    dims = 3

"""Conv1d and Conv2d: cross-correlation with learnable filters (PyTorch's arguments)."""
import math

from ...core.namespace import F
from .. import init
from ..parameter import Parameter
from .linear import uniform_bias_
from .module import Module

__all__ = ["Conv1d", "Conv2d"]


def _ntuple(value, n, where, name):
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,) * n
    value = tuple(value)
    if len(value) != n or not all(isinstance(v, int) for v in value):
        raise ValueError(f"{where}: expected {name} to be an int or a tuple of {n} ints, got "
                         f"{value!r}")
    return value


class _ConvNd(Module):
    """The shared part of Conv1d / Conv2d: arguments, parameters, init and repr."""

    _dims = 0

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 groups, bias, padding_mode, device, dtype):
        super().__init__()
        name, n = type(self).__name__, self._dims
        if groups <= 0 or in_channels % groups or out_channels % groups:
            raise ValueError(f"{name}: in_channels ({in_channels}) and out_channels "
                             f"({out_channels}) must be divisible by groups ({groups})")
        if padding_mode != "zeros":
            raise NotImplementedError(
                f"{name}: padding_mode={padding_mode!r} is not supported (minflow pads with "
                f"zeros only); use padding_mode='zeros'")
        if isinstance(padding, str) and padding not in ("same", "valid"):
            raise ValueError(f"{name}: invalid padding string {padding!r}, should be one of "
                             f"['valid', 'same']")
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size = _ntuple(kernel_size, n, name, "kernel_size")
        self.stride = _ntuple(stride, n, name, "stride")
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, n, name,
                                                                         "padding")
        self.dilation = _ntuple(dilation, n, name, "dilation")
        self.padding_mode, self.transposed, self.output_padding = padding_mode, False, (0,) * n
        self.weight = Parameter(F.empty(out_channels, in_channels // groups, *self.kernel_size,
                                        device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(F.empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            uniform_bias_(self.bias, self.weight)

    def extra_repr(self):
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * self._dims:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * self._dims:
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        return s


class Conv1d(_ConvNd):
    """1-D convolution over an (N, C_in, L) input: weight (C_out, C_in / groups, k).

    >>> conv = minflow.nn.Conv1d(4, 8, 3, padding=1)
    >>> conv
    Conv1d(4, 8, kernel_size=(3,), stride=(1,), padding=(1,))
    >>> conv(minflow.ones(2, 4, 10)).shape
    minflow.Size([2, 8, 10])
    """

    _dims = 1

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
                 dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)

    def forward(self, input):
        return F.conv1d(input, self.weight, self.bias, self.stride, self.padding,
                        self.dilation, self.groups)


class Conv2d(_ConvNd):
    """2-D convolution over an (N, C_in, H, W) input: weight (C_out, C_in / groups, kH, kW).

    Weight and bias are initialised as PyTorch's: U(-k, k), k = 1/sqrt(C_in / groups * kH * kW).

    >>> conv = minflow.nn.Conv2d(3, 16, 3, stride=2, bias=False)
    >>> conv
    Conv2d(3, 16, kernel_size=(3, 3), stride=(2, 2), bias=False)
    >>> conv(minflow.ones(1, 3, 9, 9)).shape
    minflow.Size([1, 16, 4, 4])
    """

    _dims = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
                 dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)

    def forward(self, input):
        return F.conv2d(input, self.weight, self.bias, self.stride, self.padding,
                        self.dilation, self.groups)

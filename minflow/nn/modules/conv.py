"""Conv1d/2d/3d and ConvTranspose1d/2d/3d: (transposed) cross-correlation with learnable
filters (PyTorch's arguments)."""
import math

from ...core.namespace import F
from ...ops.infer import check_int
from ...ops.join import pad
from .. import init
from ..parameter import Parameter
from .linear import uniform_bias_
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
           "ConvTranspose3d"]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _ntuple(value, n, where, name):
    """An int or ``n`` ints as a tuple: a TypeError for anything else, a ValueError for
    the wrong count."""
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,) * n
    ints = isinstance(value, (tuple, list)) and all(isinstance(v, int) for v in value)
    if not ints or len(value) != n:
        raise (ValueError if ints else TypeError)(
            f"{where}: expected {name} to be an int or a tuple of {n} ints, got {value!r}")
    return tuple(value)


class _ConvNd(Module):
    """The shared part of the conv layers: arguments, parameters, init
    and repr. A transposed conv's weight is (in, out / groups, k...), as torch's."""

    _dims = 0
    _transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
                 dtype=None):
        super().__init__()
        name, n = type(self).__name__, self._dims
        for arg, value in (("in_channels", in_channels), ("out_channels", out_channels),
                           ("groups", groups)):
            # a fractional count fails torch's divisibility check (ValueError)
            check_int(name, arg, value, fractional=ValueError)
        if groups <= 0 or in_channels % groups or out_channels % groups:
            raise ValueError(f"{name}: in_channels ({in_channels}) and out_channels "
                             f"({out_channels}) must be divisible by groups ({groups})")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"{name}: padding_mode must be one of {list(_PADDING_MODES)}, but "
                             f"got padding_mode={padding_mode!r}")
        if isinstance(padding, str) and padding not in ("same", "valid"):
            raise ValueError(f"{name}: invalid padding string {padding!r}, should be one of "
                             f"['valid', 'same']")
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size = _ntuple(kernel_size, n, name, "kernel_size")
        self.stride = _ntuple(stride, n, name, "stride")
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, n, name,
                                                                         "padding")
        self.dilation = _ntuple(dilation, n, name, "dilation")
        self.padding_mode, self.transposed = padding_mode, self._transposed
        self._reversed_padding_repeated_twice = self._edge_padding()
        self.output_padding = (0,) * n
        channels = ((in_channels, out_channels // groups) if self._transposed
                    else (out_channels, in_channels // groups))
        self.weight = Parameter(F.empty(*channels, *self.kernel_size, device=device,
                                        dtype=dtype))
        if bias:
            self.bias = Parameter(F.empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def _edge_padding(self):
        """F.pad's (last_before, last_after, ...) for ``padding``, used with a padding_mode
        other than zeros; 'same' splits the total as torch does (the extra one after)."""
        pads = []
        for i in reversed(range(self._dims)):
            if self.padding == "same":
                total = self.dilation[i] * (self.kernel_size[i] - 1)
                pads += [total // 2, total - total // 2]
            else:
                pads += [0, 0] if self.padding == "valid" else [self.padding[i]] * 2
        return tuple(pads)

    def _conv_forward(self, function, input):
        if self.padding_mode == "zeros":
            return function(input, self.weight, self.bias, self.stride, self.padding,
                            self.dilation, self.groups)
        input = pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
        return function(input, self.weight, self.bias, self.stride, 0, self.dilation,
                        self.groups)

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
        if self.output_padding != (0,) * self._dims:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
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

    def forward(self, input):
        return self._conv_forward(F.conv1d, input)


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

    def forward(self, input):
        return self._conv_forward(F.conv2d, input)


class Conv3d(_ConvNd):
    """3-D convolution over an (N, C_in, D, H, W) input: weight (C_out, C_in / groups, kD,
    kH, kW), initialised as PyTorch's.

    >>> conv = minflow.nn.Conv3d(2, 4, 3, padding=1)
    >>> conv
    Conv3d(2, 4, kernel_size=(3, 3, 3), stride=(1, 1, 1), padding=(1, 1, 1))
    >>> conv(minflow.ones(1, 2, 4, 4, 4)).shape
    minflow.Size([1, 4, 4, 4, 4])
    """

    _dims = 3

    def forward(self, input):
        return self._conv_forward(F.conv3d, input)


class _ConvTransposeNd(_ConvNd):
    """The shared part of ConvTranspose1d/2d/3d: output_padding, and an ``output_size``
    argument to forward that picks it."""

    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        name = type(self).__name__
        if isinstance(padding, str):
            raise ValueError(f"{name}: padding must be an int or a tuple of ints, got "
                             f"{padding!r}")
        if padding_mode != "zeros":
            raise ValueError(f"{name}: only 'zeros' padding mode is supported, got "
                             f"padding_mode={padding_mode!r}")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)
        self.output_padding = _ntuple(output_padding, self._dims, name, "output_padding")

    def forward(self, input, output_size=None):
        output_padding = self.output_padding
        if output_size is not None:
            output_padding = self._output_padding(input, output_size)
        function = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[self._dims - 1]
        return function(input, self.weight, self.bias, self.stride, self.padding,
                        output_padding, self.groups, self.dilation)

    def _output_padding(self, input, output_size):
        """The output_padding that makes the output ``output_size`` (its last dims), as
        torch."""
        n = self._dims
        size = tuple(output_size)[-n:]
        pads = []
        for i in range(n):
            smallest = ((input.shape[i - n] - 1) * self.stride[i] - 2 * self.padding[i]
                        + self.dilation[i] * (self.kernel_size[i] - 1) + 1)
            extra = size[i] - smallest if len(size) == n else -1
            if not 0 <= extra < max(self.stride[i], self.dilation[i]):
                raise ValueError(f"{type(self).__name__}: requested an output size of "
                                 f"{list(size)}, but valid sizes range from {smallest} to "
                                 f"{smallest + max(self.stride[i], self.dilation[i]) - 1} in "
                                 f"dim {i}")
            pads.append(extra)
        return tuple(pads)


class ConvTranspose1d(_ConvTransposeNd):
    """1-D transposed convolution (the adjoint of Conv1d) over an (N, C_in, L) input:
    weight (C_in, C_out / groups, k), initialised as PyTorch's (fan_in from dim 1).

    >>> up = minflow.nn.ConvTranspose1d(4, 2, 3, stride=2)
    >>> up
    ConvTranspose1d(4, 2, kernel_size=(3,), stride=(2,))
    >>> up(minflow.ones(1, 4, 5)).shape
    minflow.Size([1, 2, 11])
    """

    _dims = 1


class ConvTranspose2d(_ConvTransposeNd):
    """2-D transposed convolution (the adjoint of Conv2d) over an (N, C_in, H, W) input:
    weight (C_in, C_out / groups, kH, kW), initialised as PyTorch's (fan_in from dim 1).

    >>> up = minflow.nn.ConvTranspose2d(8, 4, 3, stride=2, padding=1, output_padding=1)
    >>> up
    ConvTranspose2d(8, 4, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), output_padding=(1, 1))
    >>> up(minflow.ones(1, 8, 5, 5)).shape
    minflow.Size([1, 4, 10, 10])
    """

    _dims = 2


class ConvTranspose3d(_ConvTransposeNd):
    """3-D transposed convolution (the adjoint of Conv3d) over an (N, C_in, D, H, W)
    input: weight (C_in, C_out / groups, kD, kH, kW), initialised as PyTorch's.

    >>> up = minflow.nn.ConvTranspose3d(4, 2, 2, stride=2)
    >>> up
    ConvTranspose3d(4, 2, kernel_size=(2, 2, 2), stride=(2, 2, 2))
    >>> up(minflow.ones(1, 4, 3, 3, 3)).shape
    minflow.Size([1, 2, 6, 6, 6])
    """

    _dims = 3

"""Unfold (sliding blocks to columns) and Fold (columns back, summed): the layers of
F.unfold and F.fold."""
from .. import functional as nnF
from .module import Module

__all__ = ["Fold", "Unfold"]


class Fold(Module):
    """Combine (N, C * prod(kernel_size), L) columns into an (N, C, *output_size) tensor,
    summing overlapping values.

    >>> fold = minflow.nn.Fold(output_size=(3, 3), kernel_size=2)
    >>> fold
    Fold(output_size=(3, 3), kernel_size=2, dilation=1, padding=0, stride=1)
    >>> fold(minflow.ones(1, 4, 4)).shape
    minflow.Size([1, 1, 3, 3])
    """

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input):
        return nnF.fold(input, self.output_size, self.kernel_size, self.dilation,
                        self.padding, self.stride)

    def extra_repr(self):
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
                f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}")


class Unfold(Module):
    """Extract the sliding blocks of an (N, C, H, W) input as (N, C * kH * kW, L) columns.

    >>> unfold = minflow.nn.Unfold(kernel_size=(2, 3))
    >>> unfold(minflow.ones(2, 5, 3, 4)).shape
    minflow.Size([2, 30, 4])
    """

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation = kernel_size, dilation
        self.padding, self.stride = padding, stride

    def forward(self, input):
        return nnF.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")

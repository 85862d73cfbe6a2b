"""PixelShuffle, PixelUnshuffle and ChannelShuffle: the layers of the shuffles in
minflow/ops/shuffle.py."""
from .. import functional as nnF
from .module import Module

__all__ = ["PixelShuffle", "PixelUnshuffle", "ChannelShuffle"]


class PixelShuffle(Module):
    """(*, C * r^2, H, W) -> (*, C, H * r, W * r), r = upscale_factor.

    >>> minflow.nn.PixelShuffle(3)(minflow.ones(1, 9, 4, 4)).shape
    minflow.Size([1, 1, 12, 12])
    """

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return nnF.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """(*, C, H * r, W * r) -> (*, C * r^2, H, W), r = downscale_factor.

    >>> minflow.nn.PixelUnshuffle(3)(minflow.ones(1, 1, 12, 12)).shape
    minflow.Size([1, 9, 4, 4])
    """

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return nnF.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return f"downscale_factor={self.downscale_factor}"


class ChannelShuffle(Module):
    """Interleave the channels of an (N, C, *) input across ``groups`` groups.

    >>> minflow.nn.ChannelShuffle(2)(minflow.arange(4.0).reshape(1, 4, 1)).flatten().tolist()
    [0.0, 2.0, 1.0, 3.0]
    """

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return nnF.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"

"""Upsample, UpsamplingNearest2d and UpsamplingBilinear2d: layers over F.interpolate."""
from ...core.namespace import F
from .module import Module

__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]


class Upsample(Module):
    """Resamples (N, C, L), (N, C, H, W) or (N, C, D, H, W) input to ``size`` or by
    ``scale_factor`` (see minflow.nn.functional.interpolate for the modes: 'trilinear' for
    5-D input, as in 3-D UNets).

    >>> up = minflow.nn.Upsample(scale_factor=2, mode="bilinear")
    >>> up
    Upsample(scale_factor=2.0, mode='bilinear')
    >>> up(minflow.ones(1, 1, 2, 3)).shape
    minflow.Size([1, 1, 4, 6])
    >>> minflow.nn.Upsample(scale_factor=2, mode="trilinear")(minflow.ones(1, 1, 2, 2, 1)).shape
    minflow.Size([1, 1, 4, 4, 2])
    """

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(factor) for factor in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode, self.align_corners = mode, align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self):
        if self.scale_factor is not None:
            info = f"scale_factor={self.scale_factor!r}"
        else:
            info = f"size={self.size!r}"
        return info + f", mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """Upsample with mode='nearest' over (N, C, H, W) input.

    >>> minflow.nn.UpsamplingNearest2d(scale_factor=2)(minflow.ones(1, 1, 2, 2)).shape
    minflow.Size([1, 1, 4, 4])
    """

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Upsample with mode='bilinear' and align_corners=True over (N, C, H, W) input.

    >>> minflow.nn.UpsamplingBilinear2d(size=4)(minflow.ones(1, 1, 2, 2)).shape
    minflow.Size([1, 1, 4, 4])
    """

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)

"""Dropout, Dropout1d/2d/3d and the alpha dropouts: random zeroing (or SELU's
saturation value) while training, the identity in eval mode."""
from ...core.namespace import F
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
           "FeatureAlphaDropout"]


class _DropoutNd(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if isinstance(p, bool) or not isinstance(p, (int, float)):
            raise TypeError(f"{type(self).__name__}: expected p to be a number, got {p!r}")
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"{type(self).__name__}: dropout probability has to be between 0 "
                             f"and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zero each element with probability ``p`` and scale the rest by 1 / (1 - p) while
    training; the identity after ``eval()``.

    >>> drop = minflow.nn.Dropout(0.5).eval()
    >>> x = minflow.ones(4)
    >>> drop(x) is x
    True
    """

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zero whole channels of an (N, C, H, W) input with probability ``p`` while training.

    >>> minflow.nn.Dropout2d(0.2)(minflow.ones(2, 3, 4, 4)).shape
    minflow.Size([2, 3, 4, 4])
    """

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """Zero whole channels of an (N, C, L) or (C, L) input with probability ``p`` while
    training.

    >>> minflow.nn.Dropout1d(0.2)(minflow.ones(2, 3, 4)).shape
    minflow.Size([2, 3, 4])
    """

    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Zero whole channels of an (N, C, D, H, W) or (C, D, H, W) input with probability
    ``p`` while training.

    >>> minflow.nn.Dropout3d(0.2)
    Dropout3d(p=0.2, inplace=False)
    >>> minflow.nn.Dropout3d(0.2)(minflow.ones(2, 3, 2, 4, 4)).shape
    minflow.Size([2, 3, 2, 4, 4])
    """

    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Alpha dropout for SELU networks: keeps zero mean and unit variance while training.

    >>> minflow.nn.AlphaDropout(0.2)
    AlphaDropout(p=0.2, inplace=False)
    """

    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels while training.

    >>> minflow.nn.FeatureAlphaDropout(0.2)(minflow.ones(2, 3, 4)).shape
    minflow.Size([2, 3, 4])
    """

    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)

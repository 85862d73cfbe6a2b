"""Dropout and Dropout2d: random zeroing while training, the identity in eval mode."""
from ...core.namespace import F
from .module import Module

__all__ = ["Dropout", "Dropout2d"]


class _DropoutNd(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
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

"""Constant padding layers: ZeroPad1d/2d and ConstantPad1d/2d, around F.pad."""
from ...ops.join import pad
from .module import Module

__all__ = ["ConstantPad1d", "ConstantPad2d", "ZeroPad1d", "ZeroPad2d"]


def _sizes(name, padding, count):
    if isinstance(padding, int) and not isinstance(padding, bool):
        return (padding,) * count
    padding = tuple(padding)
    if len(padding) != count or not all(isinstance(p, int) for p in padding):
        raise ValueError(f"{name}: expected padding to be an int or a tuple of {count} ints, "
                         f"got {padding!r}")
    return padding


class _ConstantPadNd(Module):
    _count = 0

    def __init__(self, padding, value):
        super().__init__()
        self.padding = _sizes(type(self).__name__, padding, self._count)
        self.value = value

    def forward(self, input):
        return pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dim with ``value``: padding an int or (left, right).

    >>> minflow.nn.ConstantPad1d((1, 2), 3.5)(minflow.zeros(1, 2)).tolist()
    [[3.5, 0.0, 0.0, 3.5, 3.5]]
    """

    _count = 2


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two dims with ``value``: padding an int or (left, right, top, bottom).

    >>> minflow.nn.ConstantPad2d(1, 2.0)(minflow.zeros(1, 1, 1)).tolist()
    [[[2.0, 2.0, 2.0], [2.0, 0.0, 2.0], [2.0, 2.0, 2.0]]]
    """

    _count = 4


class ZeroPad1d(ConstantPad1d):
    """Pad the last dim with zeros: padding an int or (left, right).

    >>> minflow.nn.ZeroPad1d(1)(minflow.ones(1, 2)).tolist()
    [[0.0, 1.0, 1.0, 0.0]]
    """

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pad the last two dims with zeros: padding an int or (left, right, top, bottom).

    >>> minflow.nn.ZeroPad2d((1, 0, 0, 1))(minflow.ones(1, 1, 1)).tolist()
    [[[0.0, 1.0], [0.0, 0.0]]]
    """

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"

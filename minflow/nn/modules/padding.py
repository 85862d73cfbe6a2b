"""Padding layers around F.pad: ConstantPad1d/2d/3d and ZeroPad1d/2d/3d, and the edge
modes ReflectionPad1d/2d/3d, ReplicationPad1d/2d/3d and CircularPad1d/2d/3d."""
from ...ops.join import pad
from .conv import _ntuple
from .module import Module

__all__ = ["ConstantPad1d", "ConstantPad2d", "ZeroPad1d", "ZeroPad2d", "ReflectionPad1d",
           "ReflectionPad2d", "ReplicationPad1d", "ReplicationPad2d", "CircularPad1d",
           "CircularPad2d", "ConstantPad3d", "ZeroPad3d", "ReflectionPad3d",
           "ReplicationPad3d", "CircularPad3d"]


class _ConstantPadNd(Module):
    _count = 0

    def __init__(self, padding, value):
        super().__init__()
        self.padding = _ntuple(padding, self._count, type(self).__name__, "padding")
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


class ConstantPad3d(_ConstantPadNd):
    """Pad the last three dims with ``value``: padding an int or (left, right, top,
    bottom, front, back).

    >>> minflow.nn.ConstantPad3d((1, 0, 0, 0, 0, 1), 2.0)(minflow.zeros(1, 1, 1, 1)).tolist()
    [[[[2.0, 0.0]], [[2.0, 2.0]]]]
    """

    _count = 6


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


class ZeroPad3d(ConstantPad3d):
    """Pad the last three dims with zeros: padding an int or (left, right, top, bottom,
    front, back).

    >>> minflow.nn.ZeroPad3d(1)
    ZeroPad3d((1, 1, 1, 1, 1, 1))
    >>> minflow.nn.ZeroPad3d(1)(minflow.ones(1, 1, 1, 1)).shape
    minflow.Size([1, 3, 3, 3])
    """

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class _EdgePadNd(Module):
    _count = 0
    _mode = ""

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, self._count, type(self).__name__, "padding")

    def forward(self, input):
        if self._mode == "circular":    # as torch's _CircularPadNd: the dims first
            dims = self._count // 2
            if input.ndim not in (dims + 1, dims + 2):
                raise ValueError(f"{type(self).__name__}: expected {dims + 1}D or {dims + 2}D "
                                 f"input (got {input.ndim}D input)")
        return pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class ReflectionPad1d(_EdgePadNd):
    """Pad the last dim with its mirror image (the edge not repeated).

    >>> minflow.nn.ReflectionPad1d(2)(minflow.tensor([[0.0, 1.0, 2.0]])).tolist()
    [[2.0, 1.0, 0.0, 1.0, 2.0, 1.0, 0.0]]
    """

    _count, _mode = 2, "reflect"


class ReflectionPad2d(_EdgePadNd):
    """Pad the last two dims with their mirror images: (left, right, top, bottom).

    >>> minflow.nn.ReflectionPad2d(1)(minflow.ones(1, 2, 2)).shape
    minflow.Size([1, 4, 4])
    """

    _count, _mode = 4, "reflect"


class ReplicationPad1d(_EdgePadNd):
    """Pad the last dim by repeating its edge values.

    >>> minflow.nn.ReplicationPad1d((1, 2))(minflow.tensor([[0.0, 1.0]])).tolist()
    [[0.0, 0.0, 1.0, 1.0, 1.0]]
    """

    _count, _mode = 2, "replicate"


class ReplicationPad2d(_EdgePadNd):
    """Pad the last two dims by repeating their edge values: (left, right, top, bottom).

    >>> minflow.nn.ReplicationPad2d((1, 0, 0, 1))(minflow.ones(1, 2, 2)).shape
    minflow.Size([1, 3, 3])
    """

    _count, _mode = 4, "replicate"


class CircularPad1d(_EdgePadNd):
    """Pad the last dim by wrapping around.

    >>> minflow.nn.CircularPad1d(1)(minflow.tensor([[0.0, 1.0, 2.0]])).tolist()
    [[2.0, 0.0, 1.0, 2.0, 0.0]]
    """

    _count, _mode = 2, "circular"


class CircularPad2d(_EdgePadNd):
    """Pad the last two dims by wrapping around: (left, right, top, bottom).

    >>> minflow.nn.CircularPad2d(1)(minflow.ones(1, 2, 2)).shape
    minflow.Size([1, 4, 4])
    """

    _count, _mode = 4, "circular"


class ReflectionPad3d(_EdgePadNd):
    """Pad the last three dims with their mirror images: (left, right, top, bottom, front,
    back).

    >>> minflow.nn.ReflectionPad3d(1)(minflow.ones(1, 2, 2, 2)).shape
    minflow.Size([1, 4, 4, 4])
    """

    _count, _mode = 6, "reflect"


class ReplicationPad3d(_EdgePadNd):
    """Pad the last three dims by repeating their edge values: (left, right, top, bottom,
    front, back).

    >>> minflow.nn.ReplicationPad3d((1, 0, 0, 1, 2, 0))(minflow.ones(1, 2, 2, 2)).shape
    minflow.Size([1, 4, 3, 3])
    """

    _count, _mode = 6, "replicate"


class CircularPad3d(_EdgePadNd):
    """Pad the last three dims by wrapping around: (left, right, top, bottom, front, back).

    >>> minflow.nn.CircularPad3d(1)(minflow.ones(1, 2, 2, 2)).shape
    minflow.Size([1, 4, 4, 4])
    """

    _count, _mode = 6, "circular"

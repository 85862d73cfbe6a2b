"""More activation layers (SELU, CELU, the shrinks, Threshold, RReLU, Softmin, Softmax2d):
each holds its arguments and calls its function of minflow/ops/activation_extra.py."""
from .. import functional as nnF
from .activation import _inplace_repr
from .module import Module

__all__ = ["SELU", "CELU", "Softmin", "Softmax2d", "Softshrink", "Hardshrink", "Tanhshrink",
           "Threshold", "RReLU"]


class SELU(Module):
    """scale * (x if x > 0 else alpha * (exp(x) - 1)), torch's alpha and scale.

    >>> round(minflow.nn.SELU()(minflow.tensor([1.0])).item(), 4)
    1.0507
    """

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return nnF.selu(input, self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace, first=True)


class CELU(Module):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).

    >>> minflow.nn.CELU(alpha=2.0)
    CELU(alpha=2.0)
    """

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return nnF.celu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}" + _inplace_repr(self.inplace)


class Softmin(Module):
    """exp(-x) / sum(exp(-x)) along ``dim``.

    >>> minflow.nn.Softmin(dim=0)(minflow.zeros(2)).tolist()
    [0.5, 0.5]
    """

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return nnF.softmin(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmax2d(Module):
    """Softmax over the channels at each position of a (N, C, H, W) or (C, H, W) input.

    >>> minflow.nn.Softmax2d()(minflow.zeros(1, 2, 1, 1)).flatten().tolist()
    [0.5, 0.5]
    """

    def forward(self, input):
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D "
                             f"instead")
        return nnF.softmax(input, -3)


class Softshrink(Module):
    """x - lambd if x > lambd, x + lambd if x < -lambd, else 0.

    >>> minflow.nn.Softshrink(1.0)(minflow.tensor([-2.0, 0.5])).tolist()
    [-1.0, 0.0]
    """

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return nnF.softshrink(input, self.lambd)

    def extra_repr(self):
        return str(self.lambd)


class Hardshrink(Module):
    """0 if -lambd <= x <= lambd, else x.

    >>> minflow.nn.Hardshrink(1.0)(minflow.tensor([-2.0, 0.5])).tolist()
    [-2.0, 0.0]
    """

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return nnF.hardshrink(input, self.lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class Tanhshrink(Module):
    """x - tanh(x).

    >>> minflow.nn.Tanhshrink()(minflow.tensor([0.0])).tolist()
    [0.0]
    """

    def forward(self, input):
        return nnF.tanhshrink(input)


class Threshold(Module):
    """x if x > threshold else value.

    >>> minflow.nn.Threshold(0.1, 20.0)(minflow.tensor([0.0, 1.0])).tolist()
    [20.0, 1.0]
    """

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input):
        return nnF.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}" + _inplace_repr(self.inplace)


class RReLU(Module):
    """x if x > 0 else a * x, a ~ U(lower, upper) per element in training, else
    (lower + upper) / 2.

    >>> minflow.nn.RReLU(0.1, 0.3).eval()(minflow.tensor([-1.0, 1.0])).tolist()
    [-0.2..., 1.0]
    """

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return nnF.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}" + _inplace_repr(self.inplace)

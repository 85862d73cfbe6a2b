"""Activation layers: each holds its arguments and calls the functional op.

(MultiheadAttention, which PyTorch also files under activations, is in attention.py.)
"""
import warnings

from ...core.namespace import F
from .. import functional as nnF
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["ReLU", "LeakyReLU", "ELU", "GELU", "SiLU", "Sigmoid", "Tanh", "Softmax",
           "LogSoftmax", "Softplus", "Hardtanh", "ReLU6", "Hardsigmoid", "Hardswish", "Mish",
           "LogSigmoid", "Softsign", "PReLU", "GLU"]


def _inplace_repr(inplace, first=False):
    if not inplace:
        return ""
    return "inplace=True" if first else ", inplace=True"


class ReLU(Module):
    """max(x, 0) elementwise.

    >>> minflow.nn.ReLU()(minflow.tensor([-1.0, 2.0])).tolist()
    [0.0, 2.0]
    """

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace, first=True)


class LeakyReLU(Module):
    """x if x >= 0 else negative_slope * x.

    >>> minflow.nn.LeakyReLU(0.1)(minflow.tensor([-1.0, 2.0])).tolist()
    [-0.1..., 2.0]
    """

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}" + _inplace_repr(self.inplace)


class ELU(Module):
    """x if x > 0 else alpha * (exp(x) - 1).

    >>> minflow.nn.ELU()(minflow.tensor([0.0, 2.0])).tolist()
    [0.0, 2.0]
    """

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}" + _inplace_repr(self.inplace)


class GELU(Module):
    """x * Phi(x) (Phi: the standard normal cdf); approximate="tanh" uses the tanh formula.

    >>> minflow.nn.GELU(approximate="tanh")
    GELU(approximate='tanh')
    """

    def __init__(self, approximate="none"):
        super().__init__()
        if approximate not in ("none", "tanh"):
            raise ValueError(f"GELU: approximate must be 'none' or 'tanh', got {approximate!r}")
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class SiLU(Module):
    """x * sigmoid(x).

    >>> minflow.nn.SiLU()(minflow.tensor([0.0])).tolist()
    [0.0]
    """

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace, first=True)


class Sigmoid(Module):
    """1 / (1 + exp(-x)).

    >>> minflow.nn.Sigmoid()(minflow.tensor([0.0])).tolist()
    [0.5]
    """

    def forward(self, input):
        return F.sigmoid(input)


class Tanh(Module):
    """tanh(x).

    >>> minflow.nn.Tanh()(minflow.tensor([0.0])).tolist()
    [0.0]
    """

    def forward(self, input):
        return F.tanh(input)


class Softmax(Module):
    """exp(x) / sum(exp(x)) along ``dim``.

    >>> minflow.nn.Softmax(dim=1)(minflow.zeros(1, 4)).tolist()
    [[0.25, 0.25, 0.25, 0.25]]
    """

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """log(softmax(x)) along ``dim``, computed stably.

    >>> minflow.nn.LogSoftmax(dim=0)(minflow.zeros(2)).tolist()
    [-0.693..., -0.693...]
    """

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.log_softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softplus(Module):
    """log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold.

    >>> minflow.nn.Softplus()(minflow.tensor([0.0, 30.0])).tolist()
    [0.693..., 30.0]
    """

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardtanh(Module):
    """x clamped to [min_val, max_val].

    >>> minflow.nn.Hardtanh()(minflow.tensor([-3.0, 0.5, 3.0])).tolist()
    [-1.0, 0.5, 1.0]
    """

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None,
                 max_value=None):
        super().__init__()
        for old, new, value in (("min_value", "min_val", min_value),
                                ("max_value", "max_val", max_value)):
            if value is not None:
                warnings.warn(f"keyword argument `{old}` is deprecated and renamed to `{new}`",
                              FutureWarning, stacklevel=2)
        min_val = min_val if min_value is None else min_value
        max_val = max_val if max_value is None else max_value
        if not max_val > min_val:
            raise ValueError(f"{type(self).__name__}: expected max_val > min_val, got "
                             f"min_val={min_val}, max_val={max_val}")
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}" + _inplace_repr(self.inplace)


class ReLU6(Hardtanh):
    """min(max(x, 0), 6).

    >>> minflow.nn.ReLU6()(minflow.tensor([-1.0, 7.0])).tolist()
    [0.0, 6.0]
    """

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace, first=True)


class Hardsigmoid(Module):
    """0 if x <= -3, 1 if x >= 3, else x / 6 + 1 / 2.

    >>> minflow.nn.Hardsigmoid()(minflow.tensor([-4.0, 0.0])).tolist()
    [0.0, 0.5]
    """

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.hardsigmoid(input, self.inplace)


class Hardswish(Module):
    """0 if x < -3, x if x > 3, else x * (x + 3) / 6.

    >>> minflow.nn.Hardswish()(minflow.tensor([-4.0, 4.0])).tolist()
    [-0.0, 4.0]
    """

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.hardswish(input, self.inplace)


class Mish(Module):
    """x * tanh(softplus(x)).

    >>> minflow.nn.Mish()(minflow.tensor([0.0])).tolist()
    [0.0]
    """

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.mish(input, self.inplace)


class LogSigmoid(Module):
    """log(sigmoid(x)), computed stably.

    >>> minflow.nn.LogSigmoid()(minflow.tensor([-100.0])).tolist()
    [-100.0]
    """

    def forward(self, input):
        return F.logsigmoid(input)


class Softsign(Module):
    """x / (1 + |x|).

    >>> minflow.nn.Softsign()(minflow.tensor([1.0])).tolist()
    [0.5]
    """

    def forward(self, input):
        return F.softsign(input)


class PReLU(Module):
    """x if x > 0 else a * x with a learnable slope ``a``: one (num_parameters=1) or one
    per channel, starting at ``init``.

    >>> act = minflow.nn.PReLU()
    >>> act
    PReLU(num_parameters=1)
    >>> act(minflow.tensor([-2.0, 1.0])).tolist()
    [-0.5, 1.0]
    """

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters, self.init = num_parameters, init
        self.weight = Parameter(F.empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return nnF.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class GLU(Module):
    """Gated linear unit over ``dim``: a * sigmoid(b) for the two halves a, b.

    >>> minflow.nn.GLU()
    GLU(dim=-1)
    >>> minflow.nn.GLU(dim=0)(minflow.ones(4, 3)).shape
    minflow.Size([2, 3])
    """

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return nnF.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"

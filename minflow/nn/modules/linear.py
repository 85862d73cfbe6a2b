"""Identity, Linear (y = x W^T + b) and Bilinear (y = x1^T A x2 + b)."""
import math

from ...core.namespace import F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Identity", "Linear", "Bilinear", "NonDynamicallyQuantizableLinear"]


class Identity(Module):
    """Returns its input unchanged (arguments are accepted and ignored, as in PyTorch).

    >>> x = minflow.ones(2)
    >>> minflow.nn.Identity(54, unused="argument")(x) is x
    True
    """

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """y = x W^T + b over the last dim of ``x``: ``in_features`` -> ``out_features``.

    weight (out_features, in_features) ~ U(-k, k) and bias ~ U(-k, k), k = 1/sqrt(in_features)
    (PyTorch's kaiming_uniform_ with a=sqrt(5)).

    >>> m = minflow.nn.Linear(784, 256)
    >>> m
    Linear(in_features=784, out_features=256, bias=True)
    >>> m(minflow.ones(32, 784)).shape
    minflow.Size([32, 256])
    """

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight = Parameter(F.empty(out_features, in_features, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(F.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            uniform_bias_(self.bias, self.weight)

    def forward(self, input):
        shape = input._data.shape
        if not shape or shape[-1] != self.in_features:
            raise RuntimeError(f"{type(self).__name__}: expected input with last dimension "
                               f"{self.in_features} (in_features), got shape "
                               f"{tuple(input.shape)}")
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Bilinear(Module):
    """y = x1^T A x2 + b over the last dims of x1 and x2: weight A (out_features,
    in1_features, in2_features) and bias ~ U(-k, k), k = 1/sqrt(in1_features).

    >>> m = minflow.nn.Bilinear(20, 30, 40)
    >>> m
    Bilinear(in1_features=20, in2_features=30, out_features=40, bias=True)
    >>> m(minflow.ones(128, 20), minflow.ones(128, 30)).shape
    minflow.Size([128, 40])
    """

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None,
                 dtype=None):
        super().__init__()
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        self.weight = Parameter(F.empty(out_features, in1_features, in2_features,
                                        device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(F.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class NonDynamicallyQuantizableLinear(Linear):
    """Linear under the class name PyTorch gives MultiheadAttention's out_proj (for repr)."""


def uniform_bias_(bias, weight):
    """bias ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in from ``weight`` (Linear and Conv)."""
    fan_in, _ = init._calculate_fan_in_and_fan_out(weight)
    bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
    init.uniform_(bias, -bound, bound)

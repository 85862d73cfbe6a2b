"""LayerNorm (over the trailing ``normalized_shape`` dims of each sample) and GroupNorm
(over groups of channels of each sample)."""
from ...core.namespace import F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["LayerNorm", "GroupNorm"]


class LayerNorm(Module):
    """y = (x - E[x]) / sqrt(Var[x] + eps) * weight + bias over the last dims given by
    ``normalized_shape``; weight starts at ones and bias at zeros.

    >>> ln = minflow.nn.LayerNorm(2)
    >>> ln
    LayerNorm((2,), eps=1e-05, elementwise_affine=True, bias=True)
    >>> ln(minflow.tensor([[1.0, 3.0]])).tolist()
    [[-0.99999..., 0.99999...]]
    """

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        kw = {"device": device, "dtype": dtype}
        self.register_parameter("weight", Parameter(F.empty(*self.normalized_shape, **kw))
                                if elementwise_affine else None)
        self.register_parameter("bias", Parameter(F.empty(*self.normalized_shape, **kw))
                                if elementwise_affine and bias else None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class GroupNorm(Module):
    """y = (x - E[x]) / sqrt(Var[x] + eps) * weight + bias, statistics over each group of
    num_channels / num_groups channels of a sample; weight (num_channels,) starts at ones
    and bias at zeros.

    >>> gn = minflow.nn.GroupNorm(2, 4)
    >>> gn
    GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)
    >>> gn(minflow.ones(3, 4, 5)).shape
    minflow.Size([3, 4, 5])
    """

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None,
                 dtype=None, *, bias=True):
        super().__init__()
        if num_groups <= 0 or num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels ({num_channels}) must be divisible by "
                             f"num_groups ({num_groups})")
        self.num_groups, self.num_channels = num_groups, num_channels
        self.eps, self.affine = eps, affine
        kw = {"device": device, "dtype": dtype}
        self.register_parameter("weight", Parameter(F.empty(num_channels, **kw))
                                if affine else None)
        self.register_parameter("bias", Parameter(F.empty(num_channels, **kw))
                                if affine and bias else None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
                f"affine={self.affine}, bias={self.bias is not None}")

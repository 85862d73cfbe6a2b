"""LayerNorm and RMSNorm (over the trailing ``normalized_shape`` dims of each sample),
GroupNorm (over groups of channels of each sample) and InstanceNorm1d/2d (over the
positions of each sample and channel)."""
from ...core.namespace import F
from ...ops.infer import check_int
from .. import init
from ..parameter import Parameter
from .batchnorm import _NormBase, affine_parameters, reset_affine
from .module import Module

__all__ = ["LayerNorm", "RMSNorm", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d",
           "InstanceNorm3d", "LocalResponseNorm"]


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
        affine_parameters(self, self.normalized_shape, elementwise_affine, bias,
                          {"device": device, "dtype": dtype})
        self.reset_parameters()

    def reset_parameters(self):
        reset_affine(self)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class RMSNorm(Module):
    """y = x / sqrt(mean(x^2) + eps) * weight over the last dims given by
    ``normalized_shape``; weight starts at ones; eps=None takes the dtype's epsilon.

    >>> norm = minflow.nn.RMSNorm(2)
    >>> norm
    RMSNorm((2,), eps=None, elementwise_affine=True)
    >>> [round(v, 4) for v in norm(minflow.tensor([[3.0, -4.0]])).flatten().tolist()]
    [0.8485, -1.1314]
    """

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        weight = F.empty(*self.normalized_shape, device=device, dtype=dtype) \
            if elementwise_affine else None
        self.register_parameter("weight", None if weight is None else Parameter(weight))
        self.reset_parameters()

    def reset_parameters(self):
        if self.weight is not None:
            init.ones_(self.weight)

    def forward(self, input):
        return F.rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


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
        check_int("GroupNorm", "num_groups", num_groups)
        check_int("GroupNorm", "num_channels", num_channels, fractional=ValueError)
        if num_groups <= 0 or num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels ({num_channels}) must be divisible by "
                             f"num_groups ({num_groups})")
        self.num_groups, self.num_channels = num_groups, num_channels
        self.eps, self.affine = eps, affine
        affine_parameters(self, (num_channels,), affine, bias, {"device": device, "dtype": dtype})
        self.reset_parameters()

    def reset_parameters(self):
        reset_affine(self)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
                f"affine={self.affine}, bias={self.bias is not None}")


class _InstanceNorm(_NormBase):
    """The shared part of InstanceNorm1d/2d/3d: statistics per sample and
    channel over the positions; optional affine weight and bias, and running statistics
    (used in eval mode) with ``track_running_stats``."""

    _dims = 0

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias)

    def forward(self, input):
        batched = self._dims + 2
        if input.ndim not in (batched - 1, batched):
            raise ValueError(f"{type(self).__name__}: expected {batched - 1}D (unbatched) or "
                             f"{batched}D (batched) input, got {input.ndim}D input")
        unbatched = input.ndim == batched - 1
        if unbatched:
            input = F.unsqueeze(input, 0)
        out = F.instance_norm(input, self.running_mean, self.running_var, self.weight,
                              self.bias, self.training or not self.track_running_stats,
                              0.0 if self.momentum is None else self.momentum, self.eps)
        return F.squeeze(out, 0) if unbatched else out

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization of an (N, C, L) or (C, L) input, per sample and channel.

    >>> norm = minflow.nn.InstanceNorm1d(2)
    >>> norm
    InstanceNorm1d(2, eps=1e-05, momentum=0.1, affine=False, bias=False, track_running_stats=False)
    >>> norm(minflow.tensor([[[1.0, 3.0], [0.0, 4.0]]])).tolist()
    [[[-0.99999..., 0.99999...], [-0.99999..., 0.99999...]]]
    """

    _dims = 1


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of an (N, C, H, W) or (C, H, W) input, per sample and channel.

    >>> minflow.nn.InstanceNorm2d(3, affine=True)(minflow.randn(2, 3, 4, 4)).shape
    minflow.Size([2, 3, 4, 4])
    """

    _dims = 2


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization of an (N, C, D, H, W) or (C, D, H, W) input, per sample and
    channel.

    >>> minflow.nn.InstanceNorm3d(3)(minflow.randn(2, 3, 2, 4, 4)).shape
    minflow.Size([2, 3, 2, 4, 4])
    """

    _dims = 3


class LocalResponseNorm(Module):
    """x / (k + alpha / size * sum of x^2 over ``size`` neighbouring channels)^beta.

    >>> minflow.nn.LocalResponseNorm(2)
    LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)
    """

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"

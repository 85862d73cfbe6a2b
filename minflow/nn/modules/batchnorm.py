"""BatchNorm1d, BatchNorm2d and BatchNorm3d: per-channel normalisation with running statistics."""
from ...core import dtype as dtypes
from ...core.grad_mode import no_grad
from ...core.namespace import F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d"]


def affine_parameters(module, shape, affine, bias, kw):
    """Register a normalization layer's ``weight`` (ones) and ``bias`` (zeros) of ``shape``,
    None where ``affine`` (both) or ``bias`` (the bias) turns them off."""
    module.register_parameter("weight", Parameter(F.ones(*shape, **kw)) if affine else None)
    module.register_parameter("bias", Parameter(F.zeros(*shape, **kw))
                              if affine and bias else None)


def reset_affine(module):
    """``weight`` back to ones and ``bias`` to zeros, where the layer has them."""
    if module.weight is not None:
        init.ones_(module.weight)
    if module.bias is not None:
        init.zeros_(module.bias)


def running_stats(module, num_features, track, kw):
    """Register ``running_mean`` (zeros), ``running_var`` (ones) and
    ``num_batches_tracked`` (0), or None for each when ``track`` is off."""
    if not track:
        for name in ("running_mean", "running_var", "num_batches_tracked"):
            module.register_buffer(name, None)
        return
    module.register_buffer("running_mean", F.zeros(num_features, **kw))
    module.register_buffer("running_var", F.ones(num_features, **kw))
    module.register_buffer("num_batches_tracked",
                           F.tensor(0, dtype=dtypes.int64, device=kw["device"]))


class _NormBase(Module):
    """What BatchNorm and InstanceNorm share, as torch's _NormBase: their settings, the
    affine parameters and running statistics they register, and resetting both."""

    def __init__(self, num_features, eps, momentum, affine, track_running_stats, device,
                 dtype, bias):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        kw = {"device": device, "dtype": dtype}
        affine_parameters(self, (num_features,), affine, bias, kw)
        running_stats(self, num_features, track_running_stats, kw)

    def reset_running_stats(self):
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self):
        """Running statistics back to (0, 1), weight to ones and bias to zeros."""
        self.reset_running_stats()
        reset_affine(self)


class _BatchNorm(_NormBase):
    """Shared by BatchNorm1d/2d/3d; subclasses set ``_input_dims`` and ``_dims_text``."""

    _version = 2
    _input_dims, _dims_text = (), ""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias)
        self.reset_parameters()

    def _check_input(self, input):
        name = type(self).__name__
        if input.ndim not in self._input_dims:
            raise ValueError(f"{name}: expected {self._dims_text} input, got {input.ndim}D "
                             f"input of shape {tuple(input.shape)}")
        if input.shape[1] != self.num_features:
            raise RuntimeError(f"{name}: expected input with {self.num_features} channels "
                               f"(num_features) in dim 1, got shape {tuple(input.shape)}")

    def forward(self, input):
        self._check_input(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:       # cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked)
        use_batch_stats = self.training or self.running_mean is None
        keep_stats = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if keep_stats else None,
                            self.running_var if keep_stats else None, self.weight, self.bias,
                            use_batch_stats, factor, self.eps)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch norm over the C dim of an (N, C) or (N, C, L) input.

    Training normalises with the batch's statistics and updates ``running_mean`` /
    ``running_var`` (momentum=None: cumulative average); eval uses the running stats.

    >>> bn = minflow.nn.BatchNorm1d(2)
    >>> bn(minflow.tensor([[1.0, 2.0], [3.0, 6.0]])).tolist()
    [[-0.99999..., -0.99999...], [0.99999..., 0.99999...]]
    >>> bn.running_mean.tolist(), int(bn.num_batches_tracked)
    ([0.2..., 0.4...], 1)
    """

    _input_dims, _dims_text = (2, 3), "2D or 3D"


class BatchNorm2d(_BatchNorm):
    """Batch norm over the C dim of an (N, C, H, W) input (see BatchNorm1d).

    >>> bn = minflow.nn.BatchNorm2d(3).eval()
    >>> bn(minflow.ones(2, 3, 4, 4)).shape
    minflow.Size([2, 3, 4, 4])
    """

    _input_dims, _dims_text = (4,), "4D"


class BatchNorm3d(_BatchNorm):
    """Batch norm over the C dim of an (N, C, D, H, W) input (see BatchNorm1d).

    >>> bn = minflow.nn.BatchNorm3d(3)
    >>> bn
    BatchNorm3d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    >>> bn(minflow.randn(2, 3, 2, 4, 4)).shape
    minflow.Size([2, 3, 2, 4, 4])
    """

    _input_dims, _dims_text = (5,), "5D"

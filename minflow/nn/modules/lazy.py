"""Lazy layers, as torch's: the input size (in_features, in_channels, num_features) is read
from the first input. Until then the weights are UninitializedParameters; the first call
materialises them, runs the layer's own initialisation and turns the module into the
plain layer (``cls_to_become``: LazyLinear becomes Linear)."""
from ...core import dtype as dtypes
from ...core.grad_mode import no_grad
from ...core.namespace import F
from ...core.tensor import Tensor
from ...ops.infer import check_int
from ..parameter import UninitializedBuffer, UninitializedParameter, _Uninitialized
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .conv import (Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d,
                   ConvTranspose3d)
from .linear import Linear
from .normalization import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d

__all__ = ["LazyModuleMixin", "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d",
           "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d",
           "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


def _infer_parameters(module, args):
    """The forward pre-hook: materialise from the first input, then become the plain layer."""
    module.initialize_parameters(*args)
    if module.has_uninitialized_params():
        raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
    module._initialize_hook.remove()
    del module._initialize_hook
    if module.cls_to_become is not None:
        module.__class__ = module.cls_to_become


class LazyModuleMixin:
    """Mixin of the Lazy layers: a forward pre-hook that calls ``initialize_parameters``
    on the first input; loading a state_dict materialises the weights at its shapes.

    >>> lazy = minflow.nn.LazyLinear(2)
    >>> lazy.has_uninitialized_params()
    True
    >>> _ = lazy.load_state_dict(minflow.nn.Linear(4, 2).state_dict())
    >>> lazy.has_uninitialized_params(), lazy.weight.shape
    (False, minflow.Size([2, 4]))
    """

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(_infer_parameters)

    def has_uninitialized_params(self):
        """Whether a parameter or buffer of this module still has no shape."""
        tensors = list(self._parameters.values()) + list(self._buffers.values())
        return any(isinstance(t, _Uninitialized) for t in tensors)

    def initialize_parameters(self, *args):
        raise NotImplementedError(f"{type(self).__name__} must define initialize_parameters")

    def _sizes_from_weights(self):
        """Set the input size attribute from the loaded weights' shapes."""
        raise NotImplementedError(f"{type(self).__name__} must define _sizes_from_weights")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict,
                              missing_keys, unexpected_keys, error_msgs):
        loaded = False
        for store in (self._parameters, self._buffers):
            for name, t in store.items():
                key = prefix + name
                if isinstance(t, _Uninitialized) and isinstance(state_dict.get(key), Tensor):
                    with no_grad():
                        t.materialize(tuple(state_dict[key].shape))
                    loaded = True
        if loaded and not self.has_uninitialized_params():
            self._sizes_from_weights()
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for store in (self._parameters, self._buffers):
            for name, t in store.items():
                if t is not None and (store is self._parameters
                                      or name not in self._non_persistent_buffers_set):
                    destination[prefix + name] = t if keep_vars or isinstance(
                        t, _Uninitialized) else t.detach()


class LazyLinear(LazyModuleMixin, Linear):
    """Linear with ``in_features`` taken from the first input's last dim.

    >>> m = minflow.nn.LazyLinear(3)
    >>> m
    LazyLinear(in_features=0, out_features=3, bias=True)
    >>> m(minflow.ones(2, 5)).shape, m
    (minflow.Size([2, 3]), Linear(in_features=5, out_features=3, bias=True))
    """

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False, device, dtype)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def _sizes_from_weights(self):
        self.in_features = self.weight.shape[1]

    def initialize_parameters(self, input, *args):
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()


class _LazyConvMixin(LazyModuleMixin):
    """What the lazy convolutions share: in_channels from dim 1 (dim 0 unbatched); a
    transposed one's weight is (in_channels, out_channels / groups, k...)."""

    _spatial_dims = 0

    def _lazy_init(self, out_channels, bias, device, dtype):
        check_int(type(self).__name__, "out_channels", out_channels)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def _sizes_from_weights(self):
        self.in_channels = (self.weight.shape[0] if self.transposed
                            else self.weight.shape[1] * self.groups)

    def initialize_parameters(self, input, *args):
        if not self.has_uninitialized_params():
            return
        unbatched = self._spatial_dims + 1
        if input.ndim not in (unbatched, unbatched + 1):
            raise RuntimeError(f"Expected {unbatched}D (unbatched) or {unbatched + 1}D "
                               f"(batched) input to {type(self).__name__}, but got input of "
                               f"size: {list(input.shape)}")
        self.in_channels = input.shape[1] if input.ndim == unbatched + 1 else input.shape[0]
        if self.in_channels % self.groups != 0:
            raise ValueError(f"{type(self).__name__}: in_channels ({self.in_channels}) must be "
                             f"divisible by groups ({self.groups})")
        channels = ((self.in_channels, self.out_channels // self.groups) if self.transposed
                    else (self.out_channels, self.in_channels // self.groups))
        with no_grad():
            self.weight.materialize((*channels, *self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()


class _LazyConvForwardMixin(_LazyConvMixin):
    """The lazy convolutions: torch's Conv arguments, less in_channels."""

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                         padding_mode, device, dtype)
        self._lazy_init(out_channels, bias, device, dtype)


class LazyConv1d(_LazyConvForwardMixin, Conv1d):
    """Conv1d with ``in_channels`` taken from the first input.

    >>> m = minflow.nn.LazyConv1d(4, 3)
    >>> m(minflow.ones(2, 6, 10)).shape, m.weight.shape
    (minflow.Size([2, 4, 8]), minflow.Size([4, 6, 3]))
    """

    cls_to_become = Conv1d
    _spatial_dims = 1


class LazyConv2d(_LazyConvForwardMixin, Conv2d):
    """Conv2d with ``in_channels`` taken from the first input.

    >>> m = minflow.nn.LazyConv2d(4, 3, padding=1)
    >>> m(minflow.ones(1, 2, 5, 5)).shape, type(m).__name__
    (minflow.Size([1, 4, 5, 5]), 'Conv2d')
    """

    cls_to_become = Conv2d
    _spatial_dims = 2


class LazyConv3d(_LazyConvForwardMixin, Conv3d):
    """Conv3d with ``in_channels`` taken from the first input.

    >>> m = minflow.nn.LazyConv3d(4, 2)
    >>> m(minflow.ones(1, 3, 4, 4, 4)).shape, m.weight.shape
    (minflow.Size([1, 4, 3, 3, 3]), minflow.Size([4, 3, 2, 2, 2]))
    """

    cls_to_become = Conv3d
    _spatial_dims = 3


class _LazyConvTransposeMixin(_LazyConvMixin):
    """The lazy transposed convolutions: torch's ConvTranspose arguments, less in_channels."""

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 groups=1, bias=True, dilation=1, padding_mode="zeros", device=None,
                 dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False,
                         dilation, padding_mode, device, dtype)
        self._lazy_init(out_channels, bias, device, dtype)


class LazyConvTranspose1d(_LazyConvTransposeMixin, ConvTranspose1d):
    """ConvTranspose1d with ``in_channels`` taken from the first input.

    >>> m = minflow.nn.LazyConvTranspose1d(2, 3, stride=2)
    >>> m(minflow.ones(1, 4, 5)).shape, m.weight.shape
    (minflow.Size([1, 2, 11]), minflow.Size([4, 2, 3]))
    """

    cls_to_become = ConvTranspose1d
    _spatial_dims = 1


class LazyConvTranspose2d(_LazyConvTransposeMixin, ConvTranspose2d):
    """ConvTranspose2d with ``in_channels`` taken from the first input.

    >>> m = minflow.nn.LazyConvTranspose2d(4, 3, stride=2, groups=2)
    >>> m(minflow.ones(1, 6, 5, 5)).shape, m
    (minflow.Size([1, 4, 11, 11]), ConvTranspose2d(6, 4, kernel_size=(3, 3), stride=(2, 2), groups=2))
    """

    cls_to_become = ConvTranspose2d
    _spatial_dims = 2


class LazyConvTranspose3d(_LazyConvTransposeMixin, ConvTranspose3d):
    """ConvTranspose3d with ``in_channels`` taken from the first input.

    >>> m = minflow.nn.LazyConvTranspose3d(2, 2, stride=2)
    >>> m(minflow.ones(1, 3, 2, 2, 2)).shape, m.weight.shape
    (minflow.Size([1, 2, 4, 4, 4]), minflow.Size([3, 2, 2, 2, 2]))
    """

    cls_to_become = ConvTranspose3d
    _spatial_dims = 3


class _LazyNormMixin(LazyModuleMixin):
    """What the lazy batch and instance norms share: num_features from the channel dim
    (dim 1; dim 0 of an unbatched instance-norm input)."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True):
        super().__init__(0, eps, momentum, False, False, device, dtype)
        self.affine, self.track_running_stats = affine, track_running_stats
        kw = {"device": device, "dtype": dtype}
        if affine:
            self.weight = UninitializedParameter(**kw)
            if bias:
                self.bias = UninitializedParameter(**kw)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(**kw)
            self.running_var = UninitializedBuffer(**kw)
            self.num_batches_tracked = F.tensor(0, dtype=dtypes.int64, device=device)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def _sizes_from_weights(self):
        stats = self.weight if self.affine else self.running_mean
        self.num_features = stats.shape[0]

    def initialize_parameters(self, input, *args):
        if not self.has_uninitialized_params():
            return
        # NOTE: torch reads dim 1 of an unbatched instance-norm input too (its length, not
        # its channels), and then refuses the input; the channel dim is what is meant
        unbatched = getattr(self, "_dims", None) is not None and input.ndim == self._dims + 1
        self.num_features = input.shape[0 if unbatched else 1]
        with no_grad():
            for name in ("weight", "bias", "running_mean", "running_var"):
                t = getattr(self, name)
                if isinstance(t, _Uninitialized):
                    t.materialize((self.num_features,))
            self.reset_parameters()


class LazyBatchNorm1d(_LazyNormMixin, BatchNorm1d):
    """BatchNorm1d with ``num_features`` taken from the first input's dim 1.

    >>> m = minflow.nn.LazyBatchNorm1d()
    >>> m(minflow.randn(4, 3)).shape, m.running_mean.shape
    (minflow.Size([4, 3]), minflow.Size([3]))
    """

    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNormMixin, BatchNorm2d):
    """BatchNorm2d with ``num_features`` taken from the first input's dim 1.

    >>> m = minflow.nn.LazyBatchNorm2d()
    >>> m(minflow.randn(2, 3, 4, 4)).shape, type(m).__name__
    (minflow.Size([2, 3, 4, 4]), 'BatchNorm2d')
    """

    cls_to_become = BatchNorm2d


class LazyBatchNorm3d(_LazyNormMixin, BatchNorm3d):
    """BatchNorm3d with ``num_features`` taken from the first input's dim 1.

    >>> m = minflow.nn.LazyBatchNorm3d()
    >>> m(minflow.randn(2, 3, 2, 2, 2)).shape, m.weight.shape
    (minflow.Size([2, 3, 2, 2, 2]), minflow.Size([3]))
    """

    cls_to_become = BatchNorm3d


class LazyInstanceNorm1d(_LazyNormMixin, InstanceNorm1d):
    """InstanceNorm1d with ``num_features`` taken from the first input's channels; as
    torch's, affine and track_running_stats default to True here.

    >>> m = minflow.nn.LazyInstanceNorm1d()
    >>> m(minflow.randn(2, 3, 5)).shape, m
    (minflow.Size([2, 3, 5]), InstanceNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True))
    """

    cls_to_become = InstanceNorm1d


class LazyInstanceNorm2d(_LazyNormMixin, InstanceNorm2d):
    """InstanceNorm2d with ``num_features`` taken from the first input's channels.

    >>> m = minflow.nn.LazyInstanceNorm2d(affine=False)
    >>> m(minflow.randn(2, 3, 4, 4)).shape, m.running_mean.shape, m.weight
    (minflow.Size([2, 3, 4, 4]), minflow.Size([3]), None)
    """

    cls_to_become = InstanceNorm2d


class LazyInstanceNorm3d(_LazyNormMixin, InstanceNorm3d):
    """InstanceNorm3d with ``num_features`` taken from the first input's channels.

    >>> m = minflow.nn.LazyInstanceNorm3d()
    >>> m(minflow.randn(3, 2, 4, 4)).shape, m.num_features
    (minflow.Size([3, 2, 4, 4]), 3)
    """

    cls_to_become = InstanceNorm3d

"""3-D convolution and pooling, with PyTorch's signatures (minflow.nn.functional takes
``__all__``).

The ops of ops/conv.py over (N, C, D, H, W) input: the same inference with three spatial
dims, the same N-d kernels (kernels/generic/conv.py) and grad functions
(autograd/grads/conv.py); indices of max_pool3d are flat d * H * W + h * W + w positions.
"""
from functools import partial

from ..core.dispatch import apply
from ..core.functional import public
from ..core.tensor import Tensor
from .conv import (AVG_ATTRS, CONV_ATTRS, OPAQUE, WINDOW_ATTRS, _adaptive_infer,
                   _avg_pool_infer, _batched, _conv_infer, _conv_padding, _gather_infer,
                   _grad_input_infer, _grad_weight_infer, _max_pool_infer, _pair,
                   _pool_grad_infer, _unbatched, adaptive_avg, window_attrs)
from .infer import check_tensor
from .registry import Attr, Input, define_op

__all__ = ["conv3d", "max_pool3d", "avg_pool3d", "adaptive_avg_pool3d"]

CONV3D = define_op(
    "conv3d", ["input", "weight", Input("bias", optional=True)],
    infer=partial(_conv_infer, dims=3), attrs=CONV_ATTRS, traits=OPAQUE,
    doc="3-D cross-correlation of NCDHW input with (O, C/groups, kD, kH, kW) weight, plus "
        "bias; padding is (begin, end) per dim.")
CONV3D_GRAD_INPUT = define_op(
    "conv3d_grad_input", ["grad_out", "weight"], infer=partial(_grad_input_infer, dims=3),
    attrs=[Attr("input_size", "ints")] + CONV_ATTRS, traits=OPAQUE,
    doc="The input gradient of conv3d (a transposed convolution): linear in grad_out and "
        "in weight; input_size is the forward input's (D, H, W).")
CONV3D_GRAD_WEIGHT = define_op(
    "conv3d_grad_weight", ["grad_out", "input"], infer=partial(_grad_weight_infer, dims=3),
    attrs=[Attr("kernel_size", "ints")] + CONV_ATTRS, traits=OPAQUE,
    doc="The weight gradient of conv3d; kernel_size is the weight's (kD, kH, kW).")

MAX_POOL3D = define_op(
    "max_pool3d", ["input"], outputs=("out", "indices"), infer=partial(_max_pool_infer, dims=3),
    attrs=WINDOW_ATTRS + [Attr("ceil_mode", "bool", False)], traits=OPAQUE,
    doc="Max over each 3-D window (padding counts as -inf); indices are flat "
        "(d * H * W + h * W + w) positions in the input volume, as torch.")
MAX_POOL3D_GRAD = define_op(
    "max_pool3d_grad", ["grad_out", "indices"], infer=partial(_pool_grad_infer, dims=3),
    attrs=[Attr("input_size", "ints")] + WINDOW_ATTRS, traits=OPAQUE,
    doc="Scatter-add of grad_out to the input positions in indices (max_pool3d's "
        "windows); input_size is the input's (D, H, W).")
MAX_POOL3D_GATHER = define_op(
    "max_pool3d_gather", ["input", "indices"], infer=partial(_gather_infer, dims=3),
    attrs=[Attr("input_size", "ints")] + WINDOW_ATTRS, traits=OPAQUE,
    doc="input[n, c, indices[n, c, z, y, x]] per output position: the adjoint of "
        "max_pool3d_grad.")

AVG_POOL3D = define_op(
    "avg_pool3d", ["input"], infer=partial(_avg_pool_infer, dims=3), attrs=AVG_ATTRS,
    traits=OPAQUE,
    doc="Mean over each 3-D window: sum / divisor_override, or / the window's size within "
        "the padded input (count_include_pad) or within the input.")
AVG_POOL3D_GRAD = define_op(
    "avg_pool3d_grad", ["grad_out"], infer=partial(_pool_grad_infer, dims=3),
    attrs=[Attr("input_size", "ints")] + AVG_ATTRS, traits=OPAQUE,
    doc="The adjoint of avg_pool3d: grad_out / divisor spread over each window.")

ADAPTIVE_AVG_POOL3D = define_op(
    "adaptive_avg_pool3d", ["input"], infer=partial(_adaptive_infer, dims=3),
    attrs=[Attr("output_size", "ints")], traits=OPAQUE,
    doc="Mean over window i of each dim: [floor(i * D / out), ceil((i + 1) * D / out)).")
ADAPTIVE_AVG_POOL3D_GRAD = define_op(
    "adaptive_avg_pool3d_grad", ["grad_out"], infer=partial(_pool_grad_infer, dims=3),
    attrs=[Attr("input_size", "ints")], traits=OPAQUE,
    doc="The adjoint of adaptive_avg_pool3d: each grad spread evenly over its window.")


@public
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor

    3-D cross-correlation over (N, C, D, H, W) or unbatched (C, D, H, W) input with
    (O, C/groups, kD, kH, kW) weight: out[n, o, z, y, x] = bias[o] + sum_{c, i, j, l}
    weight[o, c, i, j, l] * input_padded[n, g * C/groups + c, z sD + i dD, y sH + j dH,
    x sW + l dW], g = o // (O / groups). padding: int, triple, 'valid' or 'same'.

    >>> x, w = minflow.ones(1, 1, 4, 4, 4), minflow.ones(2, 1, 3, 3, 3)
    >>> minflow.nn.functional.conv3d(x, w, padding=1).shape
    minflow.Size([1, 2, 4, 4, 4])
    """
    fn = "conv3d"
    input, squeeze = _batched(fn, input, 5)
    stride, dilation = _pair(fn, "stride", stride, 3), _pair(fn, "dilation", dilation, 3)
    check_tensor(fn, "weight", weight)
    if weight.ndim != 5:
        raise RuntimeError(f"conv3d: expected weight to be 5D (out_channels, in_channels / "
                           f"groups, kD, kH, kW), got {getattr(weight, 'shape', weight)!r}")
    pads = _conv_padding(fn, padding, weight, stride, dilation, 3)
    out = apply(CONV3D, (input, weight, bias), {"stride": stride, "padding": pads,
                                                "dilation": dilation, "groups": groups})
    return _unbatched(out, squeeze)


_POOL_NDIM = "non-empty 4D or 5D (batch mode) tensor expected for input"


@public
def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
    return_indices=False) -> Tensor, or (Tensor, indices)

    Max over each kD x kH x kW window of an (N, C, D, H, W) or (C, D, H, W) input
    (padding as -inf, stride defaulting to kernel_size); indices (int64) are flat
    positions d * H * W + h * W + w in each input volume.

    >>> x = minflow.arange(8.0).reshape(1, 1, 2, 2, 2)
    >>> minflow.nn.functional.max_pool3d(x, 2).tolist()
    [[[[[7.0]]]]]
    """
    input, squeeze = _batched("max_pool3d", input, 5, _POOL_NDIM)
    attrs = window_attrs("max_pool3d", kernel_size, stride, padding, dilation, dims=3)
    attrs["ceil_mode"] = ceil_mode
    out, indices = apply(MAX_POOL3D, (input,), attrs)
    if return_indices:
        return _unbatched(out, squeeze), _unbatched(indices, squeeze)
    return _unbatched(out, squeeze)


@public
def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
    count_include_pad=True, divisor_override=None) -> Tensor

    Sum of each kD x kH x kW window of the zero-padded input / divisor: divisor_override
    if given, else the window's size clipped to the padded input (count_include_pad) or
    to the input itself.

    >>> x = minflow.arange(8.0).reshape(1, 1, 2, 2, 2)
    >>> minflow.nn.functional.avg_pool3d(x, 2).tolist()
    [[[[[3.5]]]]]
    """
    input, squeeze = _batched("avg_pool3d", input, 5, _POOL_NDIM)
    attrs = window_attrs("avg_pool3d", kernel_size, stride, padding, dims=3)
    del attrs["dilation"]
    attrs.update(ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                 divisor_override=divisor_override)
    return _unbatched(apply(AVG_POOL3D, (input,), attrs), squeeze)


@public
def adaptive_avg_pool3d(input, output_size):
    """adaptive_avg_pool3d(input, output_size) -> Tensor

    Mean over windows that tile each of D, H, W into output_size (an int, or a triple
    whose None entries keep the input's size): window i of a dim of size S spans
    [floor(i * S / out), ceil((i + 1) * S / out)).

    >>> x = minflow.arange(8.0).reshape(1, 1, 2, 2, 2)
    >>> minflow.nn.functional.adaptive_avg_pool3d(x, 1).tolist()
    [[[[[3.5]]]]]
    """
    return adaptive_avg(ADAPTIVE_AVG_POOL3D, input, output_size, 3)

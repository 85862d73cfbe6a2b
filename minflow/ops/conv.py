"""Convolution and pooling, with PyTorch's signatures (minflow.nn.functional takes
``__all__``).

Ops work on batched NCHW input; the public functions turn int-or-pair arguments into
pairs and add (then drop) the batch dim of unbatched (C, H, W) input.
  conv2d(input, weight, bias?)       grads: conv2d_grad_input (a transposed conv) and
                                     conv2d_grad_weight; both bilinear, so each one's grad
                                     is conv2d or the other
  max_pool2d -> (out, indices)       grad: max_pool2d_grad (scatter to indices), whose
                                     grad is max_pool2d_gather (and back)
  avg_pool2d, adaptive_avg_pool2d    linear: each grad op is the adjoint, and the pair
                                     are each other's grad
Kernels: kernels/generic/conv.py (im2col by strided views, one matmul per group, over
any number of spatial dims); grad functions: autograd/grads/conv.py. conv1d is conv2d
over a height of 1. The inference functions take ``dims``, the number of spatial dims:
ops/conv3d.py declares the 3-D ops with the same ones.
"""
from ..core import dtype as dtypes
from ..core.dispatch import apply
from ..core.functional import public
from ..core.namespace import F
from ..core.tensor import Tensor
from . import infer
from .infer import check_tensor
from .registry import Attr, Input, define_op

__all__ = ["conv1d", "conv2d", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d"]

OPAQUE = ("opaque", "no_side_effect")


# ---- output sizes (pure integer arithmetic, shared with the kernels) ---------------------

def conv_output_size(size, kernel, stride, pad_begin, pad_end, dilation):
    """floor((size + pads - dilation * (kernel - 1) - 1) / stride) + 1."""
    return (size + pad_begin + pad_end - dilation * (kernel - 1) - 1) // stride + 1


def pool_output_size(size, kernel, stride, pad, dilation, ceil_mode):
    """As torch's pooling_output_shape: with ceil_mode the last window may hang over the
    end, but must start inside the input or its left padding."""
    span = size + 2 * pad - dilation * (kernel - 1) - 1 + (stride - 1 if ceil_mode else 0)
    out = span // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _check_ndim(x, dims, what="input"):
    if x.ndim != dims + 2:
        names = "(N, C, H, W)" if dims == 2 else "(N, C, D, H, W)"
        raise RuntimeError(f"expected {what} to be {dims + 2}D {names}, got {x.ndim}D with "
                           f"shape {list(x.shape)}")


def _check_same_dtype(x, other, name):
    if other is not None and other.dtype is not x.dtype:
        raise RuntimeError(f"expected input and {name} to have the same dtype, but got "
                           f"input {x.dtype.name} and {name} {other.dtype.name}")


# ---- conv2d (conv3d in ops/conv3d.py shares the inference: ``dims`` spatial dims) -------

def _check_conv_attrs(stride, padding, dilation, groups, dims=2):
    if len(stride) != dims or len(padding) != 2 * dims or len(dilation) != dims:
        raise RuntimeError(f"expected stride and dilation of {dims} ints and padding of "
                           f"{2 * dims} (begin, end per dim), got stride={list(stride)}, "
                           f"padding={list(padding)}, dilation={list(dilation)}")
    if min(stride) <= 0:
        raise RuntimeError(f"non-positive stride is not supported, got stride={list(stride)}")
    if min(padding) < 0:
        raise RuntimeError(f"negative padding is not supported, got padding={list(padding)}")
    if min(dilation) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")
    if groups <= 0:
        raise RuntimeError(f"non-positive groups is not supported, got groups={groups}")


def _conv_out_size(size, kernel, stride, padding, dilation):
    """The output's spatial size; raises when the dilated kernel is larger than the padded
    input."""
    padded = tuple(s + padding[2 * i] + padding[2 * i + 1] for i, s in enumerate(size))
    span = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    if any(k > p for k, p in zip(span, padded)):
        raise RuntimeError(f"Calculated padded input size per channel: "
                           f"({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, span))}). Kernel size can't be greater "
                           f"than actual input size")
    return tuple(conv_output_size(s, kernel[i], stride[i], padding[2 * i], padding[2 * i + 1],
                                  dilation[i]) for i, s in enumerate(size))


def _conv_infer(input, weight, bias, stride, padding, dilation, groups, dims=2):
    _check_conv_attrs(stride, padding, dilation, groups, dims)
    infer.check_dtype(input, dtypes.FLOATS)
    _check_same_dtype(input, weight, "weight")
    _check_same_dtype(input, bias, "bias")
    _check_ndim(input, dims)
    _check_ndim(weight, dims, "weight (out_channels, in_channels / groups, *kernel_size)")
    n, c = input.shape[:2]
    o, cg = weight.shape[:2]
    if o % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by "
                           f"{groups} at dimension 0, but got weight of size "
                           f"{list(weight.shape)} instead")
    if c != cg * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, "
                           f"expected input{list(input.shape)} to have {cg * groups} "
                           f"channels, but got {c} channels instead")
    if bias is not None and tuple(bias.shape) != (o,):
        raise RuntimeError(f"Given weight of size {list(weight.shape)}, expected bias to be "
                           f"1-dimensional with {o} elements, but got bias of size "
                           f"{list(bias.shape)} instead")
    size = _conv_out_size(tuple(input.shape[2:]), weight.shape[2:], stride, padding, dilation)
    return (n, o) + size, input.dtype


CONV_ATTRS = [Attr("stride", "ints"), Attr("padding", "ints"), Attr("dilation", "ints"),
              Attr("groups", "int")]

CONV2D = define_op(
    "conv2d", ["input", "weight", Input("bias", optional=True)], infer=_conv_infer,
    attrs=CONV_ATTRS, traits=OPAQUE,
    doc="2-D cross-correlation of NCHW input with (O, C/groups, kH, kW) weight, plus bias; "
        "padding is (top, bottom, left, right).")


def _grad_input_infer(grad_out, weight, input_size, stride, padding, dilation, groups,
                      dims=2):
    _check_conv_attrs(stride, padding, dilation, groups, dims)
    _check_same_dtype(grad_out, weight, "weight")
    if len(input_size) != dims:
        raise RuntimeError(f"expected input_size of {dims} ints, got {list(input_size)}")
    _check_ndim(weight, dims, "weight")
    size = (grad_out.shape[0], weight.shape[1] * groups) + tuple(input_size)
    _check_grad_out(grad_out, size[:1] + (weight.shape[0],) + _conv_out_size(
        input_size, weight.shape[2:], stride, padding, dilation))
    return size, grad_out.dtype


def _grad_weight_infer(grad_out, input, kernel_size, stride, padding, dilation, groups,
                       dims=2):
    _check_conv_attrs(stride, padding, dilation, groups, dims)
    _check_same_dtype(grad_out, input, "input")
    _check_ndim(input, dims)
    if len(kernel_size) != dims:
        raise RuntimeError(f"expected kernel_size of {dims} ints, got {list(kernel_size)}")
    _check_grad_out(grad_out, (input.shape[0], grad_out.shape[1]) + _conv_out_size(
        tuple(input.shape[2:]), kernel_size, stride, padding, dilation))
    return (grad_out.shape[1], input.shape[1] // groups) + tuple(kernel_size), grad_out.dtype


def _check_grad_out(grad_out, expected):
    if tuple(grad_out.shape) != tuple(expected):
        raise RuntimeError(f"expected grad_out of shape {list(expected)}, got "
                           f"{list(grad_out.shape)}")


CONV2D_GRAD_INPUT = define_op(
    "conv2d_grad_input", ["grad_out", "weight"], infer=_grad_input_infer,
    attrs=[Attr("input_size", "ints")] + CONV_ATTRS, traits=OPAQUE,
    doc="The input gradient of conv2d (a transposed convolution): linear in grad_out and "
        "in weight; input_size is the forward input's (H, W).")
CONV2D_GRAD_WEIGHT = define_op(
    "conv2d_grad_weight", ["grad_out", "input"], infer=_grad_weight_infer,
    attrs=[Attr("kernel_size", "ints")] + CONV_ATTRS, traits=OPAQUE,
    doc="The weight gradient of conv2d: sum over batch and positions of grad_out times "
        "the input windows; kernel_size is the weight's (kH, kW).")


def _pair(fn, name, value, size=2):
    """An int or a sequence of ``size`` ints as a tuple, with torch's error otherwise: a
    TypeError for what is not an int or ints, a RuntimeError for the wrong count."""
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,) * size
    ints = isinstance(value, (tuple, list)) and all(
        isinstance(v, int) and not isinstance(v, bool) for v in value)
    if ints and len(value) in (1, size):
        return tuple(value) * (size // len(value))
    raise (RuntimeError if ints else TypeError)(
        f"{fn}: expected {name} to be a single integer value or a list of {size} values to "
        f"match the convolution dimensions, but got {name}={value!r}")


def _conv_padding(fn, padding, weight, stride, dilation, dims):
    """Public padding (int, pair or 'valid'/'same') as per-dim (begin, end) pairs; also
    checks that the weight's kernel is not empty."""
    if 0 in weight.shape[2:]:
        raise RuntimeError(f"{fn}: kernel size should be greater than zero, but got weight of "
                           f"shape {list(weight.shape)}")
    if not isinstance(padding, str):
        return tuple(p for p in _pair(fn, "padding", padding, dims) for _ in (0, 1))
    if padding == "valid":
        return (0,) * 2 * dims
    if padding != "same":
        raise RuntimeError(f"{fn}: Invalid padding string: {padding!r}; expected 'valid', "
                           f"'same', an int or a list of {dims} ints")
    if any(s != 1 for s in stride):
        raise RuntimeError(f"{fn}: padding='same' is not supported for strided "
                           f"convolutions, got stride={list(stride)}")
    pads = []
    for k, d in zip(weight.shape[2:], dilation):
        total = d * (k - 1)     # torch puts the odd one at the end
        pads += [total // 2, total - total // 2]
    return tuple(pads)


def _batched(fn, input, ndim, expected=None):
    """(input with a batch dim, whether it was added); torch's error for other ndims."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' must be Tensor, not "
                        f"{type(input).__name__}")
    if input.ndim == ndim:
        return input, False
    if input.ndim == ndim - 1:
        return F.unsqueeze(input, 0), True
    expected = expected or f"Expected {ndim - 1}D (unbatched) or {ndim}D (batched) input"
    raise RuntimeError(f"{fn}: {expected}, but got input of size: {list(input.shape)}")


def _unbatched(out, squeeze):
    return F.reshape(out, tuple(out.shape)[1:]) if squeeze else out


@public
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor

    2-D cross-correlation over (N, C, H, W) or unbatched (C, H, W) input:
    out[n, o, y, x] = bias[o] + sum_{c, i, j} weight[o, c, i, j]
                      * input_padded[n, g * C/groups + c, y * sH + i * dH, x * sW + j * dW],
    g = o // (O / groups). padding: int, pair, 'valid' (none) or 'same' (stride 1 only).

    >>> x, w = minflow.ones(1, 1, 4, 4), minflow.ones(2, 1, 3, 3)
    >>> minflow.nn.functional.conv2d(x, w, padding=1).shape
    minflow.Size([1, 2, 4, 4])
    """
    input, squeeze = _batched("conv2d", input, 4)
    stride = _pair("conv2d", "stride", stride)
    dilation = _pair("conv2d", "dilation", dilation)
    check_tensor("conv2d", "weight", weight)
    if weight.ndim != 4:
        raise RuntimeError(f"conv2d: expected weight to be 4D (out_channels, in_channels / "
                           f"groups, kH, kW), got {getattr(weight, 'shape', weight)!r}")
    pads = _conv_padding("conv2d", padding, weight, stride, dilation, 2)
    out = apply(CONV2D, (input, weight, bias), {"stride": stride, "padding": pads,
                                                "dilation": dilation, "groups": groups})
    return _unbatched(out, squeeze)


@public
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor

    1-D cross-correlation over (N, C, L) or unbatched (C, L) input with (O, C/groups, K)
    weight: conv2d over a height of 1.

    >>> minflow.nn.functional.conv1d(minflow.ones(1, 2, 5), minflow.ones(3, 2, 3)).shape
    minflow.Size([1, 3, 3])
    """
    input, squeeze = _batched("conv1d", input, 3)
    check_tensor("conv1d", "weight", weight)
    if weight.ndim != 3:
        raise RuntimeError(f"conv1d: expected weight to be 3D (out_channels, in_channels / "
                           f"groups, kL), got {getattr(weight, 'shape', weight)!r}")
    (s,), (d,) = _pair("conv1d", "stride", stride, 1), _pair("conv1d", "dilation", dilation, 1)
    pads = _conv_padding("conv1d", padding, weight, (s,), (d,), 1)
    out = apply(CONV2D, (F.unsqueeze(input, 2), F.unsqueeze(weight, 2), bias),
                {"stride": (1, s), "padding": (0, 0) + pads, "dilation": (1, d),
                 "groups": groups})
    return _unbatched(F.reshape(out, tuple(out.shape[:2]) + tuple(out.shape[3:])), squeeze)


# ---- pooling ---------------------------------------------------------------------------

def _letters(dims):
    return ("H", "W") if dims == 2 else ("T", "H", "W")


def _check_pool_attrs(kernel_size, stride, padding, dilation, dims=2):
    if any(len(a) != dims for a in (kernel_size, stride, padding, dilation)):
        raise RuntimeError(f"expected kernel_size, stride, padding and dilation of {dims} "
                           f"ints each, got {list(kernel_size)}, {list(stride)}, "
                           f"{list(padding)}, {list(dilation)}")
    for what, prefix, values in (("kernel size", "k", kernel_size), ("stride", "d", stride),
                                 ("dilation", "dilation", dilation)):
        if min(values) <= 0:
            got = " ".join(f"{prefix}{n}: {v}" for n, v in zip(_letters(dims), values))
            raise RuntimeError(f"{what} should be greater than zero, but got {got}")
    for k, p, d in zip(kernel_size, padding, dilation):
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
        if p > ((k - 1) * d + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but "
                               f"got pad={p}, kernel_size={k} and dilation={d}")


def _pool_infer_shape(input, kernel_size, stride, padding, dilation, ceil_mode, dims=2,
                      allowed=dtypes.FLOATS):
    infer.check_dtype(input, allowed)
    if input.ndim != dims + 2 or 0 in tuple(input.shape)[1:]:
        raise RuntimeError(f"non-empty {dims + 1}D or {dims + 2}D (batch mode) tensor "
                           f"expected for input, got shape {list(input.shape)}")
    _check_pool_attrs(kernel_size, stride, padding, dilation, dims)
    size = tuple(input.shape[1:])
    out = size[:1] + tuple(pool_output_size(s, kernel_size[i], stride[i], padding[i],
                                            dilation[i], ceil_mode)
                           for i, s in enumerate(size[1:]))
    if min(out) < 1:
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, size))}). Calculated "
                           f"output size: ({'x'.join(map(str, out))}). Output size is too "
                           f"small")
    return tuple(input.shape[:1]) + out


def _max_pool_infer(input, kernel_size, stride, padding, dilation, ceil_mode, dims=2):
    # integer max pooling as torch (avg pooling stays floating)
    shape = _pool_infer_shape(input, kernel_size, stride, padding, dilation, ceil_mode, dims,
                              dtypes.INTS + dtypes.FLOATS)
    return [(shape, input.dtype), (shape, dtypes.int64)]


def _pool_grad_infer(grad_out, indices=None, *, input_size, dims=2, **attrs):
    if indices is not None and (indices.dtype is not dtypes.int64
                                or tuple(indices.shape) != tuple(grad_out.shape)):
        raise RuntimeError(f"expected int64 indices of shape {list(grad_out.shape)}, got "
                           f"{indices.dtype.name} of shape {list(indices.shape)}")
    if grad_out.ndim != dims + 2 or len(input_size) != dims:
        raise RuntimeError(f"expected a {dims + 2}D grad_out and input_size of {dims} ints, "
                           f"got grad_out of shape {list(grad_out.shape)} and input_size "
                           f"{list(input_size)}")
    return tuple(grad_out.shape)[:2] + tuple(input_size), grad_out.dtype


def _gather_infer(input, indices, dims=2, **attrs):
    if tuple(input.shape)[:2] != tuple(indices.shape)[:2] or indices.dtype is not dtypes.int64:
        raise RuntimeError(f"expected int64 indices of shape [{input.shape[0]}, "
                           f"{input.shape[1]}, ...], got {indices.dtype.name} of shape "
                           f"{list(indices.shape)}")
    if input.ndim != dims + 2 or indices.ndim != dims + 2:
        raise RuntimeError(f"expected {dims + 2}D input and indices, got shapes "
                           f"{list(input.shape)} and {list(indices.shape)}")
    return tuple(indices.shape), input.dtype


WINDOW_ATTRS = [Attr("kernel_size", "ints"), Attr("stride", "ints"), Attr("padding", "ints"),
           Attr("dilation", "ints")]

MAX_POOL2D = define_op(
    "max_pool2d", ["input"], outputs=("out", "indices"), infer=_max_pool_infer,
    attrs=WINDOW_ATTRS + [Attr("ceil_mode", "bool", False)], traits=OPAQUE,
    doc="Max over each window (padding counts as -inf); indices are flat (h * W + w) "
        "positions in the input plane, as torch.")
MAX_POOL2D_GRAD = define_op(
    "max_pool2d_grad", ["grad_out", "indices"], infer=_pool_grad_infer,
    attrs=[Attr("input_size", "ints")] + WINDOW_ATTRS, traits=OPAQUE,
    doc="Scatter-add of grad_out to the input positions in indices (max_pool2d's "
        "windows); input_size is the input's (H, W).")
MAX_POOL2D_GATHER = define_op(
    "max_pool2d_gather", ["input", "indices"], infer=_gather_infer,
    attrs=[Attr("input_size", "ints")] + WINDOW_ATTRS, traits=OPAQUE,
    doc="input[n, c, indices[n, c, y, x]] per output position: the adjoint of "
        "max_pool2d_grad (the window attrs are its grad's).")


def _avg_pool_infer(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                    divisor_override, dims=2):
    if divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    shape = _pool_infer_shape(input, kernel_size, stride, padding, (1,) * dims, ceil_mode,
                              dims)
    return shape, input.dtype


AVG_ATTRS = [Attr("kernel_size", "ints"), Attr("stride", "ints"), Attr("padding", "ints"),
        Attr("ceil_mode", "bool", False), Attr("count_include_pad", "bool", True),
        Attr("divisor_override", "int", None, optional=True)]

AVG_POOL2D = define_op(
    "avg_pool2d", ["input"], infer=_avg_pool_infer, attrs=AVG_ATTRS, traits=OPAQUE,
    doc="Mean over each window: sum / divisor_override, or / the window's size within the "
        "padded input (count_include_pad) or within the input.")
AVG_POOL2D_GRAD = define_op(
    "avg_pool2d_grad", ["grad_out"], infer=_pool_grad_infer,
    attrs=[Attr("input_size", "ints")] + AVG_ATTRS, traits=OPAQUE,
    doc="The adjoint of avg_pool2d: grad_out / divisor spread over each window.")


def _adaptive_infer(input, output_size, dims=2):
    fn = f"adaptive_avg_pool{dims}d"
    if input.ndim != dims + 2:
        raise RuntimeError(f"{fn}(): Expected {dims + 1}D or {dims + 2}D tensor, but got "
                           f"{list(input.shape)}")
    infer.check_dtype(input, dtypes.FLOATS)
    for d in range(1, dims + 2):
        if input.shape[d] == 0:
            raise RuntimeError(f"{fn}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(input.shape)} with "
                               f"dimension {d} being empty")
    if len(output_size) != dims or min(output_size) < 0:
        raise RuntimeError(f"{fn}: elements of output_size must be greater than or equal "
                           f"to 0 but received {list(output_size)}")
    return tuple(input.shape)[:2] + tuple(output_size), input.dtype


ADAPTIVE_AVG_POOL2D = define_op(
    "adaptive_avg_pool2d", ["input"], infer=_adaptive_infer,
    attrs=[Attr("output_size", "ints")], traits=OPAQUE,
    doc="Mean over window i of each dim: [floor(i * H / out), ceil((i + 1) * H / out)).")
ADAPTIVE_AVG_POOL2D_GRAD = define_op(
    "adaptive_avg_pool2d_grad", ["grad_out"], infer=_pool_grad_infer,
    attrs=[Attr("input_size", "ints")], traits=OPAQUE,
    doc="The adjoint of adaptive_avg_pool2d: each grad spread evenly over its window.")


def _pool_pair(fn, name, value, omit=False, dims=2):
    """kernel_size/stride/padding/dilation as ``dims`` ints; stride None or [] means
    kernel_size."""
    if omit and (value is None or (isinstance(value, (tuple, list)) and not value)):
        return None
    try:
        return _pair(fn, name, value, dims)
    except (RuntimeError, TypeError) as err:
        how = "either be omitted, a single int," if omit else "either be a single int,"
        count = "two" if dims == 2 else "three"
        raise type(err)(f"{fn}: {name} must {how} or a tuple of {count} ints, got "
                        f"{value!r}") from None


def window_attrs(fn, kernel_size, stride, padding, dilation=1, dims=2):
    """A pooling op's window attrs from the public arguments."""
    kernel_size = _pool_pair(fn, "kernel_size", kernel_size, dims=dims)
    return {"kernel_size": kernel_size,
            "stride": _pool_pair(fn, "stride", stride, omit=True, dims=dims) or kernel_size,
            "padding": _pool_pair(fn, "padding", padding, dims=dims),
            "dilation": _pool_pair(fn, "dilation", dilation, dims=dims)}


_POOL_NDIM = "non-empty 3D or 4D (batch mode) tensor expected for input"


@public
def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
    return_indices=False) -> Tensor, or (Tensor, indices)

    out[n, c, y, x] = max over i < kH, j < kW of input_padded[n, c, y*sH + i*dH,
    x*sW + j*dW], padding as -inf; stride defaults to kernel_size. indices (int64) are flat
    positions h * W + w in each input plane. ceil_mode keeps a last partial window.

    >>> x = minflow.arange(16.0).reshape(1, 1, 4, 4)
    >>> minflow.nn.functional.max_pool2d(x, 2).tolist()
    [[[[5.0, 7.0], [13.0, 15.0]]]]
    """
    input, squeeze = _batched("max_pool2d", input, 4, _POOL_NDIM)
    attrs = window_attrs("max_pool2d", kernel_size, stride, padding, dilation)
    attrs["ceil_mode"] = ceil_mode
    out, indices = apply(MAX_POOL2D, (input,), attrs)
    if return_indices:
        return _unbatched(out, squeeze), _unbatched(indices, squeeze)
    return _unbatched(out, squeeze)


@public
def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
    count_include_pad=True, divisor_override=None) -> Tensor

    out[n, c, y, x] = sum of the window of input_padded (zeros) at (y*sH, x*sW) / divisor:
    divisor_override if given, else the window's size clipped to the padded input
    (count_include_pad) or to the input itself.

    >>> x = minflow.arange(16.0).reshape(1, 1, 4, 4)
    >>> minflow.nn.functional.avg_pool2d(x, 2).tolist()
    [[[[2.5, 4.5], [10.5, 12.5]]]]
    """
    input, squeeze = _batched("avg_pool2d", input, 4, _POOL_NDIM)
    attrs = window_attrs("avg_pool2d", kernel_size, stride, padding)
    del attrs["dilation"]
    attrs.update(ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                 divisor_override=divisor_override)
    return _unbatched(apply(AVG_POOL2D, (input,), attrs), squeeze)


def _check_output_dims(name, input, output_size):
    """As torch's Python check: a sequence output_size needs more input dims than entries."""
    if isinstance(output_size, (tuple, list)) and input.ndim <= len(output_size):
        raise ValueError(f"{name}: Input dimension should be at least {len(output_size) + 1}, "
                         f"got input of shape {list(input.shape)}")


@public
def adaptive_avg_pool2d(input, output_size):
    """adaptive_avg_pool2d(input, output_size) -> Tensor

    Mean over windows that tile each dim into output_size (an int, or a pair whose None
    entries keep the input's size): window i of a dim of size H spans
    [floor(i * H / out), ceil((i + 1) * H / out)).

    >>> x = minflow.arange(16.0).reshape(1, 1, 4, 4)
    >>> minflow.nn.functional.adaptive_avg_pool2d(x, 1).tolist()
    [[[[7.5]]]]
    """
    return adaptive_avg(ADAPTIVE_AVG_POOL2D, input, output_size, 2)


def adaptive_output_size(fn, input, output_size, dims):
    """output_size (an int, or ``dims`` entries of int or None) as ``dims`` ints, None
    keeping the (batched) input's size."""
    size = (output_size,) * dims if not isinstance(output_size, (tuple, list)) else output_size
    if len(size) != dims:
        raise RuntimeError(f"{fn}: output_size must be {dims} ints (or None), got "
                           f"{output_size!r}")
    if not all(s is None or (isinstance(s, int) and not isinstance(s, bool)) for s in size):
        raise TypeError(f"{fn}: expected output_size to be an int or a "
                        f"{'pair' if dims == 2 else 'triple'} of ints or None, got "
                        f"{output_size!r}")
    return tuple(input.shape[2 + i] if s is None else s for i, s in enumerate(size))


def adaptive_avg(op, input, output_size, dims):
    """adaptive_avg_pool2d / 3d (``op``) over a batched or unbatched input."""
    fn = op.name
    _check_output_dims(fn, input, output_size)
    input, squeeze = _batched(fn, input, dims + 2,
                              f"{fn}(): Expected {dims + 1}D or {dims + 2}D tensor")
    if 0 in tuple(input.shape)[1:]:     # torch numbers the dims of the input as given
        dim = tuple(input.shape).index(0, 1) - squeeze
        raise RuntimeError(f"{fn}(): Expected input to have non-zero size for non-batch "
                           f"dimensions, but input has sizes {list(input.shape)[squeeze:]} "
                           f"with dimension {dim} being empty")
    size = adaptive_output_size(fn, input, output_size, dims)
    return _unbatched(apply(op, (input,), {"output_size": size}), squeeze)

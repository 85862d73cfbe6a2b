"""Transposed convolution, with PyTorch's signatures (minflow.nn.functional takes
``__all__``).

conv_transpose2d(x, W) is the input gradient of conv2d with weight W evaluated at x, so it
is a composite of the conv2d_grad_input op (kernel, grad function and double backward
included); conv_transpose3d likewise of conv3d_grad_input. conv_transpose1d is
conv_transpose2d over a height of 1.
"""
from ..core.dispatch import apply
from ..core.functional import public
from ..core.namespace import F
from ..core.tensor import Tensor
from .conv import CONV2D_GRAD_INPUT, _batched, _pair, _unbatched
from .conv3d import CONV3D_GRAD_INPUT
from .infer import check_tensor
from .join import pad

__all__ = ["conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]

_GRAD_INPUT = {2: CONV2D_GRAD_INPUT, 3: CONV3D_GRAD_INPUT}


def _check_weight(fn, input, weight, groups, dims):
    check_tensor(fn, "weight", weight)
    if weight.ndim != dims + 2:
        raise RuntimeError(f"{fn}: expected weight to be {dims + 2}D (in_channels, "
                           f"out_channels / groups, kernel...), got "
                           f"{getattr(weight, 'shape', weight)!r}")
    if isinstance(groups, bool) or not isinstance(groups, int):
        raise TypeError(f"{fn}: expected groups to be an int, got {groups!r}")
    if groups <= 0:
        raise RuntimeError(f"{fn}: non-positive groups is not supported, got groups={groups!r}")
    if weight.shape[0] % groups:
        raise RuntimeError(f"{fn}: Given groups={groups}, expected weight to be divisible by "
                           f"{groups} at dimension 0, but got weight of size "
                           f"{list(weight.shape)} instead")
    if input.shape[1] != weight.shape[0]:
        raise RuntimeError(f"{fn}: Given transposed=1, weight of size {list(weight.shape)}, "
                           f"expected input{list(input.shape)} to have {weight.shape[0]} "
                           f"channels, but got {input.shape[1]} channels instead")


def _check_args(fn, input, weight, stride, padding, dilation):
    """Dtypes and the per-dim arguments, checked here so that errors name ``fn`` and the
    user's values (not the conv2d_grad_input op the work is done by)."""
    if isinstance(weight, Tensor) and not (input.dtype.is_floating_point and
                                           input.dtype is weight.dtype):
        raise RuntimeError(f"{fn}: expected floating point input and weight of one dtype, got "
                           f"input {input.dtype.name} and weight {weight.dtype.name}")
    for name, values, least in (("stride", stride, 1), ("padding", padding, 0),
                                ("dilation", dilation, 1)):
        if any(v < least for v in values):
            word = "non-positive" if least else "negative"
            raise RuntimeError(f"{fn}: {word} {name} is not supported, got {name}="
                               f"{list(values)}")


def _check_output_padding(fn, output_padding, stride, dilation):
    if not all(o < s or o < d for o, s, d in zip(output_padding, stride, dilation)):
        raise RuntimeError(f"{fn}: output padding must be smaller than either stride or "
                           f"dilation, but got output_padding={list(output_padding)}, "
                           f"stride={list(stride)}, dilation={list(dilation)}")


def _transposed(fn, input, weight, bias, stride, padding, output_padding, groups, dilation):
    """The batched case over len(stride) spatial dims. The full transposed conv has
    (H - 1) s + d (k - 1) + 1 rows; the output is its rows [p, p + H_out):
    conv_grad_input crops the padding at both ends, so it gives the output directly when
    output_padding < stride (then H_out still maps back to H). Otherwise it crops the
    start only, and the end is cut or zero-padded (rows past the full result get no
    contribution)."""
    dims = len(stride)
    _check_weight(fn, input, weight, groups, dims)
    _check_output_padding(fn, output_padding, stride, dilation)
    full, size = [], []
    for i in range(dims):
        full.append((input.shape[2 + i] - 1) * stride[i] + dilation[i] * (weight.shape[2 + i]
                                                                          - 1) + 1)
        size.append(full[i] - 2 * padding[i] + output_padding[i])
    if min(size) <= 0:
        raise RuntimeError(f"{fn}: Given input size per channel: {list(input.shape[2:])}, "
                           f"the calculated output size {size} is too small (padding "
                           f"{list(padding)}, output_padding {list(output_padding)})")
    direct = all(o < s for o, s in zip(output_padding, stride))
    ends = padding if direct else (0,) * dims
    attrs = {"stride": stride, "dilation": dilation, "groups": groups,
             "padding": tuple(p for pair in zip(padding, ends) for p in pair),
             "input_size": tuple(size) if direct else tuple(f - p for f, p in
                                                            zip(full, padding))}
    out = apply(_GRAD_INPUT[dims], (input, weight), attrs)
    if not direct:      # rows [0, size) of out, zero past its end
        grow = [size[i] - out.shape[2 + i] for i in range(dims)]
        out = pad(out, tuple(p for g in reversed(grow) for p in (0, g)))
    if bias is not None:
        if tuple(bias.shape) != (out.shape[1],):
            raise RuntimeError(f"{fn}: expected bias of shape [{out.shape[1]}] (one per output "
                               f"channel), got {list(bias.shape)}")
        out = F.add(out, F.reshape(bias, (1, -1) + (1,) * dims))
    return out


@public
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
    groups=1, dilation=1) -> Tensor

    The adjoint of conv2d ("deconvolution") over (N, C_in, H, W) or unbatched input with
    (C_in, C_out / groups, kH, kW) weight: each input pixel adds weight * x to the output
    window at (y * sH - pH, x * sW - pW); H_out = (H - 1) sH - 2 pH + dH (kH - 1) +
    output_padding + 1.

    >>> x, w = minflow.ones(1, 1, 2, 2), minflow.ones(1, 1, 2, 2)
    >>> minflow.nn.functional.conv_transpose2d(x, w, stride=2).shape
    minflow.Size([1, 1, 4, 4])
    """
    fn = "conv_transpose2d"
    input, squeeze = _batched(fn, input, 4)
    stride, padding = _pair(fn, "stride", stride), _pair(fn, "padding", padding)
    dilation = _pair(fn, "dilation", dilation)
    _check_args(fn, input, weight, stride, padding, dilation)
    out = _transposed(fn, input, weight, bias, stride, padding,
                      _pair(fn, "output_padding", output_padding), groups, dilation)
    return _unbatched(out, squeeze)


@public
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
    groups=1, dilation=1) -> Tensor

    The adjoint of conv1d over (N, C_in, L) or unbatched input with (C_in, C_out / groups, k)
    weight: conv_transpose2d over a height of 1.

    >>> minflow.nn.functional.conv_transpose1d(minflow.ones(1, 2, 3), minflow.ones(2, 4, 3)).shape
    minflow.Size([1, 4, 5])
    """
    fn = "conv_transpose1d"
    input, squeeze = _batched(fn, input, 3)
    _check_weight(fn, input, weight, groups, 1)
    pairs = [(1,) + _pair(fn, name, value, 1) for name, value in (
        ("stride", stride), ("padding", padding), ("output_padding", output_padding),
        ("dilation", dilation))]
    pairs[1], pairs[2] = (0,) + pairs[1][1:], (0,) + pairs[2][1:]
    _check_args(fn, input, weight, pairs[0][1:], pairs[1][1:], pairs[3][1:])
    _check_output_padding(fn, pairs[2][1:], pairs[0][1:], pairs[3][1:])
    out = _transposed(fn, F.unsqueeze(input, 2), F.unsqueeze(weight, 2), bias, pairs[0],
                      pairs[1], pairs[2], groups, pairs[3])
    return _unbatched(F.squeeze(out, 2), squeeze)


@public
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
    groups=1, dilation=1) -> Tensor

    The adjoint of conv3d over (N, C_in, D, H, W) or unbatched input with
    (C_in, C_out / groups, kD, kH, kW) weight: each input voxel adds weight * x to the
    output window at (z sD - pD, y sH - pH, x sW - pW); D_out = (D - 1) sD - 2 pD +
    dD (kD - 1) + output_padding + 1, and so for H and W.

    >>> x, w = minflow.ones(1, 1, 2, 2, 2), minflow.ones(1, 1, 2, 2, 2)
    >>> minflow.nn.functional.conv_transpose3d(x, w, stride=2).shape
    minflow.Size([1, 1, 4, 4, 4])
    """
    fn = "conv_transpose3d"
    input, squeeze = _batched(fn, input, 5)
    stride, padding = _pair(fn, "stride", stride, 3), _pair(fn, "padding", padding, 3)
    dilation = _pair(fn, "dilation", dilation, 3)
    _check_args(fn, input, weight, stride, padding, dilation)
    out = _transposed(fn, input, weight, bias, stride, padding,
                      _pair(fn, "output_padding", output_padding, 3), groups, dilation)
    return _unbatched(out, squeeze)


@public
def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    """convolution(input, weight, bias, stride, padding, dilation, transposed,
    output_padding, groups) -> Tensor: torch's generic entry, the conv (or transposed conv)
    of input's rank, 1-D to 3-D.

    >>> x, w = minflow.ones(1, 1, 4, 4), minflow.ones(1, 1, 3, 3)
    >>> minflow.convolution(x, w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1).shape
    minflow.Size([1, 1, 2, 2])
    """
    dims = weight.ndim - 2
    if dims not in (1, 2, 3):
        raise RuntimeError(f"convolution: expected a 3-D, 4-D or 5-D weight, got shape "
                           f"{list(weight.shape)}")
    if transposed:
        fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[dims - 1]
        return fn(input, weight, bias, stride, padding, output_padding, groups, dilation)
    if any(output_padding):
        raise RuntimeError("convolution: output_padding is only used by transposed "
                           "convolutions; got non-zero output_padding with transposed=False")
    fn = (F.conv1d, F.conv2d, F.conv3d)[dims - 1]
    return fn(input, weight, bias, stride, padding, dilation, groups)

"""unfold (im2col) and fold (col2im), with PyTorch's signatures (minflow.nn.functional
takes ``__all__``).

  im2col(input)   (N, C, H, W) -> (N, C * kH * kW, L): each sliding block's values as a
                  column, channel-major then kernel offset (i, j), L blocks row-major
  col2im(input)   (N, C * kH * kW, L) -> (N, C, H, W): each column summed back into the
                  positions its block covers
The two are linear and each other's adjoint, so each is the other's grad op (and double
backward comes free). Kernels: kernels/generic/fold.py (the conv kernels' strided
windows); grad functions: autograd/grads/fold.py.
"""
import math

from ..core import dtype as dtypes
from ..core.dispatch import apply
from ..core.functional import public
from ..core.namespace import F
from ..core.tensor import Tensor
from . import infer
from .conv import conv_output_size
from .registry import Attr, define_op

__all__ = ["unfold", "fold"]

_ATTRS = [Attr("kernel_size", "ints"), Attr("dilation", "ints"), Attr("padding", "ints"),
          Attr("stride", "ints")]


def _check_attrs(kernel_size, dilation, padding, stride, fn):
    for name, value, low, what in (("kernel size", kernel_size, 1, "greater than zero"),
                                   ("dilation", dilation, 1, "greater than zero"),
                                   ("padding", padding, 0, "non-negative"),
                                   ("stride", stride, 1, "greater than zero")):
        if min(value) < low:
            raise RuntimeError(f"{fn}: {name} should be {what}, but got {name.split()[0]}_height: "
                               f"{value[0]} {name.split()[0]}_width: {value[1]}")


def blocks(size, kernel_size, dilation, padding, stride, fn="im2col"):
    """The number of sliding blocks along each of the two spatial dims."""
    shape = tuple(conv_output_size(size[i], kernel_size[i], stride[i], padding[i], padding[i],
                                   dilation[i]) for i in (0, 1))
    if min(shape) < 1:
        raise RuntimeError(f"{fn}: Given input with spatial size {tuple(size)}, kernel_size="
                           f"{tuple(kernel_size)}, dilation={tuple(dilation)}, padding="
                           f"{tuple(padding)}, calculated shape of the array of sliding blocks "
                           f"as {shape}, but its components must be at least one.")
    return shape


def _im2col_infer(input, kernel_size, dilation, padding, stride, fn="im2col"):
    _check_float(input, fn)
    _check_attrs(kernel_size, dilation, padding, stride, fn)
    n, c, h, w = input.shape
    rows, cols = blocks((h, w), kernel_size, dilation, padding, stride, fn)
    return (n, c * math.prod(kernel_size), rows * cols), input.dtype


def _col2im_infer(input, output_size, kernel_size, dilation, padding, stride, fn="col2im"):
    _check_float(input, fn)
    _check_attrs(kernel_size, dilation, padding, stride, fn)
    n, ckk, length = input.shape
    per_channel = math.prod(kernel_size)
    if ckk % per_channel:
        raise RuntimeError(f"{fn}: Expected size of input's dimension 1 to be divisible by the "
                           f"product of kernel_size, but got input.size(1)={ckk} and "
                           f"kernel_size={tuple(kernel_size)}.")
    rows, cols = blocks(output_size, kernel_size, dilation, padding, stride, fn)
    if rows * cols != length:
        raise RuntimeError(f"{fn}: Given output_size={tuple(output_size)}, kernel_size="
                           f"{tuple(kernel_size)}, dilation={tuple(dilation)}, padding="
                           f"{tuple(padding)}, stride={tuple(stride)}, expected size of "
                           f"input's dimension 2 to match the calculated number of sliding "
                           f"blocks {rows} * {cols} = {rows * cols}, but got "
                           f"input.size(2)={length}.")
    return (n, ckk // per_channel) + tuple(output_size), input.dtype


def _check_float(input, fn):
    try:
        infer.check_dtype(input, dtypes.FLOATS)
    except TypeError as err:
        raise type(err)(f"{fn}: {err}") from None


IM2COL = define_op("im2col", ["input"], infer=_im2col_infer, attrs=_ATTRS,
                   traits=("opaque", "no_side_effect"),
                   doc="(N, C, H, W) -> (N, C * kH * kW, L): the sliding blocks as columns.")
COL2IM = define_op("col2im", ["input"], infer=_col2im_infer,
                   attrs=[Attr("output_size", "ints")] + _ATTRS,
                   traits=("opaque", "no_side_effect"),
                   doc="(N, C * kH * kW, L) -> (N, C, H, W): columns summed into their blocks.")


def _pair(fn, name, value):
    if isinstance(value, int) and not isinstance(value, bool):
        return (value, value)
    if not isinstance(value, (tuple, list)) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise TypeError(f"{fn}: expected {name} to be an int or a pair of ints, got {value!r}")
    if len(value) != 2:
        raise RuntimeError(f"{fn}: It is expected {name} equals to 2, but got size "
                           f"{len(value)}")
    return tuple(value)


def _attrs(fn, kernel_size, dilation, padding, stride):
    return {"kernel_size": _pair(fn, "kernel_size", kernel_size),
            "dilation": _pair(fn, "dilation", dilation),
            "padding": _pair(fn, "padding", padding), "stride": _pair(fn, "stride", stride)}


def _batched(fn, input, ndim, expected):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}: expected input to be a Tensor, got {type(input).__name__}")
    if input.ndim not in (ndim - 1, ndim) or 0 in tuple(input.shape)[input.ndim - ndim + 1:]:
        raise RuntimeError(f"{fn}: Expected {expected} tensor for input with possibly 0 batch "
                           f"size and non-zero dimensions for input, but got: "
                           f"{list(input.shape)}")
    return (input, False) if input.ndim == ndim else (F.unsqueeze(input, 0), True)


@public
def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """unfold(input, kernel_size, dilation=1, padding=0, stride=1) -> Tensor

    Extract sliding blocks of an (N, C, H, W) or unbatched (C, H, W) input as columns:
    out[n, c * kH * kW + i * kW + j, l] = input_padded[n, c, y_l * sH + i * dH,
    x_l * sW + j * dW], for the L blocks (y_l, x_l) in row-major order.

    >>> x = minflow.arange(9.0).reshape(1, 1, 3, 3)
    >>> minflow.nn.functional.unfold(x, 2).tolist()
    [[[0.0, 1.0, 3.0, 4.0], [1.0, 2.0, 4.0, 5.0], [3.0, 4.0, 6.0, 7.0], [4.0, 5.0, 7.0, 8.0]]]
    """
    input, squeeze = _batched("unfold", input, 4, "3D or 4D (batch mode)")
    attrs = _attrs("unfold", kernel_size, dilation, padding, stride)
    _im2col_infer(input, fn="unfold", **attrs)       # errors named after unfold, not im2col
    out = apply(IM2COL, (input,), attrs)
    return F.squeeze(out, 0) if squeeze else out


@public
def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor

    Combine columns (N, C * kH * kW, L) or unbatched (C * kH * kW, L) into an
    (N, C, *output_size) tensor, summing where blocks overlap: the adjoint of ``unfold``.

    >>> cols = minflow.ones(1, 4, 4)
    >>> minflow.nn.functional.fold(cols, (3, 3), 2).tolist()
    [[[[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]]]
    """
    input, squeeze = _batched("fold", input, 3, "2D or 3D (batch mode)")
    attrs = _attrs("fold", kernel_size, dilation, padding, stride)
    attrs["output_size"] = _pair("fold", "output_size", output_size)
    _col2im_infer(input, fn="fold", **attrs)          # errors named after fold, not col2im
    out = apply(COL2IM, (input,), attrs)
    return F.squeeze(out, 0) if squeeze else out

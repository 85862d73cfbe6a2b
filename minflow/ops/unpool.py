"""Max unpooling, with PyTorch's signatures (minflow.nn.functional takes ``__all__``).

max_unpool1d/2d/3d put each input value at the flat position its index names in a zero
output of the pooled input's size: one scatter over the flattened planes, whose grad (a
gather of the output grad at the indices) is torch's.
"""
import math

from ..core import dtype as dtypes
from ..core.functional import public
from ..core.namespace import F
from ..core.tensor import Tensor
from .conv import _batched, _pair, _unbatched
from .infer import check_floating

__all__ = ["max_unpool1d", "max_unpool2d", "max_unpool3d"]


def _output_size(fn, input, kernel_size, stride, padding, output_size):
    """The unpooled spatial size: (in - 1) * stride - 2 * padding + kernel, or
    ``output_size`` (the spatial dims, or all dims) within a stride of it, as torch."""
    dims = len(kernel_size)
    default = [(input.shape[i - dims] - 1) * stride[i] + kernel_size[i] - 2 * padding[i]
               for i in range(dims)]
    if output_size is None:
        return tuple(default)
    size = list(output_size)
    if len(size) == dims + 2:
        size = size[2:]
    if len(size) != dims:
        raise ValueError(f"{fn}: output_size should be a sequence containing {dims} or "
                         f"{dims + 2} elements, but it has a length of '{len(size)}'")
    for d in range(dims):
        low, high = default[d] - stride[d], default[d] + stride[d]
        if not low < size[d] < high:
            raise ValueError(f"{fn}: invalid output_size {list(output_size)} (dim {d} must be "
                             f"between {low} and {high})")
    return tuple(size)


def _unpool(fn, input, indices, kernel_size, stride, padding, output_size, dims):
    if not isinstance(indices, Tensor):
        raise TypeError(f"{fn}(): argument 'indices' must be Tensor, not "
                        f"{type(indices).__name__}")
    if indices.dtype is not dtypes.int64:
        raise RuntimeError(f"{fn}: elements in indices should be type int64 but got: "
                           f"{indices.dtype.name}")
    input, squeeze = _batched(fn, input, dims + 2,
                              f"Expected {dims + 1}D or {dims + 2}D input")
    check_floating(fn, input)
    indices = F.unsqueeze(indices, 0) if squeeze else indices
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"{fn}: Expected shape of indices to be same as that of the input "
                           f"tensor ({list(input.shape)}) but got indices tensor with shape: "
                           f"{list(indices.shape)}")
    kernel_size = _pair(fn, "kernel_size", kernel_size, dims)
    stride = kernel_size if stride is None else _pair(fn, "stride", stride, dims)
    padding = _pair(fn, "padding", padding, dims)
    size = _output_size(fn, input, kernel_size, stride, padding, output_size)
    if min(size) <= 0:
        raise RuntimeError(f"{fn}: the output size {list(size)} must be positive (input size "
                           f"{list(input.shape)}, kernel_size {list(kernel_size)}, stride "
                           f"{list(stride)}, padding {list(padding)})")
    n, c = tuple(input.shape[:2])
    zeros = F.zeros((n, c, math.prod(size)), dtype=input.dtype, device=input.device)
    try:
        out = F.scatter(zeros, 2, F.reshape(indices, (n, c, -1)), F.reshape(input, (n, c, -1)))
    except RuntimeError as err:         # scatter's out-of-bounds index error
        if "out of bounds" not in str(err):
            raise
        raise RuntimeError(f"{fn}: Found an invalid max index (output volumes are of size "
                           f"{'x'.join(map(str, size))}): {err}") from None
    return _unbatched(F.reshape(out, (n, c) + size), squeeze)


@public
def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None)
    -> Tensor

    The partial inverse of max_pool1d: out[n, c, indices[n, c, i]] = input[n, c, i], zero
    elsewhere; the output length is (L - 1) * stride - 2 * padding + kernel_size, or
    output_size.

    >>> out, idx = minflow.nn.functional.max_pool1d(minflow.tensor([[[1.0, 3.0, 2.0, 0.0]]]),
    ...                                             2, return_indices=True)
    >>> minflow.nn.functional.max_unpool1d(out, idx, 2).tolist()
    [[[0.0, 3.0, 2.0, 0.0]]]
    """
    return _unpool("max_unpool1d", input, indices, kernel_size, stride, padding, output_size,
                   1)


@public
def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None)
    -> Tensor

    The partial inverse of max_pool2d: each input value goes to the flat h * W + w position
    its index names in a zero (N, C, H, W) output; H = (H_in - 1) * sH - 2 pH + kH (and so
    W), or output_size (within a stride of that).

    >>> x = minflow.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
    >>> out, idx = minflow.nn.functional.max_pool2d(x, 2, return_indices=True)
    >>> minflow.nn.functional.max_unpool2d(out, idx, 2).tolist()
    [[[[0.0, 0.0], [0.0, 4.0]]]]
    """
    return _unpool("max_unpool2d", input, indices, kernel_size, stride, padding, output_size,
                   2)


@public
def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None)
    -> Tensor

    The partial inverse of max_pool3d: each input value goes to the flat
    d * H * W + h * W + w position its index names in a zero (N, C, D, H, W) output.

    >>> x = minflow.arange(8.0).reshape(1, 1, 2, 2, 2)
    >>> out, idx = minflow.nn.functional.max_pool3d(x, 2, return_indices=True)
    >>> minflow.nn.functional.max_unpool3d(out, idx, 2).sum().item()
    7.0
    """
    return _unpool("max_unpool3d", input, indices, kernel_size, stride, padding, output_size,
                   3)

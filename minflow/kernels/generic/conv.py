"""Convolution and pooling kernels over any number of spatial dims (the 2-D and 3-D ops
share them), written once against the array module (numpy or cupy).

Vectorised over batch, channels and positions; the only Python loops run over the
prod(kernel) kernel offsets. Sizes, kernels, strides and dilations have one entry per
spatial dim; a conv's padding has (begin, end) per dim.
  windows  an as_strided view of the padded input, axes (N, C, *kernel, *out), no copy
  im2col   the windows copied once as (N, groups, C/groups * prod(kernel), prod(out)):
           a conv and its grads are then one matmul per sample and group (batched)
  col2im   the way back: per kernel offset, one strided slice-add into a padded buffer
           (an assignment where windows cannot overlap); no add.at, which is slow
Pools reduce across kernel offsets: one (N, C, *out) strided slice of the padded input
per offset, accumulated into the output.
"""
import itertools
import math

from ...core.dtype import FLOATS, INTS
from ...ops.conv import conv_output_size, pool_output_size
from ..registry import register_kernel
from .opmath import in_float32, into


def _inner(size, begins):
    """The index of an unpadded (N, C, *size) region inside its padded array."""
    return (slice(None), slice(None)) + tuple(slice(b, b + s) for s, b in zip(size, begins))


def _pad(xp, x, pads, value):
    """x (N, C, *size) inside a new array filled with value; pads: (begin, end) per dim."""
    if not any(pads):
        return x
    size = tuple(x.shape[2:])
    out = xp.full(tuple(x.shape[:2]) + tuple(s + b + e for s, b, e in
                                             zip(size, pads[0::2], pads[1::2])), value, x.dtype)
    out[_inner(size, pads[0::2])] = x
    return out


def _windows(xp, x, kernel, stride, dilation, out_size):
    """View [n, c, *offset, *position] = x[n, c, *(position * stride + offset * dilation)]."""
    steps = x.strides[2:]
    return xp.lib.stride_tricks.as_strided(
        x, tuple(x.shape[:2]) + tuple(kernel) + tuple(out_size),
        tuple(x.strides[:2]) + tuple(s * d for s, d in zip(steps, dilation))
        + tuple(s * t for s, t in zip(steps, stride)))


def _offsets(kernel, stride, dilation, out_size):
    """(k, index) per kernel offset, k its row-major number: index picks, from the padded
    input, the (N, C, *out) positions that offset reads."""
    for k, offset in enumerate(itertools.product(*map(range, kernel))):
        yield k, (slice(None), slice(None)) + tuple(
            slice(d * o, d * o + s * (n - 1) + 1, s)
            for o, s, d, n in zip(offset, stride, dilation, out_size))


def _col2im(xp, part, shape, pads, kernel, stride, dilation, out_size, dtype):
    """Sum ``part(k)`` (N, C, *out) of each offset k into the input positions it read;
    ``shape`` is the unpadded input's (N, C, *size)."""
    size = tuple(shape[2:])
    buf = xp.zeros(tuple(shape[:2]) + tuple(s + b + e for s, b, e in
                                            zip(size, pads[0::2], pads[1::2])), dtype)
    disjoint = all(s >= d * (k - 1) + 1 for k, s, d in zip(kernel, stride, dilation))
    for k, index in _offsets(kernel, stride, dilation, out_size):
        if disjoint:
            buf[index] = part(k)
        else:
            buf[index] += part(k)
    # NOTE: a copy out of the padding: torch's input grads (and fold's output) are
    # contiguous, and scripts .view() them (a gradient penalty's grad.view(n, -1))
    return xp.ascontiguousarray(buf[_inner(size, pads[0::2])])


# ---- conv2d, conv3d ------------------------------------------------------------------------

def _conv_out_size(size, kernel, stride, padding, dilation):
    return tuple(conv_output_size(size[i], kernel[i], stride[i], padding[2 * i],
                                  padding[2 * i + 1], dilation[i]) for i in range(len(size)))


def _im2col(xp, x, kernel, stride, padding, dilation, groups, out_size):
    """(N, groups, C/groups * prod(kernel), prod(out)) columns of the zero-padded input."""
    n, c = x.shape[:2]
    win = _windows(xp, _pad(xp, x, padding, 0), kernel, stride, dilation, out_size)
    return xp.ascontiguousarray(win).reshape(n, groups, c // groups * math.prod(kernel),
                                             math.prod(out_size))


def _by_group(t, groups):
    """(N, O, ...) as (N, groups, O/groups, prod(...)), a view when t is contiguous."""
    n, o = t.shape[:2]
    return t.reshape(n, groups, o // groups, math.prod(t.shape[2:]))


# NOTE: the matmuls are batched over N (one small product per sample and group) rather
# than one large product: the output lands in NCHW order without a transposing copy, and
# BLAS keeps small products on one thread, which is faster on busy machines.

@register_kernel("conv2d", ("cpu", "cuda"), FLOATS, out=True)
def conv(xp, input, weight, bias, stride, padding, dilation, groups, out=None):
    if input.dtype == xp.float16:       # numpy's float16 matmul would round as it adds
        return into(out, conv(xp, *in_float32(xp, input, weight, bias), stride, padding,
                              dilation, groups))
    (n, o, cg), kernel = (input.shape[0],) + weight.shape[:2], tuple(weight.shape[2:])
    out_size = _conv_out_size(input.shape[2:], kernel, stride, padding, dilation)
    cols = _im2col(xp, input, kernel, stride, padding, dilation, groups, out_size)
    grouped = None if out is None else _by_group(out, groups)   # a view of out
    grouped = xp.matmul(weight.reshape(groups, o // groups, cg * math.prod(kernel)), cols,
                        out=grouped)
    if bias is not None:
        grouped += bias.reshape(groups, o // groups, 1)
    return grouped.reshape((n, o) + out_size)


@register_kernel("conv2d_grad_input", ("cpu", "cuda"), FLOATS)
def conv_grad_input(xp, grad_out, weight, input_size, stride, padding, dilation, groups):
    (n, o), cg, kernel = grad_out.shape[:2], weight.shape[1], tuple(weight.shape[2:])
    out_size = tuple(grad_out.shape[2:])
    w = weight.reshape(groups, o // groups, cg * math.prod(kernel)).transpose(0, 2, 1)
    cols = xp.matmul(w, _by_group(grad_out, groups)).reshape(
        (n, groups * cg, math.prod(kernel)) + out_size)
    return _col2im(xp, lambda k: cols[:, :, k], (n, groups * cg) + tuple(input_size),
                   padding, kernel, stride, dilation, out_size, grad_out.dtype)


@register_kernel("conv2d_grad_weight", ("cpu", "cuda"), FLOATS)
def conv_grad_weight(xp, grad_out, input, kernel_size, stride, padding, dilation, groups):
    o, out_size = grad_out.shape[1], tuple(grad_out.shape[2:])
    cols = _im2col(xp, input, kernel_size, stride, padding, dilation, groups, out_size)
    grad = xp.matmul(_by_group(grad_out, groups), cols.transpose(0, 1, 3, 2)).sum(0)
    return grad.reshape((o, input.shape[1] // groups) + tuple(kernel_size))


# ---- pooling ---------------------------------------------------------------------------

def _pool_out_size(size, kernel, stride, padding, dilation, ceil_mode):
    return tuple(pool_output_size(size[i], kernel[i], stride[i], padding[i], dilation[i],
                                  ceil_mode) for i in range(len(size)))


def _pool_pads(size, kernel, stride, padding, dilation, out_size):
    """(begin, end) per dim: the padding, and at the end whatever ceil_mode's last window
    hangs over (none where floor mode leaves the tail unread)."""
    pads = []
    for i in range(len(size)):
        reach = (out_size[i] - 1) * stride[i] + dilation[i] * (kernel[i] - 1) + 1
        pads += [padding[i], max(0, reach - size[i] - padding[i])]
    return tuple(pads)


def _along(xp, values, dim, dims):
    """A 1-D array shaped to broadcast along ``dim`` of ``dims`` dims."""
    shape = [1] * dims
    shape[dim] = values.shape[0]
    return values.reshape(shape)


def _index_parts(xp, size, kernel, stride, padding, dilation, out_size):
    """Flat (row-major) input index of offset k at output position p is base[p] + rel[k];
    first[p] is the number of the first offset of that window inside the unpadded input."""
    dims = len(size)
    plane = [math.prod(size[i + 1:]) for i in range(dims)]     # elements per step of dim i
    base, first = 0, 0
    for i in range(dims):
        start = _along(xp, xp.arange(out_size[i]) * stride[i] - padding[i], i, dims)
        base = base + start * plane[i]
        first = first * kernel[i] + xp.maximum(-(start // dilation[i]), 0)  # ceil(-start/d)
    rel = [sum(o * d * p for o, d, p in zip(offset, dilation, plane))
           for offset in itertools.product(*map(range, kernel))]
    return base, rel, first


@register_kernel("max_pool2d", ("cpu", "cuda"), INTS + FLOATS)
def max_pool(xp, input, kernel_size, stride, padding, dilation, ceil_mode):
    size = tuple(input.shape[2:])
    out_size = _pool_out_size(size, kernel_size, stride, padding, dilation, ceil_mode)
    pads = _pool_pads(size, kernel_size, stride, padding, dilation, out_size)
    floating = input.dtype.kind == "f"
    x = _pad(xp, input, pads, -math.inf if floating else xp.iinfo(input.dtype).min)
    base, rel, first = _index_parts(xp, size, kernel_size, stride, padding, dilation,
                                    out_size)
    small = xp.int8 if len(rel) < 128 else xp.int32
    # torch's scan: the window's first position inside the input, then each later value
    # > the max so far, or a NaN. Offset 0 can only ever be taken as that first position
    # (else it is padding, -inf or the integer minimum), so the scan starts at offset 1.
    offsets = _offsets(kernel_size, stride, dilation, out_size)
    best = x[next(offsets)[1]].copy()     # a copy even where the slice is all of input
    arg = xp.broadcast_to(first.astype(small), best.shape)
    v = xp.empty_like(best)     # one offset at a time, copied to be contiguous
    for k, index in offsets:
        v[...] = x[index]
        take = (v > best) | xp.isnan(v) if floating else v > best
        xp.maximum(best, v, out=best)
        arg = xp.maximum(arg, take * small(k))   # the last offset taken wins
    indices = xp.asarray(rel).take(arg.astype(xp.intp))
    indices += base
    return best, indices


@register_kernel("max_pool2d_grad", ("cpu", "cuda"), FLOATS)
def max_pool_grad(xp, grad_out, indices, input_size, kernel_size, stride, padding, dilation):
    out_size = tuple(grad_out.shape[2:])
    if all(s >= d * (k - 1) + 1 for k, s, d in zip(kernel_size, stride, dilation)):
        return _scatter_disjoint(xp, grad_out, indices, input_size)
    base, rel, _ = _index_parts(xp, input_size, kernel_size, stride, padding, dilation,
                                out_size)
    taken = indices - base      # rel[k] of the offset k each output took
    # NOTE: a product with the mask is many times faster than where() in numpy, but
    # inf * 0 is nan: non-finite grads take the exact path
    exact = not bool(xp.isfinite(grad_out).all())

    def part(k):
        hit = taken == rel[k]
        return xp.where(hit, grad_out, 0) if exact else grad_out * hit
    pads = _pool_pads(input_size, kernel_size, stride, padding, dilation, out_size)
    return _col2im(xp, part, tuple(grad_out.shape[:2]) + tuple(input_size), pads,
                   kernel_size, stride, dilation, out_size, grad_out.dtype)


def _scatter_disjoint(xp, grad_out, indices, input_size):
    """max_pool_grad where windows do not overlap: each input position is the max of at
    most one window, so one flat scatter (an assignment) puts every grad in place."""
    n, c = grad_out.shape[:2]
    area = math.prod(input_size)
    grad = xp.zeros((n * c, area), grad_out.dtype)
    rows = xp.arange(0, n * c * area, area).reshape(n * c, 1)
    flat = indices.reshape(n * c, -1) + rows
    grad.reshape(-1)[flat.reshape(-1)] = grad_out.reshape(-1)
    return grad.reshape((n, c) + tuple(input_size))


@register_kernel("max_pool2d_gather", ("cpu", "cuda"), INTS + FLOATS)
def max_pool_gather(xp, input, indices, input_size, kernel_size, stride, padding, dilation):
    n, c = input.shape[:2]
    flat = indices.reshape(n, c, -1)
    return xp.take_along_axis(input.reshape(n, c, -1), flat, 2).reshape(indices.shape)


def _avg_divisor(xp, size, kernel, stride, padding, out_size, count_include_pad,
                 divisor_override, dtype):
    """Divisors over the output positions: the override, or each window's size within the
    padded input (count_include_pad) or within the input."""
    if divisor_override is not None:
        return dtype.type(divisor_override)
    divisor = 1
    for i in range(len(size)):
        start = xp.arange(out_size[i]) * stride[i] - padding[i]
        end = xp.minimum(start + kernel[i], size[i] + padding[i])
        if not count_include_pad:
            start, end = xp.maximum(start, 0), xp.minimum(end, size[i])
        divisor = divisor * _along(xp, end - start, i, len(size))
    return divisor.astype(dtype)


def _avg_setup(xp, size, kernel_size, stride, padding, ceil_mode, count_include_pad,
               divisor_override, dtype, out_size=None):
    ones = (1,) * len(size)
    if out_size is None:
        out_size = _pool_out_size(size, kernel_size, stride, padding, ones, ceil_mode)
    pads = _pool_pads(size, kernel_size, stride, padding, ones, out_size)
    divisor = _avg_divisor(xp, size, kernel_size, stride, padding, out_size,
                           count_include_pad, divisor_override, dtype)
    return out_size, pads, divisor


@register_kernel("avg_pool2d", ("cpu", "cuda"), FLOATS)
def avg_pool(xp, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
             divisor_override):
    if input.dtype == xp.float16:       # summed in float32, as torch's kernel
        input, = in_float32(xp, input)
    out_size, pads, divisor = _avg_setup(xp, tuple(input.shape[2:]), kernel_size, stride,
                                         padding, ceil_mode, count_include_pad,
                                         divisor_override, input.dtype)
    x = _pad(xp, input, pads, 0)
    offsets = _offsets(kernel_size, stride, (1,) * len(out_size), out_size)
    total = x[next(offsets)[1]].copy()
    for _, index in offsets:
        total += x[index]
    total /= divisor
    return total


@register_kernel("avg_pool2d_grad", ("cpu", "cuda"), FLOATS)
def avg_pool_grad(xp, grad_out, input_size, kernel_size, stride, padding, ceil_mode,
                  count_include_pad, divisor_override):
    out_size = tuple(grad_out.shape[2:])
    _, pads, divisor = _avg_setup(xp, input_size, kernel_size, stride, padding, ceil_mode,
                                  count_include_pad, divisor_override, grad_out.dtype,
                                  out_size)
    share = grad_out / divisor
    return _col2im(xp, lambda k: share, tuple(grad_out.shape[:2]) + tuple(input_size), pads,
                   kernel_size, stride, (1,) * len(out_size), out_size, grad_out.dtype)


def _adaptive_matrix(xp, size, out, dtype):
    """(out, size): row i averages [floor(i * size / out), ceil((i + 1) * size / out))."""
    i = xp.arange(out)
    start, end = (i * size) // out, -((-(i + 1) * size) // out)
    j = xp.arange(size)
    inside = (j >= start[:, None]) & (j < end[:, None])
    return (inside / (end - start)[:, None]).astype(dtype)


def _along_dims(xp, x, matrices):
    """x with matrix i (new size, size) applied along spatial dim i: windows of any
    (uneven) sizes as one matmul per dim, the last dim's as x @ m.T."""
    x = xp.matmul(x, matrices[-1].T)
    for axis in range(x.ndim - 2, 1, -1):
        m = matrices[axis - 2]
        x = xp.moveaxis(xp.matmul(m, xp.moveaxis(x, axis, -2)), -2, axis)
    return x


@register_kernel("adaptive_avg_pool2d", ("cpu", "cuda"), FLOATS)
def adaptive_avg_pool(xp, input, output_size):
    if input.dtype == xp.float16:       # averaged in float32, as torch's kernel
        input, = in_float32(xp, input)
    return _along_dims(xp, input, [_adaptive_matrix(xp, s, o, input.dtype) for s, o in
                                   zip(input.shape[2:], output_size)])


@register_kernel("adaptive_avg_pool2d_grad", ("cpu", "cuda"), FLOATS)
def adaptive_avg_pool_grad(xp, grad_out, input_size):
    return _along_dims(xp, grad_out, [_adaptive_matrix(xp, s, o, grad_out.dtype).T for s, o in
                                      zip(input_size, grad_out.shape[2:])])

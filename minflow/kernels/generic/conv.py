"""Convolution and pooling kernels, written once against the array module (numpy or cupy).

Vectorised over batch, channels and pixels; the only Python loops run over the kH * kW
kernel offsets:
  windows  an as_strided view of the padded input, axes (N, C, kH, kW, OH, OW), no copy
  im2col   the windows copied once as (N, groups, C/groups * kH * kW, OH * OW): conv2d
           and its grads are then one matmul per sample and group (a batched matmul)
  col2im   the way back: per kernel offset, one strided slice-add into a padded buffer
           (an assignment where windows cannot overlap); no add.at, which is slow
Pools reduce across kernel offsets: one (N, C, OH, OW) strided slice of the padded input
per offset, accumulated into the output.
"""
import math

from ...core.dtype import FLOATS
from ...ops.conv import conv_output_size, pool_output_size
from ..registry import register_kernel


def _pad(xp, x, pads, value):
    """x (N, C, H, W) inside a new array filled with value; pads: (top, bottom, left, right)."""
    if not any(pads):
        return x
    top, bottom, left, right = pads
    n, c, h, w = x.shape
    out = xp.full((n, c, h + top + bottom, w + left + right), value, x.dtype)
    out[:, :, top:top + h, left:left + w] = x
    return out


def _windows(xp, x, kernel, stride, dilation, out_hw):
    """View [n, c, i, j, y, x] = x[n, c, y * sH + i * dH, x * sW + j * dW]."""
    sn, sc, sh, sw = x.strides
    return xp.lib.stride_tricks.as_strided(
        x, tuple(x.shape[:2]) + tuple(kernel) + tuple(out_hw),
        (sn, sc, sh * dilation[0], sw * dilation[1], sh * stride[0], sw * stride[1]))


def _offsets(kernel, stride, dilation, out_hw):
    """(k, index) per kernel offset (i, j), k = i * kW + j: index picks, from the padded
    input, the (N, C, OH, OW) positions that offset reads."""
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            rows, cols = (slice(d * o, d * o + s * (n - 1) + 1, s) for o, s, d, n in
                          zip((i, j), stride, dilation, out_hw))
            yield i * kernel[1] + j, (slice(None), slice(None), rows, cols)


def _col2im(xp, part, shape, pads, kernel, stride, dilation, out_hw, dtype):
    """Sum ``part(k)`` (N, C, OH, OW) of each offset k into the input positions it read;
    ``shape`` is the unpadded input's (N, C, H, W)."""
    n, c, h, w = shape
    top, bottom, left, right = pads
    buf = xp.zeros((n, c, h + top + bottom, w + left + right), dtype)
    disjoint = all(s >= d * (k - 1) + 1 for k, s, d in zip(kernel, stride, dilation))
    for k, index in _offsets(kernel, stride, dilation, out_hw):
        if disjoint:
            buf[index] = part(k)
        else:
            buf[index] += part(k)
    return buf[:, :, top:top + h, left:left + w]


# ---- conv2d ----------------------------------------------------------------------------

def _conv_out_hw(size, kernel, stride, padding, dilation):
    return tuple(conv_output_size(size[i], kernel[i], stride[i], padding[2 * i],
                                  padding[2 * i + 1], dilation[i]) for i in (0, 1))


def _im2col(xp, x, kernel, stride, padding, dilation, groups, out_hw):
    """(N, groups, C/groups * kH * kW, OH * OW) columns of the zero-padded input."""
    n, c = x.shape[:2]
    win = _windows(xp, _pad(xp, x, padding, 0), kernel, stride, dilation, out_hw)
    return xp.ascontiguousarray(win).reshape(
        n, groups, c // groups * kernel[0] * kernel[1], out_hw[0] * out_hw[1])


def _by_group(t, groups):
    """(N, O, ...) as (N, groups, O/groups, prod(...)), a view when t is contiguous."""
    n, o = t.shape[:2]
    return t.reshape(n, groups, o // groups, math.prod(t.shape[2:]))


# NOTE: the matmuls are batched over N (one small product per sample and group) rather
# than one large product: the output lands in NCHW order without a transposing copy, and
# BLAS keeps small products on one thread, which is faster on busy machines.

@register_kernel("conv2d", ("cpu", "cuda"), FLOATS, out=True)
def conv2d(xp, input, weight, bias, stride, padding, dilation, groups, out=None):
    (n, _, h, w), (o, cg, kh, kw) = input.shape, weight.shape
    out_hw = _conv_out_hw((h, w), (kh, kw), stride, padding, dilation)
    cols = _im2col(xp, input, (kh, kw), stride, padding, dilation, groups, out_hw)
    grouped = None if out is None else _by_group(out, groups)   # a view of out
    grouped = xp.matmul(weight.reshape(groups, o // groups, cg * kh * kw), cols, out=grouped)
    if bias is not None:
        grouped += bias.reshape(groups, o // groups, 1)
    return grouped.reshape((n, o) + out_hw)


@register_kernel("conv2d_grad_input", ("cpu", "cuda"), FLOATS)
def conv2d_grad_input(xp, grad_out, weight, input_size, stride, padding, dilation, groups):
    (n, o, oh, ow), (_, cg, kh, kw) = grad_out.shape, weight.shape
    w = weight.reshape(groups, o // groups, cg * kh * kw).transpose(0, 2, 1)
    cols = xp.matmul(w, _by_group(grad_out, groups)).reshape(n, groups * cg, kh, kw, oh, ow)

    def part(k):
        return cols[:, :, k // kw, k % kw]
    return _col2im(xp, part, (n, groups * cg) + tuple(input_size), padding, (kh, kw), stride,
                   dilation, (oh, ow), grad_out.dtype)


@register_kernel("conv2d_grad_weight", ("cpu", "cuda"), FLOATS)
def conv2d_grad_weight(xp, grad_out, input, kernel_size, stride, padding, dilation, groups):
    o, out_hw = grad_out.shape[1], tuple(grad_out.shape[2:])
    cols = _im2col(xp, input, kernel_size, stride, padding, dilation, groups, out_hw)
    grad = xp.matmul(_by_group(grad_out, groups), cols.transpose(0, 1, 3, 2)).sum(0)
    return grad.reshape((o, input.shape[1] // groups) + tuple(kernel_size))


# ---- pooling ---------------------------------------------------------------------------

def _pool_pads(size, kernel, stride, padding, dilation, out_hw):
    """(top, bottom, left, right): the padding, and at the end whatever ceil_mode's last
    window hangs over (none where floor mode leaves the tail unread)."""
    pads = []
    for i in (0, 1):
        reach = (out_hw[i] - 1) * stride[i] + dilation[i] * (kernel[i] - 1) + 1
        pads += [padding[i], max(0, reach - size[i] - padding[i])]
    return tuple(pads)


def _index_parts(xp, size, kernel, stride, padding, dilation, out_hw):
    """Flat input index h * W + w of offset k at output (y, x) is base[y, x] + rel[k];
    first[y, x] is the first offset of that window inside the (unpadded) input."""
    firsts, starts = [], []
    for i in (0, 1):
        start = xp.arange(out_hw[i]) * stride[i] - padding[i]
        starts.append(start)
        firsts.append(xp.maximum(-(start // dilation[i]), 0))   # ceil(-start / d), >= 0
    base = starts[0][:, None] * size[1] + starts[1][None, :]
    rel = [i * dilation[0] * size[1] + j * dilation[1]
           for i in range(kernel[0]) for j in range(kernel[1])]
    return base, rel, firsts[0][:, None] * kernel[1] + firsts[1][None, :]


@register_kernel("max_pool2d", ("cpu", "cuda"), FLOATS)
def max_pool2d(xp, input, kernel_size, stride, padding, dilation, ceil_mode):
    size = tuple(input.shape[2:])
    out_hw = tuple(pool_output_size(size[i], kernel_size[i], stride[i], padding[i],
                                    dilation[i], ceil_mode) for i in (0, 1))
    pads = _pool_pads(size, kernel_size, stride, padding, dilation, out_hw)
    x = _pad(xp, input, pads, -math.inf)
    base, rel, first = _index_parts(xp, size, kernel_size, stride, padding, dilation, out_hw)
    small = xp.int8 if len(rel) < 128 else xp.int32
    # torch's scan: the window's first position inside the input, then each later value
    # > the max so far, or a NaN. Offset 0 can only ever be taken as that first position
    # (else it is padding, -inf), so the scan starts at offset 1.
    offsets = _offsets(kernel_size, stride, dilation, out_hw)
    best = x[next(offsets)[1]].copy()     # a copy even where the slice is all of input
    arg = xp.broadcast_to(first.astype(small), best.shape)
    v = xp.empty_like(best)     # one offset at a time, copied to be contiguous
    for k, index in offsets:
        v[...] = x[index]
        take = (v > best) | xp.isnan(v)
        xp.maximum(best, v, out=best)
        arg = xp.maximum(arg, take * small(k))   # the last offset taken wins
    indices = xp.asarray(rel).take(arg.astype(xp.intp))
    indices += base
    return best, indices


@register_kernel("max_pool2d_grad", ("cpu", "cuda"), FLOATS)
def max_pool2d_grad(xp, grad_out, indices, input_size, kernel_size, stride, padding,
                    dilation):
    out_hw = tuple(grad_out.shape[2:])
    if all(s >= d * (k - 1) + 1 for k, s, d in zip(kernel_size, stride, dilation)):
        return _scatter_disjoint(xp, grad_out, indices, input_size)
    base, rel, _ = _index_parts(xp, input_size, kernel_size, stride, padding, dilation,
                                out_hw)
    taken = indices - base      # rel[k] of the offset k each output took
    # NOTE: a product with the mask is many times faster than where() in numpy, but
    # inf * 0 is nan: non-finite grads take the exact path
    exact = not bool(xp.isfinite(grad_out).all())

    def part(k):
        hit = taken == rel[k]
        return xp.where(hit, grad_out, 0) if exact else grad_out * hit
    pads = _pool_pads(input_size, kernel_size, stride, padding, dilation, out_hw)
    return _col2im(xp, part, tuple(grad_out.shape[:2]) + tuple(input_size), pads,
                   kernel_size, stride, dilation, out_hw, grad_out.dtype)


def _scatter_disjoint(xp, grad_out, indices, input_size):
    """max_pool2d_grad where windows do not overlap: each input position is the max of at
    most one window, so one flat scatter (an assignment) puts every grad in place."""
    n, c = grad_out.shape[:2]
    area = input_size[0] * input_size[1]
    grad = xp.zeros((n * c, area), grad_out.dtype)
    rows = xp.arange(0, n * c * area, area).reshape(n * c, 1)
    flat = indices.reshape(n * c, -1) + rows
    grad.reshape(-1)[flat.reshape(-1)] = grad_out.reshape(-1)
    return grad.reshape((n, c) + tuple(input_size))


@register_kernel("max_pool2d_gather", ("cpu", "cuda"), FLOATS)
def max_pool2d_gather(xp, input, indices, input_size, kernel_size, stride, padding,
                      dilation):
    n, c, h, w = input.shape
    flat = indices.reshape(n, c, indices.shape[2] * indices.shape[3])
    return xp.take_along_axis(input.reshape(n, c, h * w), flat, 2).reshape(indices.shape)


def _avg_divisor(xp, size, kernel, stride, padding, out_hw, count_include_pad,
                 divisor_override, dtype):
    """(OH, OW) divisors: the override, or each window's size within the padded input
    (count_include_pad) or within the input."""
    if divisor_override is not None:
        return dtype.type(divisor_override)
    counts = []
    for i in (0, 1):
        start = xp.arange(out_hw[i]) * stride[i] - padding[i]
        end = xp.minimum(start + kernel[i], size[i] + padding[i])
        if not count_include_pad:
            start, end = xp.maximum(start, 0), xp.minimum(end, size[i])
        counts.append(end - start)
    return (counts[0][:, None] * counts[1][None, :]).astype(dtype)


def _avg_setup(xp, size, kernel_size, stride, padding, ceil_mode, count_include_pad,
               divisor_override, dtype, out_hw=None):
    if out_hw is None:
        out_hw = tuple(pool_output_size(size[i], kernel_size[i], stride[i], padding[i], 1,
                                        ceil_mode) for i in (0, 1))
    pads = _pool_pads(size, kernel_size, stride, padding, (1, 1), out_hw)
    divisor = _avg_divisor(xp, size, kernel_size, stride, padding, out_hw,
                           count_include_pad, divisor_override, dtype)
    return out_hw, pads, divisor


@register_kernel("avg_pool2d", ("cpu", "cuda"), FLOATS)
def avg_pool2d(xp, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
               divisor_override):
    out_hw, pads, divisor = _avg_setup(xp, tuple(input.shape[2:]), kernel_size, stride,
                                       padding, ceil_mode, count_include_pad,
                                       divisor_override, input.dtype)
    x = _pad(xp, input, pads, 0)
    offsets = _offsets(kernel_size, stride, (1, 1), out_hw)
    total = x[next(offsets)[1]].copy()
    for _, index in offsets:
        total += x[index]
    total /= divisor
    return total


@register_kernel("avg_pool2d_grad", ("cpu", "cuda"), FLOATS)
def avg_pool2d_grad(xp, grad_out, input_size, kernel_size, stride, padding, ceil_mode,
                    count_include_pad, divisor_override):
    out_hw = tuple(grad_out.shape[2:])
    _, pads, divisor = _avg_setup(xp, input_size, kernel_size, stride, padding, ceil_mode,
                                  count_include_pad, divisor_override, grad_out.dtype, out_hw)
    share = grad_out / divisor
    return _col2im(xp, lambda k: share, tuple(grad_out.shape[:2]) + tuple(input_size), pads,
                   kernel_size, stride, (1, 1), out_hw, grad_out.dtype)


def _adaptive_matrix(xp, size, out, dtype):
    """(out, size): row i averages [floor(i * size / out), ceil((i + 1) * size / out))."""
    i = xp.arange(out)
    start, end = (i * size) // out, -((-(i + 1) * size) // out)
    j = xp.arange(size)
    inside = (j >= start[:, None]) & (j < end[:, None])
    return (inside / (end - start)[:, None]).astype(dtype)


@register_kernel("adaptive_avg_pool2d", ("cpu", "cuda"), FLOATS)
def adaptive_avg_pool2d(xp, input, output_size):
    # out = P_h @ x @ P_w^T per plane: two matmuls, windows of any (uneven) sizes
    (h, w), (oh, ow) = input.shape[2:], output_size
    rows, cols = _adaptive_matrix(xp, h, oh, input.dtype), _adaptive_matrix(xp, w, ow,
                                                                            input.dtype)
    return xp.matmul(rows, xp.matmul(input, cols.T))


@register_kernel("adaptive_avg_pool2d_grad", ("cpu", "cuda"), FLOATS)
def adaptive_avg_pool2d_grad(xp, grad_out, input_size):
    (h, w), (oh, ow) = input_size, grad_out.shape[2:]
    rows, cols = (_adaptive_matrix(xp, h, oh, grad_out.dtype),
                  _adaptive_matrix(xp, w, ow, grad_out.dtype))
    return xp.matmul(rows.T, xp.matmul(grad_out, cols))

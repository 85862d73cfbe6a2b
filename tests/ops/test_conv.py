"""conv1d/conv2d, max_pool2d, avg_pool2d, adaptive_avg_pool2d: forward against loop
references written here, gradients by finite differences, and values and gradients
against PyTorch where it is installed. Tables of cases, parametrized over devices."""
import math

import numpy as np
import pytest

import minflow
import minflow.nn.functional as Fn
from minflow.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(0)


def _t(a, device="cpu", grad=False, dtype=None):
    return minflow.tensor(np.asarray(a, dtype=dtype), device=device, requires_grad=grad)


def _np(t):
    return t.detach().cpu().numpy()


# ---- loop references: one output position at a time, vectorised over (N, C) only ------

def _out_size(size, k, s, pad_total, d, ceil=False, pad_begin=0):
    span = size + pad_total - d * (k - 1) - 1
    out = (span + (s - 1 if ceil else 0)) // s + 1
    if ceil and (out - 1) * s >= size + pad_begin:
        out -= 1
    return out


def conv2d_ref(x, w, b, stride, pads, dilation, groups):
    """pads: (top, bottom, left, right)."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), pads[:2], pads[2:]))
    oh = _out_size(h, kh, stride[0], pads[0] + pads[1], dilation[0])
    ow = _out_size(wd, kw, stride[1], pads[2] + pads[3], dilation[1])
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for y in range(oh):
        for z in range(ow):
            rows = y * stride[0] + dilation[0] * np.arange(kh)
            cols = z * stride[1] + dilation[1] * np.arange(kw)
            patch = xp[:, :, rows][:, :, :, cols]                 # (N, C, kh, kw)
            for g in range(groups):
                part = patch[:, g * cg:(g + 1) * cg]
                out[:, g * og:(g + 1) * og, y, z] = np.einsum(
                    "ncij,ocij->no", part, w[g * og:(g + 1) * og])
    return out if b is None else out + b[None, :, None, None]


def pool_ref(x, k, s, p, d, ceil, mode, count_include_pad=True, divisor=None):
    """max (-> values, flat indices) or avg pooling, as torch's CPU loops."""
    n, c, h, w = x.shape
    oh = _out_size(h, k[0], s[0], 2 * p[0], d[0], ceil, p[0])
    ow = _out_size(w, k[1], s[1], 2 * p[1], d[1], ceil, p[1])
    out, idx = np.zeros((n, c, oh, ow)), np.zeros((n, c, oh, ow), np.int64)
    for y in range(oh):
        for z in range(ow):
            rows = [r for r in y * s[0] - p[0] + d[0] * np.arange(k[0]) if 0 <= r < h]
            cols = [q for q in z * s[1] - p[1] + d[1] * np.arange(k[1]) if 0 <= q < w]
            patch = x[:, :, rows][:, :, :, cols].reshape(n, c, -1)
            if mode == "max":
                arg = patch.argmax(-1)
                out[:, :, y, z] = np.take_along_axis(patch, arg[..., None], -1)[..., 0]
                idx[:, :, y, z] = np.array(rows)[arg // len(cols)] * w + np.array(cols)[
                    arg % len(cols)]
            else:
                h0, w0 = y * s[0] - p[0], z * s[1] - p[1]
                full = ((min(h0 + k[0], h + p[0]) - h0) * (min(w0 + k[1], w + p[1]) - w0))
                count = divisor or (full if count_include_pad else patch.shape[-1])
                out[:, :, y, z] = patch.sum(-1) / count
    return (out, idx) if mode == "max" else out


def adaptive_ref(x, size):
    n, c, h, w = x.shape
    out = np.zeros((n, c) + tuple(size))
    for y in range(size[0]):
        for z in range(size[1]):
            r0, r1 = (y * h) // size[0], math.ceil((y + 1) * h / size[0])
            c0, c1 = (z * w) // size[1], math.ceil((z + 1) * w / size[1])
            out[:, :, y, z] = x[:, :, r0:r1, c0:c1].mean((2, 3))
    return out


def _pair(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v)


def _conv_pads(kw, w_shape):
    padding, dilation = kw.get("padding", 0), _pair(kw.get("dilation", 1))
    if padding == "valid":
        return (0, 0, 0, 0)
    if padding == "same":
        total = [d * (k - 1) for d, k in zip(dilation, w_shape[2:])]
        return (total[0] // 2, total[0] - total[0] // 2, total[1] // 2,
                total[1] - total[1] // 2)
    ph, pw = _pair(padding)
    return (ph, ph, pw, pw)


# ---- conv2d ------------------------------------------------------------------------------

CONV_CASES = {   # name: (input shape, weight shape, bias, kwargs)
    "plain": ((2, 2, 5, 4), (3, 2, 3, 3), True, {}),
    "stride_pad": ((2, 2, 6, 5), (3, 2, 3, 2), True, {"stride": 2, "padding": 1}),
    "pairs": ((1, 2, 6, 7), (2, 2, 2, 3), False,
              {"stride": (2, 1), "padding": (0, 2), "dilation": (1, 2)}),
    "dilation_odd": ((1, 1, 7, 6), (2, 1, 3, 2), True, {"dilation": 2, "stride": 3}),
    "groups": ((2, 4, 5, 5), (6, 2, 3, 3), True, {"groups": 2, "padding": 1}),
    "depthwise": ((1, 3, 5, 4), (3, 1, 3, 3), False, {"groups": 3, "stride": 2}),
    "same_even": ((2, 2, 5, 6), (2, 2, 2, 4), True, {"padding": "same"}),
    "same_dilated": ((1, 2, 6, 5), (2, 2, 2, 3), False, {"padding": "same", "dilation": 2}),
    "valid": ((1, 2, 4, 5), (2, 2, 3, 3), True, {"padding": "valid"}),
    "one_by_one": ((2, 3, 5, 4), (2, 3, 1, 1), True, {"stride": 2}),
    "kernel_is_input": ((2, 2, 3, 3), (3, 2, 3, 3), True, {}),
    "unbatched": ((2, 5, 4), (3, 2, 2, 2), True, {"padding": (1, 0)}),
}


def _conv_arrays(name):
    xs, ws, bias, kw = CONV_CASES[name]
    rng = np.random.default_rng(len(name))
    return (rng.standard_normal(xs), rng.standard_normal(ws),
            rng.standard_normal(ws[0]) if bias else None, kw)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CONV_CASES))
def test_conv2d_forward(name, dtype, device):
    x, w, b, kw = _conv_arrays(name)
    batched = x[None] if x.ndim == 3 else x
    ref = conv2d_ref(batched, w, b, _pair(kw.get("stride", 1)), _conv_pads(kw, w.shape),
                     _pair(kw.get("dilation", 1)), kw.get("groups", 1))
    ref = ref[0] if x.ndim == 3 else ref
    out = Fn.conv2d(_t(x, device, dtype=dtype), _t(w, device, dtype=dtype),
                    None if b is None else _t(b, device, dtype=dtype), **kw)
    assert out.dtype is getattr(minflow, dtype) and tuple(out.shape) == ref.shape
    tol = 1e-12 if dtype == "float64" else 1e-5
    np.testing.assert_allclose(_np(out), ref, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", sorted(CONV_CASES))
def test_conv2d_gradcheck(name, device):
    x, w, b, kw = _conv_arrays(name)
    args = [_t(x, device, True), _t(w, device, True)] + ([] if b is None else [_t(b, device, True)])
    assert gradcheck(lambda *a: Fn.conv2d(*a, **kw), tuple(args))


@pytest.mark.parametrize("name", ["stride_pad", "groups", "same_even", "dilation_odd"])
def test_conv2d_gradgradcheck(name, device):
    x, w, b, kw = _conv_arrays(name)
    args = (_t(x[:1], device, True), _t(w, device, True))
    assert gradgradcheck(lambda *a: Fn.conv2d(*a, **kw), args)


def test_conv1d(device):
    x, w = RNG.standard_normal((2, 4, 9)), RNG.standard_normal((6, 2, 3))
    out = Fn.conv1d(_t(x, device), _t(w, device), stride=2, padding=1, dilation=2, groups=2)
    ref = conv2d_ref(x[:, :, None], w[:, :, None], None, (1, 2), (0, 0, 1, 1), (1, 2), 2)
    np.testing.assert_allclose(_np(out), ref[:, :, 0], rtol=1e-12)
    assert Fn.conv1d(_t(x[0, :1], device), _t(w[:, :1], device), padding="same").shape == (6, 9)
    args = (_t(x[:1], device, True), _t(w, device, True))
    assert gradcheck(lambda a, b: Fn.conv1d(a, b, groups=2, padding="same"), args)


# ---- pooling -----------------------------------------------------------------------------

POOL_CASES = {   # name: (input shape, kwargs shared by max and avg pooling)
    "k2": ((2, 3, 6, 6), {"kernel_size": 2}),
    "k3_s2_p1": ((1, 2, 7, 6), {"kernel_size": 3, "stride": 2, "padding": 1}),
    "ceil": ((1, 2, 5, 7), {"kernel_size": 2, "ceil_mode": True}),
    "ceil_pad": ((2, 1, 6, 5), {"kernel_size": 3, "stride": 2, "padding": 1,
                                "ceil_mode": True}),
    "pairs": ((1, 2, 7, 8), {"kernel_size": (3, 2), "stride": (2, 1), "padding": (1, 0)}),
    "overlap": ((1, 2, 5, 5), {"kernel_size": 3, "stride": 1}),
    "odd": ((1, 1, 7, 5), {"kernel_size": (2, 3), "stride": (3, 2), "ceil_mode": True}),
    "unbatched": ((2, 5, 6), {"kernel_size": 2, "stride": 1, "padding": 1}),
    "one": ((1, 2, 3, 4), {"kernel_size": 1, "stride": 1}),
}
DILATED = {"kernel_size": (3, 2), "stride": (2, 1), "padding": 1, "dilation": (2, 3),
           "ceil_mode": True}


def _pool_args(kw):
    return (_pair(kw["kernel_size"]), _pair(kw.get("stride") or kw["kernel_size"]),
            _pair(kw.get("padding", 0)), _pair(kw.get("dilation", 1)), kw.get("ceil_mode", False))


def _batched_ref(x, fn):
    """fn(x), with a batch dim added and dropped again for unbatched x."""
    if x.ndim == 4:
        return fn(x)
    out = fn(x[None])
    return tuple(r[0] for r in out) if isinstance(out, tuple) else out[0]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(POOL_CASES) + ["dilated"])
def test_max_pool2d(name, dtype, device):
    shape, kw = POOL_CASES.get(name, ((2, 2, 8, 7), DILATED))
    x = RNG.standard_normal(shape)
    ref, ref_idx = _batched_ref(x, lambda a: pool_ref(a, *_pool_args(kw), "max"))
    out, idx = Fn.max_pool2d(_t(x, device, dtype=dtype), **kw, return_indices=True)
    np.testing.assert_allclose(_np(out), ref, rtol=1e-6)
    np.testing.assert_array_equal(_np(idx), ref_idx)
    assert idx.dtype is minflow.int64 and out.dtype is getattr(minflow, dtype)
    xg = _t(x, device, True)
    assert gradcheck(lambda a: Fn.max_pool2d(a, **kw), (xg,))
    assert gradgradcheck(lambda a: Fn.max_pool2d(a, **kw), (xg,))


@pytest.mark.parametrize("options", [{}, {"count_include_pad": False},
                                     {"divisor_override": 3}])
@pytest.mark.parametrize("name", sorted(POOL_CASES))
def test_avg_pool2d(name, options, device):
    shape, kw = POOL_CASES[name]
    x = RNG.standard_normal(shape)
    ref = _batched_ref(x, lambda a: pool_ref(
        a, *_pool_args(kw), "avg", options.get("count_include_pad", True),
        options.get("divisor_override")))
    xt = _t(x, device)
    np.testing.assert_allclose(_np(Fn.avg_pool2d(xt, **kw, **options)), ref, rtol=1e-12)
    np.testing.assert_array_equal(_np(xt), x)      # the input is never written
    x32 = Fn.avg_pool2d(_t(x, device, dtype="float32"), **kw, **options)
    np.testing.assert_allclose(_np(x32), ref, rtol=1e-5, atol=1e-6)
    xg = _t(x, device, True)
    assert gradcheck(lambda a: Fn.avg_pool2d(a, **kw, **options), (xg,))
    assert gradgradcheck(lambda a: Fn.avg_pool2d(a, **kw, **options), (xg,))


@pytest.mark.parametrize("size", [1, 3, (2, 4), (None, 2), (5, 7), (9, 10), (4, 0)])
def test_adaptive_avg_pool2d(size, device):
    x = RNG.standard_normal((2, 3, 5, 7))
    full = (5 if size[0] is None else size[0], size[1]) if isinstance(size, tuple) \
        else (size, size)
    out = Fn.adaptive_avg_pool2d(_t(x, device), size)
    np.testing.assert_allclose(_np(out), adaptive_ref(x, full), rtol=1e-12, atol=1e-15)
    assert Fn.adaptive_avg_pool2d(_t(x[0], device), size).shape == (3,) + full
    xg = _t(x[:1, :2], device, True)
    assert gradcheck(lambda a: Fn.adaptive_avg_pool2d(a, size), (xg,))
    assert gradgradcheck(lambda a: Fn.adaptive_avg_pool2d(a, size), (xg,))


def test_max_pool2d_nan_inf_and_ties(device):
    x = np.array([[[[1.0, np.nan, 3.0, 3.0], [2.0, 0.0, 3.0, 1.0],
                    [-np.inf, -np.inf, 5.0, 5.0], [-np.inf, -np.inf, 5.0, 5.0]]]])
    out, idx = Fn.max_pool2d(_t(x, device), 2, return_indices=True)
    np.testing.assert_array_equal(_np(out), [[[[np.nan, 3.0], [-np.inf, 5.0]]]])
    np.testing.assert_array_equal(_np(idx), [[[[1, 2], [8, 10]]]])   # NaN; first of ties
    _, idx = Fn.max_pool2d(_t(np.full((1, 1, 3, 3), -np.inf), device), 2, padding=1,
                           return_indices=True)
    np.testing.assert_array_equal(_np(idx), [[[[0, 1], [3, 4]]]])     # never the padding
    g = minflow.tensor([[[[1.0, np.inf], [2.0, 3.0]]]], dtype=minflow.float64, device=device)
    xg = _t(x, device, True)
    (grad,) = minflow.autograd.grad(Fn.max_pool2d(xg, 2), xg, g)
    expected = np.zeros((1, 1, 4, 4))
    expected.flat[[1, 2, 8, 10]] = [1.0, np.inf, 2.0, 3.0]
    np.testing.assert_array_equal(_np(grad), expected)            # inf lands only at argmax


W, B = RNG.standard_normal((4, 3, 3, 2)), RNG.standard_normal(4)
NON_CONTIGUOUS = {
    "conv2d": lambda a: Fn.conv2d(a, _t(W, a.device), _t(B, a.device), stride=2, padding=1),
    "max_pool2d": lambda a: Fn.max_pool2d(a, 3, 2, 1, ceil_mode=True),
    "avg_pool2d": lambda a: Fn.avg_pool2d(a, 3, 2, 1, ceil_mode=True),
    "adaptive_avg_pool2d": lambda a: Fn.adaptive_avg_pool2d(a, (4, 3)),
}


@pytest.mark.parametrize("name", sorted(NON_CONTIGUOUS))
def test_non_contiguous_inputs(name, device):
    fn, x = NON_CONTIGUOUS[name], RNG.standard_normal((2, 3, 6, 5))
    repeated = _t(np.repeat(x[:1], 2, 0), device, True)
    leaf = _t(x[:1], device, True)
    expanded = leaf.expand(2, 3, 6, 5)                 # a zero batch stride
    assert not expanded.is_contiguous()
    np.testing.assert_allclose(_np(fn(expanded)), _np(fn(repeated)), rtol=1e-12)
    fn(expanded).sum().backward()
    fn(repeated).sum().backward()
    np.testing.assert_allclose(_np(leaf.grad), _np(repeated.grad).sum(0, keepdims=True),
                               rtol=1e-12)
    if device == "cpu":     # numpy views: transposed strides, and a window of a bigger array
        transposed = np.ascontiguousarray(np.swapaxes(x, 2, 3)).swapaxes(2, 3)
        window = np.pad(x, 1)[1:-1, 1:-1, 1:-1, 1:-1]
        for view in (transposed, window):
            t = minflow.from_numpy(view)
            assert not t.is_contiguous()
            np.testing.assert_allclose(_np(fn(t)), _np(fn(_t(x))), rtol=1e-12)


def test_grad_ops_double_backward_directly(device):
    """The grad ops' own grads (conv2d_grad_input/weight, pool scatter/gather)."""
    from minflow.core.dispatch import apply
    from minflow.ops import conv as ops
    attrs = {"stride": (2, 1), "padding": (1, 0, 1, 1), "dilation": (1, 2), "groups": 2}
    g, w = _t(RNG.standard_normal((1, 4, 3, 4)), device, True), _t(
        RNG.standard_normal((4, 1, 2, 2)), device, True)
    x = _t(RNG.standard_normal((1, 2, 5, 4)), device, True)
    grad_input = lambda g, w: apply(ops.CONV2D_GRAD_INPUT, (g, w),   # noqa: E731
                                    dict(attrs, input_size=(5, 4)))
    grad_weight = lambda g, x: apply(ops.CONV2D_GRAD_WEIGHT, (g, x),  # noqa: E731
                                     dict(attrs, kernel_size=(2, 2)))
    window = {"kernel_size": (2, 3), "stride": (1, 2), "padding": (1, 1), "dilation": (1, 1)}
    _, idx = Fn.max_pool2d(x, **window, return_indices=True)
    scatter = lambda g: apply(ops.MAX_POOL2D_GRAD, (g, idx),     # noqa: E731
                              dict(window, input_size=(5, 4)))
    gathered = _t(RNG.standard_normal(tuple(idx.shape)), device, True)
    for fn, args in ((grad_input, (g, w)), (grad_weight, (g, x)), (scatter, (gathered,))):
        assert gradcheck(fn, args) and gradgradcheck(fn, args)


# ---- against PyTorch ---------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore:Using padding=.same. with even kernel")
def test_against_torch_values_and_grads():
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    calls = [(f"conv2d {n}", "conv2d", _conv_arrays(n)) for n in sorted(CONV_CASES)]
    calls += [(f"max_pool2d {n}", "max_pool2d", (RNG.standard_normal(s), None, None, kw))
              for n, (s, kw) in POOL_CASES.items()]
    calls += [(f"avg_pool2d {n}", "avg_pool2d", (RNG.standard_normal(s), None, None,
                                                 dict(kw, count_include_pad=False)))
              for n, (s, kw) in POOL_CASES.items()]
    calls += [("adaptive", "adaptive_avg_pool2d", (RNG.standard_normal((2, 3, 7, 9)), None,
                                                   None, {"output_size": (4, 5)}))]
    for label, name, (x, w, b, kw) in calls:
        arrays = [a for a in (x, w, b) if a is not None]
        ours = [_t(a, grad=True) for a in arrays]
        theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
        out, ref = getattr(Fn, name)(*ours, **kw), getattr(tf, name)(*theirs, **kw)
        np.testing.assert_allclose(_np(out), ref.detach().numpy(), rtol=1e-10, atol=1e-12,
                                   err_msg=label)
        seed = RNG.standard_normal(tuple(ref.shape))
        out.backward(_t(seed))
        ref.backward(torch.tensor(seed))
        for a, t in zip(ours, theirs):
            np.testing.assert_allclose(_np(a.grad), t.grad.numpy(), rtol=1e-10, atol=1e-12,
                                       err_msg=label)


def test_against_torch_max_pool_indices_and_conv1d():
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    x = RNG.standard_normal((2, 3, 9, 8)).astype(np.float32)
    _, idx = Fn.max_pool2d(_t(x), **DILATED, return_indices=True)
    _, ref = tf.max_pool2d(torch.tensor(x), **DILATED, return_indices=True)
    np.testing.assert_array_equal(idx.numpy(), ref.numpy())
    x, w = RNG.standard_normal((3, 7)), RNG.standard_normal((4, 3, 2))
    np.testing.assert_allclose(
        Fn.conv1d(_t(x), _t(w), padding="same", dilation=3).numpy(),
        tf.conv1d(torch.tensor(x), torch.tensor(w), padding="same", dilation=3).numpy(),
        rtol=1e-12)


# ---- errors --------------------------------------------------------------------------

def _ones(*shape):
    return minflow.ones(*shape)


ERRORS = [
    (lambda: Fn.conv2d(_ones(2, 3), _ones(1, 1, 1, 1)), RuntimeError,
     r"conv2d: Expected 3D \(unbatched\) or 4D \(batched\) input.*\[2, 3\]"),
    (lambda: Fn.conv2d(_ones(1, 1, 3, 3), _ones(1, 1, 1)), RuntimeError,
     r"conv2d: expected weight to be 4D"),
    (lambda: Fn.conv2d(_ones(1, 3, 5, 5), _ones(2, 2, 3, 3)), RuntimeError,
     r"Given groups=1, weight of size \[2, 2, 3, 3\], expected input\[1, 3, 5, 5\] to have "
     r"2 channels, but got 3 channels instead"),
    (lambda: Fn.conv2d(_ones(1, 3, 5, 5), _ones(2, 1, 3, 3), groups=2), RuntimeError,
     r"Given groups=2, .* to have 2 channels, but got 3"),
    (lambda: Fn.conv2d(_ones(1, 4, 5, 5), _ones(3, 2, 3, 3), groups=2), RuntimeError,
     r"expected weight to be divisible by 2 at dimension 0"),
    (lambda: Fn.conv2d(_ones(1, 1, 2, 2), _ones(1, 1, 3, 3)), RuntimeError,
     r"padded input size per channel: \(2 x 2\). Kernel size: \(3 x 3\)"),
    (lambda: Fn.conv2d(_ones(1, 1, 5, 5), _ones(1, 1, 3, 3), stride=0), RuntimeError,
     "conv2d: non-positive stride is not supported"),
    (lambda: Fn.conv2d(_ones(1, 1, 5, 5), _ones(1, 1, 3, 3), padding=-1), RuntimeError,
     "negative padding is not supported"),
    (lambda: Fn.conv2d(_ones(1, 1, 5, 5), _ones(1, 1, 3, 3), dilation=0), RuntimeError,
     "dilation should be greater than zero"),
    (lambda: Fn.conv2d(_ones(1, 1, 5, 5), _ones(1, 1, 3, 3), groups=0), RuntimeError,
     "non-positive groups is not supported"),
    (lambda: Fn.conv2d(_ones(1, 1, 5, 5), _ones(1, 1, 3, 3), stride=(1, 2, 3)), RuntimeError,
     r"expected stride to be a single integer value or a list of 2 values"),
    (lambda: Fn.conv2d(_ones(1, 1, 5, 5), _ones(1, 1, 3, 3), padding="full"), RuntimeError,
     "Invalid padding string: 'full'"),
    (lambda: Fn.conv2d(_ones(1, 1, 5, 5), _ones(1, 1, 3, 3), padding="same", stride=2),
     RuntimeError, "padding='same' is not supported for strided convolutions"),
    (lambda: Fn.conv2d(_ones(1, 1, 5, 5), _ones(2, 1, 3, 3), _ones(3)), RuntimeError,
     r"expected bias to be 1-dimensional with 2 elements, but got bias of size \[3\]"),
    (lambda: Fn.conv2d(_ones(1, 1, 5, 5), minflow.ones(1, 1, 3, 3, dtype=minflow.float64)),
     RuntimeError, "same dtype, but got input float32 and weight float64"),
    (lambda: Fn.conv2d(minflow.ones(1, 1, 3, 3, dtype=minflow.int64),
                       minflow.ones(1, 1, 1, 1, dtype=minflow.int64)), TypeError,
     r"conv2d: expected input with dtype in \[float16, float32, float64\], got int64"),
    (lambda: Fn.conv1d(_ones(1, 1, 2, 5), _ones(1, 1, 3)), RuntimeError,
     r"conv1d: Expected 2D \(unbatched\) or 3D \(batched\) input"),
    (lambda: Fn.max_pool2d(_ones(5, 5), 2), RuntimeError,
     r"non-empty 3D or 4D \(batch mode\) tensor expected for input"),
    (lambda: Fn.max_pool2d(_ones(1, 1, 5, 5), 2, padding=2), RuntimeError,
     "max_pool2d: pad should be at most half of effective kernel size, but got pad=2, "
     "kernel_size=2 and dilation=1"),
    (lambda: Fn.avg_pool2d(_ones(1, 1, 5, 5), 3, padding=2), RuntimeError,
     "avg_pool2d: pad should be at most half"),
    (lambda: Fn.max_pool2d(_ones(1, 1, 5, 5), 2, stride=0), RuntimeError,
     "stride should be greater than zero, but got dH: 0 dW: 0"),
    (lambda: Fn.avg_pool2d(_ones(1, 1, 5, 5), 0, 1), RuntimeError,
     "kernel size should be greater than zero, but got kH: 0 kW: 0"),
    (lambda: Fn.max_pool2d(_ones(1, 1, 5, 5), 2, dilation=0), RuntimeError,
     "dilation should be greater than zero, but got dilationH: 0 dilationW: 0"),
    (lambda: Fn.max_pool2d(_ones(1, 1, 5, 5), 2, padding=-1), RuntimeError,
     "pad must be non-negative, but got pad: -1"),
    (lambda: Fn.max_pool2d(_ones(1, 1, 2, 2), 3), RuntimeError,
     r"Given input size: \(1x2x2\). Calculated output size: \(1x0x0\). Output size is too "
     r"small"),
    (lambda: Fn.max_pool2d(_ones(1, 1, 4, 4), (2, 2, 2)), RuntimeError,
     "max_pool2d: kernel_size must either be a single int, or a tuple of two ints"),
    (lambda: Fn.avg_pool2d(_ones(1, 1, 4, 4), 2, divisor_override=0), RuntimeError,
     "avg_pool2d: divisor must be not zero"),
    (lambda: Fn.adaptive_avg_pool2d(_ones(5, 5), 2), RuntimeError,
     r"adaptive_avg_pool2d\(\): Expected 3D or 4D tensor"),
    (lambda: Fn.adaptive_avg_pool2d(_ones(1, 5, 5), -1), RuntimeError,
     "elements of output_size must be greater than or equal to 0"),
    (lambda: Fn.adaptive_avg_pool2d(_ones(1, 0, 5), 2), RuntimeError,
     "non-zero size for non-batch dimensions.*dimension 1 being empty"),
    (lambda: Fn.adaptive_avg_pool2d(_ones(1, 5, 5), 2.5), TypeError,
     "expected output_size to be an int or a pair"),
]


@pytest.mark.parametrize("call,error,match", ERRORS)
def test_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_shapes_on_meta_device_and_empty_batch():
    x, w = minflow.empty(2, 4, 9, 8, device="meta"), minflow.empty(6, 2, 3, 3, device="meta")
    assert Fn.conv2d(x, w, stride=2, groups=2).shape == (2, 6, 4, 3)
    assert Fn.max_pool2d(x, 3, ceil_mode=True).shape == (2, 4, 3, 3)
    assert Fn.avg_pool2d(x, 2, padding=1).shape == (2, 4, 5, 5)
    assert Fn.adaptive_avg_pool2d(x, (None, 3)).shape == (2, 4, 9, 3)
    assert Fn.conv2d(_ones(0, 2, 5, 5), _ones(3, 2, 3, 3)).shape == (0, 3, 3, 3)
    assert Fn.max_pool2d(_ones(0, 2, 5, 5), 2).shape == (0, 2, 2, 2)


@pytest.mark.parametrize("fn", [Fn.adaptive_avg_pool2d, Fn.adaptive_max_pool2d])
def test_adaptive_pool_output_size_longer_than_input_is_value_error(fn):
    with pytest.raises(ValueError, match="Input dimension should be at least 3"):
        fn(minflow.ones(2, 2), (2, 2))


@pytest.mark.parametrize("call", [
    lambda F, x: F.conv2d(x, x.new_ones(2, 1, 3, 3), padding=1),
    lambda F, x: F.conv1d(x.flatten(2), x.new_ones(2, 1, 3), padding=2, dilation=2),
    lambda F, x: F.max_pool2d(x, 3, 2, 1),
    lambda F, x: F.avg_pool2d(x, 3, 2, 1),
    lambda F, x: F.unfold(x, 3, padding=1),
], ids=["conv2d", "conv1d", "max_pool2d", "avg_pool2d", "unfold"])
def test_padded_input_grads_are_contiguous_as_torch(call, device):
    """A gradient penalty views the input grad flat: grad.view(n, -1) needs it contiguous,
    as torch's is."""
    x = _t(RNG.standard_normal((2, 1, 5, 5)), device, grad=True, dtype=np.float32)
    out = call(Fn, x)
    grad = minflow.autograd.grad(out, x, minflow.ones_like(out), create_graph=True)[0]
    assert grad.is_contiguous() and grad.stride() == (25, 25, 5, 1)
    assert grad.view(2, -1).shape == (2, 25)
    torch = pytest.importorskip("torch")
    tx = torch.tensor(_np(x), requires_grad=True)
    tout = call(torch.nn.functional, tx)
    expected = torch.autograd.grad(tout, tx, torch.ones_like(tout))[0]
    np.testing.assert_allclose(_np(grad), expected.numpy(), rtol=1e-5, atol=1e-6)


def test_fold_output_is_contiguous_as_torch():
    cols = minflow.ones(1, 9, 25)
    assert Fn.fold(cols, (5, 5), 3, padding=1).is_contiguous()

"""conv3d, conv_transpose3d, the 3-D pools, lp_pool3d, the with_indices pools and max
unpooling: forward against loop references written here (N-d, one output position at a
time), the op table (REFERENCES, run through check_op in test_op_table.py), and values,
indices, gradients and dtypes against PyTorch over a grid of options where it is
installed."""
import itertools
import math

import numpy as np
import pytest

import minflow
import minflow.nn.functional as Fn

RNG = np.random.default_rng(3)


def _t(a, device="cpu", grad=False):
    return minflow.tensor(np.asarray(a), device=device, requires_grad=grad)


# ---- loop references, vectorised over (N, C) only ------------------------------------------

def _window(x, start, kernel, dilation):
    """x[:, :, start_i + dilation_i * arange(kernel_i) for each spatial dim i]."""
    for i, (s, k, d) in enumerate(zip(start, kernel, dilation)):
        x = np.take(x, s + d * np.arange(k), axis=2 + i)
    return x


def conv_ref(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    dims = x.ndim - 2
    stride, padding, dilation = (_tuple(v, dims) for v in (stride, padding, dilation))
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    kernel, (o, cg) = w.shape[2:], w.shape[:2]
    size = [(xp.shape[2 + i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1
            for i in range(dims)]
    out, og = np.zeros((x.shape[0], o) + tuple(size)), o // groups
    for pos in np.ndindex(*size):
        patch = _window(xp, [p * s for p, s in zip(pos, stride)], kernel, dilation)
        patch = patch.reshape(patch.shape[0], patch.shape[1], -1)
        for g in range(groups):
            out[(slice(None), slice(g * og, (g + 1) * og)) + pos] = np.einsum(
                "nck,ock->no", patch[:, g * cg:(g + 1) * cg],
                w[g * og:(g + 1) * og].reshape(og, cg, -1))
    return out if b is None else out + b.reshape((1, -1) + (1,) * dims)


def conv_transpose_ref(x, w, b=None, stride=1, padding=0, output_padding=0, groups=1,
                       dilation=1):
    """Each input voxel adds x * w to its output window; then the crop of the padding."""
    dims = x.ndim - 2
    stride, padding, output_padding, dilation = (
        _tuple(v, dims) for v in (stride, padding, output_padding, dilation))
    cin, og = w.shape[:2]
    kernel, cg = w.shape[2:], cin // groups
    full = [(x.shape[2 + i] - 1) * stride[i] + dilation[i] * (kernel[i] - 1) + 1 +
            output_padding[i] for i in range(dims)]
    out = np.zeros((x.shape[0], og * groups) + tuple(full))
    for pos in np.ndindex(*x.shape[2:]):
        for g in range(groups):
            contrib = np.einsum("nc,co...->no...", x[(slice(None), slice(g * cg, (g + 1) * cg))
                                                     + pos], w[g * cg:(g + 1) * cg])
            index = (slice(None), slice(g * og, (g + 1) * og)) + tuple(
                slice(p * s, p * s + d * (k - 1) + 1, d)
                for p, s, d, k in zip(pos, stride, dilation, kernel))
            out[index] += contrib
    out = out[(slice(None), slice(None)) + tuple(slice(p, f - p) for p, f in
                                                 zip(padding, full))]
    return out if b is None else out + b.reshape((1, -1) + (1,) * dims)


def _tuple(v, dims):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * dims


def _pool_size(size, k, s, p, d, ceil):
    span = size + 2 * p - d * (k - 1) - 1
    out = (span + (s - 1 if ceil else 0)) // s + 1
    if ceil and (out - 1) * s >= size + p:
        out -= 1
    return out


def pool_ref(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
             mode="max", count_include_pad=True, divisor_override=None):
    """max (-> values, flat indices) or avg pooling over the spatial dims, as torch's loops."""
    dims, (n, c), size = x.ndim - 2, x.shape[:2], x.shape[2:]
    k = _tuple(kernel_size, dims)
    s = k if stride is None else _tuple(stride, dims)
    p, d = _tuple(padding, dims), _tuple(dilation, dims)
    out_size = [_pool_size(size[i], k[i], s[i], p[i], d[i], ceil_mode) for i in range(dims)]
    out, idx = np.zeros((n, c) + tuple(out_size)), np.zeros((n, c) + tuple(out_size), np.int64)
    for pos in np.ndindex(*out_size):
        start = [q * s[i] - p[i] for i, q in enumerate(pos)]
        axes = [[r for r in start[i] + d[i] * np.arange(k[i]) if 0 <= r < size[i]]
                for i in range(dims)]
        patch = _window(x, [a[0] for a in axes], [len(a) for a in axes],
                        [d[i] for i in range(dims)]).reshape(n, c, -1)
        at = (slice(None), slice(None)) + pos
        if mode == "max":
            arg = patch.argmax(-1)
            out[at] = np.take_along_axis(patch, arg[..., None], -1)[..., 0]
            flat = [np.ravel_multi_index(q, size) for q in itertools.product(*axes)]
            idx[at] = np.asarray(flat)[arg]
        else:
            full = math.prod(min(start[i] + k[i], size[i] + p[i]) - start[i]
                             for i in range(dims))
            out[at] = patch.sum(-1) / (divisor_override or (
                full if count_include_pad else patch.shape[-1]))
    return (out, idx) if mode == "max" else out


def adaptive_ref(x, output_size, mode="avg"):
    dims, size = x.ndim - 2, x.shape[2:]
    out_size = _tuple(output_size, dims)
    out = np.zeros(x.shape[:2] + tuple(out_size))
    idx = np.zeros(out.shape, np.int64)
    for pos in np.ndindex(*out_size):
        axes = [np.arange((q * size[i]) // out_size[i], -(-(q + 1) * size[i] // out_size[i]))
                for i, q in enumerate(pos)]
        patch = _window(x, [a[0] for a in axes], [len(a) for a in axes], (1,) * dims)
        patch = patch.reshape(x.shape[:2] + (-1,))
        at = (slice(None), slice(None)) + pos
        if mode == "avg":
            out[at] = patch.mean(-1)
        else:
            arg = patch.argmax(-1)
            out[at] = np.take_along_axis(patch, arg[..., None], -1)[..., 0]
            flat = [np.ravel_multi_index(q, size) for q in itertools.product(*axes)]
            idx[at] = np.asarray(flat)[arg]
    return out if mode == "avg" else (out, idx)


def unpool_ref(x, indices, size):
    n, c = x.shape[:2]
    out = np.zeros((n, c, math.prod(size)))
    np.put_along_axis(out, indices.reshape(n, c, -1), x.reshape(n, c, -1), 2)
    return out.reshape((n, c) + tuple(size))


def test_references_agree_with_the_2d_references():
    """The N-d loop references here reduce to test_conv.py's 2-D ones."""
    from test_conv import conv2d_ref, pool_ref as pool2d_ref
    x, w = RNG.standard_normal((2, 4, 6, 5)), RNG.standard_normal((6, 2, 3, 2))
    np.testing.assert_allclose(conv_ref(x, w, None, 2, 1, (1, 2), 2),
                               conv2d_ref(x, w, None, (2, 2), (1, 1, 1, 1), (1, 2), 2))
    ours = pool_ref(x, 3, 2, 1, 1, True)
    theirs = pool2d_ref(x, (3, 3), (2, 2), (1, 1), (1, 1), True, "max")
    np.testing.assert_allclose(ours[0], theirs[0])
    np.testing.assert_array_equal(ours[1], theirs[1])


# ---- the op table: name -> (minflow call on tensors, numpy reference, inputs) -----------

X5 = RNG.standard_normal((2, 3, 4, 5, 4))
W5 = RNG.standard_normal((4, 3, 3, 2, 3))
POS5 = np.abs(X5) + 0.2


P5, IDX5 = pool_ref(X5, 2)                 # (2, 2, 2) windows of a (4, 5, 4) volume
P4, IDX4 = pool_ref(X5[:, :, 0], 2)        # of a (5, 4) plane

REFERENCES = {
    "conv3d": (lambda x, w, b: Fn.conv3d(x, w, b, stride=(1, 2, 1), padding=1),
               lambda x, w, b: conv_ref(x, w, b, (1, 2, 1), 1), [X5, W5, RNG.standard_normal(4)]),
    "conv3d_groups": (lambda x, w: Fn.conv3d(x, w, groups=3, dilation=(2, 1, 1)),
                      lambda x, w: conv_ref(x, w, None, 1, 0, (2, 1, 1), 3),
                      [X5, RNG.standard_normal((6, 1, 2, 2, 2))]),
    "conv_transpose3d": (
        lambda x, w: Fn.conv_transpose3d(x, w, stride=2, padding=1, output_padding=(1, 0, 1)),
        lambda x, w: conv_transpose_ref(x, w, None, 2, 1, (1, 0, 1)),
        [X5, RNG.standard_normal((3, 2, 2, 3, 2))]),
    "max_pool3d": (lambda x: Fn.max_pool3d(x, 2, stride=1, padding=1),
                   lambda x: pool_ref(x, 2, 1, 1)[0], [X5]),
    "max_pool3d_ceil": (lambda x: Fn.max_pool3d(x, (3, 2, 3), (2, 2, 1), (1, 0, 1),
                                                dilation=(1, 2, 1), ceil_mode=True),
                        lambda x: pool_ref(x, (3, 2, 3), (2, 2, 1), (1, 0, 1), (1, 2, 1),
                                           True)[0], [X5]),
    "avg_pool3d": (lambda x: Fn.avg_pool3d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
                   lambda x: pool_ref(x, 3, 2, 1, 1, True, "avg", False), [X5]),
    "avg_pool3d_divisor": (lambda x: Fn.avg_pool3d(x, (2, 3, 2), 1, divisor_override=5),
                           lambda x: pool_ref(x, (2, 3, 2), 1, mode="avg", divisor_override=5),
                           [X5]),
    "adaptive_avg_pool3d": (lambda x: Fn.adaptive_avg_pool3d(x, (3, 2, 3)),
                            lambda x: adaptive_ref(x, (3, 2, 3)), [X5]),
    "adaptive_max_pool3d": (lambda x: Fn.adaptive_max_pool3d(x, (3, 2, 3)),
                            lambda x: adaptive_ref(x, (3, 2, 3), "max")[0], [X5]),
    "lp_pool3d": (lambda x: Fn.lp_pool3d(x, 2.0, 2, stride=1),
                  lambda x: np.sqrt(pool_ref(x ** 2, 2, 1, mode="avg") * 8), [POS5]),
    "max_unpool3d": (lambda x: Fn.max_unpool3d(x, _t(IDX5, x.device), 2,
                                               output_size=(4, 5, 4)),
                     lambda x: unpool_ref(x, IDX5, (4, 5, 4)), [P5]),
    "max_unpool2d": (lambda x: Fn.max_unpool2d(x, _t(IDX4, x.device), 2, output_size=(5, 4)),
                     lambda x: unpool_ref(x, IDX4, (5, 4)), [P4]),
}


# ---- loop references on every device -----------------------------------------------------

def test_max_pool3d_indices_and_with_indices_functions(device):
    x = RNG.standard_normal((2, 3, 5, 4, 6))
    for kw in ({"kernel_size": 2}, {"kernel_size": (3, 2, 2), "stride": (2, 1, 2),
                                     "padding": (1, 1, 0), "dilation": (1, 1, 2),
                                     "ceil_mode": True}):
        out, idx = Fn.max_pool3d_with_indices(_t(x, device), **kw)
        ref, ref_idx = pool_ref(x, **kw)
        np.testing.assert_allclose(out.cpu().numpy(), ref)
        np.testing.assert_array_equal(idx.cpu().numpy(), ref_idx)
    x2 = x[:, :, 0]
    out, idx = Fn.max_pool2d_with_indices(_t(x2, device), 3, 2, 1)
    np.testing.assert_array_equal(idx.cpu().numpy(), pool_ref(x2, 3, 2, 1)[1])
    out, idx = Fn.max_pool1d_with_indices(_t(x2[:, :, 0], device), 2)
    np.testing.assert_array_equal(idx.cpu().numpy(), pool_ref(x2[:, :, 0], 2)[1])


@pytest.mark.parametrize("size", [(2, 2, 3), (3, 3, 4), (1, None, 5), 2])
def test_adaptive_max_pool_windows_and_indices(size, device):
    x = RNG.standard_normal((2, 3, 4, 5, 6))
    out, idx = Fn.adaptive_max_pool3d(_t(x, device), size, return_indices=True)
    full = tuple(x.shape[2 + i] if s is None else s for i, s in
                 enumerate(size if isinstance(size, tuple) else (size,) * 3))
    ref, ref_idx = adaptive_ref(x, full, "max")
    np.testing.assert_allclose(out.cpu().numpy(), ref)
    np.testing.assert_array_equal(idx.cpu().numpy(), ref_idx)
    out, idx = Fn.adaptive_max_pool3d_with_indices(_t(x, device), size)
    np.testing.assert_allclose(out.cpu().numpy(), ref)
    np.testing.assert_array_equal(idx.cpu().numpy(), ref_idx)
    out, idx = Fn.adaptive_max_pool2d_with_indices(_t(x[0, :, 0], device), (3, 4))
    ref, ref_idx = adaptive_ref(x[:1, :, 0], (3, 4), "max")
    np.testing.assert_array_equal(idx.cpu().numpy(), ref_idx[0])
    out, idx = Fn.adaptive_max_pool1d_with_indices(_t(x[:, :, 0, 0], device), 4)
    np.testing.assert_array_equal(idx.cpu().numpy(),
                                  adaptive_ref(x[:, :, 0, 0], 4, "max")[1])


def test_unpool_inverts_pool_at_the_maxima(device):
    x = RNG.standard_normal((2, 3, 4, 6, 5))
    out, idx = Fn.max_pool3d(_t(x, device), 2, return_indices=True, ceil_mode=True)
    back = Fn.max_unpool3d(out, idx, 2, output_size=x.shape)
    kept = back.cpu().numpy()
    nonzero = kept != 0
    np.testing.assert_allclose(kept[nonzero], x[nonzero])
    assert nonzero.sum() == out.numel()
    module = minflow.nn.MaxUnpool1d(2, stride=2)
    seq, seq_idx = Fn.max_pool1d(_t(x[:, :, 0, 0], device), 2, return_indices=True)
    assert module(seq, seq_idx).shape == (2, 3, 4)


def test_unbatched_inputs(device):
    x, w = RNG.standard_normal((3, 4, 5, 4)), RNG.standard_normal((2, 3, 2, 2, 2))
    np.testing.assert_allclose(Fn.conv3d(_t(x, device), _t(w, device)).cpu().numpy(),
                               conv_ref(x[None], w)[0], rtol=1e-12)
    np.testing.assert_allclose(Fn.avg_pool3d(_t(x, device), 2).cpu().numpy(),
                               pool_ref(x[None], 2, mode="avg")[0])
    assert Fn.conv_transpose3d(_t(x, device), _t(w.transpose(1, 0, 2, 3, 4), device)
                               ).shape == (2, 5, 6, 5)


# ---- PyTorch as the oracle: values, grads and dtypes over a grid of options --------------

CONV_GRID = [dict(stride=s, padding=p, dilation=d, groups=g)
             for s, p, d, g in itertools.product((1, (2, 1, 2)), (0, (1, 0, 2), "same"),
                                                 (1, (1, 2, 1)), (1, 2))
             if not (p == "same" and s != 1)]


def _compare(ours, theirs, inputs, torch, rtol=1e-10, atol=1e-11):
    """Values, dtype and the grads of ``inputs`` (minflow, torch pairs) for one seed."""
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol, atol)
    seed = RNG.standard_normal(tuple(theirs.shape))
    ours.backward(_t(seed.astype(ours.detach().numpy().dtype)))
    theirs.backward(torch.tensor(seed, dtype=theirs.dtype))
    for a, t in inputs:
        np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol, atol)


def _pairs(torch, *arrays):
    return [(_t(a, grad=True), torch.tensor(a, requires_grad=True)) for a in arrays]


@pytest.mark.filterwarnings("ignore:Using padding=.same. with even kernel")
@pytest.mark.parametrize("kw", CONV_GRID, ids=str)
def test_conv3d_against_torch(kw):
    torch = pytest.importorskip("torch")
    x, w = RNG.standard_normal((2, 4, 5, 6, 5)), RNG.standard_normal((6, 4 // kw["groups"],
                                                                       3, 2, 3))
    pairs = _pairs(torch, x, w, RNG.standard_normal(6))
    (xm, xt), (wm, wt), (bm, bt) = pairs
    _compare(Fn.conv3d(xm, wm, bm, **kw), torch.nn.functional.conv3d(xt, wt, bt, **kw),
             pairs, torch)


@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1, output_padding=1),
                                dict(stride=(2, 1, 3), output_padding=(1, 0, 2),
                                     dilation=(1, 2, 1)),
                                dict(groups=2, stride=2, padding=(0, 1, 1)),
                                dict(dilation=2, output_padding=1)], ids=str)
def test_conv_transpose3d_against_torch(kw):
    torch = pytest.importorskip("torch")
    pairs = _pairs(torch, RNG.standard_normal((2, 4, 3, 4, 3)),
                   RNG.standard_normal((4, 6 // kw.get("groups", 1), 3, 2, 3)),
                   RNG.standard_normal(6))
    (xm, xt), (wm, wt), (bm, bt) = pairs
    _compare(Fn.conv_transpose3d(xm, wm, bm, **kw),
             torch.nn.functional.conv_transpose3d(xt, wt, bt, **kw), pairs, torch)


POOL_GRID = [dict(kernel_size=k, stride=s, padding=p, ceil_mode=c)
             for k, s, p, c in itertools.product((2, (3, 2, 3)), (None, 1, (2, 1, 2)),
                                                 (0, (1, 1, 0)), (False, True))]


@pytest.mark.parametrize("kw", POOL_GRID, ids=str)
def test_pools_3d_against_torch(kw):
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    x = RNG.standard_normal((2, 3, 5, 6, 7))
    for dilation in (1, (2, 1, 1)):
        pairs = _pairs(torch, x)
        (xm, xt), = pairs
        ours = Fn.max_pool3d(xm, dilation=dilation, return_indices=True, **kw)
        theirs = tf.max_pool3d(xt, dilation=dilation, return_indices=True, **kw)
        np.testing.assert_array_equal(ours[1].numpy(), theirs[1].numpy())
        _compare(ours[0], theirs[0], pairs, torch)
    for extra in (dict(), dict(count_include_pad=False), dict(divisor_override=3)):
        pairs = _pairs(torch, x)
        (xm, xt), = pairs
        _compare(Fn.avg_pool3d(xm, **kw, **extra), tf.avg_pool3d(xt, **kw, **extra), pairs,
                 torch)
    pairs = _pairs(torch, np.abs(x) + 0.1)
    (xm, xt), = pairs
    _compare(Fn.lp_pool3d(xm, 3.0, kw["kernel_size"], kw["stride"], kw["ceil_mode"]),
             tf.lp_pool3d(xt, 3.0, kw["kernel_size"], kw["stride"], kw["ceil_mode"]), pairs,
             torch)


@pytest.mark.parametrize("size", [1, (2, 3, 4), (None, 4, 5), (3, 4, 5), (5, 6, 7)], ids=str)
def test_adaptive_pools_3d_against_torch(size):
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    x = RNG.standard_normal((2, 3, 4, 5, 7))
    pairs = _pairs(torch, x)
    (xm, xt), = pairs
    _compare(Fn.adaptive_avg_pool3d(xm, size), tf.adaptive_avg_pool3d(xt, size), pairs, torch)
    pairs = _pairs(torch, x)
    (xm, xt), = pairs
    ours, theirs = Fn.adaptive_max_pool3d(xm, size, True), tf.adaptive_max_pool3d(xt, size, True)
    np.testing.assert_array_equal(ours[1].numpy(), theirs[1].numpy())
    _compare(ours[0], theirs[0], pairs, torch)


@pytest.mark.parametrize("dims,kw,output_size", [
    (1, dict(kernel_size=2), None), (1, dict(kernel_size=3, stride=2, padding=1), None),
    (2, dict(kernel_size=2), (5, 7)), (2, dict(kernel_size=3, stride=2, padding=1), (6, 6)),
    (3, dict(kernel_size=2), [2, 3, 5, 5, 7]), (3, dict(kernel_size=(2, 1, 3), stride=(2, 2, 1)),
                                                None)], ids=str)
def test_max_unpool_against_torch(dims, kw, output_size):
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    shape = {1: (2, 3, 9), 2: (2, 3, 6, 6), 3: (2, 3, 4, 5, 6)}[dims]
    if dims == 2 and output_size == (5, 7):
        shape = (2, 3, 5, 7)
    pooled, idx = getattr(tf, f"max_pool{dims}d")(torch.tensor(RNG.standard_normal(shape)),
                                                   return_indices=True, **kw)
    pairs = _pairs(torch, pooled.numpy())
    (xm, xt), = pairs
    _compare(getattr(Fn, f"max_unpool{dims}d")(xm, _t(idx.numpy()), output_size=output_size,
                                               **kw),
             getattr(tf, f"max_unpool{dims}d")(xt, idx, output_size=output_size, **kw), pairs,
             torch)


@pytest.mark.parametrize("name,call", [
    ("conv3d", lambda F, x, w: F.conv3d(x, w, padding=1)),
    ("conv_transpose3d", lambda F, x, w: F.conv_transpose3d(x, w.transpose(0, 1), stride=2)),
    ("max_pool3d", lambda F, x, w: F.max_pool3d(x, 2)),
    ("avg_pool3d", lambda F, x, w: F.avg_pool3d(x, 2, padding=1)),
    ("adaptive_avg_pool3d", lambda F, x, w: F.adaptive_avg_pool3d(x, 3)),
    ("adaptive_max_pool3d", lambda F, x, w: F.adaptive_max_pool3d(x, 3)),
    ("interpolate_trilinear", lambda F, x, w: F.interpolate(x, scale_factor=1.5,
                                                            mode="trilinear")),
])
def test_float32_against_torch(name, call):
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((2, 3, 4, 5, 4)).astype(np.float32)
    w = RNG.standard_normal((2, 3, 3, 3, 3)).astype(np.float32)
    ours = call(Fn, _t(x), _t(w))
    theirs = call(torch.nn.functional, torch.tensor(x), torch.tensor(w))
    assert ours.dtype is minflow.float32
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kw", [dict(scale_factor=2), dict(size=(3, 7, 5)),
                                dict(size=(5, 3, 4), mode="nearest-exact"),
                                dict(scale_factor=(1.5, 0.7, 2.2), mode="trilinear"),
                                dict(size=(6, 7, 2), mode="trilinear", align_corners=True),
                                dict(size=(2, 3, 2), mode="area"),
                                dict(scale_factor=1.7, mode="trilinear",
                                     recompute_scale_factor=True)], ids=str)
def test_interpolate_5d_against_torch(kw):
    torch = pytest.importorskip("torch")
    pairs = _pairs(torch, RNG.standard_normal((2, 3, 4, 5, 3)))
    (xm, xt), = pairs
    _compare(Fn.interpolate(xm, **kw), torch.nn.functional.interpolate(xt, **kw), pairs, torch)


def test_dropout3d_drops_whole_channels():
    minflow.manual_seed(0)
    out = Fn.dropout3d(minflow.ones(4, 8, 2, 3, 2), 0.5).numpy()
    per_channel = out.reshape(4, 8, -1)
    assert set(np.unique(per_channel)) <= {0.0, 2.0}
    assert (per_channel.min(-1) == per_channel.max(-1)).all()
    assert 0 < (per_channel[..., 0] == 0).sum() < 32
    unbatched = Fn.dropout3d(minflow.ones(8, 2, 3, 2), 0.5).numpy().reshape(8, -1)
    assert (unbatched.min(-1) == unbatched.max(-1)).all()
    x = minflow.ones(2, 3, 2, 2, 2)
    assert Fn.dropout3d(x, 0.5, training=False) is x

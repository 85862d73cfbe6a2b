"""rms_norm, unfold / fold, the shuffles, bilinear, local_response_norm, lp_pool1d/2d and
triplet_margin_with_distance_loss: forward against independent numpy references
(explicit loops), float32 in -> float32 out on every device, float64 gradcheck and
gradgradcheck, outputs and grads against PyTorch, and errors. The same table runs through
check_op in test_op_table.py."""
import numpy as np
import pytest

import minflow
import minflow.nn.functional as Fn
from minflow.autograd import gradcheck, gradgradcheck

rng = np.random.RandomState(7)
IMG = rng.randn(2, 3, 5, 6)


def _rms_norm_ref(x, w, dims=1, eps=1e-6):
    axes = tuple(range(-dims, 0))
    return x / np.sqrt((x * x).mean(axes, keepdims=True) + eps) * w


def _unfold_ref(x, k, d, p, s):
    n, c, h, w = x.shape
    padded = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    rows = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    cols = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    out = np.zeros((n, c * k[0] * k[1], rows * cols), x.dtype)
    for ch in range(c):
        for i in range(k[0]):
            for j in range(k[1]):
                for y in range(rows):
                    for xx in range(cols):
                        out[:, (ch * k[0] + i) * k[1] + j, y * cols + xx] = \
                            padded[:, ch, y * s[0] + i * d[0], xx * s[1] + j * d[1]]
    return out


def _fold_ref(cols, size, k, d, p, s):
    n, ckk, _ = cols.shape
    c = ckk // (k[0] * k[1])
    h, w = size
    padded = np.zeros((n, c, h + 2 * p[0], w + 2 * p[1]), cols.dtype)
    nrows = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ncols = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    for ch in range(c):
        for i in range(k[0]):
            for j in range(k[1]):
                for y in range(nrows):
                    for xx in range(ncols):
                        padded[:, ch, y * s[0] + i * d[0], xx * s[1] + j * d[1]] += \
                            cols[:, (ch * k[0] + i) * k[1] + j, y * ncols + xx]
    return padded[:, :, p[0]:p[0] + h, p[1]:p[1] + w]


def _pixel_shuffle_ref(x, r):
    *batch, c, h, w = x.shape
    out = np.zeros((*batch, c // (r * r), h * r, w * r), x.dtype)
    for i in range(r):
        for j in range(r):
            out[..., :, i::r, j::r] = x[..., i * r + j::r * r, :, :]
    return out


def _pixel_unshuffle_ref(x, r):
    *batch, c, h, w = x.shape
    out = np.zeros((*batch, c * r * r, h // r, w // r), x.dtype)
    for i in range(r):
        for j in range(r):
            out[..., i * r + j::r * r, :, :] = x[..., :, i::r, j::r]
    return out


def _channel_shuffle_ref(x, groups):
    c = x.shape[1]
    return np.stack([x[:, (k % groups) * (c // groups) + k // groups] for k in range(c)], 1)


def _lrn_ref(x, size, alpha=1e-4, beta=0.75, k=1.0):
    c = x.shape[1]
    div = np.zeros_like(x)
    for ch in range(c):
        for other in range(ch - size // 2, ch + (size - 1) // 2 + 1):
            if 0 <= other < c:
                div[:, ch] += x[:, other] ** 2
    return x / (k + alpha / size * div) ** beta


def _lp_pool2d_ref(x, p, k):
    n, c, h, w = x.shape
    out = np.zeros((n, c, h // k, w // k), x.dtype)
    for i in range(h // k):
        for j in range(w // k):
            out[:, :, i, j] = (x[:, :, i * k:(i + 1) * k, j * k:(j + 1) * k] ** p).sum((2, 3))
    return out ** (1 / p)


UNFOLD = dict(kernel_size=(2, 3), dilation=(2, 1), padding=(1, 0), stride=(1, 2))
K, D, P, S = (2, 3), (2, 1), (1, 0), (1, 2)
COLS = rng.randn(2, 3 * 6, 10)          # fold of (5, 6): 5 x 2 blocks of UNFOLD

# name: (minflow call on tensors, numpy reference on arrays, inputs)
REFERENCES = {
    "rms_norm": (lambda x, w: Fn.rms_norm(x, (6,), w, eps=1e-6),
                 lambda x, w: _rms_norm_ref(x, w), [IMG, rng.randn(6)]),
    "rms_norm_2d": (lambda x: Fn.rms_norm(x, (5, 6), eps=1e-6),
                    lambda x: _rms_norm_ref(x, 1.0, dims=2), [IMG]),
    "unfold": (lambda x: Fn.unfold(x, **UNFOLD), lambda x: _unfold_ref(x, K, D, P, S), [IMG]),
    "unfold_unbatched": (lambda x: Fn.unfold(x, 2, padding=1, stride=2),
                         lambda x: _unfold_ref(x[None], (2, 2), (1, 1), (1, 1), (2, 2))[0],
                         [IMG[0]]),
    "fold": (lambda x: Fn.fold(x, (5, 6), **UNFOLD),
             lambda x: _fold_ref(x, (5, 6), K, D, P, S), [COLS]),
    "fold_overlapping": (lambda x: Fn.fold(x, (4, 4), 3, padding=1),
                         lambda x: _fold_ref(x, (4, 4), (3, 3), (1, 1), (1, 1), (1, 1)),
                         [rng.randn(2, 18, 16)]),
    "pixel_shuffle": (lambda x: Fn.pixel_shuffle(x, 2), lambda x: _pixel_shuffle_ref(x, 2),
                      [rng.randn(2, 3, 8, 2, 3)]),
    "pixel_unshuffle": (lambda x: Fn.pixel_unshuffle(x, 3),
                        lambda x: _pixel_unshuffle_ref(x, 3), [rng.randn(2, 2, 6, 6)]),
    "channel_shuffle": (lambda x: Fn.channel_shuffle(x, 3),
                        lambda x: _channel_shuffle_ref(x, 3), [rng.randn(2, 6, 2, 3)]),
    "bilinear": (Fn.bilinear, lambda a, b, w, c: np.einsum("ni,oij,nj->no", a, w, b) + c,
                 [rng.randn(4, 3), rng.randn(4, 2), rng.randn(5, 3, 2), rng.randn(5)]),
    "local_response_norm": (lambda x: Fn.local_response_norm(x, 3, alpha=0.5, k=2.0),
                            lambda x: _lrn_ref(x, 3, 0.5, 0.75, 2.0), [IMG]),
    "lp_pool2d": (lambda x: Fn.lp_pool2d(x, 3.0, 2), lambda x: _lp_pool2d_ref(x, 3.0, 2),
                  [np.abs(IMG) + 0.1]),
    "lp_pool1d": (lambda x: Fn.lp_pool1d(x, 2.0, 3), lambda x: np.sqrt(
        (x ** 2).reshape(2, 3, 2, 3).sum(-1)), [np.abs(rng.randn(2, 3, 6)) + 0.1]),
    "triplet_margin_with_distance_loss": (
        lambda a, p, n: Fn.triplet_margin_with_distance_loss(
            a, p, n, distance_function=lambda x, y: ((x - y) ** 2).sum(-1), margin=20.0,
            swap=True, reduction="none"),
        lambda a, p, n: np.maximum(0, 20.0 + ((a - p) ** 2).sum(-1) - np.minimum(
            ((a - n) ** 2).sum(-1), ((p - n) ** 2).sum(-1))),
        [rng.randn(4, 3), rng.randn(4, 3), rng.randn(4, 3)]),
}


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_forward_matches_numpy_and_dtypes(name, device):
    fn, ref, inputs = REFERENCES[name]
    out = fn(*[minflow.tensor(a, device=device) for a in inputs])
    np.testing.assert_allclose(out.cpu().numpy(), ref(*inputs), rtol=1e-12, atol=1e-12)
    out32 = fn(*[minflow.tensor(a, dtype=minflow.float32, device=device) for a in inputs])
    assert out32.dtype is minflow.float32
    np.testing.assert_allclose(out32.cpu().numpy(), ref(*inputs), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_gradcheck_and_gradgradcheck(name):
    fn, _, inputs = REFERENCES[name]
    args = tuple(minflow.tensor(a, requires_grad=True) for a in inputs)
    assert gradcheck(fn, args)
    assert gradgradcheck(fn, args)


def test_fold_is_the_adjoint_of_unfold():
    x, cols = minflow.tensor(IMG), minflow.tensor(COLS)
    left = (Fn.unfold(x, **UNFOLD) * cols).sum().item()
    right = (x * Fn.fold(cols, (5, 6), **UNFOLD)).sum().item()
    assert left == pytest.approx(right, rel=1e-12)


# name: (call with L.nn.functional as F, inputs); outputs and grads of the float inputs
TORCH_CASES = {
    "rms_norm": (lambda F, x, w: F.rms_norm(x, (6,), w), [IMG, rng.randn(6)]),
    "rms_norm_eps": (lambda F, x, w: F.rms_norm(x, [5, 6], w, eps=0.1),
                     [IMG, rng.randn(5, 6)]),
    "rms_norm_no_weight": (lambda F, x: F.rms_norm(x, (6,)), [IMG * 1e-8]),
    "unfold": (lambda F, x: F.unfold(x, **UNFOLD), [IMG]),
    "unfold_int_args": (lambda F, x: F.unfold(x, 3, 2, 2, 3), [IMG]),
    "unfold_unbatched": (lambda F, x: F.unfold(x, (1, 2)), [IMG[1]]),
    "fold": (lambda F, x: F.fold(x, (5, 6), **UNFOLD), [COLS]),
    "fold_int_args": (lambda F, x: F.fold(x, 4, 2, 1, 1, 2), [rng.randn(2, 8, 9)]),
    "fold_unbatched": (lambda F, x: F.fold(x, (3, 3), 2), [rng.randn(8, 4)]),
    "pixel_shuffle": (lambda F, x: F.pixel_shuffle(x, 3), [rng.randn(2, 18, 2, 3)]),
    "pixel_shuffle_3d": (lambda F, x: F.pixel_shuffle(x, 2), [rng.randn(8, 2, 3)]),
    "pixel_unshuffle": (lambda F, x: F.pixel_unshuffle(x, 2), [rng.randn(3, 2, 2, 4, 6)]),
    "channel_shuffle": (lambda F, x: F.channel_shuffle(x, 2), [rng.randn(2, 6, 3)]),
    "channel_shuffle_5d": (lambda F, x: F.channel_shuffle(x, 4), [rng.randn(1, 8, 2, 2, 1)]),
    "bilinear": (lambda F, a, b, w, c: F.bilinear(a, b, w, c),
                 [rng.randn(2, 3, 4), rng.randn(2, 3, 5), rng.randn(6, 4, 5), rng.randn(6)]),
    "bilinear_unbatched": (lambda F, a, b, w: F.bilinear(a, b, w),
                           [rng.randn(4), rng.randn(5), rng.randn(6, 4, 5)]),
    "local_response_norm": (lambda F, x: F.local_response_norm(x, 2), [IMG]),
    "local_response_norm_3d": (lambda F, x: F.local_response_norm(x, 5, 0.2, 0.5, 3.0),
                               [IMG[:, :, 0]]),
    "local_response_norm_5d": (lambda F, x: F.local_response_norm(x, 4, 1e-2),
                               [IMG[..., None]]),
    "lp_pool2d": (lambda F, x: F.lp_pool2d(x, 2, (2, 3), stride=(1, 2), ceil_mode=True),
                  [IMG]),
    "lp_pool2d_p1": (lambda F, x: F.lp_pool2d(x, 1.0, 2), [np.abs(IMG)]),
    "lp_pool1d": (lambda F, x: F.lp_pool1d(x, 3.0, 2, 1), [np.abs(IMG[:, :, 0])]),
    "triplet_with_distance": (lambda F, a, p, n: F.triplet_margin_with_distance_loss(
        a, p, n, margin=0.5, swap=True), [IMG[:, 0], IMG[:, 1], IMG[:, 2]]),
}


@pytest.mark.parametrize("name", sorted(TORCH_CASES))
def test_matches_torch(name):
    torch = pytest.importorskip("torch")
    fn, inputs = TORCH_CASES[name]

    def run(lib, functional):
        args = [lib.tensor(a, requires_grad=True) for a in inputs]
        out = fn(functional, *args)
        weights = lib.tensor(np.random.RandomState(1).randn(*out.shape))
        (out * weights).sum().backward()
        return [out.detach().numpy()] + [a.grad.numpy() for a in args]
    ours, theirs = run(minflow, Fn), run(torch, torch.nn.functional)
    for a, b in zip(ours, theirs):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("weight_dtype", [None, "same", "float32"])
def test_rms_norm_dtypes_and_default_eps_match_torch(dtype, weight_dtype):
    """eps=None is the epsilon of the computing dtype: float32's for float16 inputs,
    which compute in float32; the result has the input's dtype whatever the weight's."""
    torch = pytest.importorskip("torch")
    x = rng.randn(3, 4) * 1e-3
    w = rng.randn(4)
    results = []
    for lib in (minflow, torch):
        t = lib.tensor(x, dtype=getattr(lib, dtype))
        weight = None if weight_dtype is None else lib.tensor(
            w, dtype=getattr(lib, dtype if weight_dtype == "same" else weight_dtype))
        out = lib.nn.functional.rms_norm(t, (4,), weight)
        results.append((str(out.dtype).split(".")[-1], out.float().numpy()))
    assert results[0][0] == results[1][0]
    tol = 2e-3 if dtype == "float16" else 1e-6
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=tol, atol=tol)


def test_shuffles_keep_integer_dtypes():
    x = minflow.arange(16).reshape(1, 4, 2, 2)
    assert Fn.pixel_shuffle(x, 2).dtype is minflow.int64
    assert Fn.channel_shuffle(x, 2).dtype is minflow.int64
    assert Fn.pixel_unshuffle(x, 2).dtype is minflow.int64


ERRORS = [
    (lambda: Fn.rms_norm(minflow.ones(4, 3), (5,)), RuntimeError,
     r"rms_norm: Given normalized_shape=\[5\], expected input with shape \[\*, 5\], but got "
     r"input of size \[4, 3\]"),
    (lambda: Fn.rms_norm(minflow.ones(4, 3), (3,), minflow.ones(2)), RuntimeError,
     r"rms_norm: Expected weight to be of same shape as normalized_shape, but got weight of "
     r"shape \[2\] and normalized_shape = \[3\]"),
    (lambda: Fn.rms_norm(minflow.ones(4, 3), ()), RuntimeError,
     "rms_norm: Expected normalized_shape to be at least 1-dimensional"),
    (lambda: Fn.rms_norm(minflow.ones(4, 3, dtype=minflow.int64), (3,)), TypeError,
     "rms_norm: expected a floating point input, got int64"),
    (lambda: Fn.unfold(minflow.ones(2, 3, 5, 6), 7), RuntimeError,
     r"Given input with spatial size \(5, 6\), kernel_size=\(7, 7\), .* calculated shape of "
     r"the array of sliding blocks as \(-1, 0\), but its components must be at least one"),
    (lambda: Fn.unfold(minflow.ones(2, 3, 5, 6), 0), RuntimeError,
     "unfold: kernel size should be greater than zero, but got kernel_height: 0"),
    (lambda: Fn.unfold(minflow.ones(2, 3, 5, 6), 2, stride=(1, 0)), RuntimeError,
     "unfold: stride should be greater than zero, but got stride_height: 1 stride_width: 0"),
    (lambda: Fn.unfold(minflow.ones(2, 3, 5, 6), 2, padding=-1), RuntimeError,
     "unfold: padding should be non-negative, but got padding_height: -1"),
    (lambda: Fn.unfold(minflow.ones(2, 3, 5, 6), (2, 2, 2)), RuntimeError,
     "unfold: It is expected kernel_size equals to 2, but got size 3"),
    (lambda: Fn.unfold(minflow.ones(5, 6), 2), RuntimeError,
     r"unfold: Expected 3D or 4D \(batch mode\) tensor .* but got: \[5, 6\]"),
    (lambda: Fn.unfold(minflow.ones(2, 3, 5, 6, dtype=minflow.int64), 2), TypeError,
     "unfold: expected input with dtype in \\[float16, float32, float64\\], got int64"),
    (lambda: Fn.fold(minflow.ones(2, 12, 7), (4, 5), 2), RuntimeError,
     r"fold: Given output_size=\(4, 5\), .* expected size of input's dimension 2 to match the "
     r"calculated number of sliding blocks 3 \* 4 = 12, but got input.size\(2\)=7"),
    (lambda: Fn.fold(minflow.ones(2, 13, 12), (4, 5), 2), RuntimeError,
     "fold: Expected size of input's dimension 1 to be divisible by the product of "
     "kernel_size, but got input.size\\(1\\)=13"),
    (lambda: Fn.fold(minflow.ones(2, 12, 5, 5), (4, 5), 2), RuntimeError,
     r"fold: Expected 2D or 3D \(batch mode\) tensor"),
    (lambda: Fn.pixel_shuffle(minflow.ones(4, 4), 2), RuntimeError,
     "pixel_shuffle expects input to have at least 3 dimensions, but got input with 2"),
    (lambda: Fn.pixel_shuffle(minflow.ones(2, 5, 4, 6), 2), RuntimeError,
     "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
     "upscale_factor, but input.size\\(-3\\)=5 is not divisible by 4"),
    (lambda: Fn.pixel_shuffle(minflow.ones(2, 4, 4, 6), 0), RuntimeError,
     "pixel_shuffle expects a positive upscale_factor, but got 0"),
    (lambda: Fn.pixel_shuffle(minflow.ones(2, 4, 4, 6), 1.5), TypeError,
     "pixel_shuffle: expected upscale_factor to be an int, got float"),
    (lambda: Fn.pixel_unshuffle(minflow.ones(2, 3, 4, 5), 2), RuntimeError,
     "pixel_unshuffle expects width to be divisible by downscale_factor, but "
     "input.size\\(-1\\)=5 is not divisible by 2"),
    (lambda: Fn.channel_shuffle(minflow.ones(2, 5, 4), 2), RuntimeError,
     "channel_shuffle: Number of channels must be divisible by groups. Got 5 channels and 2 "
     "groups."),
    (lambda: Fn.channel_shuffle(minflow.ones(2, 4, 4), 0), RuntimeError,
     "channel_shuffle: Number of groups to divide channels in must be positive. Value of "
     "groups:0"),
    (lambda: Fn.bilinear(minflow.ones(2, 3), minflow.ones(3, 4), minflow.ones(5, 3, 4)),
     RuntimeError, "bilinear\\(\\): input batch dimensions do not match at dim 0: got 2 and 3"),
    (lambda: Fn.bilinear(minflow.ones(2, 2), minflow.ones(2, 4), minflow.ones(5, 3, 4)),
     RuntimeError, "bilinear\\(\\): input1 size does not match weight size: got 2 but "
                   "expected 3"),
    (lambda: Fn.bilinear(minflow.ones(2, 3), minflow.ones(2, 4), minflow.ones(5, 3, 4),
                         minflow.ones(4)), RuntimeError,
     "bilinear\\(\\): bias size does not match weight size: got 4 but expected 5"),
    (lambda: Fn.local_response_norm(minflow.ones(2, 3), 2), ValueError,
     "local_response_norm: Expected 3D or higher dimensionality input \\(got 2 dimensions\\)"),
    (lambda: Fn.triplet_margin_with_distance_loss(minflow.ones(2, 3), minflow.ones(2, 3),
                                                  minflow.ones(3)), RuntimeError,
     "anchor 2D, positive 2D, and negative 1D inputs"),
    (lambda: Fn.triplet_margin_with_distance_loss(minflow.ones(2), minflow.ones(2),
                                                  minflow.ones(2), margin=0), ValueError,
     "triplet_margin_with_distance_loss: margin must be greater than 0, got 0"),
    (lambda: minflow.nn.TripletMarginWithDistanceLoss(margin=-1.0), ValueError,
     "TripletMarginWithDistanceLoss: expected margin to be greater than 0, got -1.0"),
    (lambda: Fn.channel_shuffle(minflow.ones(2, 4), 2), RuntimeError,
     r"channel_shuffle expects input with > 2 dims, but got input with sizes \[2, 4\]"),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors(index):
    call, error, match = ERRORS[index]
    with pytest.raises(error, match=match):
        call()

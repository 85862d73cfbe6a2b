"""interpolate over the whole grid of modes and input dims torch supports (nearest,
nearest-exact and area on 3/4/5-D input, linear 3-D, bilinear and bicubic 4-D with and
without antialias, trilinear 5-D, lanczos 4-D), with align_corners both ways, size and
scale_factor (recomputed or not): values and gradients against PyTorch in float64, values
in float32 and float16, uint8 bit for bit, float64 gradcheck, the errors of the pairs torch
refuses, and the deprecated aliases and Upsample."""
import warnings

import numpy as np
import pytest

import minflow
import minflow.nn.functional as Fn
from minflow.autograd import gradcheck

RNG = np.random.default_rng(7)
SHAPES = {3: (2, 3, 5), 4: (2, 2, 4, 5), 5: (1, 2, 3, 4, 3)}
# per input ndim: a larger size, a smaller one, and uneven scale factors
SIZES = {3: [(8,), (3,), (1.7,)], 4: [(7, 9), (3, 2), (1.7, 0.6)],
         5: [(5, 6, 4), (2, 3, 2), (1.7, 0.6, 2.6)]}
MODE_NDIMS = {"nearest": (3, 4, 5), "nearest-exact": (3, 4, 5), "area": (3, 4, 5),
              "linear": (3,), "bilinear": (4,), "bicubic": (4,), "trilinear": (5,),
              "lanczos": (4,)}
INTERPOLATING = ("linear", "bilinear", "bicubic", "trilinear")


def _size_options(ndim):
    options = []
    for value in SIZES[ndim]:
        if isinstance(value[0], int):
            options.append(dict(size=value))
        else:
            options += [dict(scale_factor=value),
                        dict(scale_factor=value, recompute_scale_factor=True)]
    return options


def _mode_options(mode):
    if mode == "lanczos":
        return [dict(antialias=True)]
    if mode not in INTERPOLATING:
        return [{}]
    options = [dict(align_corners=False), dict(align_corners=True)]
    if mode in ("bilinear", "bicubic"):
        options += [dict(antialias=True), dict(antialias=True, align_corners=True)]
    return options


GRID = [(mode, ndim, {**resize, **extra})
        for mode, ndims in MODE_NDIMS.items() for ndim in ndims
        for resize in _size_options(ndim) for extra in _mode_options(mode)]
IDS = [f"{mode}-{ndim}d-{kw}" for mode, ndim, kw in GRID]


def _both(torch, array, grad=False, device="cpu"):
    ours = minflow.tensor(array, device=device, requires_grad=grad)
    theirs = torch.tensor(array, requires_grad=grad)
    return ours, theirs


@pytest.mark.parametrize("mode, ndim, kw", GRID, ids=IDS)
def test_float64_values_and_grads_match_torch(mode, ndim, kw, device):
    torch = pytest.importorskip("torch")
    x, xt = _both(torch, RNG.standard_normal(SHAPES[ndim]), grad=True, device=device)
    out, expected = Fn.interpolate(x, mode=mode, **kw), torch.nn.functional.interpolate(
        xt, mode=mode, **kw)
    assert out.dtype is minflow.float64 and tuple(out.shape) == tuple(expected.shape)
    np.testing.assert_allclose(out.detach().cpu().numpy(), expected.detach().numpy(),
                               rtol=1e-12, atol=1e-12)
    weights = RNG.standard_normal(tuple(expected.shape))
    (out * minflow.tensor(weights, device=device)).sum().backward()
    (expected * torch.tensor(weights)).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), xt.grad.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode, ndim, kw", GRID[::3], ids=IDS[::3])
def test_gradcheck(mode, ndim, kw):
    x = minflow.tensor(RNG.standard_normal(SHAPES[ndim]), requires_grad=True)
    assert gradcheck(lambda t: Fn.interpolate(t, mode=mode, **kw), (x,))


@pytest.mark.parametrize("dtype, tolerance", [("float32", 1e-5), ("float16", 1e-3)])
@pytest.mark.parametrize("mode, ndim, kw", GRID, ids=IDS)
def test_float32_and_float16_values_match_torch(mode, ndim, kw, dtype, tolerance, device):
    torch = pytest.importorskip("torch")
    array = RNG.standard_normal(SHAPES[ndim]).astype(dtype)
    try:
        expected = torch.nn.functional.interpolate(torch.tensor(array), mode=mode, **kw)
    except NotImplementedError:
        pytest.skip("torch's CPU kernels have no float16 antialias")
    out = Fn.interpolate(minflow.tensor(array, device=device), mode=mode, **kw)
    assert out.dtype.name == dtype
    if dtype == "float16" and mode not in ("area", "bilinear"):
        # float32 sums of float16-rounded weights, rounded once: torch's values exactly
        np.testing.assert_array_equal(out.cpu().numpy(), expected.numpy())
    np.testing.assert_allclose(out.cpu().numpy().astype(np.float64),
                               expected.numpy().astype(np.float64),
                               rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("align_corners", [False, True])
def test_float16_bilinear_to_a_large_output_is_torchs_bit_for_bit(align_corners):
    # NOTE: torch's bilinear kernel for out_h + out_w > 128 rounds the weights to float16
    torch = pytest.importorskip("torch")
    array = RNG.standard_normal((1, 2, 9, 11)).astype(np.float16)
    kw = dict(size=(70, 80), mode="bilinear", align_corners=align_corners)
    np.testing.assert_array_equal(
        Fn.interpolate(minflow.tensor(array), **kw).numpy(),
        torch.nn.functional.interpolate(torch.tensor(array), **kw).numpy())


UINT8_CASES = [
    ("bilinear", dict(size=(9, 13))), ("bilinear", dict(size=(5, 4))),
    ("bilinear", dict(scale_factor=(1.7, 0.6))),
    ("bilinear", dict(scale_factor=0.45, recompute_scale_factor=True)),
    ("bilinear", dict(size=(12, 7), align_corners=True)),
    ("bilinear", dict(size=(4, 6), antialias=True)),
    ("bilinear", dict(scale_factor=(0.3, 2.2), antialias=True, align_corners=True)),
    ("bicubic", dict(size=(9, 13))), ("bicubic", dict(size=(3, 5))),
    ("bicubic", dict(scale_factor=(2.3, 0.7))),
    ("bicubic", dict(size=(11, 4), align_corners=True)),
    ("bicubic", dict(size=(3, 4), antialias=True)),
    ("bicubic", dict(scale_factor=0.35, antialias=True, align_corners=True)),
    ("lanczos", dict(size=(4, 6), antialias=True)),
    ("lanczos", dict(scale_factor=(1.6, 0.4), antialias=True)),
    ("nearest", dict(scale_factor=1.6)), ("nearest-exact", dict(size=(5, 13))),
]


@pytest.mark.parametrize("channels", [1, 3, 5])
@pytest.mark.parametrize("mode, kw", UINT8_CASES, ids=[f"{m}-{kw}" for m, kw in UINT8_CASES])
def test_uint8_matches_torch_bit_for_bit(mode, kw, channels, device):
    torch = pytest.importorskip("torch")
    image = RNG.integers(0, 256, (2, channels, 11, 9)).astype(np.uint8)
    image[0, 0, :3] = 255       # saturated corners: bicubic and lanczos overshoot 0..255
    image[0, 0, 3:6] = 0
    out = Fn.interpolate(minflow.tensor(image, device=device), mode=mode, **kw)
    expected = torch.nn.functional.interpolate(torch.tensor(image), mode=mode, **kw)
    assert out.dtype is minflow.uint8
    np.testing.assert_array_equal(out.cpu().numpy(), expected.numpy())


def test_uint8_random_sizes_match_torch_bit_for_bit():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(11)
    for _ in range(60):
        mode = str(rng.choice(["bilinear", "bicubic", "lanczos"]))
        antialias = mode == "lanczos" or bool(rng.integers(2))
        corners = mode != "lanczos" and bool(rng.integers(2))
        height, width = (int(v) for v in rng.integers(2, 30, 2))
        size = (int(rng.integers(1, 40)), int(rng.integers(2, 40)))
        image = rng.integers(0, 256, (1, 3, height, width)).astype(np.uint8)
        kw = dict(size=size, mode=mode, antialias=antialias, align_corners=corners)
        np.testing.assert_array_equal(
            Fn.interpolate(minflow.tensor(image), **kw).numpy(),
            torch.nn.functional.interpolate(torch.tensor(image), **kw).numpy(), err_msg=str(kw))


@pytest.mark.parametrize("antialias", [False, True])
def test_uint8_width_one_resamples_each_row_with_its_own_taps(antialias):
    # NOTE: torch's separable uint8 (and antialias) kernel reuses the first row's taps for
    # every row when the output width is 1; minflow resamples a width-1 column exactly as
    # each column of a wider image
    column = RNG.integers(0, 256, (1, 1, 13, 1)).astype(np.uint8)
    kw = dict(mode="bilinear", antialias=antialias)
    narrow = Fn.interpolate(minflow.tensor(column), size=(6, 1), **kw).numpy()
    wide = Fn.interpolate(minflow.tensor(np.repeat(column, 2, axis=3)), size=(6, 2), **kw)
    np.testing.assert_array_equal(narrow[..., 0], wide.numpy()[..., 0])
    assert len(set(narrow.ravel().tolist())) > 1


@pytest.mark.parametrize("shape, scale", [((1, 2, 3), 2.3), ((1, 1, 2, 3, 3), (1.0, 1.2, 2.3))])
def test_nearest_grad_is_the_adjoint_where_scale_factor_is_not_out_over_in(shape, scale):
    # NOTE: here torch's forward reads floor(i / scale) but its backward maps out == 2 in
    # as i // 2 (and out == in as i): minflow's grad is index_select's, the forward's adjoint
    x = minflow.tensor(RNG.standard_normal(shape), requires_grad=True)
    assert gradcheck(lambda t: Fn.interpolate(t, scale_factor=scale), (x,))
    index = Fn.interpolate(minflow.arange(3.0).reshape(1, 1, 3), scale_factor=2.3)
    assert index.tolist() == [[[0.0, 0.0, 0.0, 1.0, 1.0, 2.0]]]


def test_a_dim_that_keeps_its_size_is_copied_whatever_the_scale():
    torch = pytest.importorskip("torch")
    x, xt = _both(torch, RNG.standard_normal((1, 2, 3, 3)))
    for kw in (dict(mode="bilinear"), dict(mode="bicubic"), dict(mode="lanczos", antialias=True),
               dict(mode="bilinear", antialias=True), dict(mode="nearest-exact")):
        np.testing.assert_allclose(
            Fn.interpolate(x, scale_factor=1.2, **kw).numpy(),
            torch.nn.functional.interpolate(xt, scale_factor=1.2, **kw).numpy(),
            rtol=1e-12, atol=1e-12, err_msg=str(kw))
    assert np.array_equal(Fn.interpolate(x, scale_factor=1.2, mode="bilinear").numpy(),
                          x.numpy())


REFUSALS = [(mode, ndim, antialias) for mode in list(MODE_NDIMS) + ["nearest-bad"]
            for ndim in (1, 2, 3, 4, 5, 6) for antialias in (False, True)]


@pytest.mark.parametrize("mode, ndim, antialias", REFUSALS,
                         ids=[f"{m}-{n}d-aa{a}" for m, n, a in REFUSALS])
def test_refused_pairs_raise_torchs_error_class(mode, ndim, antialias):
    torch = pytest.importorskip("torch")
    shape = (2,) * ndim
    try:
        torch.nn.functional.interpolate(torch.ones(shape), scale_factor=2, mode=mode,
                                        antialias=antialias)
    except Exception as error:        # noqa: BLE001 (the class is what is compared)
        expected = type(error)
    else:
        out = Fn.interpolate(minflow.ones(*shape), scale_factor=2, mode=mode,
                             antialias=antialias)
        assert tuple(out.shape) == (2, 2) + (4,) * (ndim - 2)
        return
    with pytest.raises(expected, match="interpolate"):
        Fn.interpolate(minflow.ones(*shape), scale_factor=2, mode=mode, antialias=antialias)


DTYPE_PAIRS = [(mode, ndim, dtype) for mode, ndims in MODE_NDIMS.items() for ndim in ndims
               for dtype in ("uint8", "int32", "int64", "bool")]


@pytest.mark.parametrize("mode, ndim, dtype", DTYPE_PAIRS,
                         ids=[f"{m}-{n}d-{d}" for m, n, d in DTYPE_PAIRS])
def test_dtypes_accepted_and_refused_as_torch(mode, ndim, dtype):
    torch = pytest.importorskip("torch")
    antialias = mode == "lanczos"
    call = dict(size=(3,) * (ndim - 2), mode=mode, antialias=antialias)
    try:
        expected = torch.nn.functional.interpolate(
            torch.ones((1, 2) + (2,) * (ndim - 2), dtype=getattr(torch, dtype)), **call)
    except NotImplementedError:
        with pytest.raises(NotImplementedError, match=f"got {dtype} with mode '{mode}'"):
            Fn.interpolate(minflow.ones(1, 2, *(2,) * (ndim - 2), dtype=getattr(minflow, dtype)),
                           **call)
        return
    out = Fn.interpolate(minflow.ones(1, 2, *(2,) * (ndim - 2), dtype=getattr(minflow, dtype)),
                         **call)
    assert out.dtype.name == dtype
    np.testing.assert_array_equal(out.numpy(), expected.numpy())


MODULES = [
    ("trilinear", lambda nn: nn.Upsample(scale_factor=(1.5, 2, 0.7), mode="trilinear"), 5),
    ("trilinear_corners", lambda nn: nn.Upsample(size=(4, 2, 5), mode="trilinear",
                                                 align_corners=True), 5),
    ("nearest_exact_3d", lambda nn: nn.Upsample(scale_factor=1.5, mode="nearest-exact"), 3),
    ("area_5d", lambda nn: nn.Upsample(size=(2, 3, 2), mode="area"), 5),
    ("recompute", lambda nn: nn.Upsample(scale_factor=1.7, mode="bicubic",
                                         recompute_scale_factor=True), 4),
]


@pytest.mark.parametrize("name, make, ndim", MODULES, ids=[m[0] for m in MODULES])
def test_upsample_module_matches_torch(name, make, ndim):
    torch = pytest.importorskip("torch")
    x, xt = _both(torch, RNG.standard_normal(SHAPES[ndim]), grad=True)
    ours, theirs = make(minflow.nn)(x), make(torch.nn)(xt)
    assert repr(make(minflow.nn)) == repr(make(torch.nn))
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12,
                               atol=1e-12)
    ours.sum().backward()
    theirs.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-12, atol=1e-12)


ALIASES = [("upsample", dict(scale_factor=2, mode="bilinear", align_corners=False)),
           ("upsample_nearest", dict(size=(3, 7))), ("upsample_nearest", dict(scale_factor=2)),
           ("upsample_bilinear", dict(size=(5, 8))),
           ("upsample_bilinear", dict(scale_factor=1.5))]


@pytest.mark.parametrize("name, kw", ALIASES, ids=[f"{n}-{kw}" for n, kw in ALIASES])
def test_deprecated_aliases_warn_and_match_torch(name, kw):
    torch = pytest.importorskip("torch")
    x, xt = _both(torch, RNG.standard_normal(SHAPES[4]))
    with pytest.warns(UserWarning, match=f"nn.functional.{name}` is deprecated"):
        ours = getattr(Fn, name)(x, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = getattr(torch.nn.functional, name)(xt, **kw)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-12)


def test_float16_grad_is_float16_and_matches_float32_rounded():
    x = minflow.tensor(RNG.standard_normal((1, 2, 3, 4, 3)), dtype=minflow.float16,
                       requires_grad=True)
    for mode in ("trilinear", "area", "nearest"):
        x.grad = None
        Fn.interpolate(x, size=(4, 5, 2), mode=mode).sum().backward()
        wide = x.detach().float().requires_grad_()
        Fn.interpolate(wide, size=(4, 5, 2), mode=mode).sum().backward()
        assert x.grad.dtype is minflow.float16
        np.testing.assert_allclose(x.grad.float().numpy(), wide.grad.numpy(), rtol=2e-3,
                                   atol=2e-3)


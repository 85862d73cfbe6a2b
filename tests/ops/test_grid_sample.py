"""affine_grid and grid_sample (4-D and 5-D): a per-point reference written here (scalar
Python, one sample point at a time), the op table (REFERENCES, run through check_op in
test_op_table.py), and values and grads w.r.t. input, grid and theta against PyTorch over
every mode, padding mode and align_corners where it is installed."""
import itertools
import math
import warnings

import numpy as np
import pytest

import minflow
import minflow.nn.functional as Fn

RNG = np.random.default_rng(5)


def _t(a, device="cpu", grad=False):
    return minflow.tensor(np.asarray(a), device=device, requires_grad=grad)


# ---- the per-point reference ---------------------------------------------------------------

def _source(g, size, align_corners):
    return (g + 1) / 2 * (size - 1) if align_corners else ((g + 1) * size - 1) / 2


def _reflect(v, low2, high2):
    if low2 == high2:
        return 0.0
    low, span = low2 / 2, (high2 - low2) / 2
    v = abs(v - low)
    extra, flips = math.fmod(v, span), math.floor(v / span)
    return extra + low if flips % 2 == 0 else span - extra + low


def _pad(v, size, padding_mode, align_corners):
    if padding_mode == "border":
        return min(max(v, 0.0), size - 1.0)
    if padding_mode == "reflection":
        bounds = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        return min(max(_reflect(v, *bounds), 0.0), size - 1.0)
    return v


def _read(plane, x, y, z=None):
    """plane (C, H, W) at (x, y), or a volume (C, D, H, W) at (x, y, z); zero outside."""
    point = (x, y) if z is None else (x, y, z)
    sizes = plane.shape[:0:-1]                       # W, H[, D]
    if not all(0 <= p < s for p, s in zip(point, sizes)):
        return np.zeros(plane.shape[:1])
    return plane[(slice(None),) + tuple(int(p) for p in reversed(point))]


def _cubic(t):
    a = -0.75
    near = lambda x: ((a + 2) * x - (a + 3)) * x * x + 1      # noqa: E731
    far = lambda x: ((a * x - 5 * a) * x + 8 * a) * x - 4 * a  # noqa: E731
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def sample_point(plane, gx, gy, mode, padding_mode, align_corners):
    """plane (C, H, W) read at the normalized point (gx, gy)."""
    h, w = plane.shape[-2:]
    x, y = _source(gx, w, align_corners), _source(gy, h, align_corners)
    if mode == "bicubic":
        x0, y0 = math.floor(x), math.floor(y)
        wx, wy = _cubic(x - x0), _cubic(y - y0)
        return sum(wx[i] * wy[j] * _read(plane, math.floor(_pad(x0 - 1 + i, w, padding_mode,
                                                                  align_corners)),
                                         math.floor(_pad(y0 - 1 + j, h, padding_mode,
                                                         align_corners)))
                   for i in range(4) for j in range(4))
    x, y = _pad(x, w, padding_mode, align_corners), _pad(y, h, padding_mode, align_corners)
    if mode == "nearest":
        return _read(plane, np.round(x), np.round(y))
    x0, y0 = math.floor(x), math.floor(y)
    return sum((1 - abs(x - xs)) * (1 - abs(y - ys)) * _read(plane, xs, ys)
               for xs in (x0, x0 + 1) for ys in (y0, y0 + 1))


def sample_volume_point(vol, point, mode, padding_mode, align_corners):
    """vol (C, D, H, W) read at the normalized point (x, y, z): nearest or trilinear."""
    sizes = vol.shape[:0:-1]
    coords = [_pad(_source(g, s, align_corners), s, padding_mode, align_corners)
              for g, s in zip(point, sizes)]
    if mode == "nearest":
        return _read(vol, *[np.round(c) for c in coords])
    total = 0
    for corner in itertools.product((0, 1), repeat=3):
        taps = [math.floor(c) + up for c, up in zip(coords, corner)]
        weight = math.prod(1 - abs(c - t) for c, t in zip(coords, taps))
        total = total + weight * _read(vol, *taps)
    return total


def grid_sample_ref(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False):
    if x.ndim == 5:
        out = np.zeros(x.shape[:2] + grid.shape[1:4])
        for b, i, j, k in np.ndindex(x.shape[0], *grid.shape[1:4]):
            out[b, :, i, j, k] = sample_volume_point(x[b], grid[b, i, j, k], mode,
                                                     padding_mode, align_corners)
        return out
    n, c = x.shape[:2]
    out = np.zeros((n, c) + grid.shape[1:3])
    for b, i, j in np.ndindex(n, *grid.shape[1:3]):
        out[b, :, i, j] = sample_point(x[b], grid[b, i, j, 0], grid[b, i, j, 1], mode,
                                       padding_mode, align_corners)
    return out


def affine_grid_ref(theta, size, align_corners=False):
    def axis(steps):
        if steps == 1:
            return np.zeros(1)
        points = np.linspace(-1, 1, steps)
        return points if align_corners else points * (steps - 1) / steps
    spatial = size[2:]
    mesh = np.meshgrid(*[axis(s) for s in spatial], indexing="ij")
    base = np.stack(list(reversed(mesh)) + [np.ones(spatial)], -1)
    return np.einsum("...k,nik->n...i", base, theta)


def _grid(n, h, w):
    """Points inside, on the corners, far outside and at the centre."""
    grid = RNG.uniform(-1.3, 1.3, (n, h, w, 2))
    grid[0, 0, :4] = [[-1, -1], [1, 1], [3.7, -2.9], [0, 0]]
    return grid


IMG = RNG.standard_normal((2, 3, 4, 5))
GRID = _grid(2, 3, 4)
THETA = RNG.standard_normal((2, 2, 3))
# random points only: for gradcheck, no point on a pixel centre or cell edge, where the
# interpolation's derivatives jump
SMOOTH = RNG.uniform(-1.2, 1.2, (2, 3, 4, 2))

REFERENCES = {
    "grid_sample_bilinear": (lambda x, g: Fn.grid_sample(x, g, align_corners=False),
                             lambda x, g: grid_sample_ref(x, g), [IMG, SMOOTH]),
    "grid_sample_border": (
        lambda x, g: Fn.grid_sample(x, g, padding_mode="border", align_corners=True),
        lambda x, g: grid_sample_ref(x, g, "bilinear", "border", True), [IMG, SMOOTH]),
    "grid_sample_reflection": (
        lambda x, g: Fn.grid_sample(x, g, padding_mode="reflection", align_corners=False),
        lambda x, g: grid_sample_ref(x, g, "bilinear", "reflection"), [IMG, SMOOTH * 1.4]),
    "grid_sample_bicubic": (
        lambda x, g: Fn.grid_sample(x, g, mode="bicubic", align_corners=False),
        lambda x, g: grid_sample_ref(x, g, "bicubic"), [IMG, SMOOTH]),
    "grid_sample_trilinear": (
        lambda x, g: Fn.grid_sample(x, g, padding_mode="reflection", align_corners=True),
        lambda x, g: grid_sample_ref(x, g, "bilinear", "reflection", True),
        [RNG.standard_normal((2, 2, 3, 4, 3)), RNG.uniform(-1.2, 1.2, (2, 2, 3, 2, 3))]),
    "affine_grid": (lambda t: Fn.affine_grid(t, (2, 3, 4, 5), align_corners=False),
                    lambda t: affine_grid_ref(t, (2, 3, 4, 5)), [THETA]),
    "affine_grid_3d": (lambda t: Fn.affine_grid(t, (2, 1, 2, 3, 4), align_corners=True),
                       lambda t: affine_grid_ref(t, (2, 1, 2, 3, 4), True),
                       [RNG.standard_normal((2, 3, 4))]),
}


@pytest.mark.parametrize("mode,padding_mode,align_corners", itertools.product(
    ("bilinear", "nearest", "bicubic"), ("zeros", "border", "reflection"), (False, True)))
def test_grid_sample_against_the_reference(mode, padding_mode, align_corners, device):
    out = Fn.grid_sample(_t(IMG, device), _t(GRID, device), mode, padding_mode, align_corners)
    np.testing.assert_allclose(out.cpu().numpy(),
                               grid_sample_ref(IMG, GRID, mode, padding_mode, align_corners),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode,padding_mode,align_corners", itertools.product(
    ("bilinear", "nearest"), ("zeros", "border", "reflection"), (False, True)))
def test_grid_sample_5d_against_the_reference(mode, padding_mode, align_corners, device):
    vol, grid = RNG.standard_normal((2, 2, 3, 4, 5)), RNG.uniform(-1.3, 1.3, (2, 2, 3, 2, 3))
    grid[0, 0, 0, :2] = [[-1, -1, -1], [1, 1, 1]]
    out = Fn.grid_sample(_t(vol, device), _t(grid, device), mode, padding_mode, align_corners)
    np.testing.assert_allclose(out.cpu().numpy(),
                               grid_sample_ref(vol, grid, mode, padding_mode, align_corners),
                               rtol=1e-12, atol=1e-12)


def test_identity_grid_reproduces_the_input(device):
    theta = _t(np.tile(np.eye(2, 3), (2, 1, 1)), device)
    for align_corners in (False, True):
        grid = Fn.affine_grid(theta, (2, 3, 4, 5), align_corners=align_corners)
        for mode in ("bilinear", "nearest", "bicubic"):
            out = Fn.grid_sample(_t(IMG, device), grid, mode, align_corners=align_corners)
            np.testing.assert_allclose(out.cpu().numpy(), IMG, atol=1e-12)


def test_nearest_gives_the_grid_a_zero_grad():
    grid = _t(GRID, grad=True)
    Fn.grid_sample(_t(IMG), grid, "nearest", align_corners=False).sum().backward()
    np.testing.assert_array_equal(grid.grad.numpy(), np.zeros_like(GRID))


def test_default_align_corners_warns_and_means_false():
    with pytest.warns(UserWarning, match="align_corners"):
        out = Fn.grid_sample(_t(IMG), _t(GRID))
    np.testing.assert_allclose(out.numpy(), grid_sample_ref(IMG, GRID), atol=1e-12)
    with pytest.warns(UserWarning, match="align_corners"):
        Fn.affine_grid(_t(THETA), (2, 3, 4, 5))


# ---- PyTorch as the oracle --------------------------------------------------------------

@pytest.mark.parametrize("mode,padding_mode,align_corners", itertools.product(
    ("bilinear", "nearest", "bicubic"), ("zeros", "border", "reflection"), (False, True)))
def test_grid_sample_values_and_grads_against_torch(mode, padding_mode, align_corners):
    torch = pytest.importorskip("torch")
    x, grid = RNG.standard_normal((2, 3, 5, 6)), _grid(2, 4, 7)
    xm, gm = _t(x, grad=True), _t(grid, grad=True)
    xt, gt = torch.tensor(x, requires_grad=True), torch.tensor(grid, requires_grad=True)
    ours = Fn.grid_sample(xm, gm, mode, padding_mode, align_corners)
    theirs = torch.nn.functional.grid_sample(xt, gt, mode, padding_mode, align_corners)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), atol=1e-12)
    seed = RNG.standard_normal(tuple(theirs.shape))
    ours.backward(_t(seed))
    theirs.backward(torch.tensor(seed))
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), atol=1e-12)
    np.testing.assert_allclose(gm.grad.numpy(), gt.grad.numpy(), atol=1e-11)


@pytest.mark.parametrize("mode,padding_mode,align_corners", itertools.product(
    ("bilinear", "nearest"), ("zeros", "border", "reflection"), (False, True)))
def test_grid_sample_5d_values_and_grads_against_torch(mode, padding_mode, align_corners):
    torch = pytest.importorskip("torch")
    vol, grid = RNG.standard_normal((2, 3, 4, 5, 6)), RNG.uniform(-1.3, 1.3, (2, 3, 4, 2, 3))
    grid[0, 0, 0, :2] = [[-1, -1, -1], [1, 1, 1]]
    xm, gm = _t(vol, grad=True), _t(grid, grad=True)
    xt, gt = torch.tensor(vol, requires_grad=True), torch.tensor(grid, requires_grad=True)
    ours = Fn.grid_sample(xm, gm, mode, padding_mode, align_corners)
    theirs = torch.nn.functional.grid_sample(xt, gt, mode, padding_mode, align_corners)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), atol=1e-12)
    seed = RNG.standard_normal(tuple(theirs.shape))
    ours.backward(_t(seed))
    theirs.backward(torch.tensor(seed))
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), atol=1e-12)
    np.testing.assert_allclose(gm.grad.numpy(), gt.grad.numpy(), atol=1e-11)


@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 3, 3, 4, 5), (2, 1, 1, 3)], ids=str)
@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid_against_torch(size, align_corners):
    torch = pytest.importorskip("torch")
    theta = RNG.standard_normal((2, len(size) - 2, len(size) - 1))
    tm, tt = _t(theta, grad=True), torch.tensor(theta, requires_grad=True)
    ours = Fn.affine_grid(tm, size, align_corners)
    theirs = torch.nn.functional.affine_grid(tt, size, align_corners)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), atol=1e-12)
    seed = RNG.standard_normal(tuple(theirs.shape))
    ours.backward(_t(seed))
    theirs.backward(torch.tensor(seed))
    np.testing.assert_allclose(tm.grad.numpy(), tt.grad.numpy(), atol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(2, 3, 28, 28), (1, 2, 7, 10)])
def test_identity_transform_grads_are_torchs(dtype, shape):
    """A spatial transformer starts at the identity: every point then lies within rounding
    of a pixel centre, where the grid's gradient jumps (a one-sided difference). The base
    grid (torch's linspace, multiply and divide) and the unnormalization (a fused
    multiply-add in torch's cpu kernel) are rounded as torch's, so each point lands on
    torch's side and the grads w.r.t. theta and the input are torch's."""
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal(shape).astype(dtype)
    weight = np.cos(np.arange(np.prod(shape))).reshape(shape).astype(dtype)
    theta = np.tile(np.array([[1, 0, 0], [0, 1, 0]], dtype), (shape[0], 1, 1))
    results = []
    for lib in (torch, minflow):
        xt, tt = lib.tensor(x, requires_grad=True), lib.tensor(theta, requires_grad=True)
        grid = lib.nn.functional.affine_grid(tt, shape, align_corners=False)
        out = lib.nn.functional.grid_sample(xt, grid, align_corners=False)
        (out * lib.tensor(weight)).sum().backward()
        results.append([grid.detach().numpy(), xt.grad.numpy(), tt.grad.numpy()])
    (grid, x_grad, theta_grad), (our_grid, our_x_grad, our_theta_grad) = results
    np.testing.assert_array_equal(our_grid, grid)
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(our_x_grad, x_grad, rtol=tol, atol=tol)
    np.testing.assert_allclose(our_theta_grad, theta_grad, rtol=tol, atol=tol * 100)


def test_spatial_transformer_float32_against_torch():
    """affine_grid then grid_sample in float32, grads to the input and to theta."""
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((2, 3, 6, 6)).astype(np.float32)
    theta = (np.eye(2, 3) + 0.1 * RNG.standard_normal((2, 2, 3))).astype(np.float32)
    results = []
    for lib, F in ((minflow, Fn), (torch, torch.nn.functional)):
        xs, th = lib.tensor(x, requires_grad=True), lib.tensor(theta, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = F.grid_sample(xs, F.affine_grid(th, (2, 3, 5, 4), align_corners=False),
                                align_corners=False)
        (out * out).sum().backward()
        assert str(out.dtype).endswith("float32")
        results.append([t.detach().numpy() for t in (out, xs.grad, th.grad)])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("mode,padding_mode", itertools.product(
    ("bilinear", "nearest", "bicubic"), ("zeros", "border", "reflection")))
def test_non_finite_grid_points_as_torch(mode, padding_mode):
    """NaN and infinite points: NaN or zeros as torch gives, never an index error."""
    torch = pytest.importorskip("torch")
    grid = np.array([[[[np.nan, 0.0], [np.inf, 0.2], [-np.inf, -np.inf], [0.3, 0.1]]]])
    ours = Fn.grid_sample(_t(IMG[:1]), _t(grid), mode, padding_mode, align_corners=False)
    theirs = torch.nn.functional.grid_sample(torch.tensor(IMG[:1]), torch.tensor(grid), mode,
                                             padding_mode, align_corners=False)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-12)

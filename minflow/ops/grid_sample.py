"""Spatial sampling, with PyTorch's signatures (minflow.nn.functional takes ``__all__``).

affine_grid maps a base grid of normalized output coordinates through a batch of affine
matrices (one matmul); grid_sample reads an (N, C, H, W) input at the normalized (x, y)
points of an (N, H_out, W_out, 2) grid (or an (N, C, D, H, W) input at (x, y, z)). Both
are composites, exact and vectorised: grid_sample gathers the 4 (bilinear; 8 trilinear),
1 (nearest) or 16 (bicubic) neighbours of every point with one gather each and weighs them with coefficients computed from the grid, so
the grads w.r.t. the input (gather's scatter-add) and the grid (through the
coefficients) are torch's, as a spatial transformer network needs.
"""
import itertools
import warnings

import numpy as np

from ..core import dtype as dtypes
from ..core.functional import public
from ..core.namespace import F
from ..core.tensor import Tensor
from .infer import check_shape

__all__ = ["affine_grid", "grid_sample"]

_CUBIC_A = -0.75      # torch's bicubic convolution coefficient


def _align(fn, align_corners):
    if align_corners is None:
        warnings.warn(f"{fn}: the default align_corners=None means align_corners=False, as "
                      f"in PyTorch since 1.3.0; pass it explicitly to silence this", stacklevel=3)
        return False
    return bool(align_corners)


def _base_coordinates(steps, align_corners, like):
    """Normalized coordinates of ``steps`` points in [-1, 1]: the pixel centres scaled by
    (steps - 1) / steps unless align_corners; a single point sits at 0.

    NOTE: computed in ``like``'s dtype as torch does (its linspace, then a multiply and a
    divide, each rounded): the identity transform then lands exactly where torch's does,
    which matters because grid_sample's grid gradient jumps at pixel centres."""
    if steps <= 1:
        return F.zeros(max(steps, 0), dtype=like.dtype, device=like.device)
    points = F.linspace(-1.0, 1.0, steps, dtype=like.dtype, device=like.device)
    return points if align_corners else F.div(F.mul(points, steps - 1), steps)


def _base_grid(spatial, align_corners, like):
    """(prod(spatial), dims + 1): the points (x, y[, z], 1), x varying fastest."""
    columns = []
    for d in reversed(range(len(spatial))):          # x (the last dim) first
        shape = [1] * len(spatial)
        shape[d] = spatial[d]
        axis = F.reshape(_base_coordinates(spatial[d], align_corners, like), tuple(shape))
        columns.append(F.expand(axis, tuple(spatial)))
    columns.append(F.ones(tuple(spatial), dtype=like.dtype, device=like.device))
    return F.reshape(F.stack(columns, -1), (-1, len(spatial) + 1))


@public
def affine_grid(theta, size, align_corners=None):
    """affine_grid(theta, size, align_corners=None) -> Tensor

    The sampling grid of a batch of affine maps: theta (N, 2, 3) and size (N, C, H, W)
    give grid[n, h, w] = theta[n] @ (x_w, y_h, 1) of shape (N, H, W, 2); theta (N, 3, 4)
    and size (N, C, D, H, W) give (N, D, H, W, 3). x_w, y_h are the normalized pixel
    coordinates in [-1, 1] (corner pixels' centres at +-1 with align_corners).

    >>> theta = minflow.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    >>> minflow.nn.functional.affine_grid(theta, (1, 1, 1, 2), align_corners=True).tolist()
    [[[[-1.0, 0.0], [1.0, 0.0]]]]
    """
    if not isinstance(theta, Tensor):
        raise TypeError(f"affine_grid(): argument 'theta' must be Tensor, not "
                        f"{type(theta).__name__}")
    if not theta.dtype.is_floating_point:
        raise ValueError(f"affine_grid: Expected theta to have floating point type, but got "
                         f"{theta.dtype.name}")
    size = list(check_shape("affine_grid", "size", size))
    if len(size) not in (4, 5):
        raise NotImplementedError(f"affine_grid: only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    dims = len(size) - 2
    if theta.ndim != 3 or tuple(theta.shape[1:]) != (dims, dims + 1):
        raise ValueError(f"affine_grid: Expected a batch of {dims}D affine matrices of shape "
                         f"Nx{dims}x{dims + 1} for size {size}. Got {list(theta.shape)}.")
    if min(size) <= 0:
        raise ValueError(f"affine_grid: Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != size[0]:
        raise ValueError(f"affine_grid: Expected theta of batch size {size[0]} (size[0]), "
                         f"got {list(theta.shape)}")
    align_corners = _align("affine_grid", align_corners)
    spatial = tuple(size[2:])
    grid = F.matmul(_base_grid(spatial, align_corners, theta), F.transpose(theta, 1, 2))
    return F.reshape(grid, (size[0],) + tuple(spatial) + (dims,))


# ---- grid_sample ---------------------------------------------------------------------------

def _const(t):
    return t.detach()


def _unnormalize(coord, size, align_corners, planar):
    """[-1, 1] -> pixel index: -1 and 1 are the corner pixels' centres (align_corners) or
    their outer edges.

    NOTE: rounded as torch's cpu kernels do, (x + 1) * size / 2 - 1 / 2 for 4-D input
    (``planar``) and ((x + 1) * size - 1) / 2 for 5-D: an identity transform puts points
    within rounding of pixel centres, where the grid's gradient jumps (one-sided
    differences), so the side each lands on must be torch's. float16 takes the steps of
    torch's scalar kernel, each rounded: ((x + 1) / 2) * (size - 1) and ((x + 1) * size - 1)
    / 2."""
    half = coord.dtype is dtypes.float16
    if align_corners:
        if half:
            return F.mul(F.div(F.add(coord, 1.0), 2), size - 1)
        return F.mul(F.add(coord, 1.0), (size - 1) / 2)
    if planar and not half:
        return _fused_multiply_add(F.add(coord, 1.0), size / 2, -0.5)
    return F.div(F.sub(F.mul(F.add(coord, 1.0), size), 1.0), 2)


def _fused_multiply_add(t, scale, offset):
    """t * scale + offset rounded once, as a fused multiply-add (torch's compiled cpu
    kernel), for a ``scale`` of few significant bits (a size / 2). Differentiable: the
    gradient is ``scale``."""
    if t.dtype is not dtypes.float64:           # exact in float64, then one rounding
        return F.cast(F.add(F.mul(F.cast(t, dtypes.float64), scale), offset), t.dtype)
    # Veltkamp's split: 26-bit halves whose products with scale are exact (not for huge
    # or non-finite t, which take the plain rounding)
    spread = F.mul(t, 134217729.0)                  # 2^27 + 1
    high = F.sub(spread, F.sub(spread, t))
    low = F.sub(t, high)
    fused = F.add(F.add(F.mul(high, scale), offset), F.mul(low, scale))
    return F.where(F.isfinite(spread), fused, F.add(F.mul(t, scale), offset))


def _clip(coord, size):
    """coord clamped to [0, size - 1] (NaN to 0, as torch), with torch's grad: 1 strictly
    inside, else 0."""
    inside = F.logical_and(F.gt(coord, 0.0), F.lt(coord, size - 1.0))
    return F.where(inside, coord, F.clamp(F.nan_to_num(_const(coord), 0.0), 0.0, size - 1.0))


def _reflect(coord, twice_low, twice_high):
    """coord reflected off the bounds low, high (given doubled) until inside them."""
    if twice_low == twice_high:
        return F.mul(coord, 0.0)
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    distance = F.abs(F.sub(coord, low))
    flips = F.floor(F.div(distance, span))
    extra = F.remainder(distance, span)         # fmod(distance, span): distance >= 0
    even = F.eq(F.remainder(flips, 2.0), 0.0)
    return F.where(even, F.add(extra, low), F.add(F.sub(span, extra), low))


def _padded(coord, size, padding_mode, align_corners):
    """The source coordinate after padding_mode: kept (zeros), clipped (border) or
    reflected then clipped (reflection)."""
    if padding_mode == "border":
        return _clip(coord, size)
    if padding_mode == "reflection":
        bounds = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        return _clip(_reflect(coord, *bounds), size)
    return coord


class _Reader:
    """Gathers input[n, :, (z,) y, x] at integer points given as (x, y[, z]) tensors of
    the grid's shape (N, *out), zero where outside the input: one gather over the
    flattened planes (or volumes)."""

    def __init__(self, input):
        self.n, self.c = tuple(input.shape[:2])
        self.sizes = tuple(reversed(input.shape[2:]))       # (W, H[, D]), the grid's order
        self.flat = F.reshape(input, (self.n, self.c, -1))

    def __call__(self, points):
        """points: float tensors holding integers (detached), x first."""
        inside, index = None, None
        for point, size in reversed(list(zip(points, self.sizes))):    # row-major: z, y, x
            within = F.logical_and(F.ge(point, 0.0), F.le(point, size - 1.0))
            inside = within if inside is None else F.logical_and(inside, within)
            at = F.cast(F.where(within, point, 0.0), dtypes.int64)    # NaN, inf read 0
            index = at if index is None else F.add(F.mul(index, size), at)
        index = F.reshape(index, (self.n, 1, -1))
        values = F.gather(self.flat, 2, F.expand(index, (self.n, self.c, index.shape[2])))
        values = F.reshape(values, (self.n, self.c) + tuple(points[0].shape[1:]))
        return F.where(F.unsqueeze(inside, 1), values, 0.0)


def _linear(read, coords):
    """(Bi/tri)linear: the 2^dims neighbours of each point, each weighed by the product
    over dims of 1 - its distance to the point (rounded as torch's cpu kernels: bilinear
    1 - (x - low), trilinear and float16 high - x)."""
    one_minus = len(coords) == 2 and coords[0].dtype is not dtypes.float16
    lows = [F.floor(_const(c)) for c in coords]
    out = None
    for corner in itertools.product((0, 1), repeat=len(coords)):
        points, weight = [], None
        for coord, low, up in zip(coords, lows, reversed(corner)):     # x varies fastest
            high = F.add(low, 1.0)
            points.append(high if up else low)
            if up:
                near = F.sub(coord, low)
            elif one_minus:
                near = F.sub(1.0, F.sub(coord, low))
            else:
                near = F.sub(high, coord)
            weight = near if weight is None else F.mul(weight, near)
        term = F.mul(read(points), F.unsqueeze(weight, 1))
        out = term if out is None else F.add(out, term)
    return out


def _cubic_coefficients(t):
    """The 4 weights of taps -1, 0, 1, 2 at fraction t (cubic convolution, A = -0.75)."""
    a = _CUBIC_A

    def near(x):        # |x| <= 1
        return F.add(F.mul(F.mul(F.sub(F.mul(x, a + 2), a + 3), x), x), 1.0)

    def far(x):         # 1 < |x| < 2
        return F.sub(F.mul(F.add(F.mul(F.sub(F.mul(x, a), 5 * a), x), 8 * a), x), 4 * a)
    one_minus = F.sub(1.0, t)
    return [far(F.add(t, 1.0)), near(t), near(one_minus), far(F.add(one_minus, 1.0))]


def _bicubic(read, ix, iy, padding_mode, align_corners, size):
    """16 taps around floor(ix), floor(iy); each tap's coordinate (not the point's) takes
    padding_mode, as torch. Each row of 4 taps is interpolated along x, then the 4 rows
    along y, summed left to right (torch's order)."""
    h, w = size
    x0, y0 = F.floor(_const(ix)), F.floor(_const(iy))
    wx, wy = _cubic_coefficients(F.sub(ix, x0)), _cubic_coefficients(F.sub(iy, y0))
    out = None
    for j in range(4):
        ys = F.floor(_padded(F.add(y0, j - 1.0), h, padding_mode, align_corners))
        row = None
        for i in range(4):
            xs = F.floor(_padded(F.add(x0, i - 1.0), w, padding_mode, align_corners))
            term = F.mul(read([xs, ys]), F.unsqueeze(wx[i], 1))
            row = term if row is None else F.add(row, term)
        term = F.mul(row, F.unsqueeze(wy[j], 1))
        out = term if out is None else F.add(out, term)
    return out


def _check_grid_sample(input, grid, mode, padding_mode):
    for name, value in (("input", input), ("grid", grid)):
        if not isinstance(value, Tensor):
            raise TypeError(f"grid_sample(): argument '{name}' must be Tensor, not "
                            f"{type(value).__name__}")
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"grid_sample: expected mode to be 'bilinear', 'nearest' or "
                         f"'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"grid_sample: expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if input.ndim not in (4, 5) or grid.ndim != input.ndim:
        raise RuntimeError(f"grid_sample: expected 4D or 5D input and a grid of as many "
                           f"dims, but got input with sizes {list(input.shape)} and grid with "
                           f"sizes {list(grid.shape)}")
    if mode == "bicubic" and input.ndim == 5:
        raise RuntimeError("grid_sample: bicubic interpolation only supports 4D input")
    if input.dtype is not grid.dtype or not input.dtype.is_floating_point:
        raise RuntimeError(f"grid_sample: expected input and grid to have the same floating "
                           f"point dtype, but input has {input.dtype.name} and grid has "
                           f"{grid.dtype.name}")
    dims = input.ndim - 2
    if grid.shape[-1] != dims or grid.shape[0] != input.shape[0]:
        raise RuntimeError(f"grid_sample: expected grid of shape (N, *out, {dims}) with "
                           f"N = {input.shape[0]} (the input's batch size), but got grid with "
                           f"sizes {list(grid.shape)}")
    if 0 in tuple(input.shape)[2:]:
        raise RuntimeError(f"grid_sample: expected input to have non-empty spatial "
                           f"dimensions, but input has sizes {list(input.shape)}")


@public
def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """grid_sample(input, grid, mode='bilinear', padding_mode='zeros', align_corners=None)
    -> Tensor

    out[n, :, h, w] = input[n] read at grid[n, h, w] = (x, y) in normalized coordinates
    ((-1, -1) the top-left corner, (1, 1) the bottom-right; pixel centres with
    align_corners, else pixel edges); for (N, C, D, H, W) input, grid (N, D_out, H_out,
    W_out, 3) holds (x, y, z). mode: 'bilinear' weighs the 4 (8: trilinear) neighbours,
    'nearest' takes the closest (ties to even), 'bicubic' (4-D only) weighs 16 (cubic
    convolution, A = -0.75). Points outside read zeros ('zeros'), the edge ('border') or
    the input reflected at its edges ('reflection'). Differentiable w.r.t. input and grid.

    >>> x = minflow.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
    >>> grid = minflow.tensor([[[[0.0, 0.0], [1.0, -1.0]]]])
    >>> minflow.nn.functional.grid_sample(x, grid, align_corners=True).tolist()
    [[[[2.5, 2.0]]]]
    """
    _check_grid_sample(input, grid, mode, padding_mode)
    align_corners = _align("grid_sample", align_corners)
    read = _Reader(input)
    coords = [_unnormalize(F.select(grid, -1, i), size, align_corners, input.ndim == 4)
              for i, size in enumerate(read.sizes)]
    if mode == "bicubic":
        return _bicubic(read, *coords, padding_mode, align_corners,
                        tuple(reversed(read.sizes)))
    coords = [_padded(c, size, padding_mode, align_corners)
              for c, size in zip(coords, read.sizes)]
    if mode == "nearest":
        # NOTE: a weight of one, of zero grad, keeps the grid in the graph: torch gives
        # the grid a zero grad in nearest mode (not none)
        one = F.where(F.isnan(coords[0]), 1.0, F.round(F.clamp(coords[0], 1.0, 1.0)))
        return F.mul(read([F.round(_const(c)) for c in coords]), F.unsqueeze(one, 1))
    return _linear(read, coords)

"""pixel_shuffle, pixel_unshuffle and channel_shuffle, with PyTorch's signatures: one
reshape, permute, reshape each, so they need no kernels or grad code of their own (and
take any dtype, as torch)."""
from ..core.functional import public
from ..core.namespace import F
from ..core.tensor import Tensor

__all__ = ["pixel_shuffle", "pixel_unshuffle", "channel_shuffle"]


def _check(fn, input, factor, name, min_ndim=3):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}: expected input to be a Tensor, got {type(input).__name__}")
    if isinstance(factor, bool) or not isinstance(factor, int):
        raise TypeError(f"{fn}: expected {name} to be an int, got {type(factor).__name__}")
    if input.ndim < min_ndim:
        raise RuntimeError(f"{fn} expects input to have at least {min_ndim} dimensions, but "
                           f"got input with {input.ndim} dimension(s)")
    if factor <= 0:
        raise RuntimeError(f"{fn} expects a positive {name}, but got {factor}")


@public
def pixel_shuffle(input, upscale_factor):
    """pixel_shuffle(input, upscale_factor) -> Tensor

    (*, C * r^2, H, W) -> (*, C, H * r, W * r), r = upscale_factor:
    out[..., c, h * r + i, w * r + j] = input[..., c * r^2 + i * r + j, h, w].

    >>> x = minflow.arange(4.0).reshape(1, 4, 1, 1)
    >>> minflow.nn.functional.pixel_shuffle(x, 2).tolist()
    [[[[0.0, 1.0], [2.0, 3.0]]]]
    """
    _check("pixel_shuffle", input, upscale_factor, "upscale_factor")
    r, (*batch, c, h, w) = upscale_factor, input.shape
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)={c} "
                           f"is not divisible by {r * r}")
    nb = len(batch)
    x = F.reshape(input, (*batch, c // (r * r), r, r, h, w))
    x = F.permute(x, *range(nb), nb, nb + 3, nb + 1, nb + 4, nb + 2)
    return F.reshape(x, (*batch, c // (r * r), h * r, w * r))


@public
def pixel_unshuffle(input, downscale_factor):
    """pixel_unshuffle(input, downscale_factor) -> Tensor

    (*, C, H * r, W * r) -> (*, C * r^2, H, W), r = downscale_factor: the inverse of
    ``pixel_shuffle``.

    >>> x = minflow.arange(4.0).reshape(1, 1, 2, 2)
    >>> minflow.nn.functional.pixel_unshuffle(x, 2).flatten().tolist()
    [0.0, 1.0, 2.0, 3.0]
    """
    _check("pixel_unshuffle", input, downscale_factor, "downscale_factor")
    r, (*batch, c, h, w) = downscale_factor, input.shape
    for name, dim, size in (("height", -2, h), ("width", -1, w)):
        if size % r:
            raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by "
                               f"downscale_factor, but input.size({dim})={size} is not "
                               f"divisible by {r}")
    nb = len(batch)
    x = F.reshape(input, (*batch, c, h // r, r, w // r, r))
    x = F.permute(x, *range(nb), nb, nb + 2, nb + 4, nb + 1, nb + 3)
    return F.reshape(x, (*batch, c * r * r, h // r, w // r))


@public
def channel_shuffle(input, groups):
    """channel_shuffle(input, groups) -> Tensor

    Interleave the channels (dim 1) of an (N, C, *) input across ``groups`` groups:
    viewed as (N, groups, C / groups, *), the two channel dims are transposed.

    >>> x = minflow.arange(4.0).reshape(1, 4, 1)
    >>> minflow.nn.functional.channel_shuffle(x, 2).flatten().tolist()
    [0.0, 2.0, 1.0, 3.0]
    """
    if isinstance(input, Tensor) and input.ndim < 3:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(input.shape)}")
    if isinstance(groups, int) and not isinstance(groups, bool) and groups <= 0:
        raise RuntimeError(f"channel_shuffle: Number of groups to divide channels in must be "
                           f"positive. Value of groups:{groups}")
    _check("channel_shuffle", input, groups, "groups")
    n, c, *rest = input.shape
    if c % groups:
        raise RuntimeError(f"channel_shuffle: Number of channels must be divisible by groups. "
                           f"Got {c} channels and {groups} groups.")
    x = F.reshape(input, (n, groups, c // groups, *rest))
    return F.reshape(F.transpose(x, 1, 2), (n, c, *rest))

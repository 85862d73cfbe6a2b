"""Memory formats, as torch's: the order in which a tensor's elements lie in memory.

``channels_last`` keeps a 4-d (N, C, H, W) tensor's shape and values but lays it out as
(N, H, W, C) in memory: the array is a permuted view of a contiguous NHWC array, so its
strides are torch's channels-last strides. Values never depend on the format.
"""

__all__ = ["memory_format", "contiguous_format", "channels_last", "channels_last_3d",
           "preserve_format", "check_memory_format", "to_memory_format", "is_contiguous_in",
           "layout_like"]


class memory_format:  # noqa: N801  (torch.memory_format)
    """A memory layout: ``minflow.contiguous_format`` (row-major), ``channels_last`` (4-d,
    channels innermost), ``channels_last_3d`` (5-d) or ``preserve_format`` (keep the input's).

    >>> minflow.channels_last
    minflow.channels_last
    """

    __slots__ = ("name", "ndim")

    def __init__(self, name, ndim=None):
        self.name, self.ndim = name, ndim

    def __repr__(self):
        return f"minflow.{self.name}"

    def __reduce__(self):           # pickles as the one instance of its name
        return _by_name, (self.name,)


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last", ndim=4)
channels_last_3d = memory_format("channels_last_3d", ndim=5)
preserve_format = memory_format("preserve_format")
_FORMATS = {f.name: f for f in (contiguous_format, channels_last, channels_last_3d,
                                preserve_format)}


def _by_name(name):
    return _FORMATS[name]


def _channels_last_order(fmt, tensor, where):
    """(to NHWC-like, back to NCHW-like) permutations for ``fmt`` on ``tensor``."""
    if tensor.ndim != fmt.ndim:
        raise RuntimeError(f"{where}: required rank {fmt.ndim} tensor to use {fmt.name} "
                           f"format, got a tensor of rank {tensor.ndim}")
    inner = (0,) + tuple(range(2, fmt.ndim)) + (1,)
    return inner, (0, fmt.ndim - 1) + tuple(range(1, fmt.ndim - 1))


def check_memory_format(fmt, where):
    """Raise a TypeError naming ``where`` unless ``fmt`` is a minflow.memory_format."""
    if not isinstance(fmt, memory_format):
        raise TypeError(f"{where}: expected memory_format to be a minflow.memory_format, "
                        f"got {type(fmt).__name__}")


def is_contiguous_in(tensor, fmt, where="is_contiguous"):
    """Whether ``tensor``'s strides are those of ``fmt``, ignoring the strides of size-1
    dims as torch does. A channels-last format of another rank gives False; so does
    preserve_format what contiguous_format does."""
    check_memory_format(fmt, where)
    if fmt.ndim is None:
        return tensor.is_contiguous()
    if tensor.ndim != fmt.ndim:
        return False
    inner, _ = _channels_last_order(fmt, tensor, where)
    return tensor.permute(inner).is_contiguous()


def to_memory_format(tensor, fmt, where, exact=False):
    """``tensor`` laid out in ``fmt``: itself if it already is (or ``fmt`` is
    preserve_format), else a differentiable copy with the same shape and values.

    ``exact`` (as ``Tensor.to``): keep ``tensor`` only if its strides are exactly ``fmt``'s,
    also along size-1 dims, where ``contiguous`` is content with compatible ones."""
    check_memory_format(fmt, where)
    if fmt is preserve_format:
        return tensor
    if fmt is contiguous_format:
        return tensor.contiguous()
    inner, outer = _channels_last_order(fmt, tensor, where)
    if exact and tensor.stride() == _strides(fmt, tensor.shape):
        return tensor
    if not exact and is_contiguous_in(tensor, fmt, where):
        return tensor
    # clone, not contiguous: it copies in row-major order even where size-1 dims make the
    # permuted view count as contiguous already (torch's strides differ there)
    return tensor.permute(inner).clone().permute(outer)


def _strides(fmt, shape):
    """The strides of a tensor of ``shape`` laid out exactly in channels-last ``fmt``."""
    strides, step = [0] * len(shape), 1
    for d in (1,) + tuple(range(len(shape) - 1, 1, -1)) + (0,):
        strides[d], step = step, step * shape[d]
    return tuple(strides)


def layout_like(out, input, fmt, where):
    """``out`` (a new tensor of ``input``'s shape) laid out in ``fmt``, as torch's
    ``clone`` and ``*_like`` take ``memory_format``: preserve_format keeps ``input``'s
    channels-last layout, where it has one (other layouts come out row-major)."""
    check_memory_format(fmt, where)
    if fmt is preserve_format:
        fmt = next((f for f in (channels_last, channels_last_3d) if input.ndim == f.ndim
                    and not input.is_contiguous() and is_contiguous_in(input, f)),
                   contiguous_format)
    return to_memory_format(out, fmt, where)

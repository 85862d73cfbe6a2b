"""convert_conv2d_weight_memory_format / convert_conv3d_weight_memory_format, as torch's:
the weights of a module's convolutions laid out in a memory format (channels_last), in
place, recursively."""
from ..modules.conv import Conv2d, Conv3d, ConvTranspose2d, ConvTranspose3d

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module, memory_format, kinds):
    if isinstance(module, kinds):
        module.weight.data = module.weight.detach().clone(memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """Give the weight of every Conv2d / ConvTranspose2d in ``module`` (itself included)
    ``memory_format``; returns ``module``. Values are unchanged, only strides.

    >>> model = minflow.nn.Sequential(minflow.nn.Conv2d(3, 4, 2), minflow.nn.ReLU())
    >>> model = minflow.nn.utils.convert_conv2d_weight_memory_format(model,
    ...                                                              minflow.channels_last)
    >>> model[0].weight.is_contiguous(memory_format=minflow.channels_last)
    True
    """
    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module, memory_format):
    """Give the weight of every Conv3d / ConvTranspose3d in ``module`` (itself included)
    ``memory_format``; returns ``module``.

    >>> conv = minflow.nn.utils.convert_conv3d_weight_memory_format(
    ...     minflow.nn.Conv3d(2, 4, 2), minflow.channels_last_3d)
    >>> conv.weight.stride()
    (16, 1, 8, 4, 2)
    """
    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))

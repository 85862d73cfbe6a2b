"""``minflow.accelerator``: the device-agnostic accelerator queries of ``torch.accelerator``.

minflow's one accelerator is ``cuda`` (through cupy). Scripts written as
``device = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else
torch.device("cpu")`` run unchanged.

>>> device = (minflow.accelerator.current_accelerator()
...           if minflow.accelerator.is_available() else minflow.device("cpu"))
>>> minflow.zeros(2, device=device).device == device
True
"""
from . import cuda
from .core.device import device as _device

__all__ = ["is_available", "current_accelerator", "device_count", "current_device_index",
           "current_device_idx", "set_device_index", "set_device_idx", "synchronize",
           "empty_cache", "memory_allocated", "memory_reserved"]


def is_available():
    """True if an accelerator (a CUDA GPU with cupy) can be used.

    >>> isinstance(minflow.accelerator.is_available(), bool)
    True
    """
    return cuda.is_available()


def current_accelerator(check_available=False):
    """The accelerator's device type as a device (``cuda``), or None: without a GPU, or when
    ``check_available`` and it cannot be used.

    >>> minflow.accelerator.current_accelerator() in (None, minflow.device("cuda"))
    True
    """
    return _device("cuda") if cuda.is_available() else None


def device_count():
    """How many accelerator devices there are (0 without a GPU).

    >>> minflow.accelerator.device_count() >= 0
    True
    """
    return cuda.device_count()


def _require(name):
    if not cuda.is_available():
        raise RuntimeError(f"accelerator.{name}: Cannot access accelerator device when none "
                           f"is available.")


def current_device_index():
    """The index of the current accelerator device (an error without one).

    >>> minflow.accelerator.current_device_index() if minflow.accelerator.is_available() else 0
    0
    """
    _require("current_device_index")
    return cuda.current_device()


def set_device_index(device):
    """Make ``device`` (an index, "cuda:N" or a Device) the current accelerator device."""
    _require("set_device_index")
    cuda.set_device(device)


def synchronize(device=None):
    """Wait for the work queued on ``device`` (default: the current one) to finish."""
    _require("synchronize")
    cuda.synchronize(device)


def empty_cache():
    """Give the memory minflow's GPU allocator holds but does not use back to the device (a
    no-op without a GPU)."""
    cuda.empty_cache()


def memory_allocated(device=None):
    """Bytes of GPU memory held by tensors now (0 without a GPU)."""
    return cuda.memory_allocated(device)


def memory_reserved(device=None):
    """Bytes of GPU memory held by minflow's allocator, used or cached (0 without a GPU)."""
    return cuda.memory_reserved(device)


current_device_idx = current_device_index
set_device_idx = set_device_index

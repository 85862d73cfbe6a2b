"""``minflow.cuda``: GPU queries and seeding, as ``torch.cuda``.

Every function works without cupy or a GPU (``is_available()`` is then False and
``device_count()`` 0); those that need a GPU raise a clear error naming the device.

>>> device = "cuda" if minflow.cuda.is_available() else "cpu"
>>> minflow.zeros(2, device=device).device.type == device
True
"""
from ..core.device import cuda_is_available, device as _device, _import_cupy
from ..core.random import generator_for

__all__ = ["is_available", "device_count", "current_device", "set_device", "synchronize",
           "manual_seed", "manual_seed_all", "get_device_name", "empty_cache",
           "memory_allocated", "memory_reserved"]


def is_available():
    """True if cupy imports and sees at least one GPU.

    >>> isinstance(minflow.cuda.is_available(), bool)
    True
    """
    return cuda_is_available()


def device_count():
    """The number of visible GPUs (0 without cupy or a GPU).

    >>> minflow.cuda.device_count() >= 0
    True
    """
    if not cuda_is_available():
        return 0
    return _import_cupy("cuda").cuda.runtime.getDeviceCount()


def current_device():
    """The index of the current GPU.

    >>> minflow.cuda.current_device()
    0
    """
    return _import_cupy("cuda").cuda.runtime.getDevice()


def set_device(device):
    """Make ``device`` (an index, "cuda:N" or a Device) the current GPU.

    >>> minflow.cuda.set_device("cuda:0")
    >>> minflow.cuda.current_device()
    0
    """
    index = device if isinstance(device, int) else (_device(device).index or 0)
    _import_cupy(f"cuda:{index}").cuda.runtime.setDevice(index)


def synchronize(device=None):
    """Wait for every kernel queued on ``device`` (default: the current GPU) to finish.

    >>> y = minflow.ones(1000, device="cuda") * 2     # queued on the GPU
    >>> minflow.cuda.synchronize()                    # now finished
    """
    cupy = _import_cupy("cuda")
    if device is None:
        cupy.cuda.runtime.deviceSynchronize()
        return
    index = device if isinstance(device, int) else (_device(device).index or 0)
    with cupy.cuda.Device(index):
        cupy.cuda.runtime.deviceSynchronize()


def get_device_name(device=None):
    """The GPU's name, e.g. "NVIDIA H100 80GB HBM3".

    >>> isinstance(minflow.cuda.get_device_name(0), str)
    True
    """
    cupy = _import_cupy("cuda")
    index = current_device() if device is None else (
        device if isinstance(device, int) else (_device(device).index or 0))
    name = cupy.cuda.runtime.getDeviceProperties(index)["name"]
    return name.decode() if isinstance(name, bytes) else name


def manual_seed(seed):
    """Seed the cuda generator (a no-op without a GPU, as torch.cuda.manual_seed).

    >>> minflow.cuda.manual_seed(0)
    """
    if cuda_is_available():
        generator_for(None, _device("cuda")).manual_seed(seed)


manual_seed_all = manual_seed


def _pool(device):
    """cupy's default memory pool of ``device`` (its allocations are per device)."""
    cupy = _import_cupy("cuda")
    index = current_device() if device is None else (
        device if isinstance(device, int) else (_device(device).index or 0))
    with cupy.cuda.Device(index):
        return cupy.get_default_memory_pool()


def empty_cache():
    """Free the GPU memory cupy's pool caches but no tensor uses (a no-op without a GPU).

    >>> minflow.cuda.empty_cache()
    """
    if cuda_is_available():
        _import_cupy("cuda").get_default_memory_pool().free_all_blocks()


def memory_allocated(device=None):
    """Bytes of GPU memory that tensors on ``device`` hold now (0 without a GPU).

    >>> minflow.cuda.memory_allocated() >= 0
    True
    """
    return _pool(device).used_bytes() if cuda_is_available() else 0


def memory_reserved(device=None):
    """Bytes of GPU memory cupy's pool holds on ``device``, used or cached (0 without a GPU).

    >>> minflow.cuda.memory_reserved() >= minflow.cuda.memory_allocated()
    True
    """
    return _pool(device).total_bytes() if cuda_is_available() else 0

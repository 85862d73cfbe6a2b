"""``minflow.cuda``: GPU queries and seeding, as ``torch.cuda``.

Every function works without cupy or a GPU (``is_available()`` is then False and
``device_count()`` 0); those that need a GPU raise a clear error naming the device.

>>> device = "cuda" if minflow.cuda.is_available() else "cpu"
>>> minflow.zeros(2, device=device).device.type == device
True
"""
from ..core.device import check_available, cuda_is_available, device as _device, _import_cupy
from ..core.random import generator_for

__all__ = ["is_available", "device_count", "current_device", "set_device", "synchronize",
           "manual_seed", "manual_seed_all", "get_device_name", "get_rng_state",
           "set_rng_state", "get_rng_state_all", "set_rng_state_all", "empty_cache",
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


def _cuda_generator(device, where):
    dev = _device(f"cuda:{device}" if isinstance(device, int) else device)
    if dev.type != "cuda":
        raise RuntimeError(f"{where}: expected a cuda device, got {dev}")
    check_available(dev)
    return generator_for(None, dev)


def get_rng_state(device="cuda"):
    """The cuda generator's state (an int64 cpu tensor), to restore with ``set_rng_state``.

    >>> state = minflow.cuda.get_rng_state()
    >>> a = minflow.rand(2, device="cuda")
    >>> minflow.cuda.set_rng_state(state)
    >>> minflow.rand(2, device="cuda").tolist() == a.tolist()
    True
    """
    return _cuda_generator(device, "cuda.get_rng_state").get_state()


def set_rng_state(new_state, device="cuda"):
    """Restore the cuda generator to a state from ``get_rng_state``.

    >>> state = minflow.cuda.get_rng_state(); a = minflow.randn(2, device="cuda")
    >>> minflow.cuda.set_rng_state(state); minflow.randn(2, device="cuda").equal(a)
    True
    """
    _cuda_generator(device, "cuda.set_rng_state").set_state(new_state)


def get_rng_state_all():
    """The cuda generator's state in a list, one per visible GPU (minflow keeps one
    generator for all of them).

    >>> len(minflow.cuda.get_rng_state_all()) == minflow.cuda.device_count()
    True
    """
    return [get_rng_state(i) for i in range(device_count())]


def set_rng_state_all(new_states):
    """Restore each GPU's generator from ``get_rng_state_all``.

    >>> states = minflow.cuda.get_rng_state_all(); a = minflow.rand(2, device="cuda")
    >>> minflow.cuda.set_rng_state_all(states); minflow.rand(2, device="cuda").equal(a)
    True
    """
    for i, state in enumerate(new_states):
        set_rng_state(state, i)

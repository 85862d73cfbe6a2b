"""Devices: "cpu" (numpy), "cuda[:N]" (cupy) and "meta" (shapes and dtypes only).

This is the only module that imports cupy, and only when a cuda device is first used,
so minflow imports and runs fully without cupy or a GPU.
"""
import contextlib

import numpy as np

__all__ = ["Device", "device", "array_module", "cuda_is_available", "MetaArray",
           "get_default_device", "set_default_device", "default_device"]

DEVICE_TYPES = ("cpu", "cuda", "meta")


class Device:
    """A device such as ``Device("cuda:1")``. One object per name, so ``is`` compares.

    >>> d = minflow.device("cuda:1")
    >>> d, d.type, d.index, d is minflow.device("cuda", 1)
    (device(type='cuda', index=1), 'cuda', 1, True)
    """

    __slots__ = ("type", "index", "_name")
    _interned = {}

    def __new__(cls, spec, index=None):
        if isinstance(spec, Device):
            return spec
        key = spec if index is None else (spec, index)
        found = cls._interned.get(key)
        if found is not None:
            return found
        dev_type, dev_index = _parse(spec, index)
        name = dev_type if dev_index is None else f"{dev_type}:{dev_index}"
        found = cls._interned.get(name)
        if found is None:
            found = object.__new__(cls)
            found.type, found.index, found._name = dev_type, dev_index, name
            cls._interned[name] = found
        cls._interned[key] = found
        return found

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self._name

    def __eq__(self, other):
        if isinstance(other, str):
            other = Device(other)
        return isinstance(other, Device) and self._name == other._name

    def __hash__(self):
        return hash(self._name)

    def __reduce__(self):
        return (Device, (self._name,))


def _parse(spec, index):
    if isinstance(spec, int) and not isinstance(spec, bool):
        spec, index = "cuda", spec
    if not isinstance(spec, str):
        raise TypeError(f"device: expected a string like 'cpu' or 'cuda:0', got {spec!r}")
    dev_type, _, idx = spec.partition(":")
    if dev_type not in DEVICE_TYPES:
        raise RuntimeError(f"unknown device {spec!r}; expected one of "
                           f"'cpu', 'cuda', 'cuda:N', 'meta'")
    if idx:
        if not idx.isdigit() or index is not None:
            raise RuntimeError(f"invalid device string {spec!r}; expected e.g. 'cuda:0'")
        index = int(idx)
    if index is not None and dev_type != "cuda":
        raise RuntimeError(f"device {spec!r}: only cuda devices take an index")
    return dev_type, index


device = Device

_cupy = []


def _import_cupy(for_device):
    if not _cupy:
        try:
            import cupy
        except ImportError as err:
            raise RuntimeError(f"device {for_device!r} needs cupy, which is not installed "
                               f"(pip install 'minflow[cuda]')") from err
        try:
            count = cupy.cuda.runtime.getDeviceCount()
        except Exception as err:  # cupy raises its own CUDARuntimeError without a driver
            raise RuntimeError(f"device {for_device!r}: cupy found no usable CUDA GPU "
                               f"({err})") from err
        if count == 0:
            raise RuntimeError(f"device {for_device!r}: no CUDA GPU is visible")
        _cupy.append(cupy)
    return _cupy[0]


def cuda_is_available():
    """True if cupy imports and sees at least one GPU.

    >>> device = "cuda" if minflow.cuda_is_available() else "cpu"
    >>> minflow.ones(2, device=device).device.type == device
    True
    """
    try:
        _import_cupy("cuda")
    except RuntimeError:
        return False
    return True


_default_device = []


def set_default_device(device):
    """Make factories (``zeros``, ``tensor``, ``rand``, ``arange``...) called without
    ``device=`` create their tensors on ``device``; None restores the cpu.

    Tensors from other tensors (``zeros_like``, results of ops) and ``from_numpy`` are
    not affected, as in torch.

    >>> minflow.set_default_device("meta")
    >>> minflow.zeros(2).device, minflow.get_default_device()
    (device(type='meta'), device(type='meta'))
    >>> minflow.set_default_device(None)
    """
    _default_device.clear()
    if device is not None:
        _default_device.append(Device(device))


def get_default_device():
    """The device factories use when given no ``device=`` (cpu unless set).

    >>> minflow.get_default_device()
    device(type='cpu')
    """
    return _default_device[0] if _default_device else Device("cpu")


def default_device(device):
    """``device`` as a Device, or the default device when it is None."""
    if device is None:
        return _default_device[0] if _default_device else Device("cpu")
    return Device(device)


def check_available(dev):
    """Raise a clear error if ``dev`` cannot hold data here (cuda without cupy or GPU)."""
    if dev.type == "cuda":
        cupy = _import_cupy(str(dev))
        count = cupy.cuda.runtime.getDeviceCount()
        if dev.index is not None and dev.index >= count:
            raise RuntimeError(f"device {str(dev)!r}: only {count} CUDA GPU(s) are visible")


def array_module(dev_type):
    """numpy for "cpu", cupy for "cuda"; the meta device has no array module."""
    if dev_type == "cpu":
        return np
    if dev_type == "cuda":
        return _import_cupy("cuda")
    raise RuntimeError(f"device {dev_type!r} holds no data and has no array module")


def cuda_context(dev):
    """A context manager that makes ``dev`` the current GPU (cupy's Device)."""
    return _import_cupy(str(dev)).cuda.Device(dev.index or 0)


def linalg_raises(xp):
    """A context in which xp.linalg raises LinAlgError on singular / non-positive-definite
    input: numpy always does; cupy returns garbage unless cupyx.errstate says otherwise."""
    if xp is np:
        return contextlib.nullcontext()
    import cupyx
    return cupyx.errstate(linalg="raise")


def pinned_copy(array):
    """A copy of a numpy array in page-locked (pinned) host memory, for faster and
    asynchronous copies to a GPU (cupyx.empty_pinned)."""
    _import_cupy("cuda")
    import cupyx
    out = cupyx.empty_pinned(array.shape, array.dtype)
    out[...] = array
    return out


def is_pinned_array(array):
    """Whether a numpy array lies in page-locked host memory (False without a GPU)."""
    if not cuda_is_available() or array.size == 0:
        return False
    try:
        attributes = _cupy[0].cuda.runtime.pointerGetAttributes(array.ctypes.data)
    except Exception:     # cupy raises its CUDARuntimeError for memory CUDA does not know
        return False
    # NOTE: cupy names the field ``type`` (``memoryType`` before CUDA 11); 1 is CUDA's
    # cudaMemoryTypeHost (0 unregistered, 2 device, 3 managed)
    return getattr(attributes, "type", getattr(attributes, "memoryType", 0)) == 1


def to_numpy(array):
    """A numpy array with the data of a numpy or cupy array."""
    if isinstance(array, np.ndarray):
        return array
    return array.get()


class MetaArray:
    """Stands in for an array on the meta device: shape and dtype, no data."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    def __repr__(self):
        return f"MetaArray(shape={self.shape}, dtype={self.dtype})"

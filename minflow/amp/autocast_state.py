"""The autocast state functions of the torch namespace: set_autocast_enabled,
set_autocast_dtype, the cast cache switches, the nesting counters, and the deprecated
per-device forms (cpu / gpu), over the state of minflow/amp/autocast_mode.py.

They change the state autocast regions set and restore: a region entered afterwards saves
what they set, and puts it back on exit.
"""
import warnings

from ..core import dtype as dtypes
from ..core.autocast import state
from .autocast_mode import _check_device_type, is_autocast_enabled, set_enabled, settings

__all__ = ["set_autocast_enabled", "set_autocast_dtype", "is_autocast_cache_enabled",
           "set_autocast_cache_enabled", "clear_autocast_cache", "autocast_increment_nesting",
           "autocast_decrement_nesting", "is_autocast_cpu_enabled", "set_autocast_cpu_enabled",
           "get_autocast_cpu_dtype", "set_autocast_cpu_dtype", "get_autocast_gpu_dtype",
           "set_autocast_gpu_dtype"]


def set_autocast_enabled(device_type, enabled=None):
    """set_autocast_enabled(device_type, enabled): turn autocast on or off for
    ``device_type`` outside any region (``set_autocast_enabled(enabled)``, the deprecated
    form, is for "cuda").

    >>> minflow.set_autocast_enabled("cpu", True)
    >>> a = minflow.ones(2, 2)
    >>> (a @ a).dtype, minflow.is_autocast_enabled("cpu")
    (minflow.bfloat16, True)
    >>> minflow.set_autocast_enabled("cpu", False)
    """
    if enabled is None:
        device_type, enabled = "cuda", device_type
    _check_device_type(device_type)
    if not isinstance(enabled, bool):
        raise TypeError(f"set_autocast_enabled(): argument 'enabled' must be bool, not "
                        f"{type(enabled).__name__}")
    set_enabled(device_type, enabled)


def set_autocast_dtype(device_type, dtype):
    """The dtype autocast casts to on ``device_type`` from now on (in a region entered
    later, its own dtype wins until it exits).

    >>> minflow.set_autocast_dtype("cpu", minflow.float16)
    >>> minflow.get_autocast_dtype("cpu")
    minflow.float16
    >>> minflow.set_autocast_dtype("cpu", minflow.bfloat16)
    """
    _check_device_type(device_type)
    if not isinstance(dtype, dtypes.DType):
        raise TypeError(f"set_autocast_dtype(): argument 'dtype' (position 2) must be "
                        f"minflow.dtype, not {type(dtype).__name__}")
    settings.dtype[device_type] = dtype
    if is_autocast_enabled(device_type):
        state.active = dict(state.active, **{device_type: dtype})


def is_autocast_cache_enabled():
    """Whether autocast may cache cast weights (torch's switch; minflow caches none).

    >>> minflow.is_autocast_cache_enabled()
    True
    """
    return settings.cache_enabled


def set_autocast_cache_enabled(enabled):
    """Set the cache switch read by ``is_autocast_cache_enabled`` (and by autocast
    regions made with cache_enabled=None).

    >>> minflow.set_autocast_cache_enabled(False); minflow.is_autocast_cache_enabled()
    False
    >>> minflow.set_autocast_cache_enabled(True)
    """
    if not isinstance(enabled, bool):
        raise TypeError(f"set_autocast_cache_enabled(): argument 'enabled' must be bool, not "
                        f"{type(enabled).__name__}")
    settings.cache_enabled = enabled


def clear_autocast_cache():
    """Empty the cache of cast weights: nothing to do, minflow casts weights at each op
    and keeps no cache.

    >>> minflow.clear_autocast_cache()
    """


def autocast_increment_nesting():
    """One autocast region deeper; returns the new depth.

    >>> minflow.autocast_increment_nesting(), minflow.autocast_decrement_nesting()
    (1, 0)
    """
    settings.nesting += 1
    return settings.nesting


def autocast_decrement_nesting():
    """One autocast region shallower; returns the new depth.

    >>> minflow.autocast_increment_nesting(), minflow.autocast_decrement_nesting()
    (1, 0)
    """
    settings.nesting -= 1
    return settings.nesting


def _deprecated(old, new):
    warnings.warn(f"minflow.{old}() is deprecated. Please use minflow.{new} instead.",
                  DeprecationWarning, stacklevel=3)


def is_autocast_cpu_enabled():
    """Deprecated: ``is_autocast_enabled("cpu")``.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True):
    ...     minflow.is_autocast_cpu_enabled()
    False
    """
    _deprecated("is_autocast_cpu_enabled", "is_autocast_enabled('cpu')")
    return is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled):
    """Deprecated: ``set_autocast_enabled("cpu", enabled)``.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True):
    ...     minflow.set_autocast_cpu_enabled(False)
    >>> minflow.is_autocast_enabled("cpu")
    False
    """
    _deprecated("set_autocast_cpu_enabled", "set_autocast_enabled('cpu', enabled)")
    set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype():
    """Deprecated: ``get_autocast_dtype("cpu")``.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True):
    ...     minflow.get_autocast_cpu_dtype()
    minflow.bfloat16
    """
    _deprecated("get_autocast_cpu_dtype", "get_autocast_dtype('cpu')")
    return settings.dtype["cpu"]


def set_autocast_cpu_dtype(dtype):
    """Deprecated: ``set_autocast_dtype("cpu", dtype)``.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True):
    ...     minflow.set_autocast_cpu_dtype(minflow.bfloat16)
    >>> minflow.get_autocast_dtype("cpu")
    minflow.bfloat16
    """
    _deprecated("set_autocast_cpu_dtype", "set_autocast_dtype('cpu', dtype)")
    set_autocast_dtype("cpu", dtype)


def get_autocast_gpu_dtype():
    """Deprecated: ``get_autocast_dtype("cuda")``.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True):
    ...     minflow.get_autocast_gpu_dtype()
    minflow.float16
    """
    _deprecated("get_autocast_gpu_dtype", "get_autocast_dtype('cuda')")
    return settings.dtype["cuda"]


def set_autocast_gpu_dtype(dtype):
    """Deprecated: ``set_autocast_dtype("cuda", dtype)``.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True):
    ...     minflow.set_autocast_gpu_dtype(minflow.float16)
    >>> minflow.get_autocast_dtype("cuda")
    minflow.float16
    """
    _deprecated("set_autocast_gpu_dtype", "set_autocast_dtype('cuda', dtype)")
    set_autocast_dtype("cuda", dtype)

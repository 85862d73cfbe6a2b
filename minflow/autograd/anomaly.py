"""Anomaly mode, as torch's: record the user's source line of each op, name it when its
backward fails, and (with ``check_nan``) fail on NaN/Inf gradients."""
import functools

from .node import _anomaly

__all__ = ["detect_anomaly", "set_detect_anomaly", "set_anomaly_enabled", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled"]


def _set(mode, check_nan):
    _anomaly[0], _anomaly[1] = bool(mode), bool(mode and check_nan)


class detect_anomaly:
    """Context manager / decorator turning anomaly mode on.

    Each op records the user's source line that ran it; an error in its backward names
    that line. With ``check_nan`` (the default), a NaN or Inf gradient is such an error.

    >>> x = minflow.tensor([0.0], requires_grad=True)
    >>> with minflow.autograd.detect_anomaly():
    ...     y = x.sqrt()        # y.sum().backward() here: RuntimeError naming 'sqrt' and this line
    """

    def __init__(self, check_nan=True):
        self.check_nan = check_nan

    def __enter__(self):
        self._prev = tuple(_anomaly)
        _set(True, self.check_nan)

    def __exit__(self, *exc):
        _set(*self._prev)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with detect_anomaly(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """Turn anomaly mode on or off, as a call or as a context manager (which restores the

    previous mode on exit).

    >>> with minflow.autograd.set_detect_anomaly(True):
    ...     minflow.autograd.is_anomaly_enabled()
    True
    >>> minflow.autograd.is_anomaly_enabled()
    False
    """

    def __init__(self, mode, check_nan=True):
        self._prev = tuple(_anomaly)
        _set(mode, check_nan)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        _set(*self._prev)
        return False


def set_anomaly_enabled(enabled, check_nan=True):
    """Turn anomaly mode on or off for good (``torch.set_anomaly_enabled``); see
    detect_anomaly.

    >>> minflow.set_anomaly_enabled(True); minflow.is_anomaly_enabled()
    True
    >>> minflow.set_anomaly_enabled(False); minflow.is_anomaly_enabled()
    False
    """
    _set(enabled, check_nan)


def is_anomaly_enabled():
    """Whether anomaly mode is on.

    >>> with minflow.autograd.detect_anomaly():
    ...     minflow.autograd.is_anomaly_enabled()
    True
    """
    return _anomaly[0]


def is_anomaly_check_nan_enabled():
    """Whether anomaly mode also fails on NaN / Inf gradients.

    >>> with minflow.autograd.detect_anomaly(check_nan=False):
    ...     minflow.autograd.is_anomaly_check_nan_enabled()
    False
    """
    return _anomaly[1]

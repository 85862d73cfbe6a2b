"""``detect_anomaly``: record where each op was created, and fail on NaN/Inf gradients."""
import functools

from .node import _anomaly

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled"]


class detect_anomaly:
    """Context manager / decorator: a NaN or Inf produced in backward raises an error
    naming the forward op and the user's source line that created it."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan

    def __enter__(self):
        self._prev = _anomaly[0]
        _anomaly[0] = self.check_nan

    def __exit__(self, *exc):
        _anomaly[0] = self._prev
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with detect_anomaly(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper


def set_detect_anomaly(mode):
    _anomaly[0] = bool(mode)


def is_anomaly_enabled():
    return _anomaly[0]

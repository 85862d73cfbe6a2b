"""Global switches torch scripts set: deterministic algorithms and float32 matmul
precision. minflow stores them so that scripts run unchanged and read back what they set;
neither changes a result. Each minflow kernel has one algorithm, so there is none to
switch to (on cuda, embedding's gradient sums with atomic adds and may vary in the last
bits, flag or not: docs/numerics.md), and numpy / cupy compute float32 matmuls in float32
(no TF32 or bfloat16 passes)."""
import warnings

__all__ = ["use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled", "set_float32_matmul_precision",
           "get_float32_matmul_precision", "set_flush_denormal"]

_state = {"deterministic": False, "warn_only": False, "matmul_precision": "highest"}
_PRECISIONS = ("highest", "high", "medium")


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Ask for deterministic algorithms (``mode=True``), as torch. minflow has one
    algorithm per kernel, so this only records the request.

    >>> minflow.use_deterministic_algorithms(True, warn_only=True)
    >>> minflow.are_deterministic_algorithms_enabled()
    True
    >>> minflow.use_deterministic_algorithms(False)
    """
    for name, value in (("mode", mode), ("warn_only", warn_only)):
        if not isinstance(value, bool):
            raise TypeError(f"use_deterministic_algorithms: expected {name} to be a bool, "
                            f"got {type(value).__name__}")
    _state["deterministic"], _state["warn_only"] = mode, warn_only


def are_deterministic_algorithms_enabled():
    """Whether ``use_deterministic_algorithms(True)`` is in force (False by default).

    >>> minflow.are_deterministic_algorithms_enabled()
    False
    """
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled():
    """Whether deterministic algorithms were asked for with ``warn_only=True``.

    >>> minflow.is_deterministic_algorithms_warn_only_enabled()
    False
    """
    return _state["warn_only"]


def set_float32_matmul_precision(precision):
    """Record "highest", "high" or "medium", as torch; no numeric effect in minflow (numpy
    and cupy always compute float32 matmuls in full float32). Another string warns and is
    ignored, as in torch.

    >>> minflow.set_float32_matmul_precision("high")
    >>> minflow.get_float32_matmul_precision()
    'high'
    >>> minflow.set_float32_matmul_precision("highest")
    """
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision: expects a str, but got "
                           f"{type(precision).__name__}")
    if precision not in _PRECISIONS:
        warnings.warn(f"set_float32_matmul_precision: {precision} is not one of 'highest', "
                      f"'high', or 'medium'; the call has no effect", UserWarning, stacklevel=2)
        return
    _state["matmul_precision"] = precision


def get_float32_matmul_precision():
    """The float32 matmul precision last set ("highest" by default).

    >>> minflow.get_float32_matmul_precision()
    'highest'
    """
    return _state["matmul_precision"]


def set_flush_denormal(mode):
    """Ask for denormal floats to be flushed to zero; False: minflow cannot (numpy gives no
    control of the cpu's flush-to-zero mode), and nothing changes. torch returns False too
    where the cpu lacks the mode.

    >>> minflow.set_flush_denormal(True)
    False
    """
    if not isinstance(mode, bool):
        raise TypeError(f"set_flush_denormal: expected a bool, got {type(mode).__name__}")
    return False

"""Grad mode: whether ops record autograd nodes. Usable as context managers and decorators."""
import functools

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled"]


class _State:
    __slots__ = ("grad_enabled",)

    def __init__(self):
        self.grad_enabled = True


state = _State()


def is_grad_enabled():
    """True when ops on tensors that require grad record the autograd graph."""
    return state.grad_enabled


class _GradModeBase:
    """Context manager and decorator that sets grad mode and restores it on exit."""

    enabled = True

    def __enter__(self):
        self._prev = state.grad_enabled
        state.grad_enabled = self.enabled

    def __exit__(self, *exc):
        state.grad_enabled = self._prev
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_GradModeBase):
    """Disable gradient recording: ``with minflow.no_grad(): ...`` or ``@minflow.no_grad()``."""

    enabled = False


class enable_grad(_GradModeBase):
    """Enable gradient recording inside a ``no_grad`` region."""

    enabled = True


class set_grad_enabled(_GradModeBase):
    """Set grad mode to ``mode``; as a call it takes effect at once, as in PyTorch."""

    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled: expected mode to be a bool, got {type(mode).__name__}")
        self.enabled = mode
        self._prev = state.grad_enabled
        state.grad_enabled = mode

    def __enter__(self):
        pass

    def __call__(self, fn):
        state.grad_enabled = self._prev
        mode = self.enabled

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)
        return wrapper

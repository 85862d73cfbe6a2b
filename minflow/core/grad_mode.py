"""Grad mode: whether ops record autograd nodes. Usable as context managers and decorators
(with or without parentheses, on functions and generator functions), as in PyTorch."""
import functools
import inspect

from .namespace import F

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
           "is_inference_mode_enabled"]


class _State:
    __slots__ = ("grad_enabled", "inference")

    def __init__(self):
        self.grad_enabled = True
        self.inference = False


state = _State()


def is_grad_enabled():
    """True when ops on tensors that require grad record the autograd graph.

    >>> with minflow.no_grad():
    ...     minflow.is_grad_enabled()
    False
    """
    return state.grad_enabled


def is_inference_mode_enabled():
    """True inside ``inference_mode()``.

    >>> with minflow.inference_mode():
    ...     minflow.is_inference_mode_enabled()
    True
    """
    return state.inference


class _GradModeBase:
    """Context manager and decorator that sets grad mode and restores it on exit.

    ``@no_grad`` and ``@no_grad()`` both decorate; a decorated generator function runs
    each of its steps in the mode, and the caller's code between steps does not.
    """

    enabled = True

    def __new__(cls, func=None):
        self = super().__new__(cls)
        self._prev = []
        return self if func is None else self(func)

    def __init__(self, func=None):
        pass

    def __enter__(self):
        self._prev.append((state.grad_enabled, state.inference))
        state.grad_enabled = self.enabled
        state.inference = self._inference(state.inference)

    def __exit__(self, *exc):
        state.grad_enabled, state.inference = self._prev.pop()
        return False

    def _inference(self, current):
        return current

    def _clone(self):
        return self.__class__()

    def __call__(self, fn):
        if inspect.isclass(fn):
            raise TypeError(f"{type(self).__name__}: decorating classes is not supported; "
                            f"decorate a function or method")
        if inspect.isgeneratorfunction(fn):
            return _wrap_generator(self._clone, fn)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self._clone():
                return fn(*args, **kwargs)
        return wrapper


def _wrap_generator(make_context, fn):
    """``fn``'s generator, with every step (send, throw, close) run inside the context."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        gen = fn(*args, **kwargs)
        try:
            with make_context():
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with make_context():
                        gen.close()
                    raise
                except BaseException as err:
                    with make_context():
                        response = gen.throw(err)
                else:
                    with make_context():
                        response = gen.send(request)
        except StopIteration as stop:
            return stop.value
    return wrapper


class no_grad(_GradModeBase):
    """Disable gradient recording: ``with minflow.no_grad(): ...`` or ``@minflow.no_grad``.

    >>> x = minflow.ones(2, requires_grad=True)
    >>> with minflow.no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False
    >>> @minflow.no_grad
    ... def double(t):
    ...     return t * 2
    >>> double(x).requires_grad
    False
    """

    enabled = False


class enable_grad(_GradModeBase):
    """Enable gradient recording inside a ``no_grad`` region.

    >>> x = minflow.ones(2, requires_grad=True)
    >>> with minflow.no_grad(), minflow.enable_grad():
    ...     (x * 2).requires_grad
    True
    """

    enabled = True


class inference_mode(_GradModeBase):
    """``no_grad`` for inference: ``with minflow.inference_mode(): ...``; ``mode=False``
    changes nothing.

    >>> x = minflow.ones(2, requires_grad=True)
    >>> with minflow.inference_mode():
    ...     (x * 2).requires_grad
    False
    """

    def __new__(cls, mode=True):
        func = None
        if not isinstance(mode, bool):          # bare decorator: mode is the function
            func, mode = mode, True
        self = super().__new__(cls)
        self.mode = mode
        return self if func is None else self(func)

    def __init__(self, mode=True):
        pass

    def __enter__(self):
        self._prev.append((state.grad_enabled, state.inference))
        if self.mode:
            state.grad_enabled, state.inference = False, True

    def _clone(self):
        return inference_mode(self.mode)


class set_grad_enabled(_GradModeBase):
    """Set grad mode to ``mode``; as a call it takes effect at once, as in PyTorch.

    >>> x = minflow.ones(2, requires_grad=True)
    >>> with minflow.set_grad_enabled(False):
    ...     (x * 2).requires_grad
    False
    >>> _ = minflow.set_grad_enabled(False); (x * 2).requires_grad
    False
    >>> _ = minflow.set_grad_enabled(True); (x * 2).requires_grad
    True
    """

    def __new__(cls, mode):
        return super().__new__(cls)

    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled: expected mode to be a bool, got "
                            f"{type(mode).__name__}")
        self.enabled = mode
        self._prev.append((state.grad_enabled, state.inference))
        state.grad_enabled = mode

    def __enter__(self):
        pass

    def _clone(self):
        return set_grad_enabled(self.enabled)

    def __call__(self, fn):
        state.grad_enabled, state.inference = self._prev.pop()   # decorating changes nothing
        return super().__call__(fn)


F.inference_mode = inference_mode
F.is_inference_mode_enabled = is_inference_mode_enabled

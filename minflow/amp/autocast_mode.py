"""``autocast``: mixed precision regions, as ``torch.autocast`` (the policy is in
minflow/core/autocast.py).

>>> model = minflow.nn.Linear(4, 2)
>>> with minflow.autocast("cpu", dtype=minflow.float16):
...     out = model(minflow.ones(3, 4))             # linear runs in float16
...     loss = out.float().pow(2).mean()
>>> out.dtype, loss.dtype
(minflow.float16, minflow.float32)
>>> loss.backward()                                 # grads reach the float32 weights
>>> model.weight.grad.dtype
minflow.float32
"""
import functools
import warnings

from ..core import dtype as dtypes
from ..core.autocast import state
from ..core.device import cuda_is_available

__all__ = ["autocast", "is_autocast_available", "is_autocast_enabled", "get_autocast_dtype",
           "custom_fwd", "custom_bwd", "settings", "set_enabled"]

_DEVICE_TYPES = ("cpu", "cuda")
_DEFAULT_DTYPE = {"cpu": dtypes.bfloat16, "cuda": dtypes.float16}
# the lower-precision dtypes an autocast region may use, per device type (minflow's
# bfloat16 is cpu only: cupy has no bfloat16)
_SUPPORTED = {"cpu": (dtypes.bfloat16, dtypes.float16), "cuda": (dtypes.float16,)}


class _Settings:
    """What torch keeps per thread besides the enabled devices (``state.active``): the
    dtype each device type casts to, whether casts are cached, how deep regions nest."""

    def __init__(self):
        self.dtype = dict(_DEFAULT_DTYPE)
        self.cache_enabled = True
        self.nesting = 0


settings = _Settings()


def is_autocast_available(device_type):
    """Whether autocast supports ``device_type`` ("cpu" and "cuda" do).

    >>> minflow.amp.is_autocast_available("cpu")
    True
    """
    return device_type in _DEVICE_TYPES


def is_autocast_enabled(device_type=None):
    """Whether an autocast region is on for ``device_type`` (default "cuda", as torch).

    >>> minflow.is_autocast_enabled("cpu")
    False
    """
    device_type = "cuda" if device_type is None else device_type
    return state.active is not None and device_type in state.active


def get_autocast_dtype(device_type):
    """The dtype autocast casts to on ``device_type``: the current region's, or the one
    ``set_autocast_dtype`` set (default bfloat16 on cpu, float16 on cuda).

    >>> minflow.get_autocast_dtype("cpu"), minflow.get_autocast_dtype("cuda")
    (minflow.bfloat16, minflow.float16)
    """
    _check_device_type(device_type)
    return settings.dtype[device_type]


def set_enabled(device_type, enabled):
    """Turn autocast on or off for ``device_type`` (on: casting to its current dtype)."""
    active = dict(state.active or {})
    if enabled:
        active[device_type] = settings.dtype[device_type]
    else:
        active.pop(device_type, None)
    state.active = active or None


def _check_device_type(device_type):
    if not isinstance(device_type, str):
        raise ValueError(f"autocast: expected `device_type` of type `str`, got: "
                         f"`{type(device_type)}`")
    if device_type not in _DEVICE_TYPES:
        raise RuntimeError(f"autocast: User specified an unsupported autocast device_type "
                           f"'{device_type}' (minflow supports 'cpu' and 'cuda')")


class autocast:
    """A region in which ops run in mixed precision: matmul-like ops in ``dtype`` (default
    bfloat16 on cpu, float16 on cuda), precision-sensitive ones in float32, as torch's
    autocast for ``device_type``.

    ``enabled=False`` makes it a no-op region. As torch, an unsupported dtype (float32,
    float64; bfloat16 on cuda, which minflow's cupy backend lacks) or cuda without a GPU
    warns and disables the region. Usable as a decorator.

    >>> a = minflow.ones(2, 2)
    >>> with minflow.autocast("cpu", dtype=minflow.float16):
    ...     (a @ a).dtype, a.exp().dtype, minflow.prod(a.half()).dtype
    (minflow.float16, minflow.float32, minflow.float32)
    """

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        _check_device_type(device_type)
        dtype = _DEFAULT_DTYPE[device_type] if dtype is None else dtypes.as_dtype(dtype)
        if not isinstance(enabled, bool):
            raise TypeError(f"autocast: expected enabled to be a bool, got "
                            f"{type(enabled).__name__}")
        if enabled and device_type == "cuda" and not cuda_is_available():
            warnings.warn("CUDA is not available. Disabling autocast.", UserWarning,
                          stacklevel=2)
            enabled = False
        if enabled and dtype not in _SUPPORTED[device_type]:
            label = "CPU" if device_type == "cpu" else "CUDA"
            names = ", ".join(repr(d) for d in _SUPPORTED[device_type])
            warnings.warn(f"In {label} autocast, but the target dtype is not supported. "
                          f"Disabling autocast.\n{label} Autocast only supports dtypes of "
                          f"{names} currently.", UserWarning, stacklevel=2)
            enabled = False
        self.device = device_type
        self.fast_dtype = dtype
        self._enabled = enabled
        self._cache_enabled = cache_enabled
        self._saved = []

    def __enter__(self):
        self._saved.append((state.active, settings.dtype[self.device], settings.cache_enabled))
        settings.dtype[self.device] = self.fast_dtype
        set_enabled(self.device, self._enabled)
        settings.nesting += 1
        if self._cache_enabled is not None:
            settings.cache_enabled = self._cache_enabled
        return self

    def __exit__(self, *exc):
        settings.nesting -= 1
        state.active, settings.dtype[self.device], settings.cache_enabled = self._saved.pop()
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with autocast(self.device, self.fast_dtype, self._enabled, self._cache_enabled):
                return fn(*args, **kwargs)
        return wrapper


# ---- custom autograd Functions under autocast -------------------------------------------

def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorator for the ``forward`` of a custom ``autograd.Function`` under autocast.

    With ``cast_inputs`` (a dtype), inside an autocast region for ``device_type`` the
    floating tensors among the arguments are cast to it and ``forward`` runs with autocast
    off; without it, ``forward`` runs in the current autocast state, which ``custom_bwd``
    then restores for ``backward``. Outside autocast it changes nothing.

    >>> class Square(minflow.autograd.Function):
    ...     @staticmethod
    ...     @minflow.amp.custom_fwd(device_type="cpu", cast_inputs=minflow.float32)
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x * x
    ...     @staticmethod
    ...     @minflow.amp.custom_bwd(device_type="cpu")
    ...     def backward(ctx, grad):
    ...         (x,) = ctx.saved_tensors
    ...         return 2 * x * grad
    >>> with minflow.autocast("cpu", dtype=minflow.float16):
    ...     Square.apply(minflow.ones(2, dtype=minflow.float16)).dtype
    minflow.float32
    """
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        ctx, enabled = args[0], is_autocast_enabled(device_type)
        ctx._dtype = state.active[device_type] if enabled else None
        if cast_inputs is None or not enabled:
            ctx._fwd_used_autocast = enabled and cast_inputs is None
            return fwd(*args, **kwargs)
        ctx._fwd_used_autocast = False
        with autocast(device_type, enabled=False):
            return fwd(*_cast(args, device_type, cast_inputs),
                       **_cast(kwargs, device_type, cast_inputs))
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorator for the ``backward`` of a custom ``autograd.Function``: it runs in the
    autocast state its ``custom_fwd`` forward ran in (backward otherwise runs without
    autocast)."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        ctx = args[0]
        used = getattr(ctx, "_fwd_used_autocast", False)
        with autocast(device_type, dtype=getattr(ctx, "_dtype", None) or dtypes.float16,
                      enabled=used):
            return bwd(*args, **kwargs)
    return decorate_bwd


def _cast(value, device_type, dtype):
    """Floating tensors on ``device_type`` in ``value`` (nested containers too) cast to
    ``dtype``."""
    from ..core.tensor import Tensor
    if isinstance(value, Tensor):
        if value.dtype.is_floating_point and value.device.type == device_type:
            return value.to(dtype)
        return value
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, device_type, dtype) for v in value)
    if isinstance(value, dict):
        return {k: _cast(v, device_type, dtype) for k, v in value.items()}
    return value

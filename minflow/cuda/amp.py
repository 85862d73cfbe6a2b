"""``minflow.cuda.amp``: the older cuda-only spellings of minflow.amp, deprecated as torch's.

``minflow.cuda.amp.autocast(...)`` is ``minflow.amp.autocast("cuda", ...)`` and
``minflow.cuda.amp.GradScaler(...)`` is ``minflow.amp.GradScaler("cuda", ...)``; each warns
with torch's FutureWarning.
"""
import warnings

from .. import amp as _amp

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]


class autocast(_amp.autocast):
    """``minflow.amp.autocast("cuda", ...)`` under its deprecated name.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     region = minflow.cuda.amp.autocast(enabled=False)
    >>> caught[0].category.__name__
    'FutureWarning'
    """

    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        warnings.warn("`minflow.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`minflow.amp.autocast('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(_amp.GradScaler):
    """``minflow.amp.GradScaler("cuda", ...)`` under its deprecated name.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     scaler = minflow.cuda.amp.GradScaler(enabled=False)
    >>> caught[0].category.__name__, scaler.is_enabled()
    ('FutureWarning', False)
    """

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        warnings.warn("`minflow.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`minflow.amp.GradScaler('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval,
                         enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """``minflow.amp.custom_fwd(device_type="cuda", ...)`` under its deprecated name."""
    warnings.warn("`minflow.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
                  "`minflow.amp.custom_fwd(args..., device_type='cuda')` instead.",
                  FutureWarning, stacklevel=2)
    return _amp.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd=None):
    """``minflow.amp.custom_bwd(device_type="cuda")`` under its deprecated name."""
    warnings.warn("`minflow.cuda.amp.custom_bwd(args...)` is deprecated. Please use "
                  "`minflow.amp.custom_bwd(args..., device_type='cuda')` instead.",
                  FutureWarning, stacklevel=2)
    return _amp.custom_bwd(bwd, device_type="cuda")

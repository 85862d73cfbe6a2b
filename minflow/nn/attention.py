"""``minflow.nn.attention``: which kernel runs scaled_dot_product_attention, as torch's.

minflow has one implementation of attention; it stands for the backends torch has on the
device (math and flash on cpu; math, flash, memory-efficient and cuDNN on cuda). Turning
all of those off with ``sdpa_kernel`` (or backends.cuda.enable_*_sdp) makes attention
raise torch's "No viable backend" error, as torch would.

>>> from minflow.nn.attention import SDPBackend, sdpa_kernel
>>> q = minflow.ones(1, 2, 4)
>>> with sdpa_kernel(SDPBackend.MATH):
...     minflow.nn.functional.scaled_dot_product_attention(q, q, q).shape
minflow.Size([1, 2, 4])
"""
import contextlib
import enum

from ..ops.nn import SDPA_ENABLED

__all__ = ["SDPBackend", "sdpa_kernel"]


class SDPBackend(enum.Enum):
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Within it, only ``backends`` (an SDPBackend or a list of them) may run attention."""
    if isinstance(backends, SDPBackend):
        backends = [backends]
    backends = list(backends)
    for backend in backends:
        if not isinstance(backend, SDPBackend):
            raise TypeError(f"sdpa_kernel: backends must be SDPBackend values, got "
                            f"{backend!r}")
    previous = set(SDPA_ENABLED)
    SDPA_ENABLED.clear()
    SDPA_ENABLED.update(b.value for b in backends)
    try:
        yield {}
    finally:
        SDPA_ENABLED.clear()
        SDPA_ENABLED.update(previous)

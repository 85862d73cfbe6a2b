"""``minflow.random``: the seeding and state functions of ``torch.random``, and ``fork_rng``.

>>> with minflow.random.fork_rng():
...     _ = minflow.manual_seed(1)
...     inside = minflow.rand(1)
>>> after = minflow.rand(1)            # the outer stream went on as if nothing was drawn
"""
import contextlib

from . import cuda
from .core.random import (Generator, default_generator, get_rng_state, initial_seed,
                          manual_seed, seed, set_rng_state)

__all__ = ["manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state", "fork_rng",
           "Generator", "default_generator"]


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type="cuda"):
    """Run the block with the random generators' states saved and restored afterwards: the
    cpu generator's, and the cuda one's where a GPU is used (``devices``, default all).

    >>> _ = minflow.manual_seed(0)
    >>> with minflow.random.fork_rng():
    ...     _ = minflow.rand(3)
    >>> a = minflow.rand(1)
    >>> _ = minflow.manual_seed(0)
    >>> bool(minflow.rand(1) == a)
    True
    """
    if not enabled:
        yield
        return
    if device_type != "cuda":
        raise RuntimeError(f"{_caller}: expected device_type 'cuda', got {device_type!r}")
    if devices is None:
        devices = range(cuda.device_count())
    devices = list(devices)
    cpu_state = get_rng_state()
    device_states = [cuda.get_rng_state(d) for d in devices]
    try:
        yield
    finally:
        set_rng_state(cpu_state)
        for device, state in zip(devices, device_states):
            cuda.set_rng_state(state, device)

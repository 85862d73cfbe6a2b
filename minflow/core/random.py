"""Random number generators: seeded, per device, so runs are reproducible."""
import numpy as np

from .device import Device, array_module

__all__ = ["Generator", "manual_seed", "default_generator", "seed", "initial_seed"]


class Generator:
    """A seeded source of random numbers for one device type (cpu or cuda).

    Random ops take ``generator=``; without one they use the default generator, which
    ``minflow.manual_seed`` resets.

    >>> g = minflow.Generator().manual_seed(0)
    >>> a = minflow.rand(2, generator=g)
    >>> b = minflow.rand(2, generator=minflow.Generator().manual_seed(0))
    >>> a.tolist() == b.tolist()
    True
    """

    def __init__(self, device="cpu"):
        self.device = Device(device)
        self._seed = 67280421310721
        self._state = None

    def manual_seed(self, seed):
        """Reset to the stream of ``seed``; returns this generator."""
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise TypeError(f"manual_seed: expected seed to be an int, got {type(seed).__name__}")
        self._seed = seed & 0xFFFF_FFFF_FFFF_FFFF
        self._state = None
        return self

    def seed(self):
        """Seed from the OS's entropy and return the seed used."""
        self.manual_seed(int(np.random.SeedSequence().generate_state(1, np.uint64)[0]))
        return self._seed

    def initial_seed(self):
        return self._seed

    def rng(self, dev_type):
        """The array library's generator, for kernels (numpy or cupy)."""
        if self._state is None:
            if dev_type == "cuda":
                self._state = array_module("cuda").random.default_rng(self._seed)
            else:
                self._state = np.random.default_rng(self._seed)
        return self._state

    def get_state(self):
        """A copy of the state, to restore with ``set_state``."""
        if self._state is None:
            return {"seed": self._seed, "bit_generator": None}
        return {"seed": self._seed, "bit_generator": self._state.bit_generator.state}

    def set_state(self, state):
        self._seed = state["seed"]
        self._state = None
        if state["bit_generator"] is not None:
            self.rng(self.device.type).bit_generator.state = state["bit_generator"]

    def __repr__(self):
        return f"<minflow.Generator device={self.device} seed={self._seed}>"


default_generator = Generator("cpu")
_cuda_generator = []


def generator_for(generator, device):
    """The generator a random op uses on ``device``."""
    if generator is not None:
        return generator
    if device.type == "cuda":
        if not _cuda_generator:
            _cuda_generator.append(Generator("cuda").manual_seed(default_generator.initial_seed()))
        return _cuda_generator[0]
    return default_generator


def manual_seed(seed):
    """Seed every default generator (cpu and cuda); returns the cpu generator.

    >>> _ = minflow.manual_seed(0); a = minflow.rand(3)
    >>> _ = minflow.manual_seed(0); minflow.rand(3).tolist() == a.tolist()
    True
    """
    default_generator.manual_seed(seed)
    for g in _cuda_generator:
        g.manual_seed(seed)
    return default_generator


def seed():
    """Seed the default generator from the OS's entropy; returns the seed used.

    >>> s = minflow.seed()
    >>> minflow.initial_seed() == s
    True
    """
    return default_generator.seed()


def initial_seed():
    """The seed of the default cpu generator.

    >>> minflow.manual_seed(7).initial_seed(), minflow.initial_seed()
    (7, 7)
    """
    return default_generator.initial_seed()

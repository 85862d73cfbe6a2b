"""Random number generators: seeded, per device, so runs are reproducible."""
import numpy as np

from .device import Device, array_module
from .dtype import int64

__all__ = ["Generator", "manual_seed", "default_generator", "seed", "initial_seed",
           "get_rng_state", "set_rng_state", "forbid_random", "generator_states",
           "restore_generator_states"]

_forbidden = [False]        # func.vmap(randomness="error") sets it while it runs


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
        if _forbidden[0]:
            raise RuntimeError("vmap: called random operation while in randomness error "
                               "mode. Please either use the 'same' or 'different' randomness "
                               "flags on vmap or perform the randomness operation out of vmap")
        if self._state is None:
            if dev_type == "cuda":
                self._state = array_module("cuda").random.default_rng(self._seed)
            else:
                self._state = np.random.default_rng(self._seed)
        return self._state

    def get_state(self):
        """The generator's state as an int64 cpu tensor, to restore with ``set_state``.

        >>> g = minflow.Generator().manual_seed(1)
        >>> state = g.get_state()
        >>> a = minflow.rand(3, generator=g)
        >>> minflow.rand(3, generator=g.set_state(state)).tolist() == a.tolist()
        True
        """
        from .namespace import F
        words = [_KIND[self.device.type], int(self._state is not None), _signed(self._seed)]
        if self._state is not None:
            words += _save(self._state, self.device.type)
        return F.tensor(words, dtype=int64, device="cpu")

    def set_state(self, new_state):
        """Restore a state from ``get_state`` (of a generator of the same device type);
        returns this generator.

        >>> g = minflow.Generator(); state = g.get_state()
        >>> minflow.randint(0, 9, (4,), generator=g).tolist() == \\
        ...     minflow.randint(0, 9, (4,), generator=g.set_state(state)).tolist()
        True
        """
        from .tensor import Tensor
        if not isinstance(new_state, Tensor) or new_state.dtype is not int64:
            got = new_state.dtype.name if isinstance(new_state, Tensor) else \
                type(new_state).__name__
            raise TypeError(f"set_state: expected the int64 tensor of Generator.get_state, "
                            f"got {got}")
        words = [int(w) for w in new_state.detach().cpu().reshape(-1).tolist()]
        if len(words) < 3 or words[0] != _KIND[self.device.type] or words[1] not in (0, 1):
            raise RuntimeError(f"set_state: expected a state saved from a "
                               f"{self.device.type} generator, got a tensor of "
                               f"{len(words)} values that is none")
        self._seed, self._state = words[2] & _U64, None
        if words[1]:
            _load(self.rng(self.device.type), self.device.type, words[3:])
        return self

    def __repr__(self):
        return f"<minflow.Generator device={self.device} seed={self._seed}>"


_U64 = 0xFFFF_FFFF_FFFF_FFFF
_KIND = {"cpu": 1, "cuda": 2}     # the first word of a state: which generator saved it


def _signed(u64):
    """A 64-bit unsigned word as the int64 that holds the same bits."""
    return u64 - (1 << 64) if u64 >= 1 << 63 else u64


def _save(rng, dev_type):
    """The state of numpy's PCG64 (two 128-bit words and a buffered 32-bit draw) or of
    cupy's generator (its device state buffer), as int64 words."""
    if dev_type == "cuda":
        return array_module("cuda").asnumpy(_cuda_buffer(rng).view("int64")).tolist()
    state = rng.bit_generator.state
    if state["bit_generator"] != "PCG64":
        raise RuntimeError(f"get_state: expected numpy's PCG64 generator, got "
                           f"{state['bit_generator']}")
    pcg = state["state"]
    words = []
    for big in (pcg["state"], pcg["inc"]):
        words += [_signed(big >> 64), _signed(big & _U64)]
    return words + [int(state["has_uint32"]), int(state["uinteger"])]


def _load(rng, dev_type, words):
    if dev_type == "cuda":
        buffer = _cuda_buffer(rng)
        if len(words) * 8 != buffer.nbytes:
            raise RuntimeError(f"set_state: expected {buffer.nbytes // 8} state words for "
                               f"the cuda generator, got {len(words)}")
        xp = array_module("cuda")
        buffer[...] = xp.asarray(np.array(words, dtype=np.int64).view(np.int8))
        return
    if len(words) != 6:
        raise RuntimeError(f"set_state: expected 6 state words for the cpu generator, got "
                           f"{len(words)}")
    u = [w & _U64 for w in words]
    rng.bit_generator.state = {"bit_generator": "PCG64",
                               "state": {"state": u[0] << 64 | u[1], "inc": u[2] << 64 | u[3]},
                               "has_uint32": words[4], "uinteger": u[5]}


def _cuda_buffer(rng):
    """cupy's bit generator keeps its per-thread curand states in one int8 device array."""
    buffer = getattr(rng.bit_generator, "_state", None)
    if buffer is None or getattr(buffer, "dtype", None) != np.int8:
        raise RuntimeError("get_state / set_state: this cupy's bit generator exposes no "
                           "state buffer to save or restore")
    return buffer


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


def get_rng_state():
    """The default cpu generator's state (an int64 tensor), as ``torch.get_rng_state``.

    >>> state = minflow.get_rng_state()
    >>> a = minflow.rand(2)
    >>> minflow.set_rng_state(state)
    >>> minflow.rand(2).tolist() == a.tolist()
    True
    """
    return default_generator.get_state()


def set_rng_state(new_state):
    """Restore the default cpu generator to a state from ``get_rng_state``; a restored
    state replays the same draws.

    >>> state = minflow.get_rng_state(); first = minflow.randn(2)
    >>> minflow.set_rng_state(state); minflow.randn(2).tolist() == first.tolist()
    True
    """
    default_generator.set_state(new_state)


def forbid_random(flag):
    """Make random ops raise (``flag`` true) or not; returns the previous setting."""
    previous, _forbidden[0] = _forbidden[0], flag
    return previous


def generator_states():
    """The states of the default generators (cpu, and cuda once used), to restore with
    ``restore_generator_states``."""
    return [(g, g.get_state()) for g in [default_generator] + _cuda_generator]


def restore_generator_states(states):
    for generator, state in states:
        generator.set_state(state)

"""``minflow.backends``: the backend switches torch scripts set, answered for minflow.

minflow runs on numpy (cpu) and cupy (cuda); it has no cuDNN and no Apple MPS backend.
``cudnn.benchmark`` / ``cudnn.deterministic`` may still be set, so scripts written for
torch run unchanged; they change nothing, since minflow's kernels have one algorithm each
and are deterministic (``is_available()`` says False).

>>> minflow.backends.cudnn.benchmark = True      # accepted, no effect
>>> minflow.backends.mps.is_available(), minflow.backends.cudnn.is_available()
(False, False)
"""
__all__ = ["cudnn", "mps"]


class _Cudnn:
    """Flags of torch.backends.cudnn; minflow has no cuDNN, so they have no effect."""

    enabled = True
    benchmark = False
    deterministic = False
    allow_tf32 = True

    @staticmethod
    def is_available():
        return False


class _Mps:
    """Apple's Metal backend, which minflow does not have."""

    @staticmethod
    def is_available():
        return False

    @staticmethod
    def is_built():
        return False


cudnn = _Cudnn()
mps = _Mps()

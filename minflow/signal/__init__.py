"""``minflow.signal``: torch.signal's namespace (its window functions, ``windows``)."""
from . import windows

__all__ = ["windows"]

"""``minflow.distributed``: minflow runs in one process, with no process groups.

Training scripts check ``dist.is_available() and dist.is_initialized()`` before using
collective ops; both are False here, so such scripts take their single-process path.

>>> minflow.distributed.is_available(), minflow.distributed.is_initialized()
(False, False)
"""
__all__ = ["is_available", "is_initialized"]


def is_available():
    """False: minflow has no distributed backend (as a torch build without one)."""
    return False


def is_initialized():
    """False: no default process group exists."""
    return False

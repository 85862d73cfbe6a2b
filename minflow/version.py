"""``minflow.version``: the version strings ``torch.version`` has.

>>> minflow.version.__version__ == minflow.__version__
True
>>> minflow.version.hip is None
True
"""
__all__ = ["__version__", "cuda", "hip", "debug", "git_version"]

__version__ = "0.1.0"
debug = False
hip = None
git_version = "Unknown"


def _cuda_version():
    """The CUDA runtime version cupy was built against, as "12.4", or None without cupy."""
    try:
        import cupy
    except Exception:
        return None
    try:
        version = cupy.cuda.runtime.runtimeGetVersion()
    except Exception:
        return None
    return f"{version // 1000}.{version % 1000 // 10}"


def __getattr__(name):
    # NOTE: asked for lazily, so that importing minflow never touches the GPU
    if name == "cuda":
        return _cuda_version()
    raise AttributeError(f"module 'minflow.version' has no attribute '{name}'")

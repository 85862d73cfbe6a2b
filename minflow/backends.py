"""``minflow.backends``: the backend switches torch scripts set, answered for minflow.

minflow runs on numpy (cpu) and cupy (cuda); it has no cuDNN, oneDNN, MKL, OpenMP or
Apple MPS backend. ``cudnn.benchmark`` / ``cudnn.deterministic`` may still be set, so
scripts written for torch run unchanged; they change nothing, since minflow's kernels have
one algorithm each and are deterministic (``is_available()`` says False).
``cuda.matmul.allow_tf32`` is the float32 matmul precision as a bool, and the
``cuda.enable_*_sdp`` switches are those of ``minflow.nn.attention.sdpa_kernel``.

>>> minflow.backends.cudnn.benchmark = True      # accepted, no effect
>>> minflow.backends.mps.is_available(), minflow.backends.cudnn.is_available()
(False, False)
"""
import contextlib

from .core import flags as _flags
from .ops.nn import SDPA_ENABLED as _SDPA

__all__ = ["cudnn", "mps", "cuda", "cpu", "mkldnn", "mkl", "openmp"]


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


class _Matmul:
    """torch.backends.cuda.matmul: ``allow_tf32`` is float32_matmul_precision seen as a
    bool (True: "high"), as torch; the reduced-precision reduction flags are recorded."""

    allow_fp16_reduced_precision_reduction = True
    allow_bf16_reduced_precision_reduction = True

    @property
    def allow_tf32(self):
        return _flags.get_float32_matmul_precision() != "highest"

    @allow_tf32.setter
    def allow_tf32(self, value):
        _flags.set_float32_matmul_precision("high" if value else "highest")


class _Cuda:
    """torch.backends.cuda: the matmul flags and the attention backend switches (shared with
    minflow.nn.attention.sdpa_kernel)."""

    matmul = _Matmul()

    @staticmethod
    def is_built():
        """Whether cupy, minflow's cuda array library, is installed."""
        from .core.device import cuda_is_available
        return cuda_is_available() or _cupy_installed()

    def _switch(code):
        def enable(enabled):
            (_SDPA.add if enabled else _SDPA.discard)(code)

        def is_enabled():
            return code in _SDPA
        return staticmethod(enable), staticmethod(is_enabled)

    enable_math_sdp, math_sdp_enabled = _switch(0)
    enable_flash_sdp, flash_sdp_enabled = _switch(1)
    enable_mem_efficient_sdp, mem_efficient_sdp_enabled = _switch(2)
    enable_cudnn_sdp, cudnn_sdp_enabled = _switch(3)
    del _switch

    @staticmethod
    @contextlib.contextmanager
    def sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=True,
                   enable_cudnn=True):
        """The older form of nn.attention.sdpa_kernel, by flags."""
        previous = set(_SDPA)
        _SDPA.clear()
        _SDPA.update(code for code, on in enumerate(
            (enable_math, enable_flash, enable_mem_efficient, enable_cudnn)) if on)
        try:
            yield
        finally:
            _SDPA.clear()
            _SDPA.update(previous)


def _cupy_installed():
    import importlib.util
    return importlib.util.find_spec("cupy") is not None


class _Cpu:
    @staticmethod
    def get_cpu_capability():
        """The widest SIMD level numpy's kernels use here, in torch's names ("AVX512",
        "AVX2", else "DEFAULT")."""
        import numpy as np
        features = getattr(np._core._multiarray_umath, "__cpu_features__", {})
        if features.get("AVX512F"):
            return "AVX512"
        if features.get("AVX2"):
            return "AVX2"
        return "DEFAULT"


class _Unavailable:
    """A torch backend minflow does not use (oneDNN, MKL, OpenMP)."""

    enabled = False

    @staticmethod
    def is_available():
        return False


cuda = _Cuda()
cpu = _Cpu()
mkldnn = mkl = openmp = _Unavailable()

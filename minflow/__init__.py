"""minflow: a small deep-learning runtime with PyTorch's surface.

Ops are declared once (minflow.ops), run by kernels chosen per device and dtype
(minflow.kernels), and differentiated by per-op grad functions (minflow.autograd).
"""
import math as _math

from .core.dtype import (bool, uint8, int8, int16, int32, int64, float16, bfloat16,  # noqa: A004
                         float32, float64, complex64, complex128, DType,
                         get_default_dtype, set_default_dtype, promote_types, result_type,
                         DTypeError)
from .core.device import (Device, device, cuda_is_available, get_default_device,
                          set_default_device)
from .core.dtype_info import finfo, iinfo
dtype = DType       # the class of the dtypes, as torch.dtype: isinstance(x, minflow.dtype)
from .core.memory_format import (memory_format, contiguous_format, channels_last,
                                 channels_last_3d, preserve_format)
from .core.tensor_options import layout, strided
from .core.flags import (use_deterministic_algorithms, are_deterministic_algorithms_enabled,
                         is_deterministic_algorithms_warn_only_enabled,
                         set_float32_matmul_precision, get_float32_matmul_precision,
                         set_flush_denormal)
from .core.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .core.random import (Generator, manual_seed, initial_seed, seed, default_generator,
                          get_rng_state, set_rng_state)
from .core.tensor import Size, Tensor
from .core.legacy import (FloatTensor, DoubleTensor, HalfTensor, LongTensor, IntTensor,
                          ShortTensor, CharTensor, ByteTensor, BoolTensor,
                          set_default_tensor_type)
from .core import dispatch as _dispatch
from . import kernels as _kernels
from . import autograd
from . import linalg
from . import accelerator, amp, backends, cuda, version
from .amp import GradScaler, autocast, get_autocast_dtype, is_autocast_enabled
from .amp.autocast_state import (set_autocast_enabled, set_autocast_dtype,
                                 is_autocast_cache_enabled, set_autocast_cache_enabled,
                                 clear_autocast_cache, autocast_increment_nesting,
                                 autocast_decrement_nesting, is_autocast_cpu_enabled,
                                 set_autocast_cpu_enabled, get_autocast_cpu_dtype,
                                 set_autocast_cpu_dtype, get_autocast_gpu_dtype,
                                 set_autocast_gpu_dtype)
from .cuda import amp as _cuda_amp  # noqa: F401  (minflow.cuda.amp)
from . import special
from . import fft
from . import signal
from . import random  # noqa: A004  (torch.random)
from . import nn
from . import func
from . import optim
from . import distributions
from . import utils
from . import library
from . import distributed, jit, multiprocessing, profiler
from .serialization import save, load
from .compiler import compile  # noqa: A004  (torch.compile)
from .core.printing import set_printoptions
from .ops import control_flow as _control_flow  # noqa: F401  (cond, while_loop)
from .core.threads import get_num_threads, set_num_threads
from .autograd.anomaly import (is_anomaly_check_nan_enabled, is_anomaly_enabled,
                               set_anomaly_enabled)
from .func import vmap      # torch.vmap is torch.func.vmap

_dispatch._late_imports()
from .core.namespace import F as _F
from .ops.ctc_loss import torch_ctc_loss as ctc_loss  # torch.ctc_loss: reduction an int

float = float32  # noqa: A001  (minflow.float, as torch.float)
double = float64
half = float16
long = int64
int = int32  # noqa: A001
short = int16
cfloat = complex64
cdouble = complex128
pi, e, inf, nan = _math.pi, _math.e, _math.inf, _math.nan    # as torch.pi ...
newaxis = None


def _export_functions():
    """Make every public function a module attribute: ``minflow.add``, ``minflow.zeros``..."""
    for name, fn in vars(_F).items():
        if not name.startswith("_"):
            globals().setdefault(name, fn)


_export_functions()
_standard_gamma, _standard_gamma_grad = _F._standard_gamma, _F._standard_gamma_grad  # as torch


_ABSENT_DTYPES = ("complex32", "chalf", "uint16", "uint32", "uint64")


def __getattr__(name):
    """``minflow.complex32`` and torch's other dtypes that minflow lacks: an AttributeError
    (so ``hasattr`` stays False) that says so, instead of Python's bare one.

    >>> try:
    ...     minflow.complex32
    ... except AttributeError as err:
    ...     print(str(err).split(";")[0])
    minflow has no dtype complex32: numpy, minflow's array library, has no such type
    """
    if name in _ABSENT_DTYPES:
        names = ", ".join(d.name for d in core.dtype.EVERY)
        raise AttributeError(f"minflow has no dtype {name}: numpy, minflow's array library, "
                             f"has no such type; minflow's dtypes are {names}")
    raise AttributeError(f"module 'minflow' has no attribute {name!r}")


def is_tensor(obj):
    """True if ``obj`` is a minflow Tensor.

    >>> minflow.is_tensor(minflow.ones(1)), minflow.is_tensor([1.0])
    (True, False)
    """
    return isinstance(obj, Tensor)


def typename(obj):
    """The type name of ``obj``: a tensor's legacy type name (``t.type()``), else the
    class's qualified name, as torch.typename.

    >>> minflow.typename(minflow.ones(1)), minflow.typename(3)
    ('minflow.FloatTensor', 'int')
    """
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(type(obj), "__module__", None) or ""
    prefix = "" if module in ("builtins", "__builtin__") else module + "."
    return prefix + type(obj).__qualname__


from .version import __version__
from . import testing  # noqa: E402  (torch.testing is there after import torch too)

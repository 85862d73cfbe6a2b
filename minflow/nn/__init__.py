"""minflow.nn: Module, Parameter, layers, losses, init and utils (PyTorch's names)."""
from . import functional
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all
from . import init
from . import utils
from . import attention, parallel
from .parallel import DataParallel
from .graph import Graph

__all__ = ["functional", "init", "utils", "Parameter", "Buffer", "UninitializedParameter",
           "UninitializedBuffer", "Graph", "parallel", "DataParallel"] + _modules_all

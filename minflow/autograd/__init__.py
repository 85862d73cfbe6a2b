"""Eager autograd: the tape, per-op grad functions, backward and grad, custom Functions,
gradcheck, anomaly detection, and hooks on saved tensors (graph)."""
from ..core.grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled
from .anomaly import (detect_anomaly, is_anomaly_check_nan_enabled, is_anomaly_enabled,
                      set_anomaly_enabled, set_detect_anomaly)
from .engine import backward, grad
from . import functional, graph, profiler
from .function import Function, FunctionCtx
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .node import GradFunction, register_grad
from .variable import Variable

__all__ = ["backward", "grad", "Function", "FunctionCtx", "GradFunction", "register_grad",
           "gradcheck", "gradgradcheck", "GradcheckError", "detect_anomaly",
           "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled",
           "no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "functional",
           "graph", "profiler", "Variable", "set_anomaly_enabled"]

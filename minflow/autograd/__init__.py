"""Eager autograd: the tape, per-op grad functions, backward and grad, custom Functions,
gradcheck and anomaly detection."""
from .anomaly import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .engine import backward, grad
from .function import Function
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .node import GradFunction, register_grad

__all__ = ["backward", "grad", "Function", "GradFunction", "register_grad", "gradcheck",
           "gradgradcheck", "GradcheckError", "detect_anomaly", "set_detect_anomaly",
           "is_anomaly_enabled"]

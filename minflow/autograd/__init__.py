"""Eager autograd: the tape, per-op grad functions, backward and grad."""
from .engine import backward, grad
from .gradcheck import gradcheck, gradgradcheck
from .node import GradFunction, register_grad

__all__ = ["backward", "grad", "GradFunction", "register_grad", "gradcheck", "gradgradcheck"]

"""Eager autograd: the tape, per-op grad functions, backward and grad."""
from .engine import backward, grad
from .node import GradFunction, register_grad

__all__ = ["backward", "grad", "GradFunction", "register_grad"]

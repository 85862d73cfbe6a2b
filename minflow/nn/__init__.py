"""minflow.nn: neural network building blocks."""
from . import functional

__all__ = ["functional"]

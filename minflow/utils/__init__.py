"""Utilities with PyTorch's names: ``minflow.utils.data`` (datasets, samplers, DataLoader)."""
from . import data

__all__ = ["data"]

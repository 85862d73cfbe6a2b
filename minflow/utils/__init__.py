"""Utilities with PyTorch's names: ``minflow.utils.data`` (datasets, samplers, DataLoader)
and ``minflow.utils.checkpoint`` (activation checkpointing)."""
from . import checkpoint, data

__all__ = ["checkpoint", "data"]

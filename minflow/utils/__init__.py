"""Utilities with PyTorch's names: ``minflow.utils.data`` (datasets, samplers, DataLoader),
``minflow.utils.checkpoint`` (activation checkpointing) and ``minflow.utils.hooks``."""
from . import checkpoint, data, hooks

__all__ = ["checkpoint", "data", "hooks"]

"""Kernels: per (op, device type, dtypes). Importing this registers all of them."""
from .registry import KernelNotFoundError, register_array_function, register_kernel
from .generic import elementwise  # noqa: F401

__all__ = ["register_kernel", "register_array_function", "KernelNotFoundError"]

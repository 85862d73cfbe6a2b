"""Kernels: per (op, device type, dtypes). Importing this imports every op family with
its kernels (generic, numpy-only and cupy-only) and its grad functions."""
import importlib

from .registry import KernelNotFoundError, register_array_function, register_kernel

__all__ = ["register_kernel", "register_array_function", "KernelNotFoundError"]

FAMILIES = ("copy", "creation", "elementwise", "reduce", "shape", "join", "indexing",
            "linalg", "activation", "conv", "nn", "loss", "optim", "special", "sorting",
            "sampling", "matrix", "fused", "rearrange", "optim_adam", "unary_math", "binary_math",
            "scan", "reduce_composite", "gamma", "broadcast", "calculus", "statistics",
            "index_update", "search", "construct",
            "solve", "decomposition", "lu", "ldl", "products", "fold", "optim_rprop_asgd",
            "random_variates", "queries", "analysis", "inplace_variants", "shape_extra", "window",
            "special_functions", "special_polynomials", "conv3d", "ctc_loss", "strided",
            "view_copy", "segment",
            "complex", "fft", "spectral", "eig")


def _load_families():
    for family in FAMILIES:
        importlib.import_module(f"minflow.ops.{family}")
        for where in ("kernels.generic", "kernels.numpy", "kernels.cupy", "autograd.grads"):
            try:
                importlib.import_module(f"minflow.{where}.{family}")
            except ModuleNotFoundError as err:
                if err.name != f"minflow.{where}.{family}":
                    raise


_load_families()

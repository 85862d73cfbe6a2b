"""Reduction kernels."""
from ...core.dtype import ALL
from ..registry import register_kernel


@register_kernel("sum", ("cpu", "cuda"), ALL)
def sum_(xp, x, dim, keepdim, dtype):
    return xp.sum(x, axis=dim, keepdims=keepdim, dtype=None if dtype is None else dtype.np)

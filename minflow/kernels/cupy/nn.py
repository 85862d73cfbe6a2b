"""CUDA-only nn kernels: embedding_grad's scatter-add (``cupy.add.at``, atomic adds).
cupy is imported lazily, on a kernel's first call, so this module imports without it."""
from ...core.device import array_module
from ...core.dtype import FLOATS
from ..generic.nn import finish_embedding_grad
from ..registry import register_kernel


@register_kernel("embedding_grad", "cuda", FLOATS)
def embedding_grad(grad_out, input, num_weights, padding_idx, scale_grad_by_freq):
    cp = array_module("cuda")
    indices = input.reshape(-1)
    rows = grad_out.reshape((indices.size,) + grad_out.shape[input.ndim:])
    acc = cp.float32 if grad_out.dtype == cp.float16 else grad_out.dtype
    grad_weight = cp.zeros((num_weights,) + grad_out.shape[input.ndim:], dtype=acc)
    cp.add.at(grad_weight, indices, rows.astype(acc, copy=False))
    return finish_embedding_grad(cp, grad_weight, indices, padding_idx, scale_grad_by_freq)

"""Numpy-only nn kernels: embedding_grad's scatter-add (``np.add.at``)."""
import numpy as np

from ...core.dtype import FLOATS
from ..generic.nn import finish_embedding_grad
from ..registry import register_kernel


@register_kernel("embedding_grad", "cpu", FLOATS)
def embedding_grad(grad_out, input, num_weights, padding_idx, scale_grad_by_freq):
    indices = input.reshape(-1)
    rows = grad_out.reshape((indices.size,) + grad_out.shape[input.ndim:])
    # float16 rows are summed in float32: many duplicates would lose the small ones
    acc = np.float32 if grad_out.dtype == np.float16 else grad_out.dtype
    grad_weight = np.zeros((num_weights,) + grad_out.shape[input.ndim:], dtype=acc)
    np.add.at(grad_weight, indices, rows)
    return finish_embedding_grad(np, grad_weight, indices, padding_idx, scale_grad_by_freq)

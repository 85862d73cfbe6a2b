"""Shape kernels, written once against the array module (numpy or cupy).

The view ops return views of their input: reshape's caller (ops/shape.py) only asks for
shapes the layout allows without a copy.
"""
from ...core.dtype import ALL_AND_COMPLEX
from ..registry import register_kernel

register_kernel("reshape", ("cpu", "cuda"), ALL_AND_COMPLEX)(lambda xp, x, shape: x.reshape(shape))
register_kernel("unsqueeze", ("cpu", "cuda"), ALL_AND_COMPLEX)(lambda xp, x, dim: xp.expand_dims(x, dim))
# cpu: kernels/numpy/shape.py
register_kernel("expand", ("cuda",), ALL_AND_COMPLEX)(lambda xp, x, shape: xp.broadcast_to(x, shape))
register_kernel("permute", ("cpu", "cuda"), ALL_AND_COMPLEX)(lambda xp, x, dims: xp.transpose(x, dims))

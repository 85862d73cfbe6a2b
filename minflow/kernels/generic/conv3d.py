"""The 3-D convolution and pooling ops run the N-d kernels of conv.py."""
from ...core.dtype import FLOATS, INTS
from ..registry import register_kernel
from .conv import (adaptive_avg_pool, adaptive_avg_pool_grad, avg_pool, avg_pool_grad, conv,
                   conv_grad_input, conv_grad_weight, max_pool, max_pool_gather, max_pool_grad)

register_kernel("conv3d", ("cpu", "cuda"), FLOATS, out=True)(conv)
for _name, _kernel in (("conv3d_grad_input", conv_grad_input),
                       ("conv3d_grad_weight", conv_grad_weight),
                       ("max_pool3d_grad", max_pool_grad), ("avg_pool3d", avg_pool),
                       ("avg_pool3d_grad", avg_pool_grad),
                       ("adaptive_avg_pool3d", adaptive_avg_pool),
                       ("adaptive_avg_pool3d_grad", adaptive_avg_pool_grad)):
    register_kernel(_name, ("cpu", "cuda"), FLOATS)(_kernel)
for _name, _kernel in (("max_pool3d", max_pool), ("max_pool3d_gather", max_pool_gather)):
    register_kernel(_name, ("cpu", "cuda"), INTS + FLOATS)(_kernel)

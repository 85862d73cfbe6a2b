"""Grad functions of the 3-D convolution and pooling ops: those of the 2-D family
(autograd/grads/conv.py) calling the 3-D ops."""
from ...ops.conv3d import (ADAPTIVE_AVG_POOL3D, ADAPTIVE_AVG_POOL3D_GRAD, AVG_POOL3D,
                           AVG_POOL3D_GRAD, CONV3D, CONV3D_GRAD_INPUT, CONV3D_GRAD_WEIGHT,
                           MAX_POOL3D_GATHER, MAX_POOL3D_GRAD)
from ..node import register_grad
from . import conv

OPS_3D = {"conv": CONV3D, "conv_grad_input": CONV3D_GRAD_INPUT,
          "conv_grad_weight": CONV3D_GRAD_WEIGHT, "max_pool_grad": MAX_POOL3D_GRAD,
          "max_pool_gather": MAX_POOL3D_GATHER, "avg_pool": AVG_POOL3D,
          "avg_pool_grad": AVG_POOL3D_GRAD, "adaptive_avg_pool": ADAPTIVE_AVG_POOL3D,
          "adaptive_avg_pool_grad": ADAPTIVE_AVG_POOL3D_GRAD}

for _name, _grad in (("conv3d", conv.Conv2dGrad),
                     ("conv3d_grad_input", conv.Conv2dGradInputGrad),
                     ("conv3d_grad_weight", conv.Conv2dGradWeightGrad),
                     ("max_pool3d", conv.MaxPool2dGrad),
                     ("max_pool3d_grad", conv.MaxPoolGradGrad),
                     ("max_pool3d_gather", conv.MaxPoolGatherGrad),
                     ("avg_pool3d", conv.AvgPoolGrad), ("avg_pool3d_grad", conv.AvgPoolGradGrad),
                     ("adaptive_avg_pool3d", conv.AdaptiveAvgPool2dGrad),
                     ("adaptive_avg_pool3d_grad", conv.AdaptiveAvgPool2dGradGrad)):
    register_grad(_name)(type(_grad.__name__.replace("2d", "3d"), (_grad,), {"ops": OPS_3D}))

"""LayerNorm: normalisation over the trailing ``normalized_shape`` dims of each sample."""
from ...core.namespace import F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["LayerNorm"]


class LayerNorm(Module):
    """y = (x - E[x]) / sqrt(Var[x] + eps) * weight + bias over the last dims given by
    ``normalized_shape``; weight starts at ones and bias at zeros.

    >>> ln = minflow.nn.LayerNorm(2)
    >>> ln
    LayerNorm((2,), eps=1e-05, elementwise_affine=True, bias=True)
    >>> ln(minflow.tensor([[1.0, 3.0]])).tolist()
    [[-0.99999..., 0.99999...]]
    """

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        kw = {"device": device, "dtype": dtype}
        self.register_parameter("weight", Parameter(F.empty(*self.normalized_shape, **kw))
                                if elementwise_affine else None)
        self.register_parameter("bias", Parameter(F.empty(*self.normalized_shape, **kw))
                                if elementwise_affine and bias else None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")

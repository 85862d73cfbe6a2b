"""Grad function of the general eigendecomposition: one linalg_eig_backward op (torch's
formula; it is not differentiable again)."""
from ...core.dispatch import apply
from ...ops.eig import EIG_BACKWARD
from ..node import register_grad
from .decomposition import EigenGrad


@register_grad("linalg_eig")
class LinalgEigGrad(EigenGrad):
    def apply(self, ctx, grad_L, grad_V):
        L, V = self.eigenpairs(ctx, "eig")
        return apply(EIG_BACKWARD, (grad_L, grad_V, L, V), {})

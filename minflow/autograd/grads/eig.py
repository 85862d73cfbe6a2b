"""Grad function of the general eigendecomposition: one linalg_eig_backward op (torch's
formula; it is not differentiable again)."""
from ...core.dispatch import apply
from ...ops.eig import EIG_BACKWARD
from ..node import GradFunction, register_grad


@register_grad("linalg_eig")
class LinalgEigGrad(GradFunction):
    def capture(self, ctx, inputs, outputs, attrs):
        ctx.materialize_grads = False
        ctx.compute_v = attrs["compute_v"]
        ctx.save_for_backward(*outputs)

    def apply(self, ctx, grad_L, grad_V):
        if not ctx.compute_v:
            raise RuntimeError("linalg.eig: the eigenvalues alone are not differentiable "
                               "here; compute the eigenvectors too (eigvals does so when its "
                               "input requires grad)")
        L, V = ctx.saved_tensors
        return apply(EIG_BACKWARD, (grad_L, grad_V, L, V), {})

"""Kernels of the general eigendecomposition and its gradient, against the array module.

NOTE: cupy.linalg has no general (non-Hermitian) eig: on cuda the decomposition runs on the
host (numpy, LAPACK's geev, as torch's cuda eig does through MAGMA) and comes back to the
device; the gradient is array code on either module.
"""
import numpy as np

from ...core.dtype import COMPLEX, FLOATS
from ..registry import register_kernel


def _eig(A, compute_v):
    if not compute_v:
        return np.linalg.eigvals(A), np.empty((0,), np.complex128)
    return tuple(np.linalg.eig(A))


@register_kernel("linalg_eig", "cpu", FLOATS + COMPLEX)
def linalg_eig(A, compute_v):
    return _eig(A, compute_v)


@register_kernel("linalg_eig", "cuda", FLOATS + COMPLEX)
def linalg_eig_cuda(A, compute_v):
    import cupy
    return tuple(cupy.asarray(x) for x in _eig(cupy.asnumpy(A), compute_v))


@register_kernel("linalg_eig_backward", ("cpu", "cuda"), COMPLEX)
def linalg_eig_backward(xp, grad_L, grad_V, L, V):
    Vh = xp.conj(xp.swapaxes(V, -1, -2))
    n = V.shape[-1]
    if grad_V is None:
        return xp.linalg.solve(Vh, grad_L[..., :, None] * Vh)
    VhgV = Vh @ grad_V
    diagonal = xp.diagonal(VhgV, axis1=-2, axis2=-1)
    if not bool(xp.allclose(diagonal.imag, 0, rtol=1e-2, atol=1e-2)):
        raise RuntimeError("linalg_eig_backward: The eigenvectors in the complex case are "
                           "specified up to multiplication by e^{i phi}. The specified loss "
                           "function depends on this quantity, so it is ill-defined.")
    # the projection onto the tangent space of unit-norm eigenvectors
    VhgV = VhgV - Vh @ (V * diagonal.real[..., None, :])
    conj_L = xp.conj(L)
    gaps = conj_L[..., None, :] - conj_L[..., :, None]
    index = xp.arange(n)
    gaps[..., index, index] = 1
    inner = VhgV / gaps
    if grad_L is not None:
        inner[..., index, index] = grad_L
    return xp.linalg.solve(Vh, inner @ Vh)

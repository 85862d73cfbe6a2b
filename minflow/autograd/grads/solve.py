"""Grad functions of the linear-system ops and matrix_exp, written with the same ops
(differentiable to any order)."""
from ...core.dispatch import apply
from ...core.namespace import F
from ...ops.solve import CHOLESKY_SOLVE, MATRIX_EXP, SOLVE, SOLVE_TRIANGULAR
from ..node import GradFunction, register_grad
from .util import conj


def mT(x):
    """The transpose of each matrix (the last two dims)."""
    return F.transpose(x, -1, -2)


def mH(x):
    """The conjugate transpose of each matrix (for a real x, its transpose)."""
    return mT(conj(x))


@register_grad("linalg_solve")
class LinalgSolveGrad(GradFunction):
    """X = A^-1 B: grad_B = A^-H g (one more solve), grad_A = -grad_B X^H (^H the
    conjugate transpose: ^T for real A)."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(inputs[0], outputs[0] if ctx.needs_input_grad[0] else None)

    def apply(self, ctx, grad_out):
        A, X = ctx.saved_tensors
        grad_B = apply(SOLVE, (mH(A), grad_out), {})
        grad_A = -F.matmul(grad_B, mH(X)) if ctx.needs_input_grad[0] else None
        return grad_A, grad_B


@register_grad("linalg_solve_triangular")
class LinalgSolveTriangularGrad(GradFunction):
    """X = T^-1 B: grad_B = T^-T g, a solve with the other triangle; grad_A = -grad_B X^T
    on the triangle that was read (strictly, if unitriangular)."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.upper, ctx.unit = attrs["upper"], attrs["unitriangular"]
        ctx.save_for_backward(inputs[0], outputs[0] if ctx.needs_input_grad[0] else None)

    def apply(self, ctx, grad_out):
        A, X = ctx.saved_tensors
        grad_B = apply(SOLVE_TRIANGULAR, (mT(A), grad_out),
                       {"upper": not ctx.upper, "unitriangular": ctx.unit})
        grad_A = None
        if ctx.needs_input_grad[0]:
            full = -F.matmul(grad_B, mT(X))
            grad_A = F.triu(full, int(ctx.unit)) if ctx.upper else F.tril(full, -int(ctx.unit))
        return grad_A, grad_B


@register_grad("cholesky_solve")
class CholeskySolveGrad(GradFunction):
    """X = A^-1 B, A = L L^T: grad_B = A^-1 g (one more cholesky_solve) and, as torch's
    cholesky_solve_backward, grad_L = -(C + C^T) L (upper: -U (C + C^T)), C = grad_B X^T;
    not restricted to L's triangle (torch differentiates A = L L^T for the whole L)."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.upper = attrs["upper"]
        ctx.save_for_backward(inputs[1], outputs[0] if ctx.needs_input_grad[1] else None)

    def apply(self, ctx, grad_out):
        L, X = ctx.saved_tensors
        grad_B = apply(CHOLESKY_SOLVE, (grad_out, L), {"upper": ctx.upper})
        grad_L = None
        if ctx.needs_input_grad[1]:
            C = F.matmul(grad_B, mT(X))
            C = F.add(C, mT(C))
            grad_L = F.neg(F.matmul(L, C) if ctx.upper else F.matmul(C, L))
        return grad_B, grad_L


@register_grad("linalg_matrix_exp")
class LinalgMatrixExpGrad(GradFunction):
    """The block-matrix identity exp([[A^T, G], [0, A^T]]) = [[exp(A^T), D], [0, exp(A^T)]]
    where D is the adjoint of the Frechet derivative of exp at A applied to G: the gradient
    (Mathias 1996; torch uses the same)."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(inputs[0])

    def apply(self, ctx, grad_out):
        A, = ctx.saved_tensors
        n = A.shape[-1]
        top = F.cat([mT(A), grad_out], -1)
        bottom = F.cat([F.zeros_like(A), mT(A)], -1)
        big = apply(MATRIX_EXP, (F.cat([top, bottom], -2),), {})
        return F.narrow(F.narrow(big, -2, 0, n), -1, n, n)

"""Grad functions of the factorizations, with torch's formulas, written with minflow ops
(so backward is differentiable again). Outputs whose gradient was not computed arrive as
None (``materialize_grads = False``): the formulas skip their terms, as torch's do.
"""
from ...core.dispatch import apply
from ...core.namespace import F
from ...ops.solve import SOLVE_TRIANGULAR
from ..node import GradFunction, register_grad
from .solve import mT


def _eye_like(x):
    n = x.shape[-1]
    return F.eye(n, dtype=x.dtype, device=x.device)


def diag_embed(v):
    """The batch of diagonal matrices with v (..., n) on their diagonals."""
    return F.mul(_eye_like(v), F.unsqueeze(v, -2))


def _solve_right_lower_t(M, R):
    """M R^-T for upper triangular R: R X^T = M^T."""
    return mT(apply(SOLVE_TRIANGULAR, (R, mT(M)), {"upper": True, "unitriangular": False}))


@register_grad("linalg_cholesky_ex")
class LinalgCholeskyExGrad(GradFunction):
    """A = L L^T: grad_A = L^-T Phi L^-1 with Phi the symmetric matrix whose lower
    triangle is tril(L^T g), diagonal halved (Murray 2016; torch's cholesky_backward)."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.upper = attrs["upper"]
        ctx.save_for_backward(outputs[0])

    def apply(self, ctx, grad_L, grad_info=None):
        L, = ctx.saved_tensors
        if ctx.upper:
            L, grad_L = mT(L), mT(grad_L)
        P = F.tril(F.matmul(mT(L), grad_L))
        phi = F.mul(F.add(P, mT(F.tril(P, -1))), 0.5)
        left = apply(SOLVE_TRIANGULAR, (mT(L), phi), {"upper": True, "unitriangular": False})
        return _solve_right_lower_t(left, mT(L))


@register_grad("linalg_qr")
class LinalgQrGrad(GradFunction):
    """A = Q R (torch's linalg_qr_backward). Tall or square, with M = g_R R^T - Q^T g_Q:
    grad_A = (Q sym(triu(M)) + g_Q) R^-T, sym(X) = X + X^T with the diagonal halved. Wide
    A = Q [R1 R2]: the square case for A1 = Q R1 with g_Q + A2 g_R2^T, and Q g_R2 for A2."""

    def capture(self, ctx, inputs, outputs, attrs):
        A = inputs[0]
        ctx.materialize_grads = False
        ctx.mode, ctx.m, ctx.n = attrs["mode"], A.shape[-2], A.shape[-1]
        ctx.save_for_backward(outputs[0], outputs[1], A if ctx.m < ctx.n else None)

    def apply(self, ctx, grad_Q, grad_R):
        if ctx.mode == "r":
            raise RuntimeError("linalg.qr: The derivative of linalg.qr depends on Q, which is "
                               "not computed when mode='r'. Please use linalg.qr(A, "
                               "mode='reduced') if you are going to differentiate through it.")
        if ctx.mode == "complete" and ctx.m > ctx.n:
            raise RuntimeError("linalg.qr: The QR decomposition is not differentiable when "
                               "mode='complete' and nrows > ncols.")
        Q, R, A = ctx.saved_tensors
        m, n = ctx.m, ctx.n
        if m >= n:
            return _square_qr_grad(Q, R, grad_Q, grad_R)
        R1 = F.narrow(R, -1, 0, m)
        gR1 = gR2 = None
        if grad_R is not None:
            gR1, gR2 = F.narrow(grad_R, -1, 0, m), F.narrow(grad_R, -1, m, n - m)
            extra = F.matmul(F.narrow(A, -1, m, n - m), mT(gR2))
            grad_Q = extra if grad_Q is None else F.add(grad_Q, extra)
        grad_A1 = _square_qr_grad(Q, R1, grad_Q, gR1)
        grad_A2 = F.matmul(Q, gR2) if gR2 is not None else F.zeros(
            tuple(A.shape[:-1]) + (n - m,), dtype=A.dtype, device=A.device)
        return F.cat([grad_A1, grad_A2], -1)


def _square_qr_grad(Q, R, grad_Q, grad_R):
    M = None
    if grad_R is not None:
        M = F.matmul(grad_R, mT(R))
    if grad_Q is not None:
        QtgQ = F.matmul(mT(Q), grad_Q)
        M = F.neg(QtgQ) if M is None else F.sub(M, QtgQ)
    upper = F.triu(M)
    sym = F.sub(F.add(upper, mT(upper)), diag_embed(F.diagonal(upper, 0, -2, -1)))
    grad = F.matmul(Q, sym)
    if grad_Q is not None:
        grad = F.add(grad, grad_Q)
    return _solve_right_lower_t(grad, R)


def _skew(X):
    return F.sub(X, mT(X))


@register_grad("linalg_svd")
class LinalgSvdGrad(GradFunction):
    """A = U diag(S) Vh (torch's svd_backward; needs distinct nonzero singular values when
    U or Vh has a gradient). Full matrices: their extra columns carry no information about
    A and are dropped first."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.materialize_grads = False
        ctx.full, ctx.uv = attrs["full_matrices"], attrs["compute_uv"]
        ctx.m, ctx.n = inputs[0].shape[-2], inputs[0].shape[-1]
        ctx.save_for_backward(*outputs)

    def apply(self, ctx, grad_U, grad_S, grad_Vh):
        if not ctx.uv:
            raise RuntimeError("linalg.svd: the singular values alone are not differentiable "
                               "here; call it with compute_uv=True (svdvals does so when its "
                               "input requires grad)")
        U, S, Vh = ctx.saved_tensors
        m, n, k = ctx.m, ctx.n, S.shape[-1]
        if ctx.full:
            U, Vh = F.narrow(U, -1, 0, k), F.narrow(Vh, -2, 0, k)
            grad_U = None if grad_U is None else F.narrow(grad_U, -1, 0, k)
            grad_Vh = None if grad_Vh is None else F.narrow(grad_Vh, -2, 0, k)
        if grad_U is None and grad_Vh is None:
            return F.matmul(F.mul(U, F.unsqueeze(grad_S, -2)), Vh)
        return _svd_vectors_grad(U, S, Vh, grad_U, grad_S, grad_Vh, m, n)


def _svd_vectors_grad(U, S, Vh, grad_U, grad_S, grad_Vh, m, n):
    S_row, S_col = F.unsqueeze(S, -2), F.unsqueeze(S, -1)
    S2 = F.mul(S, S)
    E = F.add(F.sub(F.unsqueeze(S2, -2), F.unsqueeze(S2, -1)), _eye_like(S))   # S_j^2 - S_i^2
    UgU = _skew(F.matmul(mT(U), grad_U)) if grad_U is not None else None
    VgV = _skew(F.matmul(Vh, mT(grad_Vh))) if grad_Vh is not None else None
    if UgU is not None and VgV is not None:
        inner = F.div(F.add(F.mul(UgU, S_row), F.mul(S_col, VgV)), E)
    elif UgU is not None:
        inner = F.mul(F.div(UgU, E), S_row)
    else:
        inner = F.mul(S_col, F.div(VgV, E))
    if grad_S is not None:
        inner = F.add(inner, diag_embed(grad_S))
    if m > n and grad_U is not None:
        left = F.matmul(U, inner)
        gUSinv = F.div(grad_U, S_row)
        left = F.add(left, F.sub(gUSinv, F.matmul(U, F.matmul(mT(U), gUSinv))))
        return F.matmul(left, Vh)
    if m < n and grad_Vh is not None:
        right = F.matmul(inner, Vh)
        SinvgVh = F.div(grad_Vh, S_col)
        right = F.add(right, F.sub(SinvgVh, F.matmul(F.matmul(SinvgVh, mT(Vh)), Vh)))
        return F.matmul(U, right)
    return F.matmul(U, F.matmul(inner, Vh))


class EigenGrad(GradFunction):
    """The capture both eigendecompositions share: the outputs, and whether eigenvectors
    were computed (without them the eigenvalues are not differentiable here)."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.materialize_grads = False
        ctx.compute_v = attrs["compute_v"]
        ctx.save_for_backward(*outputs)

    def eigenpairs(self, ctx, name):
        """(L, V) saved in forward; a clear error where V was not computed."""
        if not ctx.compute_v:
            raise RuntimeError(f"linalg.{name}: the eigenvalues alone are not differentiable "
                               f"here; compute the eigenvectors too (eigvals{name[3:]} does "
                               f"so when its input requires grad)")
        return ctx.saved_tensors


@register_grad("linalg_eigh")
class LinalgEighGrad(EigenGrad):
    """A = V diag(L) V^T: grad_A = V (skew(V^T g_V) / 2 / E + diag(g_L)) V^T with
    E_ij = L_j - L_i (torch's linalg_eig_backward, Hermitian case; eigenvector grads need
    distinct eigenvalues). Like torch's, the result is not symmetrised."""

    def apply(self, ctx, grad_L, grad_V):
        L, V = self.eigenpairs(ctx, "eigh")
        if grad_V is None:
            return F.matmul(F.mul(V, F.unsqueeze(grad_L, -2)), mT(V))
        inner = F.mul(_skew(F.matmul(mT(V), grad_V)), 0.5)
        E = F.add(F.sub(F.unsqueeze(L, -2), F.unsqueeze(L, -1)), _eye_like(L))
        inner = F.div(inner, E)
        if grad_L is not None:
            inner = F.add(inner, diag_embed(grad_L))
        return F.matmul(V, F.matmul(inner, mT(V)))


@register_grad("linalg_slogdet")
class LinalgSlogdetGrad(GradFunction):
    """log|det A|' = A^-T; the sign is piecewise constant (no gradient)."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.materialize_grads = False
        ctx.save_for_backward(inputs[0])

    def apply(self, ctx, grad_sign, grad_logabsdet):
        A, = ctx.saved_tensors
        if grad_logabsdet is None:
            return F.zeros_like(A)
        scale = F.unsqueeze(F.unsqueeze(grad_logabsdet, -1), -1)
        return F.mul(scale, mT(F.inverse(A)))


@register_grad("linalg_pinv")
class LinalgPinvGrad(GradFunction):
    """P = A^+ (rank locally constant; Golub and Pereyra 1973, torch's pinv_backward):
    grad_A = -P^T g P^T + (I - A P) g^T P P^T + P^T P g^T (I - P A)."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(inputs[0], outputs[0])

    def apply(self, ctx, grad_out):
        A, P = ctx.saved_tensors
        Pt, gt = mT(P), mT(grad_out)
        first = F.neg(F.matmul(Pt, F.matmul(grad_out, Pt)))
        AP = F.matmul(A, P)
        second = F.matmul(F.sub(gt, F.matmul(AP, gt)), F.matmul(P, Pt))
        third = F.matmul(F.matmul(Pt, P), F.sub(gt, F.matmul(gt, F.matmul(P, A))))
        return F.add(first, F.add(second, third)), None, None      # no grads of tolerances

"""Grad function of the LU factorization, torch's linalg_lu_backward written with minflow
ops (so backward is differentiable again)."""
from ...core.dispatch import apply
from ...core.namespace import F
from ...ops.lu import unpack
from ...ops.solve import SOLVE_TRIANGULAR
from ..node import GradFunction, register_grad
from .solve import mT


def _times_inv_ut(G, U):
    """G U^-T for upper triangular U: U X^T = G^T."""
    return mT(apply(SOLVE_TRIANGULAR, (U, mT(G)), {"upper": True, "unitriangular": False}))


def _solve_unit_lower_t(L, G):
    """L^-T G for unit lower triangular L."""
    return apply(SOLVE_TRIANGULAR, (mT(L), G), {"upper": True, "unitriangular": True})


@register_grad("linalg_lu_factor_ex")
class LinalgLuFactorExGrad(GradFunction):
    """P A = L U with LU = L + U - I. The gradient of LU splits into grad_L (its first k
    columns, strictly lower) and grad_U (its first k rows, upper); then, k = min(m, n) (torch's
    linalg_lu_backward; square case: grad_A = P L^-T (tril(L^T g_L, -1) + triu(g_U U^T))
    U^-T, the wide and tall cases solve with the square block and pass the rest through)."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.pivot = attrs["pivot"]
        ctx.save_for_backward(outputs[0], outputs[1])

    def apply(self, ctx, grad_LU, grad_pivots=None, grad_info=None):
        LU, pivots = ctx.saved_tensors
        P, L, U = unpack(LU, pivots, unpack_pivots=ctx.pivot)
        m, n = LU.shape[-2:]
        k = min(m, n)
        grad_L = F.tril(F.narrow(grad_LU, -1, 0, k), -1)      # the entries L and U own
        grad_U = F.triu(F.narrow(grad_LU, -2, 0, k))
        if m == n:
            inner = F.add(F.tril(F.matmul(mT(L), grad_L), -1), F.triu(F.matmul(grad_U, mT(U))))
            grad_A = _solve_unit_lower_t(L, _times_inv_ut(inner, U))
        elif m < n:
            grad_A = _wide(L, U, grad_L, grad_U, k)
        else:
            grad_A = _tall(L, U, grad_L, grad_U, k)
        return F.matmul(P, grad_A) if ctx.pivot else grad_A


def _wide(L, U, grad_L, grad_U, k):
    """m < n, U = [U1 U2]: grad_A1 = L^-T (g_U1 + tril(L^T g_L - g_U U^T, -1) U1^-T),
    grad_A2 = L^-T g_U2."""
    U1 = F.narrow(U, -1, 0, k)
    inner = F.sub(F.matmul(mT(L), grad_L), F.matmul(F.triu(grad_U), mT(U)))
    inner = _times_inv_ut(F.tril(inner, -1), U1)
    n = U.shape[-1]
    top = F.cat([F.add(inner, F.triu(F.narrow(grad_U, -1, 0, k))),
                 F.narrow(grad_U, -1, k, n - k)], -1)
    return _solve_unit_lower_t(L, top)


def _tall(L, U, grad_L, grad_U, k):
    """m > n, L = [L1; L2]: grad_A1 = (g_L1 + L1^-T triu(g_U U^T - L^T g_L)) U^-T with
    g_L1 strictly lower, grad_A2 = g_L2 U^-T."""
    L1 = F.narrow(L, -2, 0, k)
    inner = F.sub(F.matmul(grad_U, mT(U)), F.matmul(mT(L), grad_L))
    inner = _solve_unit_lower_t(L1, F.triu(inner))
    m = L.shape[-2]
    left = F.cat([F.add(inner, F.tril(F.narrow(grad_L, -2, 0, k), -1)),
                  F.narrow(grad_L, -2, k, m - k)], -2)
    return _times_inv_ut(left, U)

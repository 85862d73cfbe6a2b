"""Transforms onto sets of matrices, as torch.distributions.transforms:
LowerCholeskyTransform (lower triangular, positive diagonal), PositiveDefiniteTransform
and CorrCholeskyTransform (Cholesky factors of correlation matrices, from unconstrained
vectors); all are re-exported by transforms.py.

>>> from minflow.distributions.transforms import CorrCholeskyTransform
>>> t = CorrCholeskyTransform()
>>> y = t(minflow.tensor([0.5, -1.0, 2.0], dtype=minflow.float64))
>>> y.shape, (y * y).sum(-1).tolist()
(minflow.Size([3, 3]), [1.0, 1.0, 1.0])
"""
import math

from ..core.namespace import F
from ..core.tensor import Size
from ..linalg import cholesky
from ..nn.functional import pad
from . import constraints
from .transforms import Transform
from .utils import eps_of, tril_matrix_to_vec, vec_to_tril_matrix

__all__ = ["LowerCholeskyTransform", "PositiveDefiniteTransform", "CorrCholeskyTransform"]


class LowerCholeskyTransform(Transform):
    """Square matrices to lower triangular ones with a positive diagonal: the strictly
    lower part kept, the diagonal exponentiated (not bijective: the upper part is lost)."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other):
        return isinstance(other, LowerCholeskyTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(Transform):
    """Square matrices to positive definite ones: L L^T for L = LowerCholeskyTransform(x);
    the inverse goes back through the Cholesky factor (not bijective: the upper part of
    x is lost).

    >>> t = minflow.distributions.PositiveDefiniteTransform()
    >>> t(minflow.zeros(2, 2)).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other):
        return isinstance(other, PositiveDefiniteTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        x = LowerCholeskyTransform()(x)
        return x @ x.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(cholesky(y))


class CorrCholeskyTransform(Transform):
    """Unconstrained vectors of length D (D - 1) / 2 to Cholesky factors of D x D
    correlation matrices (lower triangular, positive diagonal, rows of unit norm), by a
    signed stick-breaking of each row: r = tanh(x) fills the strictly lower triangle in
    row order, and y_ij = r_ij sqrt(1 - sum_{k<j} r_ik^2) (the diagonal takes what is
    left of the row's unit norm).

    The log-det-Jacobian is that of x against the strictly lower part of y (domain and
    codomain have different dimensions).
    """

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def __eq__(self, other):
        return isinstance(other, CorrCholeskyTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        eps = eps_of(x.dtype)
        r = vec_to_tril_matrix(x.tanh().clamp(min=-1 + eps, max=1 - eps), diag=-1)
        # y = sign(r) sqrt(z prod(1 - z)) for z = r^2 is r times the cumulative product
        z1m_cumprod_sqrt = (1 - r * r).sqrt().cumprod(-1)
        r = r + F.eye(r.shape[-1], dtype=r.dtype, device=r.device)
        return r * pad(z1m_cumprod_sqrt[..., :-1], [1, 0], value=1)

    def _inverse(self, y):
        # the stick left before each element: 1 - sum_{k<j} y_ik^2
        y_cumsum = 1 - (y * y).cumsum(-1)
        y_cumsum_shifted = pad(y_cumsum[..., :-1], [1, 0], value=1)
        t = tril_matrix_to_vec(y, diag=-1) / tril_matrix_to_vec(y_cumsum_shifted, diag=-1).sqrt()
        return (t.log1p() - (-t).log1p()) / 2          # atanh

    def log_abs_det_jacobian(self, x, y):
        # diag=-2 takes each stick but the last of a row, so no shift is needed
        y1m_cumsum = tril_matrix_to_vec(1 - (y * y).cumsum(-1), diag=-2)
        stick_breaking_logdet = 0.5 * y1m_cumsum.log().sum(-1)
        tanh_logdet = -2 * (x + F.softplus(-2 * x) - math.log(2.0)).sum(-1)
        return stick_breaking_logdet + tanh_logdet

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("CorrCholeskyTransform.forward_shape: Too few dimensions on "
                             "input: expected at least 1, got shape ()")
        n = shape[-1]
        dim = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if dim * (dim - 1) // 2 != n:
            raise ValueError(f"CorrCholeskyTransform.forward_shape: Input is not a "
                             f"flattened lower-diagonal number: the last dim {n} is not "
                             f"D (D - 1) / 2 for any D")
        return Size(tuple(shape[:-1]) + (dim, dim))

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError(f"CorrCholeskyTransform.inverse_shape: Too few dimensions on "
                             f"input: expected at least 2, got shape {tuple(shape)}")
        if shape[-2] != shape[-1]:
            raise ValueError(f"CorrCholeskyTransform.inverse_shape: Input is not square: "
                             f"shape {tuple(shape)}")
        dim = shape[-1]
        return Size(tuple(shape[:-2]) + (dim * (dim - 1) // 2,))

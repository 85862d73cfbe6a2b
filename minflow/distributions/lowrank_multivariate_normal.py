"""LowRankMultivariateNormal: a Gaussian whose covariance is W W^T + diag(D) for a
tall W (n x m, m << n); log_prob and entropy use only the m x m "capacitance" matrix
C = I + W^T D^-1 W (Woodbury identity and matrix determinant lemma)."""
import math

from ..core.namespace import F
from ..core.tensor import Size
from ..linalg import cholesky, solve_triangular
from . import constraints
from .distribution import Distribution
from .multivariate_normal import _batch_mahalanobis, _batch_mv
from .utils import as_size, lazy_property, standard_normal

__all__ = ["LowRankMultivariateNormal"]


def _plus_identity(matrix):
    return matrix + F.eye(matrix.shape[-1], dtype=matrix.dtype, device=matrix.device)


def _batch_capacitance_tril(W, D):
    """The lower Cholesky factor of C = I + W^T D^-1 W."""
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    return cholesky(_plus_identity(F.matmul(Wt_Dinv, W)))


def _batch_lowrank_logdet(W, D, capacitance_tril):
    """log |W W^T + D| = log |C| + log |D| (matrix determinant lemma)."""
    return (2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
            + D.log().sum(-1))


def _batch_lowrank_mahalanobis(W, D, x, capacitance_tril):
    """x^T (W W^T + D)^-1 x, by Woodbury: (W W^T + D)^-1 = D^-1 - D^-1 W C^-1 W^T D^-1."""
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    Wt_Dinv_x = _batch_mv(Wt_Dinv, x)
    return (x.pow(2) / D).sum(-1) - _batch_mahalanobis(capacitance_tril, Wt_Dinv_x)


class LowRankMultivariateNormal(Distribution):
    """LowRankMultivariateNormal(loc, cov_factor, cov_diag): the Gaussian of mean loc and
    covariance cov_factor @ cov_factor^T + diag(cov_diag).

    >>> from minflow.distributions import LowRankMultivariateNormal
    >>> d = LowRankMultivariateNormal(minflow.zeros(2), minflow.tensor([[1.0], [0.0]]),
    ...                               minflow.ones(2))
    >>> d.covariance_matrix.tolist(), round(d.log_prob(minflow.zeros(2)).item(), 4)
    ([[2.0, 0.0], [0.0, 1.0]], -2.1845)
    """

    arg_constraints = {"loc": constraints.real_vector,
                       "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = loc.shape[-1:]
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if cov_factor.shape[-2:-1] != event_shape:
            raise ValueError(f"cov_factor must be a batch of matrices with shape "
                             f"{event_shape[0]} x m")
        if cov_diag.shape[-1:] != event_shape:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        try:
            loc_, self.cov_factor, cov_diag_ = F.broadcast_tensors(
                loc.unsqueeze(-1), cov_factor, cov_diag.unsqueeze(-1))
        except RuntimeError as err:
            raise ValueError(f"Incompatible batch shapes: loc {loc.shape}, cov_factor "
                             f"{cov_factor.shape}, cov_diag {cov_diag.shape}") from err
        self.loc, self.cov_diag = loc_[..., 0], cov_diag_[..., 0]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _batch_capacitance_tril(cov_factor, cov_diag)
        super().__init__(self.loc.shape[:-1], event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        event = tuple(self._event_shape)
        rank = tuple(self.cov_factor.shape[-1:])
        new = self._expanded(LowRankMultivariateNormal, batch_shape, _instance,
                             {"loc": event, "cov_diag": event, "cov_factor": event + rank})
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        return new

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        return (self._unbroadcasted_cov_factor.pow(2).sum(-1)
                + self._unbroadcasted_cov_diag).expand(
            tuple(self._batch_shape) + tuple(self._event_shape))

    @lazy_property
    def scale_tril(self):
        """D^1/2 cholesky(I + D^-1/2 W W^T D^-1/2): the Cholesky factor of the covariance."""
        diag_sqrt = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        Dinvsqrt_W = self._unbroadcasted_cov_factor / diag_sqrt
        tril = cholesky(_plus_identity(F.matmul(Dinvsqrt_W, Dinvsqrt_W.mT)))
        return (diag_sqrt * tril).expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        W = self._unbroadcasted_cov_factor
        return (F.matmul(W, W.mT) + F.diag_embed(self._unbroadcasted_cov_diag)).expand(
            self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        Wt_Dinv = self._unbroadcasted_cov_factor.mT / self._unbroadcasted_cov_diag.unsqueeze(-2)
        A = solve_triangular(self._capacitance_tril, Wt_Dinv, upper=False)
        precision = F.diag_embed(self._unbroadcasted_cov_diag.reciprocal()) - F.matmul(A.mT, A)
        return precision.expand(self._matrix_shape())

    def rsample(self, sample_shape=Size(())):
        shape = self._extended_shape(as_size(sample_shape))
        eps_W = standard_normal(tuple(shape[:-1]) + tuple(self.cov_factor.shape[-1:]), self.loc)
        eps_D = standard_normal(shape, self.loc)
        return (self.loc + _batch_mv(self._unbroadcasted_cov_factor, eps_W)
                + self._unbroadcasted_cov_diag.sqrt() * eps_D)

    def _log_det(self):
        return _batch_lowrank_logdet(self._unbroadcasted_cov_factor,
                                     self._unbroadcasted_cov_diag, self._capacitance_tril)

    def log_prob(self, value):
        self._check_value(value)
        mahalanobis = _batch_lowrank_mahalanobis(
            self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag, value - self.loc,
            self._capacitance_tril)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + self._log_det()
                       + mahalanobis)

    def entropy(self):
        entropy = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._log_det())
        return entropy if len(self._batch_shape) == 0 else entropy.expand(self._batch_shape)

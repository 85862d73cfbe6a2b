"""MultivariateNormal, parameterized by a covariance matrix, a precision matrix or the
lower Cholesky factor of the covariance (scale_tril)."""
import math

from ..core.namespace import F
from ..core.tensor import Size
from ..linalg import cholesky, solve_triangular
from ..ops.infer import broadcast_shapes
from . import constraints
from .distribution import Distribution
from .utils import as_size, lazy_property, one_matrix, standard_normal

__all__ = ["MultivariateNormal"]


def _batch_mv(matrix, vector):
    return F.matmul(matrix, vector.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(scale_tril, x):
    """|L^-1 x|^2 for each vector x (L broadcast over x's batch dims)."""
    n = x.size(-1)
    tril = scale_tril.expand(tuple(x.shape[:-1]) + (n, n))
    return solve_triangular(tril, x.unsqueeze(-1), upper=False).squeeze(-1).pow(2).sum(-1)


def _identity_like(matrix):
    return F.eye(matrix.shape[-1], dtype=matrix.dtype, device=matrix.device)


def _precision_to_scale_tril(precision):
    """The lower Cholesky factor of precision^-1 without inverting precision: the Cholesky
    factor of precision with rows and columns reversed, reversed back, is an upper
    triangular U with precision = U U^T; so the covariance is U^-T (U^-T)^T, and U^-T
    is lower triangular."""
    flipped = cholesky(F.flip(precision, (-2, -1)))
    tril_inv = F.flip(flipped, (-2, -1)).mT
    return solve_triangular(tril_inv, _identity_like(precision), upper=False)


class MultivariateNormal(Distribution):
    """MultivariateNormal(loc, covariance_matrix=None, precision_matrix=None,
    scale_tril=None): the Gaussian over vectors, with exactly one of the three matrices.

    >>> from minflow.distributions import MultivariateNormal
    >>> d = MultivariateNormal(minflow.zeros(2), covariance_matrix=minflow.eye(2))
    >>> round(d.log_prob(minflow.zeros(2)).item(), 4), d.sample((3,)).shape
    (-1.8379, minflow.Size([3, 2]))
    """

    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        name, matrix = one_matrix(ValueError, covariance_matrix, precision_matrix, scale_tril)
        batch_shape = broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1]))
        setattr(self, name, matrix.expand(tuple(batch_shape) + tuple(matrix.shape[-2:])))
        self.loc = loc.expand(tuple(batch_shape) + (loc.shape[-1],))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = matrix
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = cholesky(matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(matrix)

    def expand(self, batch_shape, _instance=None):
        event = tuple(self._event_shape)
        new = self._expanded(MultivariateNormal, batch_shape, _instance,
                             {"loc": event, "covariance_matrix": event * 2,
                              "scale_tril": event * 2, "precision_matrix": event * 2})
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        return new

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        tril = self._unbroadcasted_scale_tril
        return F.matmul(tril, tril.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        tril_inv = solve_triangular(self._unbroadcasted_scale_tril,
                                    _identity_like(self._unbroadcasted_scale_tril), upper=False)
        return F.matmul(tril_inv.mT, tril_inv).expand(self._matrix_shape())

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(
            tuple(self._batch_shape) + tuple(self._event_shape))

    def rsample(self, sample_shape=Size(())):
        shape = self._extended_shape(as_size(sample_shape))
        noise = standard_normal(shape, self.loc)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, noise)

    def _half_log_det(self):
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        self._check_value(value)
        mahalanobis = _batch_mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        return (-0.5 * (self._event_shape[0] * math.log(2 * math.pi) + mahalanobis)
                - self._half_log_det())

    def entropy(self):
        entropy = (0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi))
                   + self._half_log_det())
        return entropy if len(self._batch_shape) == 0 else entropy.expand(self._batch_shape)

"""Wishart(df, covariance_matrix / precision_matrix / scale_tril): the distribution of
sum_i x_i x_i^T over df draws x_i ~ N(0, Sigma), for real df > p - 1, as
torch.distributions.Wishart; sampled by the Bartlett decomposition, so rsample is
differentiable (through Chi2.rsample and the scale's Cholesky factor)."""
import math
import numbers
import warnings

from ..core.namespace import F
from ..core.tensor import Size
from ..linalg import cholesky, slogdet, solve
from ..ops.infer import broadcast_shapes
from . import constraints
from .exp_family import ExponentialFamily
from .gamma import Chi2
from .multivariate_normal import _precision_to_scale_tril
from .utils import as_size, eps_of, has_values, lazy_property, one_matrix, standard_normal

__all__ = ["Wishart"]

_LOG_2 = math.log(2)


def _mvdigamma(x, p):
    """The multivariate digamma: sum_{i<p} digamma(x - i / 2)."""
    offsets = F.arange(p, dtype=x.dtype, device=x.device) / 2
    return F.digamma(x.unsqueeze(-1) - offsets).sum(-1)


def _cholesky_solve(rhs, tril):
    """(L L^T)^-1 rhs for the lower Cholesky factor L (torch.cholesky_solve).

    NOTE: solved against the product L L^T rather than by two triangular solves, so that
    the gradient w.r.t. L is torch.cholesky_solve's, which reaches the upper triangle of L
    too (a triangular solve never reads it, so would give it no gradient)."""
    matrix = tril @ tril.mT
    batch = tuple(broadcast_shapes(tuple(rhs.shape[:-2]), tuple(matrix.shape[:-2])))
    # (rhs gets its batch dims: a rhs of one dim less than matrix is a batch of vectors)
    return solve(matrix, rhs.expand(batch + tuple(rhs.shape[-2:])))


class Wishart(ExponentialFamily):
    """Wishart(df, covariance_matrix=None, precision_matrix=None, scale_tril=None): random
    positive definite p x p matrices of mean df Sigma, with exactly one of Sigma, its
    inverse or its lower Cholesky factor L given; df > p - 1.

    log p(X) = (df - p - 1) / 2 log|X| - tr(Sigma^-1 X) / 2 - df p / 2 log 2
               - df log|L| - log Gamma_p(df / 2)

    >>> d = minflow.distributions.Wishart(minflow.tensor(4.0), covariance_matrix=minflow.eye(2))
    >>> d.mean.tolist(), round(d.log_prob(minflow.eye(2)).item(), 4)
    ([[4.0, 0.0], [0.0, 4.0]], -4.2242)
    """

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky,
                "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        name, matrix = one_matrix(AssertionError, covariance_matrix, precision_matrix, scale_tril)
        df_tensor = df if not isinstance(df, numbers.Number) else \
            F.tensor(df, dtype=matrix.dtype, device=matrix.device)
        batch_shape = Size(broadcast_shapes(tuple(matrix.shape[:-2]), tuple(df_tensor.shape)))
        self.df = df_tensor.expand(tuple(batch_shape))
        event_shape = Size(tuple(matrix.shape[-2:]))
        p = event_shape[-1]
        if has_values(self.df) and (self.df <= p - 1).any().item():
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = "
                             f"{p - 1}.")
        setattr(self, name, matrix.expand(tuple(batch_shape) + (-1, -1)))
        if has_values(self.df) and (self.df < p).any().item():
            warnings.warn("Low df values detected. Singular samples are highly likely to "
                          "occur for ndim - 1 < df < ndim.", stacklevel=2)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = matrix
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = cholesky(matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(matrix)
        self._dist_chi2 = self._bartlett_chi2()

    def _bartlett_chi2(self):
        """Chi2(df - i) for i < p: the squared diagonal of the Bartlett factor."""
        p = self._event_shape[-1]
        offsets = F.arange(p, dtype=self._unbroadcasted_scale_tril.dtype,
                           device=self._unbroadcasted_scale_tril.device)
        return Chi2(self.df.unsqueeze(-1) - offsets.expand(tuple(self._batch_shape) + (p,)))

    def expand(self, batch_shape, _instance=None):
        event = tuple(self._event_shape)
        new = self._expanded(Wishart, batch_shape, _instance,
                             {"df": (), "covariance_matrix": event,
                              "precision_matrix": event, "scale_tril": event})
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(
            tuple(new._batch_shape) + event)
        new._dist_chi2 = new._bartlett_chi2()
        return new

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape)

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        tril = self._unbroadcasted_scale_tril
        return (tril @ tril.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        tril = self._unbroadcasted_scale_tril
        identity = F.eye(self._event_shape[-1], dtype=tril.dtype, device=tril.device)
        return _cholesky_solve(identity, tril).expand(self._matrix_shape())

    def _df_matrix(self):
        return self.df.reshape(tuple(self._batch_shape) + (1, 1))

    @property
    def mean(self):
        return self._df_matrix() * self.covariance_matrix

    @property
    def mode(self):
        """(df - p - 1) Sigma, nan where df <= p + 1."""
        factor = self.df - self._event_shape[-1] - 1
        factor = F.where(factor <= 0, math.nan, factor)
        return factor.reshape(tuple(self._batch_shape) + (1, 1)) * self.covariance_matrix

    @property
    def variance(self):
        """Var X_ij = df (Sigma_ij^2 + Sigma_ii Sigma_jj)."""
        cov = self.covariance_matrix
        diag = cov.diagonal(dim1=-2, dim2=-1)
        return self._df_matrix() * (cov.pow(2) + diag.unsqueeze(-1) * diag.unsqueeze(-2))

    def _bartlett_sampling(self, sample_shape):
        """L A A^T L^T, with A lower triangular: sqrt(Chi2(df - i)) on the diagonal and
        standard normals below it."""
        diag = self._dist_chi2.rsample(sample_shape).sqrt()
        diag = diag.clamp(min=eps_of(diag.dtype)).diag_embed(dim1=-2, dim2=-1)
        factor = diag + standard_normal(diag.shape, diag).tril(-1)
        chol = self._unbroadcasted_scale_tril @ factor
        return chol @ chol.mT

    def _singular(self, sample, sample_shape):
        """Which draws of ``sample_shape`` hold a matrix that is not positive definite
        (anywhere in the batch)."""
        singular = ~self.support.check(sample)
        return singular.reshape(tuple(sample_shape) + (-1,)).any(-1)

    def rsample(self, sample_shape=Size(()), max_try_correction=None):
        """Bartlett draws; a draw that rounds to a singular matrix is drawn again, up to
        ``max_try_correction`` times (10 by default; 3 while nn.Graph builds, where the
        redraws cannot stop early), with a warning. A singular sample left over gives
        -inf in log_prob.

        NOTE: torch 2.x tests for validity where it means singularity, so it warns and
        redraws on every call; here only singular draws are replaced.
        """
        sample_shape = as_size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        singular = self._singular(sample, sample_shape)
        eager = has_values(singular)
        if max_try_correction is None:
            max_try_correction = 10 if eager else 3
        if eager:
            if not singular.any().item():
                return sample
            warnings.warn("Singular sample detected.", stacklevel=2)
        keep = (1,) * (len(self._batch_shape) + 2)
        for _ in range(max_try_correction):
            redraw = self._bartlett_sampling(sample_shape)
            sample = F.where(singular.reshape(tuple(sample_shape) + keep), redraw, sample)
            singular = self._singular(sample, sample_shape)
            if eager and not singular.any().item():
                break
        return sample

    def _log_det_scale(self):
        """p log 2 / 2 + log|L|."""
        tril = self._unbroadcasted_scale_tril
        return (self._event_shape[-1] * _LOG_2 / 2
                + tril.diagonal(dim1=-2, dim2=-1).log().sum(-1))

    def log_prob(self, value):
        self._check_value(value)
        nu, p = self.df, self._event_shape[-1]
        trace = _cholesky_solve(value, self._unbroadcasted_scale_tril).diagonal(
            dim1=-2, dim2=-1).sum(-1)
        return (-nu * self._log_det_scale() - F.mvlgamma(nu / 2, p)
                + (nu - p - 1) / 2 * slogdet(value).logabsdet - trace / 2)

    def entropy(self):
        nu, p = self.df, self._event_shape[-1]
        return ((p + 1) * self._log_det_scale() + F.mvlgamma(nu / 2, p)
                - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p) + nu * p / 2)

    @property
    def _natural_params(self):
        nu, p = self.df, self._event_shape[-1]
        return -self.precision_matrix / 2, (nu - p - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        return ((y + (p + 1) / 2) * (-slogdet(-2 * x).logabsdet + _LOG_2 * p)
                + F.mvlgamma(y + (p + 1) / 2, p))

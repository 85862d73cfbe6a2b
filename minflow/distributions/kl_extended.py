"""KL(p || q) for the pairs torch registers among Gumbel, HalfNormal, Cauchy, Pareto,
ContinuousBernoulli, LowRankMultivariateNormal and the families of kl.py (registered on
import, as kl.py's). Infinite where q's support does not cover p's.

>>> from minflow.distributions import Cauchy, kl_divergence
>>> round(kl_divergence(Cauchy(0.0, 1.0), Cauchy(0.0, 2.0)).item(), 4)
0.1178
"""
import math

from ..core.namespace import F
from ..linalg import solve_triangular
from ..ops.infer import broadcast_shapes
from .continuous import Exponential, Laplace, Normal, Uniform
from .gamma import Beta, Gamma
from .heavy_tailed import Cauchy
from .lowrank_multivariate_normal import (LowRankMultivariateNormal, _batch_lowrank_logdet,
                                          _batch_lowrank_mahalanobis)
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis
from .continuous_bernoulli import ContinuousBernoulli
from .kl import (_batch_trace_xxt, _infinite_like, _inf_where, _kl_exponential_infinity, _kl_gamma_infinity,
                 _kl_laplace_infinity, _kl_normal_infinity, _kl_normal_normal, _x_log_x,
                 register_kl)
from .transformed_families import Gumbel, HalfNormal, Pareto
from .utils import euler_constant

__all__ = []


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    t1 = ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log()
    return t1 - (4 * p.scale * q.scale).log()


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    return _kl_normal_normal(p.base_dist, q.base_dist)


# ---- Gumbel ------------------------------------------------------------------------------

@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    ct1, ct2, ct3 = p.scale / q.scale, q.loc / q.scale, p.loc / q.scale
    t1 = -ct1.log() - ct2 + ct3
    t3 = F.exp(ct2 + (1 + ct1).lgamma() - ct3)
    return t1 + ct1 * euler_constant + t3 - (1 + euler_constant)


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    scale_rate = p.rate * q.scale
    loc_scale = q.loc / q.scale
    t2 = F.exp(loc_scale) * scale_rate / (scale_rate + 1)
    return scale_rate.log() - 1 - loc_scale + t2 + scale_rate.reciprocal()


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p, q):
    a = p.concentration
    beta_scale = p.rate * q.scale
    loc_scale = q.loc / q.scale
    t1 = (a - 1) * a.digamma() - a.lgamma() - a
    t2 = beta_scale.log() + a / beta_scale
    t3 = F.exp(loc_scale) * (1 + beta_scale.reciprocal()).pow(-a) - loc_scale
    return t1 + t2 + t3


@register_kl(Gumbel, Beta)
@register_kl(Gumbel, ContinuousBernoulli)
@register_kl(Gumbel, Exponential)
@register_kl(Gumbel, Gamma)
@register_kl(Gumbel, Pareto)
@register_kl(Gumbel, Uniform)
def _kl_gumbel_infinity(p, q):
    return _infinite_like(p.loc)


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p, q):
    ratio = p.scale / q.scale
    t1 = (ratio / math.sqrt(2 * math.pi)).log()
    t2 = (math.pi * ratio * 0.5).pow(2) / 3
    t3 = ((p.loc + p.scale * euler_constant - q.loc) / q.scale).pow(2) * 0.5
    return -t1 + t2 + t3 - (euler_constant + 1)


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    mean_scale = p.loc / q.scale
    var_scale_sq = (p.scale / q.scale).pow(2)
    loc_scale = q.loc / q.scale
    t3 = F.exp(-mean_scale + 0.5 * var_scale_sq + loc_scale)
    return (-var_scale_sq.log() * 0.5 + mean_scale - loc_scale + t3
            - 0.5 * (1 + math.log(2 * math.pi)))


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    common = q.scale / (p.high - p.low)
    high_loc = (p.high - q.loc) / q.scale
    low_loc = (p.low - q.loc) / q.scale
    t1 = common.log() + 0.5 * (high_loc + low_loc)
    return t1 - common * (F.exp(-high_loc) - F.exp(-low_loc))


# ---- Pareto ------------------------------------------------------------------------------

@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    alpha_ratio = q.alpha / p.alpha
    result = q.alpha * (p.scale / q.scale).log() - alpha_ratio.log() + alpha_ratio - 1
    return _inf_where(p.support.lower_bound < q.support.lower_bound, result)


@register_kl(Beta, Pareto)
def _kl_beta_pareto(p, q):
    return _infinite_like(p.concentration1)


@register_kl(Pareto, Beta)
@register_kl(Pareto, ContinuousBernoulli)
@register_kl(Pareto, Uniform)
def _kl_pareto_infinity(p, q):
    return _infinite_like(p.scale)


# outside q's support: infinite, as kl.py's pairs of these with Beta and Uniform
for _q in (Pareto, ContinuousBernoulli):
    register_kl(Exponential, _q)(_kl_exponential_infinity)
    register_kl(Gamma, _q)(_kl_gamma_infinity)
    register_kl(Laplace, _q)(_kl_laplace_infinity)
    register_kl(Normal, _q)(_kl_normal_infinity)


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p, q):
    scale_rate = p.scale * q.rate
    t1 = (p.alpha / scale_rate).log()
    t3 = p.alpha * scale_rate / (p.alpha - 1)
    return _inf_where(p.alpha <= 1, t1 - p.alpha.reciprocal() + t3 - 1)


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p, q):
    common = p.scale.log() + p.alpha.reciprocal()
    t1 = p.alpha.log() - common
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * common
    t4 = q.rate * p.alpha * p.scale / (p.alpha - 1)
    return _inf_where(p.alpha <= 1, t1 + t2 + t3 + t4 - 1)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p, q):
    var_normal = 2 * q.scale.pow(2)
    common = p.scale / (p.alpha - 1)
    t1 = (math.sqrt(2 * math.pi) * q.scale * p.alpha / p.scale).log()
    t3 = p.alpha * common.pow(2) / (p.alpha - 2)
    t4 = (p.alpha * common - q.loc).pow(2)
    return _inf_where(p.alpha <= 2, t1 - p.alpha.reciprocal() + (t3 + t4) / var_normal - 1)


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p, q):
    width = p.high - p.low
    t1 = (q.alpha * q.scale.pow(q.alpha) * width).log()
    t2 = (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    return _inf_where(p.low < q.support.lower_bound, t2 * (q.alpha + 1) - t1)


# ---- ContinuousBernoulli -----------------------------------------------------------------

@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p, q):
    t1 = p.mean * (p.logits - q.logits)
    t2 = p._cont_bern_log_norm() + F.log1p(-p.probs)
    t3 = -q._cont_bern_log_norm() - F.log1p(-q.probs)
    return t1 + t2 + t3


def _cross_entropy_continuous_bernoulli(p, q):
    """-E_p[log q(x)] for q ContinuousBernoulli: linear in E_p[x]."""
    return -p.mean * q.logits - F.log1p(-q.probs) - q._cont_bern_log_norm()


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p, q):
    return -p.entropy() + _cross_entropy_continuous_bernoulli(p, q)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p, q):
    result = -p.entropy() + _cross_entropy_continuous_bernoulli(p, q)
    support = q.support
    return _inf_where(F.ge(p.high, support.upper_bound) | F.le(p.low, support.lower_bound),
                      result)


@register_kl(ContinuousBernoulli, Pareto)
def _kl_continuous_bernoulli_infinity(p, q):
    return _infinite_like(p.probs)


@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p, q):
    return -p.entropy() - F.log(q.rate) + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p, q):
    t2 = 0.5 * (math.log(2.0 * math.pi) + (q.loc / q.scale).square()) + F.log(q.scale)
    t3 = ((p.variance + p.mean.square() - 2.0 * q.loc * p.mean)
          / (2.0 * q.scale.square()))
    return -p.entropy() + t2 + t3


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    support = p.support
    return _inf_where(F.ge(q.low, support.lower_bound) | F.le(q.high, support.upper_bound),
                      result)


# ---- low-rank Gaussians ------------------------------------------------------------------

def _same_event_shape(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two (Low Rank) Multivariate Normals with "
                         "different event shapes cannot be computed")


def _lowrank_logdet(d):
    return _batch_lowrank_logdet(d._unbroadcasted_cov_factor, d._unbroadcasted_cov_diag,
                                 d._capacitance_tril)


def _lowrank_mahalanobis(q, x):
    return _batch_lowrank_mahalanobis(q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag,
                                      x, q._capacitance_tril)


def _woodbury_factor(q):
    """A with (W W^T + D)^-1 = D^-1 - A^T A for q's W and D."""
    Wt_Dinv = q._unbroadcasted_cov_factor.mT / q._unbroadcasted_cov_diag.unsqueeze(-2)
    return solve_triangular(q._capacitance_tril, Wt_Dinv, upper=False)


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrankmultivariatenormal_lowrankmultivariatenormal(p, q):
    _same_event_shape(p, q)
    term1 = _lowrank_logdet(q) - _lowrank_logdet(p)
    term3 = _lowrank_mahalanobis(q, q.loc - p.loc)
    # trace(q_cov^-1 p_cov) = trace((q_D^-1 - A^T A)(p_D + p_W p_W^T))
    A = _woodbury_factor(q)
    p_W, p_D, q_D = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag, \
        q._unbroadcasted_cov_diag
    term21 = (p_D / q_D).sum(-1)
    term22 = _batch_trace_xxt(p_W * q_D.rsqrt().unsqueeze(-1))
    term23 = _batch_trace_xxt(A * p_D.sqrt().unsqueeze(-2))
    term24 = _batch_trace_xxt(F.matmul(A, p_W))
    return 0.5 * (term1 + term21 + term22 - term23 - term24 + term3 - p.event_shape[0])


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_multivariatenormal_lowrankmultivariatenormal(p, q):
    _same_event_shape(p, q)
    p_tril = p._unbroadcasted_scale_tril
    term1 = _lowrank_logdet(q) - 2 * p_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    term3 = _lowrank_mahalanobis(q, q.loc - p.loc)
    # trace(q_cov^-1 p_cov) = trace((q_D^-1 - A^T A) p_L p_L^T)
    A = _woodbury_factor(q)
    term21 = _batch_trace_xxt(p_tril * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1))
    term22 = _batch_trace_xxt(F.matmul(A, p_tril))
    return 0.5 * (term1 + term21 - term22 + term3 - p.event_shape[0])


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrankmultivariatenormal_multivariatenormal(p, q):
    _same_event_shape(p, q)
    q_tril = q._unbroadcasted_scale_tril
    term1 = 2 * q_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) - _lowrank_logdet(p)
    term3 = _batch_mahalanobis(q_tril, q.loc - p.loc)
    # trace(q_cov^-1 p_cov) = |q_L^-1 p_W|^2 + |q_L^-1 p_D^1/2|^2
    n, rank = p.event_shape[0], p.cov_factor.size(-1)
    batch = tuple(broadcast_shapes(tuple(q_tril.shape[:-2]),
                                   tuple(p._unbroadcasted_cov_factor.shape[:-2])))
    q_tril = q_tril.expand(batch + (n, n))
    p_W = p._unbroadcasted_cov_factor.expand(batch + (n, rank))
    p_D_sqrt = F.diag_embed(p._unbroadcasted_cov_diag.sqrt()).expand(batch + (n, n))
    term21 = _batch_trace_xxt(solve_triangular(q_tril, p_W, upper=False))
    term22 = _batch_trace_xxt(solve_triangular(q_tril, p_D_sqrt, upper=False))
    return 0.5 * (term1 + term21 + term22 + term3 - p.event_shape[0])

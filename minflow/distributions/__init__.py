"""Probability distributions with torch.distributions' API and semantics: parameters
broadcast into batch shapes, sample / rsample, log_prob, entropy, moments, cdf / icdf,
argument validation, transforms and KL divergences, written as composites of minflow
ops (so log_prob, entropy and rsample are differentiable, eagerly and in nn.Graph).

>>> from minflow.distributions import Normal
>>> d = Normal(minflow.tensor([0.0, 1.0]), minflow.tensor([1.0, 2.0]))
>>> d.sample((5,)).shape
minflow.Size([5, 2])
"""
from . import constraints
from .constraint_registry import biject_to, transform_to
from .continuous import Exponential, Laplace, Normal, Uniform
from .continuous_bernoulli import ContinuousBernoulli
from .categorical import (Categorical, Multinomial, OneHotCategorical,
                          OneHotCategoricalStraightThrough)
from .discrete import Bernoulli, Binomial, Geometric, NegativeBinomial, Poisson
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .generalized_pareto import GeneralizedPareto
from .gamma import Beta, Chi2, Dirichlet, Gamma
from .heavy_tailed import Cauchy, FisherSnedecor, StudentT
from .independent import Independent
from .kl import kl_divergence, register_kl
from .lkj_cholesky import LKJCholesky
from . import kl_extended  # noqa: F401  (registers its KL pairs)
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .multivariate_normal import MultivariateNormal
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .transformed import LogNormal, TransformedDistribution
from .von_mises import VonMises
from .wishart import Wishart
from .transformed_families import (Gumbel, HalfCauchy, HalfNormal, InverseGamma, Kumaraswamy,
                                   LogisticNormal, Pareto, Weibull)
from . import transforms
from .transforms import (AbsTransform, AffineTransform, CatTransform, ComposeTransform,
                         CorrCholeskyTransform, CumulativeDistributionTransform, ExpTransform,
                         IndependentTransform, LowerCholeskyTransform,
                         PositiveDefiniteTransform, PowerTransform, ReshapeTransform,
                         SigmoidTransform, SoftmaxTransform, SoftplusTransform, StackTransform,
                         StickBreakingTransform, TanhTransform, Transform, identity_transform)

__all__ = ["constraints", "transforms", "Distribution", "Bernoulli", "Beta", "Binomial",
           "Categorical", "Cauchy", "Chi2", "ContinuousBernoulli", "Dirichlet", "Exponential",
           "ExponentialFamily", "FisherSnedecor", "Gamma", "GeneralizedPareto", "Geometric",
           "Gumbel", "HalfCauchy", "HalfNormal", "Independent", "InverseGamma", "Kumaraswamy",
           "LKJCholesky", "Laplace", "LogNormal", "LogisticNormal", "LowRankMultivariateNormal",
           "MixtureSameFamily", "Multinomial", "MultivariateNormal", "NegativeBinomial",
           "Normal", "OneHotCategorical", "OneHotCategoricalStraightThrough", "Pareto",
           "Poisson", "RelaxedBernoulli", "RelaxedOneHotCategorical", "StudentT",
           "TransformedDistribution", "Uniform", "VonMises", "Weibull", "Wishart",
           "biject_to", "kl_divergence", "register_kl", "transform_to", *transforms.__all__]

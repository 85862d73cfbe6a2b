"""validate_args: invalid parameters and values raise torch's ValueErrors with torch's
messages; validate_args=False and Distribution.set_default_validate_args turn it off."""
import numpy as np
import pytest

import minflow
from minflow.distributions import Distribution

torch = pytest.importorskip("torch")


def _message(lib, make):
    with pytest.raises(ValueError) as info:
        make(lib.distributions, lib)
    return str(info.value).replace("torch", "LIB").replace("minflow", "LIB")


# make(D, lib) -> raises ValueError
BAD = {
    "normal/scale": lambda D, lib: D.Normal(0.0, -1.0),
    "normal/nan_loc": lambda D, lib: D.Normal(lib.tensor([float("nan"), 0.0]), 1.0),
    "laplace/scale": lambda D, lib: D.Laplace(lib.zeros(2), lib.tensor([1.0, 0.0])),
    "uniform/order": lambda D, lib: D.Uniform(1.0, 0.0),
    "exponential/rate": lambda D, lib: D.Exponential(lib.tensor([-2.0])),
    "gamma/concentration": lambda D, lib: D.Gamma(lib.tensor([-1.0]), 1.0),
    "beta/concentration": lambda D, lib: D.Beta(lib.tensor([0.0]), lib.tensor([1.0])),
    "dirichlet/concentration": lambda D, lib: D.Dirichlet(lib.tensor([1.0, -1.0])),
    "dirichlet/dims": lambda D, lib: D.Dirichlet(lib.tensor(1.0)),
    "bernoulli/probs": lambda D, lib: D.Bernoulli(probs=lib.tensor([1.5])),
    "bernoulli/both": lambda D, lib: D.Bernoulli(probs=0.5, logits=0.0),
    "geometric/zero": lambda D, lib: D.Geometric(probs=lib.tensor([0.0, 0.5])),
    "binomial/count": lambda D, lib: D.Binomial(lib.tensor([-1.0]), probs=lib.tensor([0.5])),
    "poisson/rate": lambda D, lib: D.Poisson(lib.tensor([-1.0])),
    "categorical/probs": lambda D, lib: D.Categorical(probs=lib.tensor([-0.5, 1.5])),
    "categorical/dims": lambda D, lib: D.Categorical(logits=lib.tensor(0.0)),
    "mvn/none": lambda D, lib: D.MultivariateNormal(lib.zeros(2)),
    "mvn/loc_dims": lambda D, lib: D.MultivariateNormal(lib.tensor(0.0), lib.eye(1)),
    "mvn/not_pd": lambda D, lib: D.MultivariateNormal(
        lib.zeros(2), lib.tensor([[1.0, 2.0], [2.0, 1.0]])),
    "mvn/tril": lambda D, lib: D.MultivariateNormal(
        lib.zeros(2), scale_tril=lib.tensor([[1.0, 1.0], [0.0, 1.0]])),
    "independent/ndims": lambda D, lib: D.Independent(D.Normal(lib.zeros(2), 1.0), 2),
    "lognormal/scale": lambda D, lib: D.LogNormal(0.0, -1.0),
    "mixture/components": lambda D, lib: D.MixtureSameFamily(
        D.Categorical(logits=lib.zeros(2)), D.Normal(lib.zeros(3), 1.0)),
    "mixture/batch": lambda D, lib: D.MixtureSameFamily(
        D.Categorical(logits=lib.zeros(2, 3)), D.Normal(lib.zeros(4, 3), 1.0)),
    "mixture/not_categorical": lambda D, lib: D.MixtureSameFamily(
        D.Normal(0.0, 1.0), D.Normal(lib.zeros(3), 1.0)),
    "transformed/not_transform": lambda D, lib: D.TransformedDistribution(
        D.Normal(0.0, 1.0), [1]),
    "gumbel/scale": lambda D, lib: D.Gumbel(lib.zeros(2), lib.tensor([1.0, -1.0])),
    "halfnormal/scale": lambda D, lib: D.HalfNormal(lib.tensor([0.0])),
    "cauchy/scale": lambda D, lib: D.Cauchy(0.0, -2.0),
    "halfcauchy/scale": lambda D, lib: D.HalfCauchy(lib.tensor([-1.0])),
    "studentt/df": lambda D, lib: D.StudentT(lib.tensor([0.0, 2.0])),
    "studentt/scale": lambda D, lib: D.StudentT(3.0, 0.0, lib.tensor([-1.0])),
    "chi2/df": lambda D, lib: D.Chi2(lib.tensor([-3.0])),
    "weibull/concentration": lambda D, lib: D.Weibull(lib.ones(2), lib.tensor([1.0, 0.0])),
    "pareto/alpha": lambda D, lib: D.Pareto(lib.ones(1), lib.tensor([-1.0])),
    "kumaraswamy/c0": lambda D, lib: D.Kumaraswamy(lib.ones(1), lib.tensor([0.0])),
    "inversegamma/rate": lambda D, lib: D.InverseGamma(lib.ones(1), lib.tensor([-1.0])),
    "logisticnormal/scale": lambda D, lib: D.LogisticNormal(lib.zeros(2), lib.tensor([1.0, 0.0])),
    "multinomial/probs": lambda D, lib: D.Multinomial(3, probs=lib.tensor([-0.5, 1.5])),
    "negativebinomial/probs": lambda D, lib: D.NegativeBinomial(2.0, probs=lib.tensor([1.0])),
    "negativebinomial/count": lambda D, lib: D.NegativeBinomial(lib.tensor([-1.0]),
                                                                 probs=lib.tensor([0.5])),
    "onehot_st/both": lambda D, lib: D.OneHotCategoricalStraightThrough(
        probs=lib.ones(2) / 2, logits=lib.zeros(2)),
    "vonmises/concentration": lambda D, lib: D.VonMises(lib.zeros(2), lib.tensor([1.0, -1.0])),
    "continuousbernoulli/probs": lambda D, lib: D.ContinuousBernoulli(
        probs=lib.tensor([1.5]), validate_args=True),
    "continuousbernoulli/both": lambda D, lib: D.ContinuousBernoulli(probs=0.5, logits=0.0),
    "lowrank/loc_dims": lambda D, lib: D.LowRankMultivariateNormal(
        lib.tensor(0.0), lib.ones(1, 1), lib.ones(1)),
    "lowrank/factor_dims": lambda D, lib: D.LowRankMultivariateNormal(
        lib.zeros(2), lib.ones(2), lib.ones(2)),
    "lowrank/factor_rows": lambda D, lib: D.LowRankMultivariateNormal(
        lib.zeros(2), lib.ones(3, 1), lib.ones(2)),
    "lowrank/diag_shape": lambda D, lib: D.LowRankMultivariateNormal(
        lib.zeros(2), lib.ones(2, 1), lib.ones(3)),
    "lowrank/batch": lambda D, lib: D.LowRankMultivariateNormal(
        lib.zeros(3, 2), lib.ones(4, 2, 1), lib.ones(2)),
    "lowrank/diag": lambda D, lib: D.LowRankMultivariateNormal(
        lib.zeros(2), lib.ones(2, 1), lib.tensor([1.0, -1.0])),
    "fishersnedecor/df2": lambda D, lib: D.FisherSnedecor(lib.ones(1), lib.tensor([0.0])),
    "generalizedpareto/scale": lambda D, lib: D.GeneralizedPareto(0.0, -1.0, 0.5),
    "generalizedpareto/nan": lambda D, lib: D.GeneralizedPareto(0.0, 1.0,
                                                                 lib.tensor([float("nan")])),
    "wishart/df": lambda D, lib: D.Wishart(lib.tensor([0.5]), covariance_matrix=lib.eye(2)),
    "wishart/df_number": lambda D, lib: D.Wishart(1, scale_tril=lib.eye(3)),
    "wishart/dims": lambda D, lib: D.Wishart(2.0, scale_tril=lib.ones(2)),
    "wishart/not_pd": lambda D, lib: D.Wishart(3.0, covariance_matrix=lib.tensor([[1.0, 2.0],
                                                                                 [2.0, 1.0]])),
    "wishart/tril": lambda D, lib: D.Wishart(3.0, scale_tril=lib.tensor([[1.0, 1.0],
                                                                       [0.0, 1.0]])),
    "lkj/dim": lambda D, lib: D.LKJCholesky(1),
    "lkj/concentration": lambda D, lib: D.LKJCholesky(2, lib.tensor([1.0, 0.0])),
    # values outside the support or of the wrong shape
    "value/generalizedpareto": lambda D, lib: D.GeneralizedPareto(
        lib.tensor([0.0]), lib.tensor([1.0]), lib.tensor([-0.5])).log_prob(lib.tensor([3.0])),
    "value/generalizedpareto_below": lambda D, lib: D.GeneralizedPareto(
        lib.tensor([1.0]), lib.tensor([1.0]), lib.tensor([0.5])).cdf(lib.tensor([0.0])),
    "value/wishart": lambda D, lib: D.Wishart(3.0, covariance_matrix=lib.eye(2)).log_prob(
        lib.tensor([[1.0, 2.0], [2.0, 1.0]])),
    "value/wishart_shape": lambda D, lib: D.Wishart(3.0, covariance_matrix=lib.eye(2)).log_prob(
        lib.eye(3)),
    "value/lkj": lambda D, lib: D.LKJCholesky(2).log_prob(lib.eye(2) * 2),
    "value/lkj_upper": lambda D, lib: D.LKJCholesky(2).log_prob(lib.tensor([[0.6, 0.8],
                                                                            [0.0, 1.0]])),
    "value/fishersnedecor": lambda D, lib: D.FisherSnedecor(2.0, 3.0).log_prob(
        lib.tensor(-1.0)),
    "value/continuousbernoulli": lambda D, lib: D.ContinuousBernoulli(
        probs=lib.tensor([0.3])).log_prob(lib.tensor([1.5])),
    "value/multinomial": lambda D, lib: D.Multinomial(3, probs=lib.ones(2) / 2).log_prob(
        lib.tensor([2.0, 2.0])),
    "value/negativebinomial": lambda D, lib: D.NegativeBinomial(
        2.0, probs=lib.tensor([0.5])).log_prob(lib.tensor([1.5])),
    "value/halfnormal": lambda D, lib: D.HalfNormal(lib.ones(2)).log_prob(lib.tensor([-1.0, 1.0])),
    "value/pareto": lambda D, lib: D.Pareto(lib.ones(2), lib.ones(2)).log_prob(
        lib.tensor([0.5, 2.0])),
    "value/kumaraswamy": lambda D, lib: D.Kumaraswamy(lib.ones(1), lib.ones(1)).log_prob(
        lib.tensor([1.5])),
    "value/logisticnormal": lambda D, lib: D.LogisticNormal(lib.zeros(2), lib.ones(2)).log_prob(
        lib.tensor([0.5, 0.5, 0.5])),
    "value/support": lambda D, lib: D.Exponential(lib.ones(2)).log_prob(lib.tensor([-1.0, 1.0])),
    "value/bernoulli": lambda D, lib: D.Bernoulli(probs=lib.ones(2) / 2).log_prob(
        lib.tensor([0.5, 1.0])),
    "value/categorical": lambda D, lib: D.Categorical(logits=lib.zeros(3)).log_prob(
        lib.tensor(3)),
    "value/simplex": lambda D, lib: D.Dirichlet(lib.ones(3)).log_prob(lib.ones(3)),
    "value/event_shape": lambda D, lib: D.MultivariateNormal(
        lib.zeros(2), lib.eye(2)).log_prob(lib.zeros(3)),
    "value/broadcast": lambda D, lib: D.Normal(lib.zeros(3), 1.0).log_prob(lib.zeros(2)),
    "value/not_tensor": lambda D, lib: D.Normal(0.0, 1.0).log_prob(0.5),
    "value/uniform": lambda D, lib: D.Uniform(0.0, 1.0).log_prob(lib.tensor(2.0)),
}


@pytest.mark.parametrize("key", sorted(BAD))
def test_errors_match_torch(key):
    assert _message(minflow, BAD[key]) == _message(torch, BAD[key])


def test_wishart_needs_exactly_one_matrix_as_torch():
    for lib in (minflow, torch):
        D = lib.distributions
        for matrices in ({}, {"covariance_matrix": lib.eye(2), "scale_tril": lib.eye(2)}):
            with pytest.raises(AssertionError, match="Exactly one of covariance_matrix or "
                                                     "precision_matrix or scale_tril"):
                D.Wishart(lib.tensor(3.0), **matrices)


def test_wishart_warns_of_low_df_as_torch():
    for lib in (minflow, torch):
        with pytest.warns(UserWarning, match="Low df values detected"):
            lib.distributions.Wishart(lib.tensor([1.5, 3.0]), covariance_matrix=lib.eye(2))


def test_continuous_bernoulli_clamps_bad_probs_unless_asked_to_validate_as_torch():
    for lib in (minflow, torch):
        d = lib.distributions.ContinuousBernoulli(probs=lib.tensor([1.5]))
        assert d.probs.item() == 1 - np.finfo(np.float32).eps


def test_multinomial_needs_one_total_count_as_torch():
    for lib in (minflow, torch):
        with pytest.raises(NotImplementedError, match="inhomogeneous total_count"):
            lib.distributions.Multinomial(lib.tensor([2, 3]), probs=lib.ones(2, 2) / 2)


def test_validate_args_false_skips_the_checks():
    d = minflow.distributions.Normal(0.0, -1.0, validate_args=False)
    assert d.scale.item() == -1.0
    e = minflow.distributions.Exponential(minflow.ones(1), validate_args=False)
    assert e.log_prob(minflow.tensor([-1.0])).item() == 1.0      # log 1 - 1 * (-1)


def test_set_default_validate_args():
    try:
        Distribution.set_default_validate_args(False)
        assert minflow.distributions.Normal(0.0, -1.0).scale.item() == -1.0
        with pytest.raises(ValueError):
            minflow.distributions.Normal(0.0, -1.0, validate_args=True)
    finally:
        Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        minflow.distributions.Normal(0.0, -1.0)
    with pytest.raises(ValueError, match="expected True or False"):
        Distribution.set_default_validate_args(1.5)


def test_expand_keeps_validation_and_checks_its_shape():
    d = minflow.distributions.Normal(minflow.zeros(3), 1.0).expand((2, 3))
    with pytest.raises(ValueError, match="broadcastable"):
        d.log_prob(minflow.zeros(4))
    with pytest.raises(TypeError, match="expand: expected a tuple of ints"):
        d.expand(3)
    with pytest.raises(RuntimeError):
        d.expand((4,))


def test_abstract_methods_raise_not_implemented():
    d = Distribution(validate_args=False)
    for call in (lambda: d.mean, lambda: d.variance, lambda: d.entropy(), lambda: d.sample(),
                 lambda: d.log_prob(minflow.zeros(1)), lambda: d.cdf(minflow.zeros(1))):
        with pytest.raises(NotImplementedError):
            call()
    with pytest.raises(NotImplementedError, match="does not implement mode"):
        d.mode

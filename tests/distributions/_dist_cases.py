"""Distribution cases shared by the distribution tests: each builds the same
distribution in minflow and in torch from float64 parameters, with values in its support
to score.

A case is ``Case(make, params, values)``: ``make(D, **params)`` builds it from module
``D`` (minflow.distributions or torch.distributions); ``params`` maps names to numpy
arrays (grads are taken w.r.t. the float ones) or to plain numbers; ``values`` is an
array of points in the support, broadcastable with batch_shape + event_shape;
``heavy_tails=True`` marks a case whose samples are compared by quantiles rather than by
mean and variance (moments that are infinite, or too noisy to estimate);
``constant_rsample=True`` one whose rsample does not depend on the parameters somewhere;
``torch_sampler_differs=True`` one whose samples follow the density where torch's do not
(their moments are checked against the exact ones instead);
``symmetric=names``: parameters that are symmetric matrices, whose gradients are compared
by their symmetric parts where the two sides reach them by different paths.

torch's GeneralizedPareto compares its concentration with torch.tensor(0.0), which fails
for float64 parameters unless float64 is torch's default dtype: conftest.py makes it the
default of both libraries for the cases marked ``torch_float64_default=True``.
"""
import numpy as np

RNG = np.random.default_rng(0)


def uniform(low, high, *shape):
    return RNG.uniform(low, high, shape)


def simplex(*shape):
    x = RNG.uniform(0.2, 1.0, shape)
    return x / x.sum(-1, keepdims=True)


def spd(*shape):
    """Symmetric positive definite matrices of shape (..., n, n)."""
    a = RNG.normal(size=shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def lower_cholesky(*shape):
    return np.linalg.cholesky(spd(*shape))


def corr_cholesky(*shape):
    """Cholesky factors of random correlation matrices of shape (..., n, n)."""
    cov = spd(*shape)
    std = np.sqrt(np.diagonal(cov, axis1=-2, axis2=-1))
    return np.linalg.cholesky(cov / (std[..., :, None] * std[..., None, :]))


def generalized_pareto(concentration, **kwargs):
    """A GeneralizedPareto case whose values lie inside each column's support."""
    loc, scale = uniform(-1, 1, 3), uniform(0.5, 2, 3)
    width = np.where(concentration < 0, -scale / np.where(concentration < 0, concentration, 1),
                     3.0)
    values = loc + width * uniform(0.02, 0.98, 2, 3)
    return Case(lambda D, loc, scale, concentration: D.GeneralizedPareto(loc, scale,
                                                                         concentration),
                {"loc": loc, "scale": scale, "concentration": concentration}, values,
                torch_float64_default=True, **kwargs)


class Case:
    def __init__(self, make, params, values, **kwargs):
        self.make, self.params, self.values, self.kwargs = make, params, values, kwargs


def _affine_sigmoid(D, loc, scale):
    T = D.transforms
    return D.TransformedDistribution(
        D.Normal(loc, scale), [T.AffineTransform(0.5, 2.0), T.SigmoidTransform()])


def _tanh_affine(D, loc, scale):
    T = D.transforms
    return D.TransformedDistribution(
        D.Laplace(loc, scale), T.ComposeTransform([T.TanhTransform(),
                                                   T.AffineTransform(loc, scale + 1.0)]))


CASES = {
    "Normal": Case(lambda D, loc, scale: D.Normal(loc, scale),
                   {"loc": uniform(-1, 1, 3), "scale": uniform(0.5, 2, 3)},
                   uniform(-2, 2, 2, 3)),
    "Normal/scalar": Case(lambda D, loc, scale: D.Normal(loc, scale),
                          {"loc": 0.5, "scale": 2.0}, uniform(-2, 2, 4)),
    "Normal/broadcast": Case(lambda D, loc, scale: D.Normal(loc, scale),
                             {"loc": uniform(-1, 1, 2, 1), "scale": uniform(0.5, 2, 3)},
                             uniform(-2, 2, 2, 3)),
    "Laplace": Case(lambda D, loc, scale: D.Laplace(loc, scale),
                    {"loc": uniform(-1, 1, 3), "scale": uniform(0.5, 2, 3)},
                    uniform(-2, 2, 2, 3)),
    "Uniform": Case(lambda D, low, high: D.Uniform(low, high),
                    {"low": uniform(-2, -1, 3), "high": uniform(1, 2, 3)},
                    uniform(-0.9, 0.9, 2, 3)),
    "Exponential": Case(lambda D, rate: D.Exponential(rate), {"rate": uniform(0.5, 2, 3)},
                        uniform(0.1, 3, 2, 3)),
    "Gamma": Case(lambda D, concentration, rate: D.Gamma(concentration, rate),
                  {"concentration": uniform(0.5, 3, 3), "rate": uniform(0.5, 2, 3)},
                  uniform(0.1, 3, 2, 3)),
    "Beta": Case(lambda D, c1, c0: D.Beta(c1, c0),
                 {"c1": uniform(0.5, 3, 3), "c0": uniform(0.5, 3, 3)},
                 uniform(0.05, 0.95, 2, 3)),
    "Dirichlet": Case(lambda D, concentration: D.Dirichlet(concentration),
                      {"concentration": uniform(0.5, 3, 2, 4)}, simplex(3, 2, 4)),
    "Bernoulli/probs": Case(lambda D, probs: D.Bernoulli(probs=probs),
                            {"probs": uniform(0.1, 0.9, 3)},
                            RNG.integers(0, 2, (2, 3)).astype(float)),
    "Bernoulli/logits": Case(lambda D, logits: D.Bernoulli(logits=logits),
                             {"logits": uniform(-2, 2, 3)},
                             RNG.integers(0, 2, (2, 3)).astype(float)),
    "Geometric/probs": Case(lambda D, probs: D.Geometric(probs=probs),
                            {"probs": uniform(0.1, 0.9, 3)},
                            RNG.integers(0, 5, (2, 3)).astype(float)),
    "Geometric/logits": Case(lambda D, logits: D.Geometric(logits=logits),
                             {"logits": uniform(-2, 2, 3)},
                             RNG.integers(0, 5, (2, 3)).astype(float)),
    "Binomial/probs": Case(lambda D, probs: D.Binomial(5, probs=probs),
                           {"probs": uniform(0.1, 0.9, 3)},
                           RNG.integers(0, 6, (2, 3)).astype(float)),
    "Binomial/logits": Case(lambda D, logits, total_count: D.Binomial(total_count,
                                                                      logits=logits),
                            {"logits": uniform(-2, 2, 3), "total_count": np.array([4.0])},
                            RNG.integers(0, 5, (2, 3)).astype(float)),
    "Poisson": Case(lambda D, rate: D.Poisson(rate), {"rate": uniform(0.5, 4, 3)},
                    RNG.integers(0, 6, (2, 3)).astype(float)),
    "Categorical/probs": Case(lambda D, probs: D.Categorical(probs=probs),
                              {"probs": uniform(0.1, 1, 3, 4)},
                              RNG.integers(0, 4, (2, 3)), int_values=True),
    "Categorical/logits": Case(lambda D, logits: D.Categorical(logits=logits),
                               {"logits": uniform(-2, 2, 3, 4)},
                               RNG.integers(0, 4, (2, 3)), int_values=True),
    "OneHotCategorical": Case(lambda D, logits: D.OneHotCategorical(logits=logits),
                              {"logits": uniform(-2, 2, 3, 4)},
                              np.eye(4)[RNG.integers(0, 4, (2, 3))]),
    "LogNormal": Case(lambda D, loc, scale: D.LogNormal(loc, scale),
                      {"loc": uniform(-1, 1, 3), "scale": uniform(0.2, 0.6, 3)},
                      uniform(0.1, 3, 2, 3)),
    "Independent": Case(lambda D, loc, scale: D.Independent(D.Normal(loc, scale), 1),
                        {"loc": uniform(-1, 1, 2, 3), "scale": uniform(0.5, 2, 2, 3)},
                        uniform(-2, 2, 4, 2, 3)),
    "MultivariateNormal/covariance": Case(
        lambda D, loc, cov: D.MultivariateNormal(loc, covariance_matrix=cov),
        {"loc": uniform(-1, 1, 2, 3), "cov": spd(3, 3)}, uniform(-2, 2, 4, 2, 3)),
    "MultivariateNormal/precision": Case(
        lambda D, loc, prec: D.MultivariateNormal(loc, precision_matrix=prec),
        {"loc": uniform(-1, 1, 3), "prec": spd(2, 3, 3)}, uniform(-2, 2, 4, 2, 3)),
    "MultivariateNormal/scale_tril": Case(
        lambda D, loc, tril: D.MultivariateNormal(loc, scale_tril=tril),
        {"loc": uniform(-1, 1, 2, 3), "tril": lower_cholesky(2, 3, 3)},
        uniform(-2, 2, 4, 2, 3)),
    "TransformedDistribution/affine_sigmoid": Case(
        _affine_sigmoid, {"loc": uniform(-1, 1, 3), "scale": uniform(0.5, 2, 3)},
        uniform(0.1, 0.9, 2, 3)),
    "TransformedDistribution/tanh_affine": Case(
        _tanh_affine, {"loc": uniform(-1, 1, 3), "scale": uniform(0.5, 1, 3)},
        uniform(-0.4, 0.4, 2, 3)),
    "MixtureSameFamily/normal": Case(
        lambda D, logits, loc, scale: D.MixtureSameFamily(D.Categorical(logits=logits),
                                                          D.Normal(loc, scale)),
        {"logits": uniform(-1, 1, 3, 4), "loc": uniform(-2, 2, 3, 4),
         "scale": uniform(0.5, 1.5, 3, 4)}, uniform(-2, 2, 2, 3)),
    "MixtureSameFamily/mvn": Case(
        lambda D, logits, loc, tril: D.MixtureSameFamily(
            D.Categorical(logits=logits), D.MultivariateNormal(loc, scale_tril=tril)),
        {"logits": uniform(-1, 1, 2), "loc": uniform(-2, 2, 2, 3),
         "tril": lower_cholesky(2, 3, 3)}, uniform(-2, 2, 4, 3)),
    "MixtureSameFamily/gamma_batch": Case(
        lambda D, logits, concentration, rate: D.MixtureSameFamily(
            D.Categorical(logits=logits), D.Gamma(concentration, rate)),
        {"logits": uniform(-1, 1, 2, 3), "concentration": uniform(1, 3, 2, 3),
         "rate": uniform(0.5, 2, 2, 3)}, uniform(0.1, 3, 5, 2)),
    "LogitRelaxedBernoulli": Case(
        lambda D, temperature, probs: D.relaxed_bernoulli.LogitRelaxedBernoulli(
            temperature, probs=probs),
        {"temperature": np.array(0.7), "probs": uniform(0.1, 0.9, 3)}, uniform(-2, 2, 2, 3)),
    "RelaxedBernoulli": Case(
        lambda D, temperature, logits: D.RelaxedBernoulli(temperature, logits=logits),
        {"temperature": np.array(0.7), "logits": uniform(-2, 2, 3)},
        uniform(0.05, 0.95, 2, 3)),
    "ExpRelaxedCategorical": Case(
        lambda D, temperature, logits: D.relaxed_categorical.ExpRelaxedCategorical(
            temperature, logits=logits),
        {"temperature": np.array(0.7), "logits": uniform(-2, 2, 3, 4)},
        np.log(simplex(2, 3, 4))),
    "Gumbel": Case(lambda D, loc, scale: D.Gumbel(loc, scale),
                   {"loc": uniform(-1, 1, 3), "scale": uniform(0.5, 2, 3)},
                   uniform(-2, 3, 2, 3)),
    "Gumbel/scalar": Case(lambda D, loc, scale: D.Gumbel(loc, scale),
                          {"loc": 0.5, "scale": 2.0}, uniform(-2, 3, 4)),
    "HalfNormal": Case(lambda D, scale: D.HalfNormal(scale), {"scale": uniform(0.5, 2, 3)},
                       uniform(0.1, 3, 2, 3)),
    "HalfNormal/scalar": Case(lambda D, scale: D.HalfNormal(scale), {"scale": 1.5},
                              uniform(0.1, 3, 4)),
    "Cauchy": Case(lambda D, loc, scale: D.Cauchy(loc, scale),
                   {"loc": uniform(-1, 1, 3), "scale": uniform(0.5, 2, 3)},
                   uniform(-3, 3, 2, 3), heavy_tails=True),
    "HalfCauchy": Case(lambda D, scale: D.HalfCauchy(scale), {"scale": uniform(0.5, 2, 3)},
                       uniform(0.1, 3, 2, 3), heavy_tails=True),
    "StudentT": Case(lambda D, df, loc, scale: D.StudentT(df, loc, scale),
                     {"df": np.array([0.8, 1.5, 4.0]), "loc": uniform(-1, 1, 3),
                      "scale": uniform(0.5, 2, 3)}, uniform(-3, 3, 2, 3), heavy_tails=True),
    "StudentT/df_only": Case(lambda D, df: D.StudentT(df), {"df": uniform(3, 6, 2, 1)},
                             uniform(-3, 3, 2, 3), heavy_tails=True),
    "Chi2": Case(lambda D, df: D.Chi2(df), {"df": uniform(0.5, 5, 3)}, uniform(0.1, 4, 2, 3)),
    "Weibull": Case(lambda D, scale, concentration: D.Weibull(scale, concentration),
                    {"scale": uniform(0.5, 2, 3), "concentration": np.array([0.8, 1.5, 3.0])},
                    uniform(0.1, 3, 2, 3)),
    "Pareto": Case(lambda D, scale, alpha: D.Pareto(scale, alpha),
                   {"scale": uniform(0.5, 1, 3), "alpha": np.array([0.8, 1.5, 3.0])},
                   uniform(1.1, 3, 2, 3), heavy_tails=True),
    "Kumaraswamy": Case(lambda D, c1, c0: D.Kumaraswamy(c1, c0),
                        {"c1": np.array([0.7, 2.0, 3.0]), "c0": uniform(0.5, 3, 3)},
                        uniform(0.05, 0.95, 2, 3)),
    "InverseGamma": Case(lambda D, concentration, rate: D.InverseGamma(concentration, rate),
                         {"concentration": np.array([0.8, 1.5, 3.5]),
                          "rate": uniform(0.5, 2, 3)}, uniform(0.1, 3, 2, 3), heavy_tails=True),
    "LogisticNormal": Case(lambda D, loc, scale: D.LogisticNormal(loc, scale),
                           {"loc": uniform(-1, 1, 2, 3), "scale": uniform(0.5, 1.5, 2, 3)},
                           simplex(3, 2, 4)),
    "Multinomial/probs": Case(lambda D, probs: D.Multinomial(6, probs=probs),
                              {"probs": uniform(0.1, 1, 3, 4)},
                              RNG.multinomial(6, [0.25] * 4, (2, 3)).astype(float)),
    "Multinomial/logits": Case(lambda D, logits: D.Multinomial(5, logits=logits),
                               {"logits": uniform(-2, 2, 4)},
                               RNG.multinomial(5, [0.25] * 4, (2, 3)).astype(float)),
    "NegativeBinomial/probs": Case(
        lambda D, total_count, probs: D.NegativeBinomial(total_count, probs=probs),
        {"total_count": uniform(0.5, 5, 3), "probs": uniform(0.1, 0.8, 3)},
        RNG.integers(0, 8, (2, 3)).astype(float)),
    "NegativeBinomial/logits": Case(
        lambda D, logits: D.NegativeBinomial(3.0, logits=logits),
        {"logits": uniform(-2, 1, 3)}, RNG.integers(0, 8, (2, 3)).astype(float)),
    "OneHotCategoricalStraightThrough": Case(
        lambda D, probs: D.OneHotCategoricalStraightThrough(probs=probs),
        {"probs": simplex(3, 4)}, np.eye(4)[RNG.integers(0, 4, (2, 3))]),
    "VonMises": Case(lambda D, loc, concentration: D.VonMises(loc, concentration),
                     {"loc": uniform(-2, 2, 3), "concentration": np.array([0.5, 2.0, 6.0])},
                     uniform(-3, 3, 2, 3)),
    "ContinuousBernoulli/probs": Case(lambda D, probs: D.ContinuousBernoulli(probs=probs),
                                      {"probs": np.array([0.2, 0.35, 0.8])},
                                      uniform(0.05, 0.95, 2, 3)),
    # probs in the unstable region (0.499, 0.501]: Taylor branches; rsample there is the
    # uniform draw itself, so its pathwise gradient is not the mean's (torch's neither)
    "ContinuousBernoulli/near_half": Case(
        lambda D, probs: D.ContinuousBernoulli(probs=probs),
        {"probs": np.array([0.4995, 0.5003, 0.7])}, uniform(0.05, 0.95, 2, 3),
        constant_rsample=True),
    "ContinuousBernoulli/logits": Case(lambda D, logits: D.ContinuousBernoulli(logits=logits),
                                       {"logits": uniform(-2, 2, 3)},
                                       uniform(0.05, 0.95, 2, 3)),
    "LowRankMultivariateNormal": Case(
        lambda D, loc, factor, diag: D.LowRankMultivariateNormal(loc, factor, diag),
        {"loc": uniform(-1, 1, 2, 3), "factor": uniform(-1, 1, 3, 2),
         "diag": uniform(0.5, 2, 2, 3)}, uniform(-2, 2, 4, 2, 3)),
    "LowRankMultivariateNormal/batched_factor": Case(
        lambda D, loc, factor, diag: D.LowRankMultivariateNormal(loc, factor, diag),
        {"loc": uniform(-1, 1, 3), "factor": uniform(-1, 1, 2, 3, 1),
         "diag": uniform(0.5, 2, 3)}, uniform(-2, 2, 4, 2, 3)),
    "FisherSnedecor": Case(lambda D, df1, df2: D.FisherSnedecor(df1, df2),
                           {"df1": np.array([1.5, 3.0, 8.0]), "df2": np.array([1.5, 3.0, 10.0])},
                           uniform(0.1, 3, 2, 3), heavy_tails=True),
    "FisherSnedecor/scalar": Case(lambda D, df1, df2: D.FisherSnedecor(df1, df2),
                                  {"df1": 5.0, "df2": 12.0}, uniform(0.1, 3, 4)),
    "RelaxedOneHotCategorical": Case(
        lambda D, temperature, probs: D.RelaxedOneHotCategorical(temperature, probs=probs),
        {"temperature": np.array(1.3), "probs": simplex(3, 4)}, simplex(2, 3, 4)),
    "GeneralizedPareto": generalized_pareto(np.array([-0.4, 0.1, 0.2])),
    "GeneralizedPareto/heavy": generalized_pareto(np.array([0.3, 0.8, 1.5]), heavy_tails=True),
    # concentration 0 (the exponential limit) and -1 (uniform on [loc, loc + scale]); at
    # 0 the sample does not depend on the concentration, the mean does (torch's neither)
    "GeneralizedPareto/zero": generalized_pareto(np.array([0.0, -1.0, 0.0]),
                                                 constant_rsample=True),
    "GeneralizedPareto/scalar": Case(lambda D, loc, scale, c: D.GeneralizedPareto(loc, scale, c),
                                     {"loc": 0.5, "scale": 2.0, "c": 0.25}, uniform(0.6, 5, 4)),
    "Wishart/covariance": Case(lambda D, df, cov: D.Wishart(df, covariance_matrix=cov),
                               {"df": np.array([3.5, 6.0]), "cov": spd(3, 3)},
                               spd(4, 2, 3, 3), symmetric=("cov",)),
    "Wishart/precision": Case(lambda D, df, prec: D.Wishart(df, precision_matrix=prec),
                              {"df": np.array(4.0), "prec": spd(2, 3, 3)}, spd(2, 3, 3)),
    # (a number df with batched matrices: torch leaves df unexpanded and fails in mean)
    "Wishart/scale_tril": Case(lambda D, df, tril: D.Wishart(df, scale_tril=tril),
                               {"df": 5.0, "tril": lower_cholesky(2, 2)}, spd(3, 2, 2)),
    "Wishart/batched_tril": Case(lambda D, df, tril: D.Wishart(df, scale_tril=tril),
                                 {"df": uniform(2, 4, 3, 1), "tril": lower_cholesky(2, 2, 2)},
                                 spd(2, 3, 2, 2, 2)),
    # (dim >= 3: torch's onion sampler is off the LKJ density, see LKJCholesky._onion_beta)
    "LKJCholesky": Case(lambda D, concentration: D.LKJCholesky(3, concentration),
                        {"concentration": np.array([0.5, 1.0, 3.0])},
                        corr_cholesky(2, 3, 3, 3), torch_sampler_differs=True),
    "LKJCholesky/scalar": Case(lambda D, concentration: D.LKJCholesky(4, concentration),
                               {"concentration": 2.0}, corr_cholesky(2, 4, 4),
                               torch_sampler_differs=True),
    "LKJCholesky/2x2": Case(lambda D, concentration: D.LKJCholesky(2, concentration),
                            {"concentration": np.array([[0.3], [1.0], [4.0]])},
                            corr_cholesky(3, 2, 2)),
}


def build(lib, key, requires_grad=True):
    """(distribution, {name: leaf tensor}) of case ``key`` in lib (minflow or torch)."""
    case = CASES[key]
    leaves, args = {}, {}
    for name, value in case.params.items():
        if isinstance(value, np.ndarray):
            args[name] = leaves[name] = lib.tensor(value, dtype=lib.float64,
                                                   requires_grad=requires_grad)
        else:
            args[name] = value
    return case.make(lib.distributions, **args), leaves


def values(lib, key):
    case = CASES[key]
    if case.kwargs.get("int_values"):
        return lib.tensor(case.values, dtype=lib.int64)
    return lib.tensor(case.values, dtype=lib.float64)

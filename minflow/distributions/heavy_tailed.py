"""Heavy-tailed families: Cauchy, StudentT and FisherSnedecor (whose moments exist only
for enough degrees of freedom: torch's nan and inf where they do not)."""
import math
import numbers

from ..core.namespace import F
from ..core.tensor import Size
from . import constraints
from .continuous import _LocationScale
from .distribution import Distribution
from .gamma import Chi2, Gamma
from .utils import as_size, broadcast_all, standard_normal, standard_uniform, tiny_of

__all__ = ["Cauchy", "StudentT", "FisherSnedecor"]


class Cauchy(_LocationScale):
    """Cauchy(loc, scale): density 1 / (pi scale (1 + ((x - loc) / scale)^2)); no mean
    (nan) and infinite variance.

    >>> d = minflow.distributions.Cauchy(0.0, 1.0)
    >>> round(d.log_prob(minflow.tensor(1.0)).item(), 4), d.cdf(minflow.tensor(1.0)).item()
    (-1.8379, 0.75)
    """

    @property
    def mean(self):
        return F.full(tuple(self._extended_shape()), math.nan, dtype=self.loc.dtype,
                      device=self.loc.device)

    @property
    def variance(self):
        return F.full(tuple(self._extended_shape()), math.inf, dtype=self.loc.dtype,
                      device=self.loc.device)

    def rsample(self, sample_shape=Size(())):
        shape = self._extended_shape(sample_shape)
        noise = F.tan(math.pi * (standard_uniform(shape, self.loc) - 0.5))
        return self.loc + noise * self.scale

    def log_prob(self, value):
        self._check_value(value)
        return (-math.log(math.pi) - self.scale.log()
                - (((value - self.loc) / self.scale) ** 2).log1p())

    def cdf(self, value):
        self._check_value(value)
        return F.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return F.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()


class StudentT(Distribution):
    """StudentT(df, loc=0.0, scale=1.0): loc + scale * X / sqrt(Z / df) for X ~ N(0, 1)
    and Z ~ Chi2(df).

    log p(x) = -(df + 1)/2 log(1 + y^2 / df) - log(scale sqrt(df pi) B(df/2, 1/2)),
    y = (x - loc) / scale

    >>> d = minflow.distributions.StudentT(minflow.tensor([3.0]))
    >>> round(d.log_prob(minflow.tensor([0.0])).item(), 4), d.variance.tolist()
    (-1.0009, [3.0])
    """

    arg_constraints = {"df": constraints.positive, "loc": constraints.real,
                       "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(StudentT, batch_shape, _instance,
                             {"df": (), "loc": (), "scale": ()})
        new._chi2 = self._chi2.expand(as_size(batch_shape, "expand"))
        return new

    @property
    def mean(self):
        return F.where(self.df <= 1, math.nan, self.loc)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        df = self.df
        # the finite branch on a safe df, so its unused grads stay finite
        safe_df = F.where(df > 2, df, 3.0)
        finite = self.scale.pow(2) * safe_df / (safe_df - 2)
        return F.where(df > 2, finite, F.where(df > 1, math.inf, math.nan))

    def rsample(self, sample_shape=Size(())):
        shape = self._extended_shape(sample_shape)
        noise = standard_normal(shape, self.df)
        chi2 = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * noise * F.rsqrt(chi2 / self.df)

    def log_prob(self, value):
        self._check_value(value)
        y = (value - self.loc) / self.scale
        log_norm = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi)
                    + F.lgamma(0.5 * self.df) - F.lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * F.log1p(y ** 2.0 / self.df) - log_norm

    def entropy(self):
        lbeta = F.lgamma(0.5 * self.df) + math.lgamma(0.5) - F.lgamma(0.5 * (self.df + 1))
        return (self.scale.log()
                + 0.5 * (self.df + 1) * (F.digamma(0.5 * (self.df + 1))
                                         - F.digamma(0.5 * self.df))
                + 0.5 * self.df.log() + lbeta)


class FisherSnedecor(Distribution):
    """FisherSnedecor(df1, df2): the F distribution, (X1 / df1) / (X2 / df2) for
    X1 ~ Chi2(df1) and X2 ~ Chi2(df2).

    >>> d = minflow.distributions.FisherSnedecor(minflow.tensor([4.0]), minflow.tensor([6.0]))
    >>> d.mean.tolist(), round(d.log_prob(minflow.tensor([1.0])).item(), 4)
    ([1.5], -0.8802)
    """

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        self.df1, self.df2 = broadcast_all(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        scalar = isinstance(df1, numbers.Number) and isinstance(df2, numbers.Number)
        super().__init__(Size(()) if scalar else self.df1.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(FisherSnedecor, batch_shape, _instance, {"df1": (), "df2": ()})
        new._gamma1 = self._gamma1.expand(as_size(batch_shape, "expand"))
        new._gamma2 = self._gamma2.expand(as_size(batch_shape, "expand"))
        return new

    @property
    def mean(self):
        df2 = F.where(self.df2 <= 2, math.nan, self.df2)
        return df2 / (df2 - 2)

    @property
    def mode(self):
        mode = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        return F.where(self.df1 <= 2, math.nan, mode)

    @property
    def variance(self):
        df2 = F.where(self.df2 <= 4, math.nan, self.df2)
        return (2 * df2.pow(2) * (self.df1 + df2 - 2)
                / (self.df1 * (df2 - 2).pow(2) * (df2 - 4)))

    def rsample(self, sample_shape=Size(())):
        shape = tuple(self._extended_shape(sample_shape))
        x1 = self._gamma1.rsample(sample_shape).reshape(shape)
        x2 = self._gamma2.rsample(sample_shape).reshape(shape)
        tiny = tiny_of(x2.dtype)
        return (x1 / x2.clamp(min=tiny)).clamp(min=tiny)

    def log_prob(self, value):
        self._check_value(value)
        ct1, ct2, ct3 = self.df1 * 0.5, self.df2 * 0.5, self.df1 / self.df2
        t1 = (ct1 + ct2).lgamma() - ct1.lgamma() - ct2.lgamma()
        t2 = ct1 * ct3.log() + (ct1 - 1) * F.log(value)
        t3 = (ct1 + ct2) * F.log1p(ct3 * value)
        return t1 + t2 - t3

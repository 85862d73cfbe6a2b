"""VonMises: the circular normal distribution over angles, as torch's (log-Bessel
normalizer from the same polynomial approximations, Best-Fisher rejection sampler)."""
import math

from ..core import dtype as dtypes
from ..core.grad_mode import no_grad
from ..core.namespace import F
from ..core.tensor import Size
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property, standard_uniform

__all__ = ["VonMises"]

# Abramowitz & Stegun 9.8.1-9.8.4: I0 and I1 below 3.75 in (x / 3.75)^2, above in 3.75 / x
_COEF_SMALL = [[1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2],
               [0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2,
                0.32411e-3]]
_COEF_LARGE = [[0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2,
                -0.2057706e-1, 0.2635537e-1, -0.1647633e-1, 0.392377e-2],
               [0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1,
                0.2282967e-1, -0.2895312e-1, 0.1787654e-1, -0.420059e-2]]


def _eval_poly(y, coef):
    """coef[0] + y (coef[1] + y (...)), by Horner's rule."""
    result = coef[-1]
    for c in reversed(coef[:-1]):
        result = c + y * result
    return result


def _log_modified_bessel_fn(x, order=0):
    """log I_order(x) for x > 0 and order 0 or 1.

    >>> from minflow.distributions.von_mises import _log_modified_bessel_fn
    >>> round(_log_modified_bessel_fn(minflow.tensor([1.0])).item(), 4)   # log I0(1)
    0.2359
    """
    if order not in (0, 1):
        raise ValueError(f"_log_modified_bessel_fn: expected order 0 or 1, got {order!r}")
    y = (x / 3.75) ** 2
    small = _eval_poly(y, _COEF_SMALL[order])
    if order == 1:
        small = x.abs() * small
    large = x - 0.5 * x.log() + _eval_poly(3.75 / x, _COEF_LARGE[order]).log()
    return F.where(x < 3.75, small.log(), large)


def _rejection_sample(loc, concentration, proposal_r, x):
    """Best & Fisher (1979): draw until every element is accepted, then wrap the angle
    around loc into [-pi, pi)."""
    done = F.zeros(tuple(x.shape), dtype=dtypes.bool, device=x.device)
    while not done.all().item():
        u1, u2, u3 = F.unbind(standard_uniform((3,) + tuple(x.shape), loc))
        z = F.cos(math.pi * u1)
        f = (1 + proposal_r * z) / (proposal_r + z)
        c = concentration * (proposal_r - f)
        accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
        x = F.where(accept & ~done, (u3 - 0.5).sign() * f.acos(), x)
        done = done | accept
    return (x + math.pi + loc) % (2 * math.pi) - math.pi


class VonMises(Distribution):
    """VonMises(loc, concentration): density exp(k cos(x - loc)) / (2 pi I0(k)) over
    angles (any real, read modulo 2 pi); mean and variance are the circular ones.

    >>> d = minflow.distributions.VonMises(minflow.tensor([0.0]), minflow.tensor([1.0]))
    >>> round(d.log_prob(minflow.tensor([0.0])).item(), 4), round(d.variance.item(), 4)
    (-1.0738, 0.5536)
    """

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, Size(()), validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(VonMises, batch_shape, _instance,
                              {"loc": (), "concentration": ()})

    def log_prob(self, value):
        self._check_value(value)
        return (self.concentration * F.cos(value - self.loc) - math.log(2 * math.pi)
                - _log_modified_bessel_fn(self.concentration, order=0))

    def _proposal_r(self, kappa):
        tau = 1 + (1 + 4 * kappa ** 2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        # small concentrations: the Taylor expansion, as the formula cancels
        return F.where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho ** 2) / (2 * rho))

    def sample(self, sample_shape=Size(())):
        """Drawn in float64 whatever the dtype: in float32 the rejection loop can stall
        for concentrations near 1e-4."""
        shape = tuple(self._extended_shape(sample_shape))
        with no_grad():
            loc = self.loc.to(dtypes.float64)
            kappa = self.concentration.to(dtypes.float64)
            x = F.zeros(shape, dtype=dtypes.float64, device=self.loc.device)
            return _rejection_sample(loc, kappa, self._proposal_r(kappa), x).to(self.loc.dtype)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        k = self.concentration
        return 1 - (_log_modified_bessel_fn(k, order=1)
                    - _log_modified_bessel_fn(k, order=0)).exp()

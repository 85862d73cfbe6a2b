"""LKJCholesky(dim, concentration): the LKJ distribution over Cholesky factors of
correlation matrices, as torch.distributions.LKJCholesky (after NumPyro's), sampled by
the onion method of Lewandowski, Kurowicka and Joe (2009), section 3."""
import math

from ..core.grad_mode import no_grad
from ..core.namespace import F
from ..core.tensor import Size
from ..nn.functional import pad
from . import constraints
from .distribution import Distribution
from .gamma import Beta
from .utils import as_size, broadcast_all, standard_normal, tiny_of

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """LKJCholesky(dim, concentration=1.0): lower Cholesky factors L of dim x dim
    correlation matrices M = L L^T with density proportional to det(M)^(concentration - 1)
    (uniform over correlation matrices at concentration 1).

    log p(L) = sum_{i=2..dim} (2 (eta - 1) + dim - i) log L_ii - log C(dim, eta)

    >>> d = minflow.distributions.LKJCholesky(3, 0.5)
    >>> L = d.sample()
    >>> L.shape, [round(v, 6) for v in (L @ L.mT).diagonal().tolist()]
    (minflow.Size([3, 3]), [1.0, 1.0, 1.0])
    """

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if not isinstance(dim, int) or isinstance(dim, bool) or dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. "
                             f"Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        self._beta = self._onion_beta()
        super().__init__(self.concentration.size(), Size((dim, dim)),
                         validate_args=validate_args)

    def _onion_beta(self):
        """Beta(i / 2, eta + (dim - 1 - i) / 2) for the squared norm of row i's part below
        the diagonal (row 0 has none: its entry is unused).

        NOTE: torch 2.x takes Beta(i - 1/2, ...) for rows i >= 2 (an offset left unhalved),
        so its samples for dim >= 3 do not follow the LKJ density its log_prob gives (the
        correlations are not exchangeable); here the onion method's Beta(i / 2, ...) of
        Lewandowski et al. (and NumPyro), whose correlations are all 2 Beta(b, b) - 1 with
        b = eta - 1 + dim / 2."""
        marginal = self.concentration + 0.5 * (self.dim - 2)
        half_offset = F.arange(self.dim - 1, dtype=self.concentration.dtype,
                               device=self.concentration.device) / 2
        half_offset = F.cat([half_offset.new_zeros((1,)), half_offset])
        return Beta(half_offset + 0.5, marginal.unsqueeze(-1) - half_offset)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(LKJCholesky, batch_shape, _instance, {"concentration": ()})
        new.dim = self.dim
        new._beta = self._beta.expand(tuple(new._batch_shape) + (self.dim,))
        return new

    def sample(self, sample_shape=Size(())):
        """Onion method: row i is sqrt(y_i) times a uniform direction in its first i
        coordinates, y_i ~ Beta, and the diagonal takes what is left of the unit norm."""
        sample_shape = as_size(sample_shape)
        with no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            shape = self._extended_shape(sample_shape)
            below = standard_normal(shape, y).tril(-1)[..., 1:, :]
            direction = pad(below / below.norm(dim=-1, keepdim=True), [0, 0, 1, 0])
            w = y.sqrt() * direction
            diag = (1 - (w * w).sum(-1)).clamp(min=tiny_of(w.dtype)).sqrt()
            return w + diag.diag_embed()

    def log_prob(self, value):
        self._check_value(value)
        diag = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = F.arange(2, self.dim + 1, device=self.concentration.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized = (order * diag.log()).sum(-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        normalizer = (0.5 * dm1 * math.log(math.pi) + F.mvlgamma(alpha - 0.5, dm1)
                      - F.lgamma(alpha) * dm1)
        return unnormalized - normalizer

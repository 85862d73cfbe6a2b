"""Transforms over whole events (SoftmaxTransform, StickBreakingTransform,
ReshapeTransform) and the combinators (IndependentTransform, CatTransform,
StackTransform, CumulativeDistributionTransform), as torch.distributions.transforms;
all are re-exported by transforms.py (the matrix ones live in matrix_transforms.py).

>>> from minflow.distributions.transforms import StickBreakingTransform
>>> t = StickBreakingTransform()
>>> y = t(minflow.zeros(2, dtype=minflow.float64))
>>> [round(v, 4) for v in y.tolist()], t.inv(y).abs().max().item() < 1e-12
([0.3333, 0.3333, 0.3333], True)
"""
import functools
import operator

from ..core.namespace import F
from ..core.tensor import Size
from ..nn.functional import pad
from . import constraints
from .transforms import Transform
from .utils import eps_of, sum_rightmost, tiny_of

__all__ = ["SoftmaxTransform", "StickBreakingTransform", "ReshapeTransform",
           "IndependentTransform", "CatTransform", "StackTransform",
           "CumulativeDistributionTransform"]


def _at_least_one_dim(shape, where):
    if len(shape) < 1:
        raise ValueError(f"{where}: Too few dimensions on input: expected at least 1, "
                         f"got shape {tuple(shape)}")
    return Size(tuple(shape))


class SoftmaxTransform(Transform):
    """y = exp(x) / sum(exp(x)) over the last dim; ``inv`` is log (one of many
    preimages): not bijective, so no log-det-Jacobian.

    >>> y = minflow.distributions.SoftmaxTransform()(minflow.zeros(4))
    >>> y.tolist()
    [0.25, 0.25, 0.25, 0.25]
    """

    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other):
        return isinstance(other, SoftmaxTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        probs = (x - x.max(-1, True)[0]).exp()
        return probs / probs.sum(-1, True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        return _at_least_one_dim(shape, "SoftmaxTransform.forward_shape")

    def inverse_shape(self, shape):
        return _at_least_one_dim(shape, "SoftmaxTransform.inverse_shape")


def _stick_offset(x):
    """K, K-1, ..., 1 for x of last dim K: centres the stick-breaking sigmoids."""
    return x.shape[-1] + 1 - x.new_ones(x.shape[-1]).cumsum(-1)


class StickBreakingTransform(Transform):
    """Maps R^K onto the simplex in R^(K+1) by breaking a stick: z_i =
    sigmoid(x_i - log(K + 1 - i)) of what remains, y_i = z_i prod_{j<i} (1 - z_j).
    Bijective, with a triangular Jacobian."""

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other):
        return isinstance(other, StickBreakingTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        z = F.sigmoid(x - _stick_offset(x).log())
        z = z.clamp(min=tiny_of(x.dtype), max=1.0 - eps_of(x.dtype))
        z_cumprod = (1 - z).cumprod(-1)
        return pad(z, [0, 1], value=1) * pad(z_cumprod, [1, 0], value=1)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        offset = y.shape[-1] - y.new_ones(y_crop.shape[-1]).cumsum(-1)
        # NOTE: the remaining stick can round to 0 or below: clamp it positive
        remaining = (1 - y_crop.cumsum(-1)).clamp(min=tiny_of(y.dtype))
        return y_crop.log() - remaining.log() + offset.log()

    def log_abs_det_jacobian(self, x, y):
        x = x - _stick_offset(x).log()
        # 1 - sigmoid(x) = exp(-x) sigmoid(x)
        return (-x + F.logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        shape = _at_least_one_dim(shape, "StickBreakingTransform.forward_shape")
        return Size(tuple(shape[:-1]) + (shape[-1] + 1,))

    def inverse_shape(self, shape):
        shape = _at_least_one_dim(shape, "StickBreakingTransform.inverse_shape")
        return Size(tuple(shape[:-1]) + (shape[-1] - 1,))


class ReshapeTransform(Transform):
    """Reshape the rightmost ``in_shape`` dims to ``out_shape`` (same number of
    elements); the Jacobian is a permutation, so log |det| = 0.

    >>> t = minflow.distributions.ReshapeTransform((2, 3), (6,))
    >>> t(minflow.zeros(4, 2, 3)).shape, t.forward_shape((4, 2, 3))
    (minflow.Size([4, 6]), minflow.Size([4, 6]))
    """

    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape, self.out_shape = Size(tuple(in_shape)), Size(tuple(out_shape))
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError(f"ReshapeTransform: in_shape {tuple(self.in_shape)} and "
                             f"out_shape {tuple(self.out_shape)} have different numbers "
                             f"of elements")
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property
    def domain(self):
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property
    def codomain(self):
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x):
        batch_shape = tuple(x.shape[:x.dim() - len(self.in_shape)])
        return x.reshape(batch_shape + tuple(self.out_shape))

    def _inverse(self, y):
        batch_shape = tuple(y.shape[:y.dim() - len(self.out_shape)])
        return y.reshape(batch_shape + tuple(self.in_shape))

    def log_abs_det_jacobian(self, x, y):
        return x.new_zeros(tuple(x.shape[:x.dim() - len(self.in_shape)]))

    @staticmethod
    def _swap(shape, old, new, where):
        shape = tuple(shape)
        if len(shape) < len(old):
            raise ValueError(f"ReshapeTransform.{where}: Too few dimensions on input: "
                             f"expected at least {len(old)}, got shape {shape}")
        cut = len(shape) - len(old)
        if shape[cut:] != tuple(old):
            raise ValueError(f"ReshapeTransform.{where}: Shape mismatch: expected "
                             f"{shape[cut:]} but got {tuple(old)}")
        return Size(shape[:cut] + tuple(new))

    def forward_shape(self, shape):
        return self._swap(shape, self.in_shape, self.out_shape, "forward_shape")

    def inverse_shape(self, shape):
        return self._swap(shape, self.out_shape, self.in_shape, "inverse_shape")


class IndependentTransform(Transform):
    """``base_transform`` with ``reinterpreted_batch_ndims`` more rightmost dims taken
    as one event: the map is the same, the log-det-Jacobian is summed over those dims.

    >>> from minflow.distributions import ExpTransform, IndependentTransform
    >>> t = IndependentTransform(ExpTransform(), 1)
    >>> t.log_abs_det_jacobian(minflow.ones(2, 3), None).tolist()
    [3.0, 3.0]
    """

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims,
                                    cache_size=cache_size)

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return constraints.independent(self.base_transform.domain,
                                       self.reinterpreted_batch_ndims)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return constraints.independent(self.base_transform.codomain,
                                       self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        return self.base_transform.bijective

    @property
    def sign(self):
        return self.base_transform.sign

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError(f"IndependentTransform: Too few dimensions on input: expected "
                             f"at least {self.domain.event_dim}, got {x.dim()}")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError(f"IndependentTransform: Too few dimensions on input: expected "
                             f"at least {self.codomain.event_dim}, got {y.dim()}")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y),
                             self.reinterpreted_batch_ndims)

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_transform!r}, " \
               f"{self.reinterpreted_batch_ndims})"


def _check_slices(where, dim, size, *tensors):
    for name, tensor in zip("xy", tensors):
        if not -tensor.dim() <= dim < tensor.dim():
            raise ValueError(f"{where}: dim {dim} out of range for {name} with "
                             f"{tensor.dim()} dimensions")
        if tensor.size(dim) != size:
            raise ValueError(f"{where}: expected {name}.size({dim}) == {size}, got "
                             f"{tensor.size(dim)}")


class CatTransform(Transform):
    """Transforms ``tseq`` applied to consecutive slices of ``lengths`` along ``dim``,
    joined as minflow.cat joins them.

    >>> from minflow.distributions import CatTransform, ExpTransform, identity_transform
    >>> t = CatTransform([ExpTransform(), identity_transform], dim=0, lengths=[1, 2])
    >>> t(minflow.zeros(3)).tolist()
    [1.0, 0.0, 0.0]
    """

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        tseq = list(tseq)
        if not all(isinstance(t, Transform) for t in tseq):
            raise TypeError(f"CatTransform: expected a sequence of Transforms, got "
                            f"{[type(t).__name__ for t in tseq]}")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = tseq
        self.lengths = [1] * len(tseq) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise ValueError(f"CatTransform: expected one length per transform "
                             f"({len(self.transforms)}), got {len(self.lengths)}")
        self.dim = dim

    @property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self):
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _slices(self, tensor):
        starts = [sum(self.lengths[:i]) for i in range(len(self.lengths))]
        return [tensor.narrow(self.dim, s, n) for s, n in zip(starts, self.lengths)]

    def _call(self, x):
        _check_slices("CatTransform", self.dim, self.length, x)
        return F.cat([t(part) for t, part in zip(self.transforms, self._slices(x))], self.dim)

    def _inverse(self, y):
        _check_slices("CatTransform.inv", self.dim, self.length, y)
        return F.cat([t.inv(part) for t, part in zip(self.transforms, self._slices(y))],
                     self.dim)

    def log_abs_det_jacobian(self, x, y):
        _check_slices("CatTransform.log_abs_det_jacobian", self.dim, self.length, x, y)
        terms = []
        for t, x_part, y_part in zip(self.transforms, self._slices(x), self._slices(y)):
            terms.append(sum_rightmost(t.log_abs_det_jacobian(x_part, y_part),
                                       self.event_dim - t.event_dim))
        # dim inside the batch dims: the terms are joined; inside the event: summed
        dim = (self.dim - x.dim() if self.dim >= 0 else self.dim) + self.event_dim
        return F.cat(terms, dim) if dim < 0 else functools.reduce(operator.add, terms)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """Transform ``tseq[i]`` applied to slice i along ``dim``, joined as minflow.stack
    joins them.

    >>> from minflow.distributions import ExpTransform, StackTransform, identity_transform
    >>> t = StackTransform([ExpTransform(), identity_transform], dim=1)
    >>> t(minflow.zeros(1, 2)).tolist()
    [[1.0, 0.0]]
    """

    def __init__(self, tseq, dim=0, cache_size=0):
        tseq = list(tseq)
        if not all(isinstance(t, Transform) for t in tseq):
            raise TypeError(f"StackTransform: expected a sequence of Transforms, got "
                            f"{[type(t).__name__ for t in tseq]}")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = tseq
        self.dim = dim

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slice(self, tensor):
        return [tensor.select(self.dim, i) for i in range(tensor.size(self.dim))]

    def _call(self, x):
        _check_slices("StackTransform", self.dim, len(self.transforms), x)
        return F.stack([t(part) for t, part in zip(self.transforms, self._slice(x))], self.dim)

    def _inverse(self, y):
        _check_slices("StackTransform.inv", self.dim, len(self.transforms), y)
        return F.stack([t.inv(part) for t, part in zip(self.transforms, self._slice(y))],
                       self.dim)

    def log_abs_det_jacobian(self, x, y):
        _check_slices("StackTransform.log_abs_det_jacobian", self.dim, len(self.transforms),
                      x, y)
        return F.stack([t.log_abs_det_jacobian(x_part, y_part) for t, x_part, y_part
                        in zip(self.transforms, self._slice(x), self._slice(y))], self.dim)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)


class CumulativeDistributionTransform(Transform):
    """y = distribution.cdf(x), onto the unit interval; log |dy/dx| is the log density
    (a copula from a base distribution, for example).

    >>> from minflow.distributions import CumulativeDistributionTransform, Normal
    >>> t = CumulativeDistributionTransform(Normal(0.0, 1.0))
    >>> t(minflow.tensor([0.0])).tolist()
    [0.5]
    """

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)

"""Helpers shared by the distributions: parameter broadcasting, probs <-> logits,
lazily computed parameters and the standard noise the reparameterized samplers use."""
import numbers

import numpy as np

from ..core import dtype as dtypes
from ..core.dtype_info import finfo
from ..core.grad_mode import enable_grad
from ..core.namespace import F
from ..core.tensor import Size, Tensor
from ..ops.infer import broadcast_shapes

__all__ = ["broadcast_all", "logits_to_probs", "probs_to_logits", "clamp_probs",
           "lazy_property", "euler_constant", "tril_matrix_to_vec", "vec_to_tril_matrix"]

euler_constant = 0.57721566490153286060


def broadcast_all(*values):
    """Broadcast tensors and numbers together; numbers take the first tensor's dtype and
    device (the default dtype when all are numbers).

    >>> a, b = minflow.distributions.utils.broadcast_all(minflow.zeros(2, 1), 3.0)
    >>> tuple(a.shape), tuple(b.shape), b.tolist()
    ((2, 1), (2, 1), [[3.0], [3.0]])
    """
    if not all(isinstance(v, (Tensor, numbers.Number)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number or "
                         f"minflow.Tensor, got {[type(v).__name__ for v in values]}")
    first = next((v for v in values if isinstance(v, Tensor)), None)
    options = ({"dtype": dtypes.get_default_dtype()} if first is None
               else {"dtype": first.dtype, "device": first.device})
    tensors = [v if isinstance(v, Tensor) else F.tensor(v, **options) for v in values]
    try:
        shape = broadcast_shapes(*(tuple(t.shape) for t in tensors))
    except RuntimeError as err:
        raise RuntimeError(f"broadcast_all: parameters {err}") from None
    # as torch: a tensor of the broadcast shape comes back itself (d.loc is loc)
    return tuple(t if tuple(t.shape) == shape else t.expand(shape) for t in tensors)


def eps_of(dtype):
    """The machine epsilon of a float dtype (torch.finfo(dtype).eps)."""
    return finfo(dtype).eps


def tiny_of(dtype):
    """The smallest normal number of a float dtype (torch.finfo(dtype).tiny)."""
    return finfo(dtype).tiny


def clamp_probs(probs):
    """Clamp probabilities into [eps, 1 - eps] of their dtype.

    >>> probs = minflow.tensor([0.0, 0.5, 1.0], dtype=minflow.float64)
    >>> minflow.distributions.utils.clamp_probs(probs).tolist()
    [2.220446049250313e-16, 0.5, 0.9999999999999998]
    """
    eps = eps_of(probs.dtype)
    return probs.clamp(min=eps, max=1 - eps)


def logits_to_probs(logits, is_binary=False):
    """sigmoid(logits) for binary events, softmax over the last dim otherwise.

    >>> minflow.distributions.utils.logits_to_probs(minflow.tensor([0.0, 0.0])).tolist()
    [0.5, 0.5]
    """
    return F.sigmoid(logits) if is_binary else F.softmax(logits, dim=-1)


def probs_to_logits(probs, is_binary=False):
    """log p - log(1 - p) for binary events, log p otherwise (p clamped by clamp_probs).

    >>> minflow.distributions.utils.probs_to_logits(minflow.tensor([0.5]), is_binary=True).tolist()
    [0.0]
    """
    clamped = clamp_probs(probs)
    if is_binary:
        return F.log(clamped) - F.log1p(-clamped)
    return F.log(clamped)


class lazy_property:
    """A parameter computed from another on first access, then cached on the instance
    (``probs`` of a Bernoulli made from ``logits``); computed with grad enabled.

    >>> class P:
    ...     @minflow.distributions.utils.lazy_property
    ...     def two(self):
    ...         return 2
    >>> p = P(); p.two, "two" in vars(p)
    (2, True)
    """

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.__name__ = wrapped.__name__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


def sum_rightmost(value, dim):
    """Sum out the ``dim`` rightmost dims of ``value``."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:value.dim() - dim]) + (-1,)).sum(-1)


def standard_normal(shape, like):
    """N(0, 1) noise of ``shape`` in ``like``'s dtype and device."""
    return F.empty(tuple(shape), dtype=like.dtype, device=like.device).normal_()


def standard_uniform(shape, like, low=0.0):
    """U[low, 1) noise of ``shape`` in ``like``'s dtype and device."""
    return F.empty(tuple(shape), dtype=like.dtype, device=like.device).uniform_(low, 1.0)


def has_values(tensor):
    """False for tensors without data to check: lazy graph tensors and the meta device."""
    return tensor.device.type != "meta" and not getattr(tensor._data, "is_lazy", False)


def as_size(shape, where="sample_shape"):
    """A Size from a Size, tuple or list of ints."""
    if not isinstance(shape, (tuple, list)) or not all(
            isinstance(n, int) and not isinstance(n, bool) for n in shape):
        raise TypeError(f"{where}: expected a tuple of ints (a minflow.Size), got {shape!r}")
    return Size(tuple(shape))


def tril_matrix_to_vec(mat, diag=0):
    """The lower triangular part (below diagonal ``diag``) of each D x D matrix, in row
    order.

    >>> m = minflow.arange(9.0).reshape(3, 3)
    >>> minflow.distributions.utils.tril_matrix_to_vec(m, diag=-1).tolist()
    [3.0, 6.0, 7.0]
    """
    n = mat.shape[-1]
    if not -n <= diag < n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    rows, cols = F.tril_indices(n, n, diag, device=mat.device)
    return mat[..., rows, cols]


def vec_to_tril_matrix(vec, diag=0):
    """The D x D lower triangular matrix (below diagonal ``diag``, zeros elsewhere)
    holding each vector's elements in row order: the inverse of tril_matrix_to_vec.

    >>> v = minflow.tensor([1.0, 2.0, 3.0])
    >>> minflow.distributions.utils.vec_to_tril_matrix(v, diag=-1).tolist()
    [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 3.0, 0.0]]
    """
    length = vec.shape[-1]
    # the positive root of D^2 + (1 + 2 diag) D - |diag| (diag + 1) - 2 length = 0
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * length
                            + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if abs(round(n) - n) > eps_of(vec.dtype):
        raise ValueError(f"The size of last dimension is {length} which cannot be expressed "
                         f"as the lower triangular part of a square D x D matrix.")
    n = round(n)
    # each matrix entry gathers its vector element; entries off the triangle gather the
    # zero appended at index ``length``
    where = np.full((n, n), length, dtype=np.int64)
    where[np.tril_indices(n, diag)] = np.arange(length)
    padded = F.cat([vec, vec.new_zeros(tuple(vec.shape[:-1]) + (1,))], -1)
    return padded[..., F.tensor(where, device=vec.device)]


def one_matrix(error, covariance_matrix, precision_matrix, scale_tril):
    """(name, matrix) of the one matrix given, checked at least 2-D; torch's ``error``
    class (it differs between distributions) when not exactly one is."""
    given = {name: m for name, m in (("covariance_matrix", covariance_matrix),
                                     ("precision_matrix", precision_matrix),
                                     ("scale_tril", scale_tril)) if m is not None}
    if len(given) != 1:
        raise error("Exactly one of covariance_matrix or precision_matrix or scale_tril may "
                    "be specified.")
    (name, matrix), = given.items()
    if matrix.dim() < 2:
        raise ValueError(f"{name} must be at least two-dimensional, with optional leading "
                         f"batch dimensions")
    return name, matrix

"""The Distribution base class: shapes, argument and sample validation, expand, repr,
and the defaults (sample via rsample without grad, stddev, perplexity), as
torch.distributions.Distribution."""
import warnings

from ..core.grad_mode import no_grad
from ..core.namespace import F
from ..core.tensor import Size, Tensor
from . import constraints
from .utils import as_size, has_values, lazy_property

__all__ = ["Distribution"]


class Distribution:
    """Abstract base of probability distributions over tensors.

    ``batch_shape``: the shape over which parameters are batched; ``event_shape``: the
    shape of one sample; ``validate_args``: check parameters at construction and values
    given to log_prob / cdf / icdf (default on, as torch; see set_default_validate_args).
    While nn.Graph builds (lazy tensors, no values yet) only shapes are checked.

    >>> from minflow.distributions import Normal
    >>> d = Normal(minflow.zeros(3), 1.0)
    >>> d.batch_shape, d.event_shape, d.sample((2,)).shape
    (minflow.Size([3]), minflow.Size([]), minflow.Size([2, 3]))
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value):
        """Turn argument validation on or off for distributions made without
        ``validate_args``.

        >>> minflow.distributions.Distribution.set_default_validate_args(True)
        """
        if value not in (True, False):
            raise ValueError(f"set_default_validate_args: expected True or False, got {value!r}")
        Distribution._validate_args = value

    def __init__(self, batch_shape=Size(()), event_shape=Size(()), validate_args=None):
        self._batch_shape = Size(tuple(batch_shape))
        self._event_shape = Size(tuple(event_shape))
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_args()

    def _check_args(self):
        try:
            arg_constraints = self.arg_constraints
        except NotImplementedError:
            arg_constraints = {}
            warnings.warn(f"{type(self)} does not define `arg_constraints`. Please set "
                          f"`arg_constraints = {{}}` or initialize the distribution with "
                          f"`validate_args=False` to turn off validation.", stacklevel=3)
        for param, constraint in arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue
            if param not in self.__dict__ and isinstance(getattr(type(self), param, None),
                                                         lazy_property):
                continue            # made lazily from another parameter: not given
            value = getattr(self, param)
            valid = constraint.check(value)
            if has_values(valid) and not valid.all().item():    # (graph building: no values)
                raise ValueError(f"Expected parameter {param} ({type(value).__name__} of "
                                 f"shape {tuple(value.shape)}) of distribution {self!r} to "
                                 f"satisfy the constraint {constraint!r}, but found invalid "
                                 f"values:\n{value}")

    def expand(self, batch_shape, _instance=None):
        """A new distribution with parameters expanded to ``batch_shape`` (no copies, no
        new argument checks)."""
        raise NotImplementedError

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    @property
    def arg_constraints(self):
        """``{parameter name: Constraint}``."""
        raise NotImplementedError

    @property
    def support(self):
        """The Constraint that samples satisfy."""
        raise NotImplementedError

    @property
    def mean(self):
        raise NotImplementedError

    @property
    def mode(self):
        raise NotImplementedError(f"{type(self)} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError

    @property
    def stddev(self):
        return self.variance.sqrt()

    def sample(self, sample_shape=Size(())):
        """Samples of shape ``sample_shape + batch_shape + event_shape``, without grad."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=Size(())):
        """Reparameterized samples: gradients flow to the parameters."""
        raise NotImplementedError(f"{type(self).__name__} has no rsample "
                                  f"(has_rsample is False): use sample")

    def log_prob(self, value):
        raise NotImplementedError

    def cdf(self, value):
        raise NotImplementedError

    def icdf(self, value):
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def perplexity(self):
        """exp(entropy)."""
        return F.exp(self.entropy())

    def _extended_shape(self, sample_shape=Size(())):
        return Size(tuple(as_size(sample_shape)) + tuple(self._batch_shape)
                    + tuple(self._event_shape))

    def _validate_sample(self, value):
        """Raise ValueError unless ``value`` broadcasts with batch_shape + event_shape,
        ends in event_shape and lies in the support (torch's messages)."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        shape = Size(tuple(value.shape))
        start = len(shape) - len(self._event_shape)
        if Size(tuple(shape[start:]) if start >= 0 else tuple(shape)) != self._event_shape:
            raise ValueError(f"The right-most size of value must match event_shape: "
                             f"{shape} vs {self._event_shape}.")
        expected = Size(tuple(self._batch_shape) + tuple(self._event_shape))
        for i, j in zip(reversed(shape), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: "
                                 f"{shape} vs {expected}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{type(self)} does not define `support` to enable sample "
                          f"validation. Please initialize the distribution with "
                          f"`validate_args=False` to turn off validation.", stacklevel=3)
            return
        valid = support.check(value)
        if has_values(valid) and not valid.all().item():
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape "
                             f"{tuple(value.shape)}) to be within the support ({support!r}) "
                             f"of the distribution {self!r}, but found invalid "
                             f"values:\n{value}")

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(f"Subclass {type(self).__name__} of {cls.__name__} that "
                                      f"defines a custom __init__ method must also define a "
                                      f"custom .expand() method.")
        return type(self).__new__(type(self)) if _instance is None else _instance

    def _expanded(self, cls, batch_shape, _instance, params):
        """The shared body of expand: ``params`` maps each parameter's name to its shape
        beyond batch_shape (``()`` for most, the event or category dims otherwise)."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = as_size(batch_shape, "expand")
        for name, trailing in params.items():
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(tuple(batch_shape) + trailing))
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _check_value(self, value):
        if self._validate_args:
            self._validate_sample(value)

    def __repr__(self):
        params = [(k, self.__dict__[k]) for k in self.arg_constraints if k in self.__dict__]
        args = ", ".join(f"{name}: {value if value.numel() == 1 else value.size()}"
                         for name, value in params)
        return f"{type(self).__name__}({args})"

"""Parameter: a Tensor that a Module registers as one of its learnable weights."""
from ..core import dtype as dtypes
from ..core.tensor import Tensor

__all__ = ["Parameter"]


class Parameter(Tensor):
    """A leaf Tensor that, assigned to a Module attribute, joins ``module.parameters()``.

    It shares storage with ``data`` (as torch's does) and requires grad by default. Ops on
    a Parameter give plain Tensors; ``Module.to`` swaps its data in place, so the same
    Parameter object (which an optimizer may hold) survives the move.

    >>> p = minflow.nn.Parameter(minflow.ones(2))
    >>> p
    Parameter containing:
    tensor([1., 1.], requires_grad=True)
    >>> p.is_leaf, type(p * 2).__name__
    (True, 'Tensor')
    """

    __slots__ = ()

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _empty()
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter: expected data to be a minflow Tensor, got "
                            f"{type(data).__name__}")
        param = Tensor._make(data._data, data.dtype, data.device, cls=cls)
        param._version = data._share_version()
        param.requires_grad_(requires_grad)
        return param

    def __init__(self, data=None, requires_grad=True):
        pass      # everything happens in __new__; Tensor.__init__ refuses direct calls

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = Parameter(self.detach().clone(), self.requires_grad)
        return memo[id(self)]

    def __reduce_ex__(self, protocol):
        return Parameter, (self.detach(), self.requires_grad)


def _empty():
    from ..core.namespace import F
    return F.empty(0, dtype=dtypes.get_default_dtype())

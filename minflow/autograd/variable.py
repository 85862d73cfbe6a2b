"""``Variable``: PyTorch's legacy wrapper, kept for old scripts. Since torch 0.4 a Tensor
is a Variable: ``Variable(t, requires_grad=True)`` is ``t.detach().requires_grad_(True)``,
and every tensor is an instance of it."""
import warnings

from ..core.tensor import Tensor

__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """Variable(data, requires_grad=False, volatile=False) -> Tensor

    ``data`` detached (sharing its storage), requiring grad as asked.

    >>> v = minflow.autograd.Variable(minflow.ones(2), requires_grad=True)
    >>> v.requires_grad, v.is_leaf, isinstance(v, minflow.autograd.Variable)
    (True, True, True)
    """

    def __new__(cls, data, requires_grad=False, volatile=False):
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got "
                            f"{type(data).__name__}")
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with "
                          "minflow.no_grad():` instead.", UserWarning, stacklevel=2)
        return data.detach().requires_grad_(requires_grad)

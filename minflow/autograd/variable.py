"""``Variable``: the wrapper tensors needed before PyTorch 0.4, kept for old scripts.

``Variable(t, requires_grad=False)`` is ``t.detach().requires_grad_(requires_grad)``: a
new leaf sharing ``t``'s storage. ``isinstance(x, Variable)`` is true for every Tensor.
"""
import warnings

from ..core.namespace import F
from ..core.tensor import Tensor

__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor)


class Variable(metaclass=_VariableMeta):
    """Variable(data, requires_grad=False): ``data`` detached, as a leaf that requires
    grad if asked (legacy, as ``torch.autograd.Variable``).

    >>> x = minflow.ones(2)
    >>> v = minflow.autograd.Variable(x, requires_grad=True)
    >>> v.requires_grad, v.is_leaf, isinstance(x, minflow.autograd.Variable)
    (True, True, True)
    """

    def __new__(cls, data=None, requires_grad=False, volatile=None):
        if volatile is not None:
            warnings.warn("Variable: volatile was removed and now has no effect. Use "
                          "`with minflow.no_grad():` instead.", UserWarning, stacklevel=2)
        if data is None:
            return F.empty(0).requires_grad_(requires_grad)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable: data has to be a tensor, but got "
                            f"{type(data).__name__}")
        return data.detach().requires_grad_(requires_grad)

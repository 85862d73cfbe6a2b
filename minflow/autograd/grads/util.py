"""Helpers shared by grad functions."""
from ...core.namespace import F
from ...core.tensor import Tensor


def sum_to(grad, shape):
    """Sum ``grad`` down to ``shape``: undoes broadcasting in backward."""
    shape = tuple(shape)
    if grad._data.shape == shape:
        return grad
    lead = grad.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape)
                                      if s == 1 and grad.shape[i + lead] != 1)
    out = F.sum(grad, dims, keepdim=True) if dims else grad
    return out.reshape(shape)


def shape_of(x):
    """The shape of a tensor input, () for a Python scalar."""
    return x._data.shape if isinstance(x, Tensor) else ()


def is_tensor(x):
    return isinstance(x, Tensor)

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


def broadcast_shapes_of(inputs, out):
    """The inputs' shapes (() for a scalar) if a tensor input was broadcast to ``out``'s
    shape, else None: then backward needs no ``sum_to`` at all (the common case)."""
    shape = out._data.shape
    for x in inputs:
        if isinstance(x, Tensor) and x._data.shape != shape:
            return tuple([shape_of(y) for y in inputs])
    return None


def shape_of(x):
    """The shape of a tensor input, () for a Python scalar."""
    return x._data.shape if isinstance(x, Tensor) else ()


def is_tensor(x):
    return isinstance(x, Tensor)


def conj(x):
    """The complex conjugate of a tensor or a Python number; real ones as they are (no op
    runs). Grads of complex ops multiply by conjugated local derivatives (torch's
    convention: grad_in = grad_out * conj(df/dz) for holomorphic f)."""
    if isinstance(x, Tensor):
        return F.conj_physical(x) if x.dtype.is_complex else x
    return x.conjugate() if isinstance(x, complex) else x

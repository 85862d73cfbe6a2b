"""parameters_to_vector / vector_to_parameters: all parameters as one flat tensor."""
from ...core.grad_mode import no_grad
from ...core.namespace import F
from ...core.tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    """The parameters flattened and concatenated, in order (differentiable).

    >>> m = minflow.nn.Linear(3, 2)
    >>> minflow.nn.utils.parameters_to_vector(m.parameters()).shape
    minflow.Size([8])
    """
    return F.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Copy consecutive slices of the 1-D ``vec`` into ``parameters`` in place.

    >>> m = minflow.nn.Linear(1, 1)
    >>> minflow.nn.utils.vector_to_parameters(minflow.tensor([2.0, 3.0]), m.parameters())
    >>> m.weight.tolist(), m.bias.tolist()
    ([[2.0]], [3.0])
    """
    if not isinstance(vec, Tensor) or vec.ndim != 1:
        raise TypeError(f"vector_to_parameters: expected vec to be a 1-D Tensor, got "
                        f"{getattr(vec, 'shape', type(vec).__name__)}")
    params = list(parameters)
    total = sum(p.numel() for p in params)
    if vec.numel() != total:
        raise ValueError(f"vector_to_parameters: vec has {vec.numel()} elements, the "
                         f"parameters {total}")
    offset = 0
    with no_grad():
        for p in params:
            p.copy_(vec[offset:offset + p.numel()].reshape(tuple(p.shape)))
            offset += p.numel()

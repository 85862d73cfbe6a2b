"""Flatten and Unflatten: reshape a range of dims into one, or one dim into several."""
from ...core.namespace import F
from .module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """Merge dims ``start_dim`` .. ``end_dim`` (default: all but the batch dim).

    >>> minflow.nn.Flatten()(minflow.ones(32, 1, 5, 5)).shape
    minflow.Size([32, 25])
    """

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        return F.flatten(input, self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split dim ``dim`` into ``unflattened_size`` (which may hold one -1).

    >>> minflow.nn.Unflatten(1, (2, 5, 5))(minflow.ones(2, 50)).shape
    minflow.Size([2, 2, 5, 5])
    """

    def __init__(self, dim, unflattened_size):
        super().__init__()
        if isinstance(dim, str):
            raise NotImplementedError("Unflatten: named dims are not supported; pass an int dim")
        self.dim, self.unflattened_size = dim, unflattened_size

    def forward(self, input):
        return F.unflatten(input, self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"

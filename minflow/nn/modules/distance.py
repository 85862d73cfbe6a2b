"""CosineSimilarity and PairwiseDistance: layers over minflow.nn.functional's distances."""
from ...core.namespace import F
from .module import Module

__all__ = ["CosineSimilarity", "PairwiseDistance"]


class CosineSimilarity(Module):
    """sum(x1 / ||x1|| * x2 / ||x2||) along ``dim``, each norm at least ``eps``.

    >>> round(minflow.nn.CosineSimilarity()(minflow.ones(1, 2), minflow.ones(1, 2)).item(), 4)
    1.0
    """

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """||x1 - x2 + eps||_p over the last dim.

    >>> minflow.nn.PairwiseDistance(eps=0.0)(minflow.ones(1, 2), minflow.ones(1, 2)).tolist()
    [0.0]
    """

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)

"""Embedding: a lookup table of ``num_embeddings`` vectors of size ``embedding_dim``."""
from ...core.grad_mode import no_grad
from ...core.namespace import F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Embedding"]


class Embedding(Module):
    """out[...] = weight[input[...]] for integer indices; weight ~ N(0, 1), with row
    ``padding_idx`` (if given) zero and excluded from gradient updates.

    >>> emb = minflow.nn.Embedding(10, 3, padding_idx=0)
    >>> emb
    Embedding(10, 3, padding_idx=0)
    >>> emb(minflow.tensor([[0, 2], [4, 9]])).shape
    minflow.Size([2, 2, 3])
    >>> emb.weight[0].tolist()
    [0.0, 0.0, 0.0]
    """

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, device=None, dtype=None):
        super().__init__()
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError(f"Embedding: padding_idx must be within num_embeddings "
                                 f"[{-num_embeddings}, {num_embeddings}), got {padding_idx}")
            padding_idx %= num_embeddings
        if sparse:
            raise NotImplementedError("Embedding: sparse=True is not supported (minflow has no "
                                      "sparse tensors); use sparse=False")
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.padding_idx, self.max_norm, self.norm_type = padding_idx, max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is None:
            self.weight = Parameter(F.empty(num_embeddings, embedding_dim, device=device,
                                            dtype=dtype), requires_grad=not _freeze)
            self.reset_parameters()
        else:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise ValueError(f"Embedding: expected _weight of shape ({num_embeddings}, "
                                 f"{embedding_dim}), got {tuple(_weight.shape)}")
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx] = 0.0

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm,
                           self.norm_type, self.scale_grad_by_freq, self.sparse)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None,
                        norm_type=2.0, scale_grad_by_freq=False, sparse=False):
        """An Embedding whose weight is the 2-D tensor ``embeddings`` (frozen by default).

        >>> emb = minflow.nn.Embedding.from_pretrained(minflow.tensor([[1.0, 2.0]]))
        >>> emb(minflow.tensor([0])).tolist(), emb.weight.requires_grad
        ([[1.0, 2.0]], False)
        """
        if embeddings.ndim != 2:
            raise ValueError(f"Embedding.from_pretrained: expected embeddings to be 2-D, got "
                             f"shape {tuple(embeddings.shape)}")
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
                   _weight=embeddings, _freeze=freeze)

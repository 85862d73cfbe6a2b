"""Embedding (a lookup table of ``num_embeddings`` vectors of size ``embedding_dim``) and
EmbeddingBag (sums, means or maxima of bags of its rows)."""
from ...core.grad_mode import no_grad
from ...core.namespace import F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Embedding", "EmbeddingBag"]


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
        padding_idx = _check_table_args("Embedding", num_embeddings, padding_idx, sparse)
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


class EmbeddingBag(Module):
    """Sums, means (default) or maxima of bags of embedding rows: the rows of a 2-D input,
    or the slices of a 1-D input that ``offsets`` start; weight ~ N(0, 1), with row
    ``padding_idx`` (if given) zero, and its index left out of every bag.

    >>> bag = minflow.nn.EmbeddingBag(10, 3, mode="sum")
    >>> bag
    EmbeddingBag(10, 3, mode='sum')
    >>> bag(minflow.tensor([1, 2, 4, 5, 4]), minflow.tensor([0, 2])).shape
    minflow.Size([2, 3])
    """

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode="mean", sparse=False, _weight=None,
                 include_last_offset=False, padding_idx=None, device=None, dtype=None):
        super().__init__()
        padding_idx = _check_table_args("EmbeddingBag", num_embeddings, padding_idx, sparse)
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.mode, self.sparse = scale_grad_by_freq, mode, sparse
        self.include_last_offset, self.padding_idx = include_last_offset, padding_idx
        if _weight is None:
            self.weight = Parameter(F.empty(num_embeddings, embedding_dim, device=device,
                                            dtype=dtype))
            self.reset_parameters()
        else:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise ValueError(f"EmbeddingBag: expected _weight of shape ({num_embeddings}, "
                                 f"{embedding_dim}), got {tuple(_weight.shape)}")
            self.weight = Parameter(_weight)

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx] = 0.0

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                               self.scale_grad_by_freq, self.mode, self.sparse,
                               per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, mode="mean", sparse=False,
                        include_last_offset=False, padding_idx=None):
        """An EmbeddingBag whose weight is the 2-D tensor ``embeddings`` (frozen by default).

        >>> bag = minflow.nn.EmbeddingBag.from_pretrained(minflow.tensor([[1.0], [3.0]]))
        >>> bag(minflow.tensor([[0, 1]])).tolist(), bag.weight.requires_grad
        ([[2.0]], False)
        """
        if embeddings.ndim != 2:
            raise ValueError(f"EmbeddingBag.from_pretrained: expected embeddings to be 2-D, "
                             f"got shape {tuple(embeddings.shape)}")
        rows, cols = embeddings.shape
        bag = cls(rows, cols, max_norm, norm_type, scale_grad_by_freq, mode, sparse,
                  embeddings, include_last_offset, padding_idx)
        bag.weight.requires_grad_(not freeze)
        return bag


def _check_table_args(name, num_embeddings, padding_idx, sparse):
    """padding_idx made non-negative, after torch's range check; sparse=True refused."""
    if padding_idx is not None:
        if not -num_embeddings <= padding_idx < num_embeddings:
            # AssertionError, as torch's (a Python assert there)
            raise AssertionError(f"{name}: padding_idx must be within num_embeddings "
                                 f"[{-num_embeddings}, {num_embeddings}), got {padding_idx}")
        padding_idx %= num_embeddings
    if sparse:
        raise NotImplementedError(f"{name}: sparse=True is not supported (minflow has no "
                                  f"sparse tensors); use sparse=False")
    return padding_idx

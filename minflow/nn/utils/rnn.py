"""Batches of variable-length sequences, as torch.nn.utils.rnn: padded, or packed.

A ``PackedSequence`` holds the sequences time step by time step, longest first: ``data``
stacks, for t = 0, 1, ..., the t-th element of every sequence longer than t, and
``batch_sizes[t]`` says how many there are. The recurrent layers (RNN, LSTM, GRU) take one
and return their output packed the same way, each sequence's final state taken at its own
last element.
"""
from collections import namedtuple

import numpy as np

from ... import core
from ...core.namespace import F
from ...core.tensor import Tensor
from ...ops.join import pad

__all__ = ["pad_sequence", "PackedSequence", "pack_padded_sequence", "pad_packed_sequence",
           "pack_sequence", "unpack_sequence", "unpad_sequence"]


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side='right')
    -> Tensor

    Stack tensors of shape (L_i, *) into (L_max, B, *), or (B, L_max, *) with
    batch_first, filling with ``padding_value`` after (or before, padding_side='left')
    each sequence. The result has the first sequence's dtype, as torch's.

    >>> seqs = [minflow.tensor([1, 2, 3]), minflow.tensor([4])]
    >>> minflow.nn.utils.rnn.pad_sequence(seqs, batch_first=True).tolist()
    [[1, 2, 3], [4, 0, 0]]
    """
    sequences = list(sequences)
    if not sequences or not all(isinstance(s, Tensor) for s in sequences):
        raise TypeError(f"pad_sequence: expected a non-empty sequence of Tensors, got "
                        f"{[type(s).__name__ for s in sequences]}")
    if padding_side not in ("left", "right"):
        raise ValueError(f"pad_sequence: Expected padding_side to be one of left or right, "
                         f"but got {padding_side!r}")
    trailing = tuple(sequences[0].shape[1:])
    for s in sequences:
        if s.ndim == 0 or tuple(s.shape[1:]) != trailing:
            raise RuntimeError(f"pad_sequence: expected sequences of shape (L, "
                               f"{', '.join(map(str, trailing)) or '*'}), got "
                               f"{list(s.shape)}")
    longest = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        extra = longest - s.shape[0]
        ends = (extra, 0) if padding_side == "left" else (0, extra)
        padded.append(pad(s, (0, 0) * len(trailing) + ends, value=padding_value)
                      .to(sequences[0].dtype))
    return F.stack(padded, 0 if batch_first else 1)


class PackedSequence(namedtuple("PackedSequence",
                                ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """PackedSequence(data, batch_sizes, sorted_indices=None, unsorted_indices=None)

    ``data`` (sum of lengths, *): the sequences' elements, time step by time step;
    ``batch_sizes``: int64 cpu tensor, how many sequences are longer than t; with
    ``sorted_indices``, the batch was reordered longest first (``unsorted_indices`` undoes
    it). Made by pack_padded_sequence or pack_sequence.

    >>> p = minflow.nn.utils.rnn.pack_sequence([minflow.tensor([1., 2.]), minflow.tensor([3.])])
    >>> p.data.tolist(), p.batch_sizes.tolist()
    ([1.0, 3.0, 2.0], [2, 1])
    """

    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = _invert(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """The same sequence with ``data`` (and the indices, to its device) converted."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        move = lambda t: None if t is None else t.to(data.device)  # noqa: E731
        return type(self)(data, self.batch_sizes, move(self.sorted_indices),
                          move(self.unsorted_indices))

    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None):
        return self.to(self.data.cuda(device).device)

    def float(self):
        return self.to(core.dtype.float32)

    def double(self):
        return self.to(core.dtype.float64)

    def half(self):
        return self.to(core.dtype.float16)

    def bfloat16(self):
        return self.to(core.dtype.bfloat16)

    def long(self):
        return self.to(core.dtype.int64)

    def int(self):
        return self.to(core.dtype.int32)

    @property
    def is_cuda(self):
        return self.data.is_cuda


def _invert(permutation):
    """The inverse permutation: out[permutation[i]] = i."""
    out = F.empty_like(permutation)
    out[permutation] = F.arange(permutation.numel(), device=permutation.device)
    return out


def _lengths_list(lengths, where):
    if isinstance(lengths, Tensor):
        if lengths.ndim != 1 or lengths.device.type != "cpu":
            raise RuntimeError(f"{where}: 'lengths' argument should be a 1D CPU int64 tensor, "
                               f"but got {lengths.ndim}D {lengths.device} {lengths.dtype.name} "
                               f"tensor")
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True)
    -> PackedSequence

    Pack a padded batch (T, B, *) (or (B, T, *) with ``batch_first``) of sequences of the
    given ``lengths``. With ``enforce_sorted`` the lengths must be in decreasing order;
    otherwise the batch is sorted (stably, longest first) and the order kept to undo it.

    >>> x = minflow.tensor([[1., 4.], [2., 0.], [3., 0.]])      # (T=3, B=2)
    >>> p = minflow.nn.utils.rnn.pack_padded_sequence(x, [3, 1])
    >>> p.data.tolist(), p.batch_sizes.tolist()
    ([1.0, 4.0, 2.0, 3.0], [2, 1, 1])
    """
    where = "pack_padded_sequence"
    lengths = _lengths_list(lengths, where)
    if not isinstance(input, Tensor) or input.ndim < 2:
        raise ValueError(f"{where}: expected input of shape (T, B, *) or (B, T, *), got "
                         f"{list(getattr(input, 'shape', [])) or type(input).__name__}")
    if batch_first:
        input = F.transpose(input, 0, 1)
    steps, batch = input.shape[0], input.shape[1]
    if len(lengths) != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{len(lengths)} (batch_size={batch})")
    if min(lengths) <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if max(lengths) > steps:
        raise RuntimeError(f"{where}: a length of {max(lengths)} exceeds the {steps} time "
                           f"steps of input")
    sorted_indices = None
    if enforce_sorted:
        if any(a < b for a, b in zip(lengths, lengths[1:])):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                               "`enforce_sorted` is True. You can pass `enforce_sorted=False` "
                               "to pack_padded_sequence and/or pack_sequence to sidestep this "
                               "requirement if you do not need ONNX exportability.")
    else:
        order = np.argsort(-np.asarray(lengths), kind="stable")
        sorted_indices = F.tensor(order.astype(np.int64), device=input.device)
        input = F.index_select(input, 1, sorted_indices)
        lengths = [lengths[i] for i in order]
    batch_sizes = [sum(1 for n in lengths if n > t) for t in range(lengths[0])]
    data = F.cat([input[t, :size] for t, size in enumerate(batch_sizes)], 0)
    return PackedSequence(data, F.tensor(batch_sizes, dtype=core.dtype.int64, device="cpu"),
                          sorted_indices)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None)
    -> (Tensor, Tensor)

    The inverse of pack_padded_sequence: the padded batch (T, B, *) (or (B, T, *)) in the
    original batch order, and the int64 lengths. ``total_length`` pads T further.

    >>> x = minflow.tensor([[1., 4.], [2., 0.], [3., 0.]])
    >>> p = minflow.nn.utils.rnn.pack_padded_sequence(x, [3, 1])
    >>> padded, lengths = minflow.nn.utils.rnn.pad_packed_sequence(p, padding_value=-1.)
    >>> padded.tolist(), lengths.tolist()
    ([[1.0, 4.0], [2.0, -1.0], [3.0, -1.0]], [3, 1])
    """
    if not isinstance(sequence, PackedSequence):
        raise TypeError(f"pad_packed_sequence: expected a PackedSequence, got "
                        f"{type(sequence).__name__}")
    data, sizes = sequence.data, [int(v) for v in sequence.batch_sizes.tolist()]
    steps, batch = len(sizes), sizes[0]
    if total_length is not None:
        if total_length < steps:
            raise ValueError(f"Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {steps}")
        steps = total_length
    rows, start = [], 0
    trailing = tuple(data.shape[1:])
    for t in range(steps):
        size = sizes[t] if t < len(sizes) else 0
        part = data[start:start + size]
        start += size
        if size < batch:
            fill = F.full((batch - size,) + trailing, padding_value, dtype=data.dtype,
                          device=data.device)
            part = F.cat([part, fill], 0) if size else fill
        rows.append(part)
    padded = F.stack(rows, 0)
    lengths = [sum(1 for size in sizes if size > b) for b in range(batch)]
    lengths = F.tensor(lengths, dtype=core.dtype.int64, device="cpu")     # on the host, as torch
    if sequence.unsorted_indices is not None:
        padded = F.index_select(padded, 1, sequence.unsorted_indices)
        lengths = F.index_select(lengths, 0, sequence.unsorted_indices.cpu())
    return (F.transpose(padded, 0, 1) if batch_first else padded), lengths


def pack_sequence(sequences, enforce_sorted=True):
    """pack_sequence(sequences, enforce_sorted=True) -> PackedSequence

    Pack a list of tensors (L_i, *): pad_sequence, then pack_padded_sequence.

    >>> seqs = [minflow.tensor([1., 2., 3.]), minflow.tensor([4.])]
    >>> minflow.nn.utils.rnn.pack_sequence(seqs).data.tolist()
    [1.0, 4.0, 2.0, 3.0]
    """
    lengths = [s.shape[0] if isinstance(s, Tensor) and s.ndim else 0 for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths,
                                enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """unpad_sequence(padded_sequences, lengths, batch_first=False) -> list of Tensors

    The sequences of a padded batch, each cut to its length.

    >>> x = minflow.tensor([[1, 4], [2, 0]])
    >>> [s.tolist() for s in minflow.nn.utils.rnn.unpad_sequence(x, [2, 1])]
    [[1, 2], [4]]
    """
    lengths = _lengths_list(lengths, "unpad_sequence")
    if not batch_first:
        padded_sequences = F.transpose(padded_sequences, 0, 1)
    return [padded_sequences[b, :n] for b, n in enumerate(lengths)]


def unpack_sequence(packed_sequences):
    """unpack_sequence(packed_sequences) -> list of Tensors, in the original order.

    >>> seqs = [minflow.tensor([1., 2.]), minflow.tensor([3.])]
    >>> packed = minflow.nn.utils.rnn.pack_sequence(seqs)
    >>> [s.tolist() for s in minflow.nn.utils.rnn.unpack_sequence(packed)]
    [[1.0, 2.0], [3.0]]
    """
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)

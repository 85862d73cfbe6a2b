"""Padding a batch of variable-length sequences, as torch.nn.utils.rnn.pad_sequence.

(Packed sequences, PackedSequence and pack_padded_sequence, are not implemented: minflow's
RNNs take padded batches.)
"""
from ...core.namespace import F
from ...core.tensor import Tensor
from ...ops.join import pad

__all__ = ["pad_sequence"]


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side='right')
    -> Tensor

    Stack tensors of shape (L_i, *) into (L_max, B, *), or (B, L_max, *) with
    batch_first, filling with ``padding_value`` after (or before, padding_side='left')
    each sequence.

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
        padded.append(pad(s, (0, 0) * len(trailing) + ends, value=padding_value))
    return F.stack(padded, 0 if batch_first else 1)

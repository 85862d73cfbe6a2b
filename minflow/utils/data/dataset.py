"""Datasets: indexable (``Dataset``) or iterable (``IterableDataset``) sources of samples."""
import bisect
import itertools
import math
import warnings

from ...core.tensor import Tensor
from .sampler import randperm

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ConcatDataset", "ChainDataset",
           "StackDataset", "Subset", "random_split"]


class Dataset:
    """Base class of map-style datasets: subclasses define ``__getitem__`` and ``__len__``.

    ``a + b`` concatenates two datasets.

    >>> class Squares(minflow.utils.data.Dataset):
    ...     def __len__(self):
    ...         return 4
    ...     def __getitem__(self, i):
    ...         return i * i
    >>> list(minflow.utils.data.DataLoader(Squares(), batch_size=2))
    [tensor([0, 1]), tensor([4, 9])]
    """

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """Base class of datasets read as a stream: subclasses define ``__iter__``.

    >>> class Count(minflow.utils.data.IterableDataset):
    ...     def __iter__(self):
    ...         return iter(range(5))
    >>> [b.tolist() for b in minflow.utils.data.DataLoader(Count(), batch_size=2)]
    [[0, 1], [2, 3], [4]]
    """

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")

    def __add__(self, other):
        raise TypeError("IterableDataset does not support + (ConcatDataset needs "
                        "map-style datasets)")


class TensorDataset(Dataset):
    """Samples are ``(t[i] for t in tensors)``: tensors share their first dimension.

    >>> ds = minflow.utils.data.TensorDataset(minflow.zeros(3, 2), minflow.arange(3))
    >>> len(ds), ds[2]
    (3, (tensor([0., 0.]), tensor(2)))
    """

    def __init__(self, *tensors):
        if not tensors:
            raise ValueError("TensorDataset: expected at least one tensor")
        for i, t in enumerate(tensors):
            if not isinstance(t, Tensor):
                raise TypeError(f"TensorDataset: expected tensors, got "
                                f"{type(t).__name__} at position {i}")
            if t.ndim == 0:
                raise ValueError(f"TensorDataset: tensor {i} is 0-d; every tensor needs a "
                                 f"first dimension to index samples by")
        sizes = [t.shape[0] for t in tensors]
        if any(s != sizes[0] for s in sizes):
            # NOTE: an AssertionError, as torch's (an assert there)
            raise AssertionError(f"TensorDataset: size mismatch between tensors: every tensor "
                             f"must have the same first dimension, got shapes "
                             f"{', '.join(str(list(t.shape)) for t in tensors)}")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]


class ConcatDataset(Dataset):
    """The samples of several map-style datasets, one after another.

    >>> ds = minflow.utils.data.ConcatDataset([[1, 2], [3, 4, 5]])
    >>> len(ds), ds[2], ds[-1]
    (5, 3, 5)
    """

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ConcatDataset: datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise TypeError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, index):
        if index < 0:
            if -index > len(self):
                raise IndexError(f"ConcatDataset: index {index} is out of range for a "
                                 f"dataset of length {len(self)}")
            index += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, index)
        if which == len(self.datasets):
            raise IndexError(f"ConcatDataset: index {index} is out of range for a dataset "
                             f"of length {len(self)}")
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][index - start]


class ChainDataset(IterableDataset):
    """The samples of several iterable datasets, one stream after another.

    >>> ds = minflow.utils.data.ChainDataset([range(2), range(3)])
    >>> list(ds)
    [0, 1, 0, 1, 2]
    """

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            yield from d

    def __len__(self):
        return sum(len(d) for d in self.datasets)


class StackDataset(Dataset):
    """Sample i is ``(d[i] for d in args)``, or ``{k: d[i]}`` for keyword datasets: datasets
    of equal length side by side.

    >>> ds = minflow.utils.data.StackDataset(image=[10, 20], label=[0, 1])
    >>> len(ds), ds[1]
    (2, {'image': 20, 'label': 1})
    """

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("StackDataset: supported either tuple-like (via args) or "
                             "dict-like (via kwargs) input/output, but both types are given")
        if not args and not kwargs:
            raise ValueError("StackDataset: at least one dataset should be passed")
        self.datasets = args or kwargs
        lengths = {len(d) for d in (args or kwargs.values())}
        if len(lengths) != 1:
            raise ValueError(f"StackDataset: size mismatch between datasets: lengths "
                             f"{sorted(lengths)}")
        self._length = lengths.pop()

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __len__(self):
        return self._length


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order.

    >>> sub = minflow.utils.data.Subset([10, 11, 12, 13], [3, 0])
    >>> len(sub), sub[0], sub[1]
    (2, 13, 10)
    """

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, index):
        if isinstance(index, list):
            return self.dataset[[self.indices[i] for i in index]]
        return self.dataset[self.indices[index]]

    def __getitems__(self, indices):
        # a dataset that fetches a whole batch at once keeps doing so through a Subset
        getitems = getattr(self.dataset, "__getitems__", None)
        if getitems is not None:
            return getitems([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=None):
    """Split ``dataset`` at random into non-overlapping ``Subset``s of the given lengths.

    ``lengths`` may be fractions summing to 1: each split gets ``floor(n * fraction)``
    samples and the remainder is dealt out one by one from the first split on, as in torch.
    ``generator`` defaults to minflow's default generator.

    >>> g = minflow.Generator().manual_seed(0)
    >>> train, val = minflow.utils.data.random_split(range(10), [0.75, 0.25], generator=g)
    >>> len(train), len(val), sorted(list(train) + list(val)) == list(range(10))
    (8, 2, True)
    """
    lengths = list(lengths)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _lengths_from_fractions(lengths, len(dataset))
    for i, length in enumerate(lengths):
        if not isinstance(length, int) or isinstance(length, bool) or length < 0:
            raise ValueError(f"random_split: expected lengths to be non-negative ints or "
                             f"fractions summing to 1, got {length!r} at index {i}")
    if sum(lengths) != len(dataset):
        raise ValueError(f"random_split: sum of input lengths ({sum(lengths)}) does not "
                         f"equal the length of the input dataset ({len(dataset)})")
    indices = randperm(len(dataset), generator, "random_split")
    return [Subset(dataset, indices[end - length:end])
            for end, length in zip(itertools.accumulate(lengths), lengths)]


def _lengths_from_fractions(fractions, n):
    lengths = []
    for i, frac in enumerate(fractions):
        if not 0 <= frac <= 1:
            raise ValueError(f"random_split: fraction at index {i} is not between 0 and 1 "
                             f"(got {frac})")
        lengths.append(math.floor(n * frac))
    for i in range(n - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warnings.warn(f"random_split: length of split at index {i} is 0; this might "
                          f"result in an empty dataset", stacklevel=3)
    return lengths

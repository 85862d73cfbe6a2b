"""Samplers: iterables of dataset indices (or of lists of indices, for ``BatchSampler``).

Random samplers draw from a ``minflow.Generator``: the one passed as ``generator=``, else
the default generator, so ``minflow.manual_seed`` makes a shuffled order reproducible.
"""
import itertools

import numpy as np

from ...core.device import Device
from ...core.random import Generator, generator_for

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler"]


def numpy_rng(generator, where):
    """The numpy generator behind ``generator`` (None: the default cpu generator)."""
    if generator is not None:
        if not isinstance(generator, Generator):
            raise TypeError(f"{where}: expected generator to be a minflow.Generator, got "
                            f"{type(generator).__name__}")
        if generator.device.type != "cpu":
            raise ValueError(f"{where}: expected a 'cpu' generator, got one for "
                             f"{generator.device}")
    return generator_for(generator, Device("cpu")).rng("cpu")


def randperm(n, generator, where):
    """A random permutation of ``range(n)`` as a list of Python ints."""
    return numpy_rng(generator, where).permutation(n).tolist()


def _check_positive_int(value, name, where):
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{where}: {name} should be a positive integer value, but got "
                         f"{name}={value!r}")


class Sampler:
    """Base class of samplers: subclasses define ``__iter__`` (and ``__len__`` if sized).

    >>> class EvenFirst(minflow.utils.data.Sampler):
    ...     def __init__(self, n):
    ...         self.n = n
    ...     def __iter__(self):
    ...         return iter(list(range(0, self.n, 2)) + list(range(1, self.n, 2)))
    ...     def __len__(self):
    ...         return self.n
    >>> list(EvenFirst(5))
    [0, 2, 4, 1, 3]
    """

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")


class SequentialSampler(Sampler):
    """Indices ``0, 1, ..., len(data_source) - 1`` in order.

    >>> list(minflow.utils.data.SequentialSampler(range(4)))
    [0, 1, 2, 3]
    """

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """Indices in random order; with ``replacement=True``, ``num_samples`` independent draws.

    Without replacement and with ``num_samples > len(data_source)``, whole permutations
    follow one another, as in torch. Each iteration draws a new order from ``generator``.

    >>> g = minflow.Generator().manual_seed(0)
    >>> sorted(minflow.utils.data.RandomSampler(range(5), generator=g))
    [0, 1, 2, 3, 4]
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError(f"RandomSampler: replacement should be a boolean value, but got "
                            f"replacement={replacement!r}")
        _check_positive_int(self.num_samples, "num_samples", "RandomSampler")

    @property
    def num_samples(self):
        # the dataset may change size after the sampler is made
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        rng = numpy_rng(self.generator, "RandomSampler")
        if self.replacement:
            yield from rng.integers(0, n, size=self.num_samples).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from rng.permutation(n).tolist()
        yield from rng.permutation(n).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices, in a random order each iteration.

    >>> sorted(minflow.utils.data.SubsetRandomSampler([7, 3, 5]))
    [3, 5, 7]
    """

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in randperm(len(self.indices), self.generator, "SubsetRandomSampler"):
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices in ``range(len(weights))``, index i drawn with probability
    proportional to ``weights[i]``; without replacement, each index at most once (drawn
    in weighted order, zero weights last), as torch.multinomial.

    >>> g = minflow.Generator().manual_seed(0)
    >>> list(minflow.utils.data.WeightedRandomSampler([0.0, 1.0, 0.0], 3, generator=g))
    [1, 1, 1]
    """

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        where = "WeightedRandomSampler"
        _check_positive_int(num_samples, "num_samples", where)
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got "
                             f"replacement={replacement!r}")
        values = weights.tolist() if hasattr(weights, "tolist") else weights
        array = np.asarray(values, dtype=np.float64)
        if array.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape "
                             f"{tuple(array.shape)}")
        if array.size == 0 or (array < 0).any() or not np.isfinite(array).all() or \
                array.sum() <= 0:
            raise RuntimeError(f"{where}: invalid multinomial distribution: expected finite "
                               f"weights >= 0 with a positive sum, got {values}")
        if not replacement and num_samples > array.size:
            raise RuntimeError(f"{where}: cannot sample n_sample > prob_dist.size(-1) samples "
                               f"without replacement ({num_samples} > {array.size})")
        self.weights = array
        self.num_samples, self.replacement, self.generator = num_samples, replacement, generator

    def __iter__(self):
        rng = numpy_rng(self.generator, "WeightedRandomSampler")
        p = self.weights / self.weights.sum()
        if self.replacement:
            return iter(rng.choice(p.size, size=self.num_samples, p=p).tolist())
        # weighted sampling without replacement: the largest p_i / E_i, E_i ~ Exp(1)
        with np.errstate(divide="ignore"):
            keys = p / rng.exponential(size=p.size)
        return iter(np.argsort(-keys, kind="stable")[:self.num_samples].tolist())

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Group the indices of ``sampler`` into lists of ``batch_size``.

    >>> from minflow.utils.data import BatchSampler, SequentialSampler
    >>> list(BatchSampler(SequentialSampler(range(7)), batch_size=3, drop_last=False))
    [[0, 1, 2], [3, 4, 5], [6]]
    >>> list(BatchSampler(SequentialSampler(range(7)), batch_size=3, drop_last=True))
    [[0, 1, 2], [3, 4, 5]]
    """

    def __init__(self, sampler, batch_size, drop_last):
        _check_positive_int(batch_size, "batch_size", "BatchSampler")
        if not isinstance(drop_last, bool):
            raise ValueError(f"BatchSampler: drop_last should be a boolean value, but got "
                             f"drop_last={drop_last!r}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        indices = iter(self.sampler)
        batch = list(itertools.islice(indices, self.batch_size))
        while batch:
            if len(batch) < self.batch_size and self.drop_last:
                return
            yield batch
            batch = list(itertools.islice(indices, self.batch_size))

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size

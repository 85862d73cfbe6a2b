"""DataLoader: iterate over a dataset in (shuffled) batches, in the main process."""
import collections.abc
import itertools
import warnings

import numpy as np

from ...core.device import cuda_is_available
from ...core.namespace import F
from .collate import default_collate, default_convert
from .dataset import IterableDataset, TensorDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader"]


class DataLoader:
    """Batches of ``dataset``, shuffled or in order, collated by ``collate_fn``.

    As ``torch.utils.data.DataLoader``, loading in the main process (``num_workers=0``).
    ``shuffle=True`` draws a new order each epoch from ``generator`` (default: minflow's
    default generator, so ``minflow.manual_seed`` fixes it). ``batch_size=None`` yields
    single samples, unbatched. Over a ``TensorDataset`` with the default collation, each
    batch is one indexing of every tensor, not a stack of per-sample rows (same result).
    ``num_workers > 0`` warns and loads in the main process (same batches, in the same
    order). ``pin_memory=True`` copies each batch's cpu tensors to pinned memory where there
    is a GPU; without one it warns when iteration starts and yields batches unpinned, as
    torch does. The worker options
    (``timeout``, ``worker_init_fn``, ``prefetch_factor``, ``persistent_workers``,
    ``in_order``) are accepted and unused: batches always come in order.

    >>> from minflow.utils.data import DataLoader, TensorDataset
    >>> loader = DataLoader(TensorDataset(minflow.arange(5)), batch_size=2, drop_last=True)
    >>> len(loader), [batch.tolist() for (batch,) in loader]
    (2, [[0, 1], [2, 3]])
    >>> g = minflow.Generator().manual_seed(0)
    >>> sorted(sum((b.tolist() for (b,) in DataLoader(TensorDataset(minflow.arange(5)),
    ...     batch_size=2, shuffle=True, generator=g)), []))
    [0, 1, 2, 3, 4]
    """

    def __init__(self, dataset, batch_size=1, shuffle=False, sampler=None,
                 batch_sampler=None, num_workers=0, collate_fn=None, pin_memory=False,
                 drop_last=False, timeout=0, worker_init_fn=None, multiprocessing_context=None,
                 generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", in_order=True):
        _check_workers(num_workers)
        self.prefetch_factor = _check_worker_options(num_workers, prefetch_factor,
                                                     persistent_workers)
        self.persistent_workers = persistent_workers
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.dataset = dataset
        self.num_workers = num_workers
        self.generator = generator
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            _check_iterable_options(shuffle, sampler, batch_sampler)
        elif batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("DataLoader: batch_sampler option is mutually exclusive "
                                 "with batch_size, shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("DataLoader: batch_size=None option disables auto-batching "
                             "and is mutually exclusive with drop_last")
        if sampler is not None and shuffle:
            raise ValueError("DataLoader: sampler option is mutually exclusive with shuffle")
        if sampler is None and not self._iterable:
            sampler = (RandomSampler(dataset, generator=generator) if shuffle
                       else SequentialSampler(dataset))
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self._auto_collate = collate_fn is None
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None or (
                self._iterable and batch_size is not None) else default_convert
        self.collate_fn = collate_fn

    def __iter__(self):
        batches = self._iter_batches()
        if self.pin_memory and self._can_pin():
            return (pin_memory(batch) for batch in batches)
        return batches

    def _can_pin(self):
        """torch's checks when iteration starts: warn of what cannot be honoured."""
        if self.pin_memory_device:
            warnings.warn(f"pin_memory_device is deprecated, the current accelerator will be "
                          f"used as the device,ignore pin_memory_device="
                          f"'{self.pin_memory_device}'.", stacklevel=3)
        if not cuda_is_available():
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                          "then device pinned memory won't be used.", stacklevel=3)
            return False
        return True

    def _iter_batches(self):
        if self._iterable:
            return self._iter_stream()
        if self.batch_sampler is None:
            return (self.collate_fn(self.dataset[i]) for i in self.sampler)
        if self._auto_collate and _plain_tensor_dataset(self.dataset):
            return self._iter_tensor_batches()
        return (self.collate_fn(self._fetch(indices)) for indices in self.batch_sampler)

    def _fetch(self, indices):
        getitems = getattr(self.dataset, "__getitems__", None)
        if getitems is not None:
            return getitems(indices)
        return [self.dataset[i] for i in indices]

    def _iter_tensor_batches(self):
        # NOTE: equal to default_collate of the samples (a list of stacked fields); one
        # index_select per tensor instead of batch_size getitems and a stack
        tensors = self.dataset.tensors
        for indices in self.batch_sampler:
            index = F.from_numpy(np.asarray(indices, dtype=np.int64))
            yield [F.index_select(t, 0, index.to(t.device)) for t in tensors]

    def _iter_stream(self):
        samples = iter(self.dataset)
        if self.batch_size is None:
            yield from (self.collate_fn(sample) for sample in samples)
            return
        batch = list(itertools.islice(samples, self.batch_size))
        while batch and (len(batch) == self.batch_size or not self.drop_last):
            yield self.collate_fn(batch)
            batch = list(itertools.islice(samples, self.batch_size))

    def __len__(self):
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        return len(self.sampler)


def pin_memory(data):
    """``data`` with each tensor in it (in tuples, lists and dicts) pinned; other objects
    as they are (as torch.utils.data's ``pin_memory``)."""
    if hasattr(data, "pin_memory") and not isinstance(data, type):
        return data.pin_memory()
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, collections.abc.Mapping):
        return type(data)({key: pin_memory(value) for key, value in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):        # a namedtuple
        return type(data)(*(pin_memory(item) for item in data))
    if isinstance(data, (tuple, list)):
        return type(data)(pin_memory(item) for item in data)
    return data


def _check_worker_options(num_workers, prefetch_factor, persistent_workers):
    """torch's checks of the worker options; the prefetch_factor in effect."""
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError("DataLoader: prefetch_factor option could only be specified in "
                         "multiprocessing.let num_workers > 0 to enable multiprocessing, "
                         "otherwise set prefetch_factor to None.")
    if prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("DataLoader: prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("DataLoader: persistent_workers option needs num_workers > 0")
    return 2 if num_workers > 0 and prefetch_factor is None else prefetch_factor


def _check_workers(num_workers):
    if not isinstance(num_workers, int) or isinstance(num_workers, bool) or num_workers < 0:
        raise ValueError(f"DataLoader: num_workers option should be a non-negative integer, "
                         f"got {num_workers!r}")
    if num_workers > 0:
        # NOTE: the batches are the same as with workers (torch keeps the sampler's order),
        # so a script written for torch runs unchanged; it is only not parallel.
        warnings.warn(f"DataLoader: num_workers={num_workers} is not supported; loading "
                      f"in the main process instead (the batches are the same)", stacklevel=3)


def _check_iterable_options(shuffle, sampler, batch_sampler):
    given = {"shuffle": shuffle not in (False, None), "sampler": sampler is not None,
             "batch_sampler": batch_sampler is not None}
    for name, value in (("shuffle", shuffle), ("sampler", sampler),
                        ("batch_sampler", batch_sampler)):
        if given[name]:
            raise ValueError(f"DataLoader with IterableDataset: expected unspecified "
                             f"{name} option, but got {name}={value!r}")


def _plain_tensor_dataset(dataset):
    # a subclass that changes how samples are read must go through __getitem__
    return (isinstance(dataset, TensorDataset)
            and type(dataset).__getitem__ is TensorDataset.__getitem__)

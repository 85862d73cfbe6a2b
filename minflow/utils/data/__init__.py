"""Datasets, samplers and the DataLoader, with ``torch.utils.data``'s API.

>>> from minflow.utils.data import TensorDataset, DataLoader
>>> x, y = minflow.arange(10).float().reshape(5, 2), minflow.arange(5)
>>> [tuple(xb.shape) for xb, yb in DataLoader(TensorDataset(x, y), batch_size=2)]
[(2, 2), (2, 2), (1, 2)]
"""
from .dataset import (Dataset, IterableDataset, TensorDataset, ConcatDataset, ChainDataset,
                      StackDataset, Subset, random_split)
from .sampler import (Sampler, SequentialSampler, RandomSampler, SubsetRandomSampler,
                      WeightedRandomSampler, BatchSampler)
from .collate import default_collate, default_convert
from .dataloader import DataLoader
from .distributed import DistributedSampler

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ConcatDataset", "ChainDataset",
           "StackDataset", "Subset", "random_split", "Sampler", "SequentialSampler",
           "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler", "BatchSampler",
           "DistributedSampler",
           "default_collate", "default_convert", "DataLoader", "get_worker_info"]


def get_worker_info():
    """None: the DataLoader loads every batch in the calling process (num_workers > 0 is
    accepted and runs in-process), so code is never inside a worker.

    >>> minflow.utils.data.get_worker_info() is None
    True
    """
    return None

"""Datasets, samplers and the DataLoader, with ``torch.utils.data``'s API.

>>> from minflow.utils.data import TensorDataset, DataLoader
>>> x, y = minflow.arange(10).float().reshape(5, 2), minflow.arange(5)
>>> [tuple(xb.shape) for xb, yb in DataLoader(TensorDataset(x, y), batch_size=2)]
[(2, 2), (2, 2), (1, 2)]
"""
from .dataset import (Dataset, IterableDataset, TensorDataset, ConcatDataset, Subset,
                      random_split)
from .sampler import (Sampler, SequentialSampler, RandomSampler, SubsetRandomSampler,
                      BatchSampler)
from .collate import default_collate, default_convert
from .dataloader import DataLoader

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ConcatDataset", "Subset",
           "random_split", "Sampler", "SequentialSampler", "RandomSampler",
           "SubsetRandomSampler", "BatchSampler", "default_collate", "default_convert",
           "DataLoader"]

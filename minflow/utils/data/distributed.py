"""DistributedSampler, as torch.utils.data.DistributedSampler: each of ``num_replicas``
processes reads its own share of a dataset (padded or cut to an equal share each)."""
import math

from ... import distributed as dist
from ...core.random import Generator
from .sampler import Sampler, randperm

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    """DistributedSampler(dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
    drop_last=False)

    Replica ``rank`` reads indices rank, rank + num_replicas, ... of one order of the
    dataset: a permutation drawn from ``seed + epoch`` (``set_epoch``) when ``shuffle``,
    else 0..n-1; padded with its first indices to a multiple of num_replicas, or cut down
    to one with ``drop_last``. minflow runs in one process: give num_replicas and rank
    (without them it needs a process group, which minflow has not). The shuffled order is
    minflow's generator's permutation, not torch's (their generators differ).

    >>> sampler = minflow.utils.data.DistributedSampler(range(5), num_replicas=2, rank=1,
    ...                                                 shuffle=False)
    >>> list(sampler), len(sampler)
    ([1, 3, 0], 3)
    """

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        if num_replicas is None or rank is None:
            if not dist.is_available():
                raise RuntimeError("Requires distributed package to be available")
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, "
                             f"{num_replicas - 1}]")
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.epoch, self.drop_last = 0, drop_last
        if drop_last and len(dataset) % num_replicas != 0:
            self.num_samples = math.ceil((len(dataset) - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(len(dataset) / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle, self.seed = shuffle, seed

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            generator = Generator().manual_seed(self.seed + self.epoch)
            indices = randperm(n, generator, "DistributedSampler")
        else:
            indices = list(range(n))
        if not self.drop_last:
            padding = self.total_size - len(indices)
            if padding <= len(indices):
                indices += indices[:padding]
            else:
                indices += (indices * math.ceil(padding / len(indices)))[:padding]
        else:
            indices = indices[:self.total_size]
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Use ``epoch`` in the seed of the next shuffled order: call it each epoch (the
        same on every replica) so that each epoch has its own order."""
        self.epoch = epoch

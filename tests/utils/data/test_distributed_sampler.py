"""DistributedSampler: torch's partitioning (padding, drop_last, lengths, epochs, errors).
Unshuffled orders equal torch's; shuffled ones come from minflow's generator, so they are
checked for the properties torch's have, not for torch's permutation."""
import itertools

import pytest

import minflow
from minflow.utils.data import DataLoader, DistributedSampler

SIZES = [(10, 3), (9, 3), (2, 4), (7, 1), (5, 5)]


@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("n, replicas", SIZES)
def test_unshuffled_shares_as_torch(n, replicas, drop_last):
    torch = pytest.importorskip("torch")
    from torch.utils.data import DistributedSampler as TorchSampler
    for rank in range(replicas):
        ours = DistributedSampler(range(n), replicas, rank, shuffle=False, drop_last=drop_last)
        theirs = TorchSampler(range(n), replicas, rank, shuffle=False, drop_last=drop_last)
        assert list(ours) == list(theirs) and len(ours) == len(theirs)
        assert (ours.num_samples, ours.total_size) == (theirs.num_samples, theirs.total_size)


@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("n, replicas", SIZES)
def test_shuffled_shares_partition_one_permutation(n, replicas, drop_last):
    shares = [list(DistributedSampler(range(n), replicas, rank, seed=3, drop_last=drop_last))
              for rank in range(replicas)]
    assert len({len(s) for s in shares}) == 1
    merged = list(itertools.chain.from_iterable(zip(*shares)))       # rank order, interleaved
    if drop_last:
        assert len(set(merged)) == len(merged) == n - n % replicas
    else:
        assert set(merged) == set(range(n))
        assert len(merged) == replicas * -(-n // replicas)
        assert merged[n:] == merged[:len(merged) - n]       # padded with its first indices
    again = [list(DistributedSampler(range(n), replicas, r, seed=3, drop_last=drop_last))
             for r in range(replicas)]
    assert again == shares


def test_set_epoch_changes_the_order_for_every_replica_alike():
    samplers = [DistributedSampler(range(40), 2, rank, seed=1) for rank in range(2)]
    first = [list(s) for s in samplers]
    for s in samplers:
        s.set_epoch(1)
    second = [list(s) for s in samplers]
    assert first != second
    assert sorted(second[0] + second[1]) == list(range(40))


def test_errors_as_torch():
    torch = pytest.importorskip("torch")
    from torch.utils.data import DistributedSampler as TorchSampler
    for args in ((3, 3), (3, -1)):
        with pytest.raises(ValueError) as expected:
            TorchSampler(range(5), *args)
        with pytest.raises(ValueError) as got:
            DistributedSampler(range(5), *args)
        assert str(got.value) == str(expected.value)
    with pytest.raises(RuntimeError, match="Requires distributed package to be available"):
        DistributedSampler(range(5))


def test_with_a_dataloader():
    loader = DataLoader(minflow.utils.data.TensorDataset(minflow.arange(10)), batch_size=2,
                        sampler=DistributedSampler(range(10), 2, 0, shuffle=False))
    assert [b[0].tolist() for b in loader] == [[0, 2], [4, 6], [8]]

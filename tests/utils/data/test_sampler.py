import numpy as np
import pytest

import minflow
from minflow.utils.data import (BatchSampler, RandomSampler, Sampler, SequentialSampler,
                                SubsetRandomSampler)


def test_sequential_sampler():
    s = SequentialSampler(range(5))
    assert list(s) == [0, 1, 2, 3, 4] and len(s) == 5


def test_random_sampler_is_a_permutation_and_moves_on():
    s = RandomSampler(range(50), generator=minflow.Generator().manual_seed(0))
    first, second = list(s), list(s)
    assert sorted(first) == sorted(second) == list(range(50))
    assert first != second
    assert all(type(i) is int for i in first)


def test_random_sampler_generator_independent_of_global_seed():
    def order(global_seed):
        minflow.manual_seed(global_seed)
        return list(RandomSampler(range(30), generator=minflow.Generator().manual_seed(7)))

    assert order(0) == order(1)


def test_random_sampler_default_generator_follows_manual_seed():
    minflow.manual_seed(4)
    a = list(RandomSampler(range(30)))
    minflow.manual_seed(4)
    assert list(RandomSampler(range(30))) == a


def test_random_sampler_num_samples_without_replacement():
    s = RandomSampler(range(4), num_samples=10)
    out = list(s)
    assert len(s) == len(out) == 10
    assert sorted(out[:4]) == sorted(out[4:8]) == [0, 1, 2, 3]    # whole permutations first
    assert len(set(out[8:])) == 2


def test_random_sampler_with_replacement():
    s = RandomSampler(range(3), replacement=True, num_samples=100)
    out = list(s)
    assert len(out) == 100 and set(out) == {0, 1, 2}


@pytest.mark.parametrize("kwargs, error, message", [
    ({"replacement": 1}, TypeError, "replacement should be a boolean value"),
    ({"num_samples": 0}, ValueError, "num_samples should be a positive integer value"),
    ({"num_samples": 2.0}, ValueError, "num_samples should be a positive integer value"),
])
def test_random_sampler_errors(kwargs, error, message):
    with pytest.raises(error, match=message):
        RandomSampler(range(3), **kwargs)


def test_subset_random_sampler():
    s = SubsetRandomSampler([10, 20, 30], generator=minflow.Generator().manual_seed(0))
    assert sorted(s) == [10, 20, 30] and len(s) == 3


@pytest.mark.parametrize("n", [0, 1, 6, 7, 9])
@pytest.mark.parametrize("batch_size", [1, 3, 10])
@pytest.mark.parametrize("drop_last", [False, True])
def test_batch_sampler_matches_torch(n, batch_size, drop_last):
    torch = pytest.importorskip("torch")
    ours = BatchSampler(SequentialSampler(range(n)), batch_size, drop_last)
    theirs = torch.utils.data.BatchSampler(range(n), batch_size, drop_last)
    assert list(ours) == list(theirs)
    assert len(ours) == len(theirs)


@pytest.mark.parametrize("batch_size, drop_last, message", [
    (0, False, "batch_size should be a positive integer value"),
    (True, False, "batch_size should be a positive integer value"),
    (2, 1, "drop_last should be a boolean value"),
])
def test_batch_sampler_errors(batch_size, drop_last, message):
    with pytest.raises(ValueError, match=message):
        BatchSampler(range(3), batch_size, drop_last)


def test_custom_sampler_subclass():
    class Evens(Sampler):
        def __init__(self, n):
            super().__init__(None)
            self.n = n

        def __iter__(self):
            return iter(range(0, self.n, 2))

    assert list(BatchSampler(Evens(7), 2, False)) == [[0, 2], [4, 6]]
    with pytest.raises(NotImplementedError, match="__iter__"):
        iter(Sampler())


def test_weighted_random_sampler_draws_in_proportion_to_the_weights():
    g = minflow.Generator().manual_seed(0)
    sampler = minflow.utils.data.WeightedRandomSampler(minflow.tensor([1.0, 3.0, 6.0]),
                                                       60000, generator=g)
    draws = np.array(list(sampler))
    assert len(sampler) == 60000 and draws.size == 60000
    np.testing.assert_allclose(np.bincount(draws, minlength=3) / draws.size, [0.1, 0.3, 0.6],
                               atol=0.01)


def test_weighted_random_sampler_without_replacement_as_torch_multinomial():
    g = minflow.Generator().manual_seed(1)
    weights = [1.0, 3.0, 6.0]
    firsts = [next(iter(minflow.utils.data.WeightedRandomSampler(
        weights, 1, replacement=False, generator=g))) for _ in range(20000)]
    np.testing.assert_allclose(np.bincount(firsts, minlength=3) / 20000, [0.1, 0.3, 0.6],
                               atol=0.015)
    # each index at most once; zero weights come after every positive one
    for _ in range(20):
        order = list(minflow.utils.data.WeightedRandomSampler([0.0, 2.0, 0.0, 1.0], 4,
                                                              replacement=False, generator=g))
        assert sorted(order) == [0, 1, 2, 3] and set(order[:2]) == {1, 3}


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(weights=[[0.1, 0.9]], num_samples=5), ValueError,
     r"weights should be a 1d sequence but given weights have shape \(1, 2\)"),
    (dict(weights=[0.1, 0.9], num_samples=0), ValueError,
     "num_samples should be a positive integer value, but got num_samples=0"),
    (dict(weights=[0.1, 0.9], num_samples=2, replacement=1), ValueError,
     "replacement should be a boolean value, but got replacement=1"),
    (dict(weights=[0.1, -0.9], num_samples=2), RuntimeError,
     "invalid multinomial distribution"),
    (dict(weights=[0.1, 0.9], num_samples=3, replacement=False), RuntimeError,
     "cannot sample n_sample > prob_dist.size"),
])
def test_weighted_random_sampler_bad_input(kwargs, error, message):
    with pytest.raises(error, match=message):
        list(minflow.utils.data.WeightedRandomSampler(**kwargs))

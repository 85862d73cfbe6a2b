import warnings

import pytest

import minflow
from minflow.utils.data import (ConcatDataset, Dataset, IterableDataset, Subset,
                                TensorDataset, random_split)


def test_tensor_dataset_items_and_len():
    x, y = minflow.arange(12).reshape(4, 3), minflow.tensor([1.0, 2.0, 3.0, 4.0])
    ds = TensorDataset(x, y)
    assert len(ds) == 4
    xi, yi = ds[2]
    assert xi.tolist() == [6, 7, 8] and yi.item() == 3.0


def test_tensor_dataset_size_mismatch_names_shapes():
    with pytest.raises(AssertionError, match=r"same first dimension.*\[4, 3\], \[5\]"):
        TensorDataset(minflow.zeros(4, 3), minflow.zeros(5))


@pytest.mark.parametrize("args, error, message", [
    ((), ValueError, "at least one tensor"),
    ((minflow.zeros(2), [1, 2]), TypeError, "got list at position 1"),
    ((minflow.tensor(1.0),), ValueError, "tensor 0 is 0-d"),
])
def test_tensor_dataset_rejects_bad_input(args, error, message):
    with pytest.raises(error, match=message):
        TensorDataset(*args)


def test_concat_dataset_indexing():
    ds = ConcatDataset([[0, 1], [], [2, 3, 4]])
    assert len(ds) == 5 and ds.cumulative_sizes == [2, 2, 5]
    assert [ds[i] for i in range(5)] == [0, 1, 2, 3, 4]
    assert [ds[-i] for i in range(1, 6)] == [4, 3, 2, 1, 0]
    for bad in (5, -6):
        with pytest.raises(IndexError, match="out of range"):
            ds[bad]


def test_concat_dataset_errors_and_add():
    with pytest.raises(ValueError, match="empty"):
        ConcatDataset([])

    class Stream(IterableDataset):
        def __iter__(self):
            return iter([1])

    with pytest.raises(TypeError, match="IterableDataset"):
        ConcatDataset([Stream()])
    with pytest.raises(TypeError, match="does not support"):
        Stream() + Stream()
    a = TensorDataset(minflow.arange(2))
    both = a + TensorDataset(minflow.arange(3))
    assert isinstance(both, ConcatDataset) and len(both) == 5


def test_dataset_base_requires_getitem():
    with pytest.raises(NotImplementedError, match="__getitem__"):
        Dataset()[0]


def test_subset():
    sub = Subset(["a", "b", "c", "d"], [3, 1])
    assert len(sub) == 2 and [sub[0], sub[1]] == ["d", "b"]
    assert sub.__getitems__([1, 0]) == ["b", "d"]


def _cover(splits, n):
    seen = sorted(i for s in splits for i in s.indices)
    return seen == list(range(n))


def test_random_split_lengths_and_cover():
    splits = random_split(range(10), [3, 7])
    assert [len(s) for s in splits] == [3, 7] and _cover(splits, 10)
    assert all(isinstance(s, Subset) for s in splits)


def test_random_split_reproducible_with_generator_and_seed():
    def split(**kw):
        return [s.indices for s in random_split(range(20), [5, 15], **kw)]

    g = lambda: minflow.Generator().manual_seed(3)      # noqa: E731
    minflow.manual_seed(1)
    first = split(generator=g())
    minflow.manual_seed(2)                               # the global seed does not matter
    assert split(generator=g()) == first
    minflow.manual_seed(5)
    a = split()
    minflow.manual_seed(5)
    assert split() == a
    assert split() != a                                  # the default generator moved on


@pytest.mark.parametrize("n", [0, 1, 2, 5, 7, 10, 11, 99, 100, 101])
@pytest.mark.parametrize("fractions", [[0.5, 0.5], [0.3, 0.3, 0.4], [0.1] * 10,
                                       [1.0], [0.0, 1.0], [0.7, 0.2, 0.1],
                                       [1 / 3, 1 / 3, 1 / 3], [0.25, 0.75]])
def test_random_split_fraction_lengths_match_torch(n, fractions):
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = random_split(range(n), fractions, generator=minflow.Generator().manual_seed(0))
        theirs = torch.utils.data.random_split(range(n), fractions,
                                               generator=torch.Generator().manual_seed(0))
    assert [len(s) for s in ours] == [len(s) for s in theirs]
    assert _cover(ours, n)


def test_random_split_remainder_goes_round_robin_from_the_first():
    splits = random_split(range(10), [0.3, 0.3, 0.4])   # floors 3, 3, 4: no remainder
    assert [len(s) for s in splits] == [3, 3, 4]
    splits = random_split(range(11), [0.3, 0.3, 0.4])   # floors 3, 3, 4; one left over
    assert [len(s) for s in splits] == [4, 3, 4]
    splits = random_split(range(5), [1 / 3] * 3)         # floors 1, 1, 1; two left over
    assert [len(s) for s in splits] == [2, 2, 1]


def test_random_split_warns_on_empty_split():
    with pytest.warns(UserWarning, match="split at index 1 is 0"):
        random_split(range(2), [0.1, 0.1, 0.8])      # floors 0, 0, 1; one left over


@pytest.mark.parametrize("lengths, message", [
    ([3, 3], r"sum of input lengths \(6\) does not equal the length of the input dataset "
             r"\(10\)"),
    ([1.5, -0.5], "fraction at index 0 is not between 0 and 1"),
    ([0.5, 9.5], "expected lengths to be non-negative ints"),
    ([-1, 11], "expected lengths to be non-negative ints"),
])
def test_random_split_errors(lengths, message):
    with pytest.raises(ValueError, match=message):
        random_split(range(10), lengths)


def test_random_split_rejects_cuda_or_foreign_generator():
    with pytest.raises(TypeError, match="minflow.Generator"):
        random_split(range(4), [2, 2], generator=object())
    with pytest.raises(ValueError, match="'cpu' generator"):
        random_split(range(4), [2, 2], generator=minflow.Generator("cuda"))


def test_chain_and_stack_datasets_as_torch():
    class Stream(minflow.utils.data.IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n))

    assert list(minflow.utils.data.ChainDataset([Stream(2), Stream(3)])) == [0, 1, 0, 1, 2]
    stacked = minflow.utils.data.StackDataset([1, 2], [3, 4])
    assert len(stacked) == 2 and stacked[1] == (2, 4)
    named = minflow.utils.data.StackDataset(a=[1, 2], b=[3, 4])
    assert named[0] == {"a": 1, "b": 3}
    batches = list(minflow.utils.data.DataLoader(named, batch_size=2))
    assert batches[0]["a"].tolist() == [1, 2] and batches[0]["b"].tolist() == [3, 4]
    with pytest.raises(ValueError, match="size mismatch between datasets"):
        minflow.utils.data.StackDataset([1, 2], [3])
    with pytest.raises(ValueError, match="but both types are given"):
        minflow.utils.data.StackDataset([1, 2], b=[3, 4])
    assert minflow.utils.data.get_worker_info() is None

import numpy as np
import pytest

import minflow
from minflow.utils.data import (BatchSampler, DataLoader, Dataset, IterableDataset,
                                SequentialSampler, TensorDataset, default_collate)
from minflow.utils.data import dataset as dataset_module


def _tensor_dataset(n=10):
    return TensorDataset(minflow.arange(n * 3).reshape(n, 3).float(), minflow.arange(n))


class Records(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"x": np.full(2, i, np.float32), "label": i, "name": f"r{i}"}


class Stream(IterableDataset):
    def __init__(self, n, sized=True):
        self.n, self.sized = n, sized

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        if not self.sized:
            raise TypeError("unsized")
        return self.n


@pytest.mark.parametrize("n, batch_size, drop_last, sizes", [
    (10, 4, False, [4, 4, 2]), (10, 4, True, [4, 4]), (8, 4, False, [4, 4]),
    (8, 4, True, [4, 4]), (3, 5, False, [3]), (3, 5, True, []), (0, 2, False, [])])
def test_batch_sizes_and_len(n, batch_size, drop_last, sizes):
    loader = DataLoader(_tensor_dataset(n), batch_size=batch_size, drop_last=drop_last)
    batches = list(loader)
    assert [len(y) for _, y in batches] == sizes and len(loader) == len(sizes)
    for x, y in batches:
        assert x.shape == (len(y), 3) and x.dtype == minflow.float32
        assert y.dtype == minflow.int64


def test_order_without_shuffle():
    labels = [y.tolist() for _, y in DataLoader(_tensor_dataset(5), batch_size=2)]
    assert labels == [[0, 1], [2, 3], [4]]


def test_default_batch_size_is_one():
    batches = list(DataLoader(_tensor_dataset(3)))
    assert len(batches) == 3 and batches[0][0].shape == (1, 3)


def _order(loader):
    return [i for _, y in loader for i in y.tolist()]


def test_shuffle_reproducible_with_manual_seed():
    ds = _tensor_dataset(50)
    minflow.manual_seed(123)
    first = _order(DataLoader(ds, batch_size=8, shuffle=True))
    minflow.manual_seed(123)
    assert _order(DataLoader(ds, batch_size=8, shuffle=True)) == first
    assert sorted(first) == list(range(50)) and first != list(range(50))


def test_shuffle_generator_independent_of_global_seed_and_new_each_epoch():
    ds = _tensor_dataset(50)

    def epochs(global_seed):
        minflow.manual_seed(global_seed)
        loader = DataLoader(ds, batch_size=8, shuffle=True,
                            generator=minflow.Generator().manual_seed(9))
        return _order(loader), _order(loader)

    first, second = epochs(0)
    assert epochs(1) == (first, second)
    assert first != second


def test_tensor_dataset_fast_path_equals_default_collate(monkeypatch):
    x = minflow.randn(20, 2, 3)
    ds = TensorDataset(x, minflow.arange(20), (x[:, 0, 0] > 0))
    g = minflow.Generator
    slow = list(DataLoader(ds, batch_size=6, shuffle=True, collate_fn=default_collate,
                           generator=g().manual_seed(1)))
    # the fast path must not read samples one by one
    monkeypatch.setattr(dataset_module.TensorDataset, "__getitem__", None)
    fast = list(DataLoader(ds, batch_size=6, shuffle=True, generator=g().manual_seed(1)))
    assert len(fast) == len(slow) == 4
    for fast_batch, slow_batch in zip(fast, slow):
        assert isinstance(fast_batch, list) and len(fast_batch) == 3
        for a, b in zip(fast_batch, slow_batch):
            assert a.dtype == b.dtype and a.shape == b.shape
            assert a.tolist() == b.tolist()


def test_tensor_dataset_on_device(device):
    x = minflow.randn(7, 2, device=device)
    ds = TensorDataset(x, minflow.arange(7, device=device))
    fast = list(DataLoader(ds, batch_size=3, shuffle=True,
                           generator=minflow.Generator().manual_seed(0)))
    slow = list(DataLoader(ds, batch_size=3, shuffle=True, collate_fn=default_collate,
                           generator=minflow.Generator().manual_seed(0)))
    for fast_batch, slow_batch in zip(fast, slow):
        for a, b in zip(fast_batch, slow_batch):
            assert a.device == x.device and a.tolist() == b.tolist()


def test_fast_path_skipped_for_subclass_with_own_getitem():
    class Doubled(TensorDataset):
        def __getitem__(self, i):
            return tuple(2 * t[i] for t in self.tensors)

    (batch,) = list(DataLoader(Doubled(minflow.arange(3)), batch_size=3))
    assert batch[0].tolist() == [0, 2, 4]


def test_fast_path_keeps_gradients():
    w = minflow.ones(4, 2, requires_grad=True)
    (x,), = list(DataLoader(TensorDataset(w), batch_size=4))
    (x * minflow.arange(4).float().reshape(4, 1)).sum().backward()
    assert w.grad[:, 0].tolist() == [0.0, 1.0, 2.0, 3.0]


def test_collate_of_dict_samples():
    batch = next(iter(DataLoader(Records(5), batch_size=3)))
    assert batch["x"].shape == (3, 2) and batch["x"].dtype == minflow.float32
    assert batch["label"].tolist() == [0, 1, 2] and batch["name"] == ["r0", "r1", "r2"]


def test_custom_collate_fn_sampler_and_batch_sampler():
    loader = DataLoader(Records(5), batch_size=2, collate_fn=lambda b: [s["label"] for s in b])
    assert list(loader) == [[0, 1], [2, 3], [4]]
    loader = DataLoader(Records(4), sampler=[3, 1], batch_size=2,
                        collate_fn=lambda b: [s["label"] for s in b])
    assert list(loader) == [[3, 1]]
    batches = BatchSampler(SequentialSampler(range(5)), 3, drop_last=True)
    loader = DataLoader(_tensor_dataset(5), batch_sampler=batches)
    assert [y.tolist() for _, y in loader] == [[0, 1, 2]] and len(loader) == 1


def test_batch_size_none_yields_converted_samples():
    loader = DataLoader(Records(3), batch_size=None)
    samples = list(loader)
    assert len(loader) == 3 and isinstance(samples[1]["x"], minflow.Tensor)
    assert samples[1]["label"] == 1


def test_getitems_protocol_is_used():
    class Batched(Records):
        def __getitems__(self, indices):
            return [{"label": -i} for i in indices]

    assert [b["label"].tolist() for b in DataLoader(Batched(3), batch_size=2)] == \
        [[0, -1], [-2]]


@pytest.mark.parametrize("n, batch_size, drop_last, expected", [
    (5, 2, False, [[0, 1], [2, 3], [4]]), (5, 2, True, [[0, 1], [2, 3]]),
    (4, 2, True, [[0, 1], [2, 3]]), (0, 2, False, [])])
def test_iterable_dataset(n, batch_size, drop_last, expected):
    loader = DataLoader(Stream(n), batch_size=batch_size, drop_last=drop_last)
    assert [b.tolist() for b in loader] == expected and len(loader) == len(expected)
    assert list(DataLoader(Stream(3), batch_size=None)) == [0, 1, 2]


def test_iterable_dataset_without_len():
    loader = DataLoader(Stream(3, sized=False), batch_size=2)
    assert [b.tolist() for b in loader] == [[0, 1], [2]]
    with pytest.raises(TypeError):
        len(loader)


@pytest.mark.parametrize("kwargs, message", [
    ({"shuffle": True}, "expected unspecified shuffle option"),
    ({"sampler": [0]}, "expected unspecified sampler option"),
    ({"batch_sampler": [[0]]}, "expected unspecified batch_sampler option"),
])
def test_iterable_dataset_rejects_sampling_options(kwargs, message):
    with pytest.raises(ValueError, match=message):
        DataLoader(Stream(3), **kwargs)


@pytest.mark.parametrize("kwargs, error, message", [
    ({"num_workers": -1}, ValueError, "non-negative integer"),
    ({"batch_sampler": [[0]], "batch_size": 2}, ValueError, "mutually exclusive"),
    ({"batch_sampler": [[0]], "shuffle": True}, ValueError, "mutually exclusive"),
    ({"sampler": [0], "shuffle": True}, ValueError, "sampler option is mutually exclusive"),
    ({"batch_size": None, "drop_last": True}, ValueError, "mutually exclusive with drop_last"),
    ({"batch_size": 0}, ValueError, "batch_size should be a positive integer"),
    ({"prefetch_factor": 2}, ValueError, "prefetch_factor option could only be specified"),
    ({"persistent_workers": True}, ValueError, "persistent_workers option needs num_workers"),
])
def test_argument_errors(kwargs, error, message):
    with pytest.raises(error, match=message):
        DataLoader(_tensor_dataset(4), **kwargs)


def test_num_workers_warns_and_loads_the_same_batches():
    with pytest.warns(UserWarning, match=r"num_workers=2 is not supported; loading in the main"):
        loader = DataLoader(_tensor_dataset(5), batch_size=2, num_workers=2, pin_memory=True)
    expected = DataLoader(_tensor_dataset(5), batch_size=2)
    for got, want in zip(loader, expected, strict=True):
        assert [t.tolist() for t in got] == [t.tolist() for t in want]


def test_iterates_again_each_epoch():
    loader = DataLoader(_tensor_dataset(4), batch_size=3)
    assert len(list(loader)) == len(list(loader)) == 2

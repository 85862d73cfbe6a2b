"""segment_reduce and the deprecated range, side by side with torch where it is installed;
segment_reduce's gradients also through check_op (gradcheck, double backward, graph)."""
import warnings

import numpy as np
import pytest

import minflow
from minflow.testing import Sample, check_op

RNG = np.random.default_rng(0)
REDUCES = ["sum", "mean", "max", "min", "prod"]
# (data shape, axis, lengths): empty segments, a batch of lengths per row, one segment
LAYOUTS = [((7,), 0, [2, 0, 3, 1, 1]), ((7, 3), 0, [0, 7, 0]),
           ((2, 6, 2), 1, [[2, 4, 0], [3, 0, 3]])]


def _offsets(lengths):
    lengths = np.asarray(lengths)
    zeros = np.zeros(lengths.shape[:-1] + (1,), dtype=lengths.dtype)
    return np.concatenate([zeros, np.cumsum(lengths, -1)], -1)


@pytest.mark.parametrize("by", ["lengths", "offsets"])
@pytest.mark.parametrize("initial", [None, 0.5])
@pytest.mark.parametrize("layout", range(len(LAYOUTS)))
@pytest.mark.parametrize("reduce", REDUCES)
def test_segment_reduce_values_and_grads_as_torch(reduce, layout, initial, by):
    torch = pytest.importorskip("torch")
    shape, axis, lengths = LAYOUTS[layout]
    x = RNG.standard_normal(shape)
    segments = np.asarray(lengths) if by == "lengths" else _offsets(lengths)
    ours, theirs = minflow.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    got = minflow.segment_reduce(ours, reduce, axis=axis, initial=initial,
                                 **{by: minflow.tensor(segments)})
    expected = torch.segment_reduce(theirs, reduce, axis=axis, initial=initial,
                                    **{by: torch.tensor(segments)})
    assert got.dtype is minflow.float64 and got.shape == tuple(expected.shape)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-12,
                               equal_nan=True)
    weight = RNG.standard_normal(tuple(expected.shape))
    (got.nan_to_num(0, 0, 0) * minflow.tensor(weight)).sum().backward()
    (expected.nan_to_num(0, 0, 0) * torch.tensor(weight)).sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_segment_reduce_ties_offsets_and_unsafe_as_torch():
    torch = pytest.importorskip("torch")
    for lib in (minflow, torch):
        x = lib.tensor([1.0, 5.0, 5.0, 2.0], requires_grad=True)
        lib.segment_reduce(x, "max", lengths=lib.tensor([4])).backward()
        assert x.grad.tolist() == [0.0, 0.5, 0.5, 0.0]      # ties share the gradient
        data = lib.arange(6.0)
        # offsets need not start at 0; unsafe lengths may leave elements out
        assert lib.segment_reduce(data, "sum", offsets=lib.tensor([1, 3, 5])).tolist() == \
            [3.0, 7.0]
        assert lib.segment_reduce(data, "sum", lengths=lib.tensor([2, 2]),
                                  unsafe=True).tolist() == [1.0, 5.0]
        x = lib.tensor([1.0, 0.0, 5.0, 2.0], requires_grad=True)
        lib.segment_reduce(x, "prod", lengths=lib.tensor([4])).backward()
        assert x.grad.tolist() == [0.0, 10.0, 0.0, 0.0]


def test_segment_reduce_check_op(device):
    x = RNG.standard_normal((2, 6, 3))
    lengths = np.array([[2, 4, 0], [3, 0, 3]])

    def reference(data, reduce, lengths):
        out = np.zeros(data.shape[:1] + lengths.shape[1:] + data.shape[2:])
        for b in range(data.shape[0]):
            ends = np.cumsum(lengths[b])
            for s, (start, end) in enumerate(zip(ends - lengths[b], ends)):
                part = data[b, start:end]
                out[b, s] = getattr(np, reduce)(part, axis=0) if len(part) else 0.0
        return out.astype(data.dtype)

    samples = [Sample(x, reduce="sum", lengths=lengths), Sample(x, reduce="max", lengths=lengths)]
    check_op(lambda data, reduce, lengths: minflow.segment_reduce(
        data, reduce, lengths=minflow.tensor(lengths, device=data.device), axis=1,
        initial=0.0 if reduce == "max" else None),
        samples, lambda data, reduce, lengths: reference(data, reduce, lengths) if reduce == "sum"
        else np.maximum(reference(data, reduce, lengths), 0.0),
        devices=[device], dtypes=["float32", "float64"], inplace=False, out=False,
        checks=("forward", "gradcheck", "gradgradcheck", "graph_grads"))


@pytest.mark.parametrize("call", [
    lambda lib: lib.segment_reduce(lib.arange(6.0), "sum", lengths=lib.tensor([2, 2])),
    lambda lib: lib.segment_reduce(lib.arange(6.0), "sum", lengths=lib.tensor([2, -1, 5])),
    lambda lib: lib.segment_reduce(lib.arange(6.0), "sum"),
    lambda lib: lib.segment_reduce(lib.arange(6.0), "any", lengths=lib.tensor([6])),
    lambda lib: lib.segment_reduce(lib.arange(6.0), "sum", indices=lib.tensor([0] * 6)),
])
def test_segment_reduce_errors_as_torch(call):
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as expected:
        call(torch)
    with pytest.raises(RuntimeError) as got:
        call(minflow)
    assert str(expected.value).split("(")[0].strip().removeprefix("segment_reduce(): ") in \
        str(got.value)


def test_segment_reduce_bad_arguments():
    data = minflow.arange(6.0)
    with pytest.raises(NotImplementedError, match="expected floating point data, got int64"):
        minflow.segment_reduce(minflow.arange(6), "sum", lengths=minflow.tensor([6]))
    with pytest.raises(RuntimeError, match="expected lengths to be an int32 or int64 tensor, "
                                           "got float32"):
        minflow.segment_reduce(data, "sum", lengths=minflow.tensor([6.0]))
    with pytest.raises(RuntimeError, match="expected lengths to have 1 dims"):
        minflow.segment_reduce(data, "sum", lengths=minflow.tensor([[6]]))


RANGES = [((1, 4), {}), ((0, 0.9, 0.1), {}), ((4, 1, -1), {}), ((1, 4), {"dtype": "int64"}),
          ((0, 1, 0.3), {"dtype": "float64"}), ((-2.5, 3.7, 0.7), {}), ((1e8, 1e8 + 10, 1), {}),
          ((0.1, 2.3, 0.1), {})]


@pytest.mark.parametrize("args, kwargs", RANGES)
def test_range_as_torch(args, kwargs):
    torch = pytest.importorskip("torch")
    with pytest.warns(UserWarning, match="torch.range is deprecated"):
        got = minflow.range(*args, **{k: getattr(minflow, v) for k, v in kwargs.items()})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = torch.range(*args, **{k: getattr(torch, v) for k, v in kwargs.items()})
    assert got.dtype.name == str(expected.dtype).removeprefix("torch.")
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_range_errors_out_and_grad():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="range: step must be nonzero"):
            minflow.range(1, 4, 0)
        with pytest.raises(RuntimeError, match="upper bound and lower bound inconsistent with "
                                               "step sign, got start=4, end=1, step=1"):
            minflow.range(4, 1)
        out = minflow.empty(3, dtype=minflow.float64)
        assert minflow.range(0, 1, 0.5, out=out) is out and out.tolist() == [0.0, 0.5, 1.0]
        assert minflow.range(0, 2, requires_grad=True).requires_grad

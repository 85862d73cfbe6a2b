"""Tensor.new, narrow_copy, Tensor.prelu, frexp, diagonal_scatter and index_reduce:
frexp and narrow_copy through minflow.testing.check_op, and all of them against torch
(values, dtypes, grads). diagonal_scatter and index_reduce are also in the table of
test_index_update.py; bad input: tests/test_bad_input.py."""
import itertools

import numpy as np
import pytest

import minflow
from minflow.testing import Sample, check_op

RNG = np.random.default_rng(3)
SPECIALS = np.array([0.0, -0.0, 1.0, -3.5, 1e-3, 6e4, np.inf, -np.inf, np.nan, 0.75])


def _np_frexp(x):
    mantissa, exponent = np.frexp(x)
    return mantissa, exponent.astype(np.int32)


def test_frexp_table(device):
    finite = SPECIALS[np.isfinite(SPECIALS)]
    samples = [Sample(RNG.standard_normal((3, 4)) * 50), Sample(finite)]
    check_op(minflow.frexp, samples, _np_frexp, dtypes=["float16", "float32", "float64"],
             devices=[device], grad=False, out=False)
    # NOTE: away from zero and powers of two, where the mantissa jumps (no numeric grad)
    check_op(lambda x: minflow.frexp(x).mantissa, samples[:1], lambda x: np.frexp(x)[0],
             op=minflow.ops.get_op("frexp"), dtypes=["float32", "float64"], devices=[device])


def test_narrow_copy_table(device):
    samples = [Sample(RNG.standard_normal((3, 5)), 1, 1, 3),
               Sample(RNG.standard_normal((4, 2)), 0, -2, 2)]
    check_op(minflow.narrow_copy, samples,
             lambda a, dim, start, length: np.take(a, range(start % a.shape[dim],
                                                            start % a.shape[dim] + length), dim),
             dtypes=["float16", "float32", "float64", "int64"], devices=[device])


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_frexp_against_torch(dtype):
    torch = pytest.importorskip("torch")
    values = np.concatenate([SPECIALS, RNG.standard_normal(6) * 1e3,
                             [np.finfo(dtype).tiny / 4]]).astype(dtype)
    ours, theirs = minflow.frexp(minflow.tensor(values)), torch.frexp(torch.tensor(values))
    for a, b in zip(ours, theirs):
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert type(ours).__name__ == "frexp" and ours.exponent is ours[1]


def test_frexp_grad_and_out_against_torch():
    torch = pytest.importorskip("torch")
    values = np.array([3.0, -0.25, 1e-3, 7e5, 0.0])
    grads = []
    for lib in (minflow, torch):
        x = lib.tensor(values, requires_grad=True)
        mantissa, exponent = lib.frexp(x * 1)
        assert not exponent.requires_grad
        (mantissa * lib.tensor(np.arange(1.0, 6.0))).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(*grads)
    out = (minflow.empty(2), minflow.empty(2, dtype=minflow.int32))
    result = minflow.frexp(minflow.tensor([6.0, 0.5]), out=out)
    assert result[0] is out[0] and out[1].tolist() == [3, 0] and out[0].tolist() == [0.75, 0.5]


def test_narrow_copy_is_a_copy_with_grads_as_torch():
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal((3, 5))
    results = []
    for lib in (minflow, torch):
        x = lib.tensor(a, requires_grad=True)
        out = lib.narrow_copy(x * 1, 1, -4, 3)
        (out * lib.tensor(np.arange(9.0).reshape(3, 3))).sum().backward()
        results.append([out.detach().numpy(), x.grad.numpy()])
        assert out.is_contiguous()
    for ours, theirs in zip(*results):
        np.testing.assert_array_equal(ours, theirs)
    x = minflow.zeros(2, 3)
    x.narrow_copy(0, 0, 1).fill_(5.0)
    assert x.sum().item() == 0.0                  # not a view


def test_tensor_prelu_method_as_torch():
    torch = pytest.importorskip("torch")
    a, w = RNG.standard_normal((2, 3, 4)), np.array([0.1, -0.2, 0.3])
    results = []
    for lib in (minflow, torch):
        x, weight = lib.tensor(a, requires_grad=True), lib.tensor(w, requires_grad=True)
        out = x.prelu(weight)
        out.sum().backward()
        results.append([out.detach().numpy(), x.grad.numpy(), weight.grad.numpy()])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_tensor_new_as_torch(dtype):
    torch = pytest.importorskip("torch")
    ours = minflow.zeros(2, dtype=getattr(minflow, dtype))
    theirs = torch.zeros(2, dtype=getattr(torch, dtype))
    for args in [(), (2, 3), ([1, 0, 1],), ((2, 3),), (minflow.Size([4]),)]:
        targs = tuple(torch.Size(a) if isinstance(a, minflow.Size) else a for a in args)
        got, expected = ours.new(*args), theirs.new(*targs)
        assert tuple(got.shape) == tuple(expected.shape) and got.dtype.name == dtype
        if args and not isinstance(args[0], int) and not isinstance(args[0], minflow.Size):
            np.testing.assert_array_equal(got.numpy(), expected.numpy())
    same = ours.new(ours)
    assert same is not ours and np.shares_memory(same.numpy(), ours.numpy())
    assert ours.new(3, device="cpu").device == ours.device


def test_diagonal_scatter_against_torch():
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal((3, 4, 5))
    calls = [lambda m, x, s: m.diagonal_scatter(x, s[0, :3].T * 1, 0),
             lambda m, x, s: m.diagonal_scatter(x, s[:, 0, :3], 2, 1, 2),
             lambda m, x, s: x.diagonal_scatter(s[:3, :4, 0].T * 1, -1, -1, 0),
             lambda m, x, s: m.diagonal_scatter(x, s[:, :0, 0] * 1, 7, 1, 2)]
    for call in calls:
        results = []
        for lib in (minflow, torch):
            x = lib.tensor(a, requires_grad=True)
            s = lib.tensor(a[::-1] * 2, requires_grad=True)
            out = call(lib, x, s)
            (out * lib.tensor(np.arange(60.0).reshape(3, 4, 5))).sum().backward()
            results.append([out.detach().numpy(), x.grad.numpy(), s.grad.numpy()])
        for ours, theirs in zip(*results):
            np.testing.assert_array_equal(ours, theirs)
    ints = minflow.zeros(2, 2, dtype=minflow.int64).diagonal_scatter(minflow.tensor([1.7, 2.2]))
    assert ints.tolist() == torch.zeros(2, 2, dtype=torch.int64).diagonal_scatter(
        torch.tensor([1.7, 2.2])).tolist()


def test_index_reduce_sweep_against_torch():
    torch = pytest.importorskip("torch")
    for reduce, include_self, dtype, dim in itertools.product(
            ("prod", "mean", "amax", "amin"), (True, False), ("float32", "float64", "int64"),
            (0, 1, -1)):
        a = RNG.integers(-2, 3, (3, 4)).astype(dtype)      # ties, and zeros for prod
        size = a.shape[dim]
        index = RNG.integers(0, size, 5)
        src_shape = (5, 4) if dim == 0 else (3, 5)
        src = RNG.integers(-2, 3, src_shape).astype(dtype)
        results = []
        for lib in (minflow, torch):
            grad = dtype == "float64"
            x, s = lib.tensor(a, requires_grad=grad), lib.tensor(src, requires_grad=grad)
            out = (x * 1 if grad else x).index_reduce(dim, lib.tensor(index), s, reduce,
                                                      include_self=include_self)
            found = [out.detach().numpy()]
            if grad:
                (out * lib.tensor(np.arange(12.0).reshape(3, 4))).sum().backward()
                found += [x.grad.numpy(), s.grad.numpy()]
            results.append(found)
        for ours, theirs in zip(*results):
            np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6,
                                       err_msg=f"{reduce} {include_self} {dtype} {dim}")


def test_index_reduce_in_place_and_scalar_as_torch():
    torch = pytest.importorskip("torch")
    results = []
    for lib in (minflow, torch):
        x = lib.ones(3, 2)
        returned = x.index_reduce_(0, lib.tensor([0, 0], dtype=lib.int32),
                                   lib.tensor([[2.0, 3.0], [4.0, 5.0]]), "amax")
        assert returned is x
        scalar = lib.tensor(2.0).index_reduce(0, lib.tensor([0]), lib.tensor(3.0), "mean")
        results.append([x.numpy(), scalar.numpy()])
    for ours, theirs in zip(*results):
        np.testing.assert_array_equal(ours, theirs)

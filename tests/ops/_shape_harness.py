"""The table-driven tests shared by test_shape.py and test_join.py: forward vs numpy for
several dtypes and memory layouts, gradcheck and double backward, views sharing memory,
errors, and a PyTorch cross-check.

Table functions take the namespace first (``m``: minflow or torch), so the same line runs
on both libraries.
"""
import numpy as np
import pytest

import minflow
from minflow.autograd import gradcheck, gradgradcheck

DTYPES = ("float64", "float32", "float16", "int64", "bool")
LAYOUTS = ("contiguous", "strided", "transposed")
X = np.arange(6.0).reshape(2, 3)      # the input of every error case


def sample(shape, dtype, seed=0):
    values = np.random.default_rng(seed).uniform(-2.0, 2.0, shape)
    if dtype == "bool":
        return values > 0
    if dtype in ("int32", "int64"):
        return np.round(values * 3).astype(dtype)
    return values.astype(dtype)


def view_of(leaf, layout):
    """The view ``make`` hands out: every other element, or a transpose, of ``leaf``."""
    if layout == "strided":
        return leaf.unbind(-1)[0]
    if layout == "transposed" and leaf.ndim >= 2:
        return leaf.permute(tuple(range(leaf.ndim))[::-1])
    return leaf


def make(a, device, layout, requires_grad=False):
    """A leaf tensor and a view of it with ``a``'s values in the given memory layout."""
    if layout == "strided":
        a = np.stack([a, np.zeros_like(a)], -1)
    elif layout == "transposed":
        a = np.ascontiguousarray(a.transpose(tuple(range(a.ndim))[::-1]))
    leaf = minflow.tensor(a, device=device, requires_grad=requires_grad)
    return leaf, view_of(leaf, layout)


def as_tuple(out):
    return out if isinstance(out, tuple) else (out,)


def table_tests(cases, errors, writable_views):
    """The test functions for one family's tables, for its test module's namespace.

    ``cases``: name -> (fn(m, *tensors), numpy reference(*arrays), input shapes, output is
    a view). ``errors``: (fn(m, x) with x of shape (2, 3), error type, our message, torch
    raises the same type too). ``writable_views``: the case names whose outputs are views
    to write through.
    """
    @pytest.mark.parametrize("layout", LAYOUTS)
    @pytest.mark.parametrize("dtype", DTYPES)
    @pytest.mark.parametrize("name", sorted(cases))
    def test_forward_matches_numpy(name, dtype, layout, device):
        fn, ref, shapes, _ = cases[name]
        arrays = [sample(s, dtype, seed) for seed, s in enumerate(shapes)]
        tensors = [make(a, device, layout)[1] for a in arrays]
        moved = {"strided": 1, "transposed": 2}.get(layout, 99)
        if sum(n > 1 for n in arrays[0].shape) >= moved:     # else the layout is still contiguous
            assert not tensors[0].is_contiguous()
        outs, expected = as_tuple(fn(minflow, *tensors)), as_tuple(ref(*arrays))
        assert len(outs) == len(expected)
        for out, exp in zip(outs, expected):
            assert out.dtype.name == dtype and tuple(out.shape) == exp.shape
            np.testing.assert_array_equal(out.cpu().numpy(), exp)

    @pytest.mark.parametrize("layout", LAYOUTS)
    @pytest.mark.parametrize("name", sorted(cases))
    def test_grads(name, layout, device):
        fn, _, shapes, _ = cases[name]
        leaves = tuple(make(sample(s, "float64", seed), device, layout, requires_grad=True)[0]
                       for seed, s in enumerate(shapes))
        # the op sees the (non-contiguous) views; gradcheck perturbs the leaves under them
        check = lambda *xs: fn(minflow, *(view_of(x, layout) for x in xs))     # noqa: E731
        assert gradcheck(check, leaves)
        assert gradgradcheck(check, leaves)

    @pytest.mark.parametrize("name", sorted(cases))
    def test_views_share_memory_and_version(name, device):
        fn, ref, shapes, is_view = cases[name]
        arrays = [sample(s, "float64", seed) for seed, s in enumerate(shapes)]
        tensors = [minflow.tensor(a, device=device) for a in arrays]
        outs = as_tuple(fn(minflow, *tensors))
        tensors[0].add_(10.0)       # seen through views, not by copies
        arrays_after = [arrays[0] + 10.0] + arrays[1:]
        for out, exp in zip(outs, as_tuple(ref(*(arrays_after if is_view else arrays)))):
            np.testing.assert_array_equal(out.cpu().numpy(), exp)
            shared = out._version is not None and out._version is tensors[0]._version
            assert shared == is_view

    @pytest.mark.parametrize("name", writable_views)
    def test_writes_to_a_view_reach_the_base(name, device):
        fn, _, shapes, _ = cases[name]
        x = minflow.tensor(sample(shapes[0], "float64"), device=device)
        for out in as_tuple(fn(minflow, x)):
            out.fill_(7.0)
        written = sum(o.numel() for o in as_tuple(fn(minflow, x)))
        assert int((x == 7.0).sum().item()) == written

    @pytest.mark.parametrize("index", range(len(errors)))
    def test_errors(index):
        fn, exc, match, _ = errors[index]
        with pytest.raises(exc, match=match):
            fn(minflow, minflow.tensor(X))

    def test_against_torch():
        torch = pytest.importorskip("torch")
        for name, (fn, _, shapes, _) in sorted(cases.items()):
            arrays = [sample(s, "float64", seed) for seed, s in enumerate(shapes)]
            ours = [minflow.tensor(a, requires_grad=True) for a in arrays]
            theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
            out_ours, out_theirs = as_tuple(fn(minflow, *ours)), as_tuple(fn(torch, *theirs))
            assert len(out_ours) == len(out_theirs), name
            weights = [np.random.default_rng(1).standard_normal(tuple(o.shape))
                       for o in out_theirs]
            for o, t in zip(out_ours, out_theirs):
                np.testing.assert_array_equal(o.detach().numpy(), t.detach().numpy(),
                                              err_msg=name)
            sum(minflow.sum(o * minflow.tensor(w)) for o, w in zip(out_ours, weights)).backward()
            sum((t * torch.tensor(w)).sum() for t, w in zip(out_theirs, weights)).backward()
            for x, t in zip(ours, theirs):
                assert (x.grad is None) == (t.grad is None), name
                if t.grad is not None:
                    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-12,
                                               err_msg=name)
        for fn, exc, _, same in errors:
            if same:
                with pytest.raises(exc):
                    fn(torch, torch.tensor(X))

    return {test.__name__: test for test in (
        test_forward_matches_numpy, test_grads, test_views_share_memory_and_version,
        test_writes_to_a_view_reach_the_base, test_errors, test_against_torch)}

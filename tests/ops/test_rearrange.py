"""movedim, moveaxis, select, tile, repeat_interleave, vstack and hstack: values and grads
against torch (views where torch gives views), and their errors. dstack, column_stack,
tensor_split and hsplit / vsplit / dsplit: a case table run through the shared table tests
of _shape_harness.py, a sweep against torch; their bad-input cases live in
tests/test_bad_input.py."""
import numpy as np
import pytest

import minflow

from _shape_harness import table_tests

X = np.random.RandomState(0).randn(2, 3, 4)

CASES = [("movedim", (0, -1), {}), ("movedim", ((0, 1), (2, 0)), {}), ("moveaxis", (1, 0), {}),
         ("select", (1, -1), {}), ("select", (2, 0), {}), ("tile", ((2,),), {}),
         ("tile", ((2, 1, 1, 2),), {}), ("repeat_interleave", (2,), {"dim": 1}),
         ("repeat_interleave", (3,), {}), ("repeat_interleave", (0,), {"dim": 0})]


@pytest.mark.parametrize("name, args, kwargs", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_method_matches_torch(name, args, kwargs):
    torch = pytest.importorskip("torch")
    grad = None
    results = []
    for lib in (torch, minflow):
        x = lib.tensor(X, requires_grad=True)
        out = getattr(x, name)(*args, **kwargs)
        if grad is None:
            grad = np.random.RandomState(1).randn(*out.shape)
        (out * lib.tensor(grad)).sum().backward()
        results.append((tuple(out.shape), out.detach().numpy(), x.grad.numpy()))
    (t_shape, t_out, t_grad), (shape, out, grad_in) = results
    assert shape == t_shape
    np.testing.assert_allclose(out, t_out)
    np.testing.assert_allclose(grad_in, t_grad, atol=1e-15)


@pytest.mark.parametrize("repeats, kwargs", [([1, 0, 2], {"dim": 1}), ([3], {"dim": 0}),
                                             (2, {}), ([0, 1, 0, 4], {"dim": -1}),
                                             ([1, 0, 2], {"dim": 1, "output_size": 3})])
def test_tensor_repeats_match_torch(repeats, kwargs):
    torch = pytest.importorskip("torch")
    results = []
    for lib in (torch, minflow):
        x = lib.tensor(X, requires_grad=True)
        out = x.repeat_interleave(lib.tensor(repeats), **kwargs)
        (out * lib.tensor(np.arange(out.numel()).reshape(tuple(out.shape)))).sum().backward()
        results.append((tuple(out.shape), out.detach().numpy(), x.grad.numpy()))
    for ours, theirs in zip(results[1], results[0]):
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("name", ["vstack", "hstack"])
@pytest.mark.parametrize("inputs", [[np.ones(3), np.zeros(3)], [np.array(1.0), np.array(2.0)],
                                    [np.ones((2, 3)), np.zeros((2, 3))]], ids=["1d", "0d", "2d"])
def test_stacks_match_torch(name, inputs):
    torch = pytest.importorskip("torch")
    expected = getattr(torch, name)([torch.tensor(v) for v in inputs]).numpy()
    got = getattr(minflow, name)([minflow.tensor(v) for v in inputs]).numpy()
    assert got.shape == expected.shape and np.array_equal(got, expected)


def test_movedim_and_select_are_views():
    x = minflow.zeros(2, 3)
    x.movedim(0, 1)[2, 1] = 5.0
    x.select(0, 0)[1] = 7.0
    assert x.tolist() == [[0.0, 7.0, 0.0], [0.0, 0.0, 5.0]]


@pytest.mark.parametrize("call, error, match", [
    (lambda x: x.movedim((0, 1), (1,)), RuntimeError,
     "movedim: Invalid source or destination dims"),
    (lambda x: x.movedim((0, 0), (0, 1)), RuntimeError, "movedim: repeated dim in `source`"),
    (lambda x: x.movedim(0, 2), IndexError, "movedim: Dimension out of range"),
    (lambda x: x.movedim(0.5, 1), TypeError, "movedim: expected source to be an int"),
    (lambda x: x.select(0, 5), IndexError, "select\\(\\): index 5 out of range for tensor of "
                                           "size \\[2, 3\\] at dimension 0"),
    (lambda x: x.select(0, 1.0), TypeError, "select: expected index to be an int, got float"),
    (lambda x: x.tile(2.0), TypeError, "tile: expected dims to be an int or a sequence"),
    (lambda x: x.repeat_interleave(-1), RuntimeError,
     "repeat_interleave: expected repeats to be a non-negative int, got -1"),
    (lambda x: x.repeat_interleave(minflow.tensor([1, 2]), dim=0), RuntimeError,
     "repeat_interleave: repeats must have the same size as input along dim"),
    (lambda x: x.repeat_interleave(minflow.tensor([1.0, 2.0])), NotImplementedError,
     "repeat_interleave: expected int32 or int64 repeats, got float32"),
    (lambda x: x.repeat_interleave(minflow.tensor([[1, 2]])), RuntimeError,
     "repeat_interleave: repeats must be 0-dim or 1-dim tensor"),
    (lambda x: x.repeat_interleave(minflow.tensor([1, -1]), dim=0), RuntimeError,
     "repeat_interleave: repeats can not be negative"),
    (lambda x: x.repeat_interleave(2, dim=0, output_size=3), RuntimeError,
     "repeat_interleave: expected output_size 4, got 3"),
    (lambda x: minflow.vstack([]), RuntimeError, "vstack: expects a non-empty sequence"),
    (lambda x: minflow.hstack([x, 1.0]), TypeError,
     "hstack: expected a sequence of Tensors, got \\(Tensor, float\\)"),
])
def test_errors(call, error, match):
    with pytest.raises(error, match=match):
        call(minflow.zeros(2, 3))


# name: (fn(m, *tensors), numpy reference(*arrays), input shapes, output is a view)
TABLE = {
    "tensor_split_sections": (lambda m, x: x.tensor_split(3, dim=1),
                              lambda a: tuple(np.array_split(a, 3, 1)), [(2, 7)], True),
    "tensor_split_indices": (lambda m, x: m.tensor_split(x, [1, -1, 4, 9], dim=-1),
                             lambda a: tuple(np.split(a, [1, -1, 4, 9], -1)), [(2, 7)], True),
    "tensor_split_tensor": (lambda m, x: x.tensor_split(m.tensor([2, 3])),
                            lambda a: tuple(np.split(a, [2, 3])), [(5, 2)], True),
    "hsplit": (lambda m, x: x.hsplit(2), lambda a: tuple(np.hsplit(a, 2)), [(3, 4)], True),
    "hsplit_1d": (lambda m, x: m.hsplit(x, [2]), lambda a: tuple(np.hsplit(a, [2])), [(5,)],
                  True),
    "vsplit": (lambda m, x: x.vsplit([1, 3]), lambda a: tuple(np.vsplit(a, [1, 3])),
               [(4, 2)], True),
    "dsplit": (lambda m, x: x.dsplit(2), lambda a: tuple(np.dsplit(a, 2)), [(2, 1, 4)], True),
    "dstack": (lambda m, x, y, z: m.dstack([x, y, z]),
               lambda a, b, c: np.dstack([a, b, c]), [(2, 3), (2, 3), (2, 3, 2)], False),
    "dstack_1d": (lambda m, x, y: m.dstack((x, y)), lambda a, b: np.dstack([a, b]),
                  [(3,), (3,)], False),
    "column_stack": (lambda m, x, y, z: m.column_stack([x, y, z]),
                     lambda a, b, c: np.column_stack([a, b, c]), [(3,), (3, 2), (3,)], False),
    "column_stack_0d": (lambda m, x, y: m.column_stack([x, y]),
                        lambda a, b: np.column_stack([a, b]), [(), ()], False),
}

globals().update(table_tests(TABLE, [], ["tensor_split_sections", "vsplit"]))


def test_tensor_split_sweep_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    for size in range(0, 8):
        a = np.arange(size * 2.0).reshape(2, size)
        for arg in [1, 2, 3, 5, 9] + [sorted(rng.integers(-9, 10, rng.integers(0, 4)).tolist())
                                      for _ in range(6)]:
            ours = minflow.tensor_split(minflow.tensor(a), arg, 1)
            theirs = torch.tensor_split(torch.tensor(a), arg, 1)
            assert [p.tolist() for p in ours] == [p.tolist() for p in theirs], (size, arg)

"""ravel, rot90, take, diagflat, diag_embed, block_diag, cartesian_prod, combinations,
vander, unravel_index, tril_indices, triu_indices and logspace: one case table checked
against torch (values, shapes, dtypes over several input dtypes, and gradients), meta
shapes and graph mode. Bad-input cases: tests/test_bad_input.py."""
import numpy as np
import pytest

import minflow

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 4))
V = RNG.standard_normal(4)

# name: (fn(m, *tensors), input arrays); m is minflow or torch
CASES = {
    "ravel": (lambda m, x: x.t().ravel(), [A]),
    "rot90": (lambda m, x: (x.rot90(), m.rot90(x, 2), m.rot90(x, -1, [1, 0]), x.rot90(4)), [A]),
    "rot90_3d": (lambda m, x: m.rot90(x.reshape(2, 3, 2), 3, (2, 0)), [A]),
    "take": (lambda m, x: m.take(x, m.tensor([[0, -1], [5, 5]])), [A]),
    "diagflat": (lambda m, x: (m.diagflat(x), x.diagflat(-2)), [A[:2, :2]]),
    "diag_embed": (lambda m, x: (m.diag_embed(x), m.diag_embed(x, 1, 0, 2),
                                 x.diag_embed(-2, -1, 0)), [A]),
    "block_diag": (lambda m, x, y, z: m.block_diag(x, y[0], z[0, 0], y[:2, :1]), [A, A, A]),
    "cartesian_prod": (lambda m, x, y: m.cartesian_prod(x, y[:2], x[1:]), [V, V]),
    "combinations": (lambda m, x: (m.combinations(x), m.combinations(x, 3),
                                   m.combinations(x, 2, with_replacement=True)), [V]),
    "vander": (lambda m, x: (m.vander(x), m.vander(x, 2, True), m.vander(x, 0)), [V]),
}
DTYPES = ("float32", "float64", "int64")
# torch's vander backward fails (its cumprod runs in place): checked by gradcheck instead
NO_TORCH_GRAD = {"vander"}


def _cast(a, dtype):
    return np.round(a * 3).astype(dtype) if dtype == "int64" else a.astype(dtype)


def _as_tuple(out):
    return out if isinstance(out, tuple) else (out,)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name, dtype):
    torch = pytest.importorskip("torch")
    fn, arrays = CASES[name]
    grad = dtype == "float64" and name not in NO_TORCH_GRAD
    outs, leaves = [], []
    for lib in (minflow, torch):
        xs = [lib.tensor(_cast(a, dtype), requires_grad=grad) for a in arrays]
        out = _as_tuple(fn(lib, *xs))
        if grad:
            weights = [np.arange(1.0, o.numel() + 1).reshape(tuple(o.shape)) for o in out]
            sum((o * lib.tensor(w)).sum() for o, w in zip(out, weights)).backward()
        outs.append(out)
        leaves.append(xs)
    for ours, theirs in zip(*outs):
        assert ours.dtype.name == str(theirs.dtype).split(".")[-1], name
        assert tuple(ours.shape) == tuple(theirs.shape), name
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6,
                                   err_msg=name)
    for ours, theirs in zip(*leaves):
        if grad:
            np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-12,
                                       err_msg=name)


def test_vander_gradcheck():
    x = minflow.tensor(V, requires_grad=True)
    assert minflow.autograd.gradcheck(lambda t: minflow.vander(t, 3), (x,))
    assert minflow.autograd.gradgradcheck(lambda t: minflow.vander(t, 5, True), (x,))


def test_index_functions_against_torch():
    torch = pytest.importorskip("torch")
    for row, col, offset in [(3, 4, 0), (3, 4, 1), (4, 3, -2), (0, 3, 0), (2, 2, 5),
                             (5, 1, -9)]:
        for name in ("tril_indices", "triu_indices"):
            ours = getattr(minflow, name)(row, col, offset)
            theirs = getattr(torch, name)(row, col, offset)
            assert ours.dtype is minflow.int64 and ours.tolist() == theirs.tolist()
    assert minflow.tril_indices(3, 3, dtype=minflow.int32).dtype is minflow.int32
    flat = np.array([-7, -1, 0, 5, 6, 13])
    for shape in [(2, 3), (6,), (1, 2, 3), 6]:
        ours = minflow.unravel_index(minflow.tensor(flat), shape)
        theirs = torch.unravel_index(torch.tensor(flat), shape)
        assert [c.tolist() for c in ours] == [c.tolist() for c in theirs]
    for args, kwargs in [((0, 2, 3), {}), ((-1, 1, 5), {"dtype": minflow.float64}),
                         ((0, 3, 4), {"base": 2}), ((2, 0, 1), {}), ((0, 1, 0), {})]:
        torch_kwargs = {k: getattr(torch, v.name) if k == "dtype" else v
                        for k, v in kwargs.items()}
        ours, theirs = minflow.logspace(*args, **kwargs), torch.logspace(*args, **torch_kwargs)
        assert ours.dtype.name == str(theirs.dtype).split(".")[-1]
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)
    assert minflow.logspace(0, 2, 3, base=2, dtype=minflow.int64).tolist() == [1, 2, 4]


def test_meta_shapes_and_graph_mode():
    meta = minflow.empty(3, 4, device="meta")
    assert tuple(minflow.diag_embed(meta, 1).shape) == (3, 5, 5)
    assert tuple(minflow.rot90(meta).shape) == (4, 3)
    assert tuple(minflow.block_diag(meta, meta[0]).shape) == (4, 8)

    class Build(minflow.nn.Graph):
        def build(self, x):
            return minflow.vander(x[0], 3).sum() + minflow.diag_embed(x).sum() + \
                minflow.take(x, minflow.tensor([1, -1])).sum()

    x = minflow.tensor(A)
    expected = minflow.vander(x[0], 3).sum() + minflow.diag_embed(x).sum() + \
        minflow.take(x, minflow.tensor([1, -1])).sum()
    np.testing.assert_allclose(Build()(x).numpy(), expected.numpy())

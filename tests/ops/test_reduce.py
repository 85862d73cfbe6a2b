"""Reductions: forward against numpy formulas, gradients, dtypes and errors."""
import numpy as np
import pytest

import minflow
from minflow.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 4, 5))
DIMS = [None, 0, -1, (0, 2), (-1, -2)]


def t(a, grad=False):
    return minflow.tensor(a, dtype=minflow.float64, requires_grad=grad)


def axis(dim):
    return dim if dim is None or isinstance(dim, int) else tuple(dim)


@pytest.mark.parametrize("dim", DIMS)
@pytest.mark.parametrize("keepdim", [False, True])
def test_multi_dim_reductions_match_numpy(dim, keepdim):
    x, ax = t(A), axis(dim)
    np.testing.assert_allclose(minflow.sum(x, dim, keepdim).numpy(), A.sum(ax, keepdims=keepdim))
    np.testing.assert_allclose(x.mean(dim, keepdim).numpy(), A.mean(ax, keepdims=keepdim))
    np.testing.assert_allclose(x.amax(() if dim is None else dim, keepdim).numpy(),
                               A.max(ax, keepdims=keepdim))
    np.testing.assert_allclose(x.amin(() if dim is None else dim, keepdim).numpy(),
                               A.min(ax, keepdims=keepdim))
    for corr in (0, 1, 2):
        np.testing.assert_allclose(x.var(dim, keepdim=keepdim, correction=corr).numpy(),
                                   A.var(ax, ddof=corr, keepdims=keepdim))
        np.testing.assert_allclose(x.std(dim, keepdim=keepdim, correction=corr).numpy(),
                                   A.std(ax, ddof=corr, keepdims=keepdim))
    b = A > 0.3
    assert minflow.all(minflow.tensor(b), dim, keepdim).numpy().tolist() == \
        np.all(b, ax, keepdims=keepdim).tolist()     # keepdim holds for dim=None too
    assert minflow.any(minflow.tensor(b), dim, keepdim).dtype == minflow.bool
    lse = np.log(np.exp(A).sum(ax if dim is not None else None, keepdims=keepdim))
    np.testing.assert_allclose(x.logsumexp(() if dim is None else dim, keepdim).numpy(), lse)
    l2 = np.sqrt((A * A).sum(ax, keepdims=keepdim))
    np.testing.assert_allclose(x.norm(dim=dim, keepdim=keepdim).numpy(), l2)
    np.testing.assert_allclose(x.norm(1, dim, keepdim).numpy(),
                               np.abs(A).sum(ax, keepdims=keepdim))
    np.testing.assert_allclose(x.norm(float("inf"), dim, keepdim).numpy(),
                               np.abs(A).max(ax, keepdims=keepdim))
    np.testing.assert_allclose(x.norm(3, dim, keepdim).numpy(),
                               (np.abs(A) ** 3).sum(ax, keepdims=keepdim) ** (1 / 3))


@pytest.mark.parametrize("dim", [0, 1, -1, -3])
@pytest.mark.parametrize("keepdim", [False, True])
def test_single_dim_reductions_match_numpy(dim, keepdim):
    x = t(A)
    values, indices = x.max(dim, keepdim)
    np.testing.assert_allclose(values.numpy(), A.max(dim, keepdims=keepdim))
    assert indices.numpy().tolist() == A.argmax(dim, keepdims=keepdim).tolist()
    out = minflow.min(x, dim=dim, keepdim=keepdim)
    np.testing.assert_allclose(out.values.numpy(), A.min(dim, keepdims=keepdim))
    assert out.indices.dtype == minflow.int64
    assert x.argmax(dim, keepdim).numpy().tolist() == A.argmax(dim, keepdims=keepdim).tolist()
    assert x.argmin(dim, keepdim).numpy().tolist() == A.argmin(dim, keepdims=keepdim).tolist()
    np.testing.assert_allclose(x.prod(dim, keepdim).numpy(), A.prod(dim, keepdims=keepdim))
    np.testing.assert_allclose(x.cumsum(dim).numpy(), A.cumsum(dim))


def test_full_and_elementwise_max_min():
    x = t(A)
    assert x.max().item() == A.max() and minflow.min(x).item() == A.min()
    assert x.argmax().item() == A.argmax() and x.argmin().item() == A.argmin()
    assert x.argmax(keepdim=True).shape == (1, 1, 1)
    y = t(A[::-1].copy())
    np.testing.assert_allclose(minflow.max(x, y).numpy(), np.maximum(A, A[::-1]))
    np.testing.assert_allclose(x.min(y).numpy(), np.minimum(A, A[::-1]))
    np.testing.assert_allclose(x.prod().numpy(), A.prod())


@pytest.mark.parametrize("a", [np.array(-2.5), A], ids=["0-d", "strided"])
def test_reductions_of_0d_and_strided_inputs(a, device):
    x = minflow.tensor(a, device=device)
    if x.ndim:
        x, a = x.transpose(0, 2), a.transpose(2, 1, 0)     # a view with strides reversed
    for name, ref in (("sum", np.sum), ("prod", np.prod), ("amax", np.amax),
                      ("amin", np.amin), ("all", np.all), ("any", np.any)):
        out = getattr(x, name)()
        assert out.shape == (), name
        np.testing.assert_allclose(out.cpu().numpy(), ref(a), rtol=1e-12, err_msg=name)
        keep = getattr(x, name)(0, keepdim=True)
        np.testing.assert_allclose(keep.cpu().numpy(), ref(a, axis=0 if a.ndim else None,
                                                          keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(x.cumsum(0).cpu().numpy(), np.cumsum(a, 0) if a.ndim else a)


def test_dtype_rules():
    i = minflow.tensor([[1, 2], [3, 4]], dtype=minflow.int32)
    b = minflow.tensor([True, False, True])
    assert minflow.sum(i).dtype == minflow.int64 and b.sum().item() == 2
    assert i.prod().dtype == minflow.int64 and i.prod().item() == 24
    assert i.argmax().dtype == minflow.int64 and i.max().dtype == minflow.int32
    assert i.cumsum(0).dtype == minflow.int64
    assert i.cumsum(1, dtype=minflow.float64).dtype == minflow.float64
    assert i.all().dtype == minflow.bool and not b.all().item() and b.any().item()
    assert i.mean(dtype=minflow.float64).item() == 2.5
    assert minflow.tensor([1., 2.], dtype=minflow.float32).mean().dtype == minflow.float32


def test_var_unbiased_and_logsumexp_stability():
    x = t(A)
    np.testing.assert_allclose(x.var(1, unbiased=False).numpy(), A.var(1))
    np.testing.assert_allclose(x.std(1, True).numpy(), A.std(1, ddof=1))
    np.testing.assert_allclose(minflow.var(x, False).numpy(), A.var())
    big = minflow.tensor([1000.0, 1000.0, -1000.0], dtype=minflow.float64)
    assert abs(big.logsumexp(0).item() - (1000 + np.log(2))) < 1e-9
    assert minflow.tensor([-np.inf, -np.inf]).logsumexp(0).item() == -np.inf


GRAD_FNS = {
    "sum": lambda x: x.sum((0, 2), keepdim=True),
    "mean": lambda x: x.mean(-1),
    "prod": lambda x: x.prod(1),
    "prod_all": lambda x: x.prod(),
    "max_dim": lambda x: x.max(1).values,
    "min_dim_keep": lambda x: x.min(-1, keepdim=True).values,
    "max_full": lambda x: x.max(),
    "amax": lambda x: x.amax((0, 2)),
    "amin": lambda x: x.amin(-1, keepdim=True),
    "var": lambda x: x.var(1, correction=0),
    "std": lambda x: x.std((0, 1), keepdim=True),
    "logsumexp": lambda x: x.logsumexp((1, 2)),
    "cumsum": lambda x: x.cumsum(-2),
    "norm2": lambda x: x.norm(dim=1),
    "norm1": lambda x: x.norm(1),
    "norm3": lambda x: x.norm(3, -1),
    "norm_inf": lambda x: x.norm(float("inf"), 0),
}


@pytest.mark.parametrize("name", sorted(GRAD_FNS))
def test_gradcheck(name):
    x = t(RNG.standard_normal((2, 3, 4)), grad=True)
    assert gradcheck(GRAD_FNS[name], (x,))
    assert gradgradcheck(GRAD_FNS[name], (x,))


def test_prod_grad_with_zeros():
    x = t([[2.0, 0.0, 3.0], [0.0, 0.0, 5.0], [1.0, 2.0, 4.0]], grad=True)
    x.prod(1).sum().backward()
    expected = [[0.0, 6.0, 0.0], [0.0, 0.0, 0.0], [8.0, 4.0, 2.0]]
    np.testing.assert_allclose(x.grad.numpy(), expected)
    assert gradcheck(lambda v: v.prod(1), (x,))


def test_tie_gradients():
    x = t([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]], grad=True)
    x.amax(1).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0, 0.5, 0.5], [1 / 3] * 3])
    x.grad = None
    x.max().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0, 0.5, 0.5], [0, 0, 0]])
    x.grad = None
    x.max(1).values.sum().backward()            # all to the (first) returned index
    np.testing.assert_allclose(x.grad.numpy(), [[0, 1, 0], [1, 0, 0]])


def test_errors():
    x = t(A)
    for fn, name in ((lambda: x.sum(3), "sum"), (lambda: x.mean(-4), "mean"),
                     (lambda: x.max(5), "max"), (lambda: x.argmin(3), "argmin"),
                     (lambda: x.var(7), "var"), (lambda: x.cumsum(3), "cumsum"),
                     (lambda: x.amax((0, 9)), "amax"), (lambda: x.prod(4), "prod"),
                     (lambda: x.logsumexp(3), "logsumexp"), (lambda: x.norm(dim=3), "norm")):
        with pytest.raises(IndexError, match=f"{name}.*out of range"):
            fn()
    with pytest.raises(RuntimeError, match="mean.*dtype"):
        minflow.tensor([1, 2]).mean()
    with pytest.raises(RuntimeError, match="var.*floating"):
        minflow.tensor([1, 2]).var()
    with pytest.raises(IndexError, match="empty|non-zero size"):
        minflow.zeros((0, 3)).max(0)


_X = minflow.ones(2, 3)
BAD_INPUTS = {   # name: (call, error type, message naming the function)
    "dim type": (lambda: _X.sum(1.5), TypeError, "sum: expected dim to be an int, a tuple"),
    "repeated dim": (lambda: _X.mean((0, -2)), RuntimeError, "mean: dim 0 appears multiple"),
    "max dim type": (lambda: _X.max(1.5), TypeError, "max: expected dim to be an int"),
    "argmax of bool": (lambda: (_X > 0).argmax(), RuntimeError, "argmax: does not support bool"),
    "argmin of bool": (lambda: (_X > 0).argmin(1), RuntimeError, "argmin: does not support bool"),
    "max of empty": (lambda: minflow.zeros(0).max(), RuntimeError, "^max: .*numel"),
    "amin over an empty dim": (lambda: minflow.zeros(0, 2).amin(0), IndexError, "amin: "),
    "std of ints": (lambda: minflow.tensor([1]).std(), RuntimeError, "std: std and var only"),
    "unbiased and correction": (lambda: _X.var(unbiased=True, correction=0), RuntimeError,
                                "var: pass only one of 'unbiased' and 'correction'"),
    "norm p": (lambda: _X.norm("abs"), RuntimeError, "norm: expected p to be 'fro', 'nuc' or a"),
    "norm of ints": (lambda: minflow.tensor([3, 4]).norm(dtype=minflow.float32), RuntimeError,
                     "norm: expected a floating point or complex input, got int64"),
    "cumsum without dim": (lambda: minflow.cumsum(_X), TypeError, "cumsum"),
    "all dim": (lambda: _X.all(2), IndexError, "all: Dimension out of range"),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_inputs_name_the_function(name):
    call, error, message = BAD_INPUTS[name]
    with pytest.raises(error, match=message):
        call()


def test_float16_reductions_accumulate_in_float32():
    big = minflow.tensor([60000., 60000., -60000., 0.5], dtype=minflow.float16)
    assert big.mean().dtype is minflow.float16 and big.mean().item() == 15000.0
    assert big.cumsum(0).tolist() == [60000.0, float("inf"), 60000.0, 60000.0]
    assert big.std().dtype is minflow.float16 and np.isfinite(big.std().item())
    assert minflow.tensor([300., 300.], dtype=minflow.float16).norm().item() == 424.25


def test_torch_cross_check():
    torch = pytest.importorskip("torch")
    x, tx = t(A, grad=True), torch.tensor(A, requires_grad=True)
    for fn in (lambda v: v.amax((0, 2)).sum(), lambda v: v.logsumexp(1).sum(),
               lambda v: v.std(-1, correction=2).sum(), lambda v: v.norm(),
               lambda v: v.prod(1).sum(), lambda v: v.cumsum(2).mul(v).sum(),
               lambda v: v.min(1).values.sum()):
        x.grad, tx.grad = None, None
        out, tout = fn(x), fn(tx)
        np.testing.assert_allclose(out.item(), tout.item(), rtol=1e-10)
        out.backward()
        tout.backward()
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-8, atol=1e-12)
    ti = torch.tensor([[3, 1], [1, 3]])
    assert minflow.tensor([[3, 1], [1, 3]]).argmax(1).tolist() == ti.argmax(1).tolist()


def test_max_min_of_empty_raise_as_torch():
    """A reduction over all of an empty tensor is a RuntimeError, an empty named dim an
    IndexError (as torch); an empty dim that is kept reduces to an empty result."""
    x = minflow.empty(5, 0, 5)
    for fn in (minflow.amax, minflow.amin, minflow.max, minflow.min, minflow.aminmax):
        with pytest.raises(RuntimeError, match="numel|empty dimension"):
            fn(x)
    for call in (lambda: minflow.amax(x, 1), lambda: minflow.amin(x, (0, 1)),
                 lambda: minflow.max(x, 1), lambda: minflow.aminmax(x, dim=1)):
        with pytest.raises(IndexError, match="dim 1 to have non-zero size"):
            call()
    assert minflow.amax(x, 0).shape == (0, 5)

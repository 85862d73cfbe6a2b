import numpy as np
import pytest

import minflow
from minflow.autograd import gradcheck, gradgradcheck
import minflow.nn.functional as Fn

MATMUL_SHAPES = [((3,), (3,)), ((2, 3), (3, 4)), ((3,), (3, 4)), ((2, 3), (3,)),
                 ((5, 2, 3), (3, 4)), ((3,), (5, 3, 4)), ((5, 2, 3), (3,)),
                 ((2, 1, 2, 3), (4, 3, 2)), ((4, 3), (2, 1, 3, 2))]


def _t(a, device="cpu", grad=False):
    return minflow.tensor(a, device=device, requires_grad=grad)


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
def test_matmul_matches_numpy_and_grads(sa, sb, device):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    out = minflow.matmul(_t(a, device), _t(b, device))
    assert tuple(out.shape) == np.matmul(a, b).shape
    np.testing.assert_allclose(out.cpu().numpy(), np.matmul(a, b), rtol=1e-12)
    A, B = _t(a, device, True), _t(b, device, True)
    assert gradcheck(minflow.matmul, (A, B))
    assert gradgradcheck(minflow.matmul, (A, B))


def test_matmul_operator_ints_and_out():
    a = minflow.tensor([[1, 2], [3, 4]])
    assert (a @ a).tolist() == [[7, 10], [15, 22]]
    out = minflow.empty(2, 2, dtype=minflow.int64)
    minflow.matmul(a, a, out=out)
    assert out.tolist() == [[7, 10], [15, 22]]


def test_matmul_errors():
    with pytest.raises(RuntimeError, match=r"\[2, 3\] and \[4, 5\]"):
        minflow.matmul(minflow.ones(2, 3), minflow.ones(4, 5))
    with pytest.raises(RuntimeError, match="matmul.*float32 != float64"):
        minflow.matmul(minflow.ones(2, 3), minflow.ones(3, 4, dtype=minflow.float64))
    with pytest.raises(RuntimeError, match="at least 1D"):
        minflow.matmul(minflow.tensor(1.0), minflow.ones(3))


def test_mm_and_bmm():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((3, 4))
    np.testing.assert_allclose(minflow.mm(_t(a), _t(b)).numpy(), a @ b, rtol=1e-12)
    x, y = rng.standard_normal((5, 2, 3)), rng.standard_normal((5, 3, 4))
    np.testing.assert_allclose(_t(x).bmm(_t(y)).numpy(), x @ y, rtol=1e-12)
    assert gradcheck(minflow.bmm, (_t(x, grad=True), _t(y, grad=True)))


def test_mm_bmm_errors():
    with pytest.raises(RuntimeError, match="mm: self must be a 2D tensor, got 3D"):
        minflow.mm(minflow.ones(1, 2, 3), minflow.ones(3, 4))
    with pytest.raises(RuntimeError, match=r"mm: .*2x3 and 4x5"):
        minflow.mm(minflow.ones(2, 3), minflow.ones(4, 5))
    with pytest.raises(RuntimeError, match="mm: .*float32 != float64"):
        minflow.mm(minflow.ones(2, 3), minflow.ones(3, 4, dtype=minflow.float64))
    with pytest.raises(RuntimeError, match="bmm: batch2 must be a 3D tensor"):
        minflow.bmm(minflow.ones(2, 2, 3), minflow.ones(3, 4))
    with pytest.raises(RuntimeError, match=r"bmm: .*\[2, 2, 3\] and \[3, 3, 4\]"):
        minflow.bmm(minflow.ones(2, 2, 3), minflow.ones(3, 3, 4))


@pytest.mark.parametrize("eq,shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("ij->", [(2, 3)]), ("ij", [(2, 3)]),
    ("ij->ji", [(2, 3)]), ("bij,bjk", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk", [(2, 3, 4), (4, 5)]), ("i,j->ij", [(2,), (3,)]),
    ("ijk->i", [(2, 3, 4)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("b...i->...", [(2, 1, 3, 4)])])
def test_einsum_matches_numpy_and_grads(eq, shapes, device):
    rng = np.random.default_rng(2)
    arrays = [rng.standard_normal(s) for s in shapes]
    out = minflow.einsum(eq, *[_t(a, device) for a in arrays])
    np.testing.assert_allclose(out.cpu().numpy(), np.einsum(eq, *arrays), rtol=1e-12)
    tensors = tuple(_t(a, device, True) for a in arrays)
    fn = lambda *xs: minflow.einsum(eq, *xs)  # noqa: E731
    assert gradcheck(fn, tensors)
    assert gradgradcheck(fn, tensors)


def test_einsum_list_operands_and_view_result_is_a_copy():
    a = minflow.ones(2, 3)
    t = minflow.einsum("ij->ji", [a])
    t.add_(1)
    assert a.tolist() == [[1.0] * 3] * 2


def test_einsum_errors():
    with pytest.raises(RuntimeError, match="subscript 'j' has size 3 .* 4"):
        minflow.einsum("ij,jk", minflow.ones(2, 3), minflow.ones(4, 5))
    with pytest.raises(RuntimeError, match="number of subscripts"):
        minflow.einsum("ijk", minflow.ones(2, 3))
    with pytest.raises(ValueError, match="2 subscripts .* 1 operands"):
        minflow.einsum("i,i", minflow.ones(2))
    with pytest.raises(RuntimeError, match="float32 != float64"):
        minflow.einsum("i,i", minflow.ones(2), minflow.ones(2, dtype=minflow.float64))


def test_linear():
    rng = np.random.default_rng(3)
    x, w, b = rng.standard_normal((5, 3)), rng.standard_normal((4, 3)), rng.standard_normal(4)
    np.testing.assert_allclose(Fn.linear(_t(x), _t(w), _t(b)).numpy(), x @ w.T + b,
                               rtol=1e-12)
    np.testing.assert_allclose(Fn.linear(_t(x), _t(w)).numpy(), x @ w.T, rtol=1e-12)
    args = (_t(x, grad=True), _t(w, grad=True), _t(b, grad=True))
    assert gradcheck(Fn.linear, args) and gradgradcheck(Fn.linear, args)



@pytest.mark.parametrize("rows", [(5,), (2, 3), ()])
def test_linear_grad_ops_match_numpy(rows, device):
    """linear_grad / linear_grad_params: grad_out @ W, grad_out^T @ x and grad_out summed
    over the rows, batch dims flattened into rows."""
    rng = np.random.default_rng(6)
    g, x, w = (rng.standard_normal(s) for s in (rows + (4,), rows + (3,), (4, 3)))
    g2, x2 = g.reshape(-1, 4), x.reshape(-1, 3)
    gx, gw, gb = minflow.library.call("linear_grad", _t(g, device), _t(x, device), _t(w, device))
    for got, want in [(gx, g @ w), (gw, g2.T @ x2), (gb, g2.sum(0))]:
        assert got.device.type == device and got.dtype is minflow.float64
        np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-12)
    gw2, gb2 = minflow.library.call("linear_grad_params", _t(g, device), _t(x, device))
    assert gw2.cpu().tolist() == gw.cpu().tolist() and gb2.cpu().tolist() == gb.cpu().tolist()


def test_linear_grad_ops_errors():
    g, x, w = minflow.ones(5, 4), minflow.ones(5, 3), minflow.ones(4, 3)
    with pytest.raises(RuntimeError, match=r"linear_grad: expected weight of shape \[4, 3\]"):
        minflow.library.call("linear_grad", g, x, minflow.ones(3, 4))
    with pytest.raises(RuntimeError, match=r"linear_grad_params: expected input of shape "
                                           r"\[5, \*\] and dtype float32"):
        minflow.library.call("linear_grad_params", g, minflow.ones(6, 3))
    with pytest.raises(RuntimeError, match="linear_grad_params: .* float64"):
        minflow.library.call("linear_grad_params", g, x.double())


@pytest.mark.parametrize("need_x,bias", [(True, True), (False, True), (True, False)])
def test_linear_backward_fused_equals_composite(need_x, bias):
    """A plain backward runs the fused grad ops; under create_graph the grads come from
    matmul and sum (differentiable): both give the same numbers."""
    rng = np.random.default_rng(7)
    arrays = [rng.standard_normal(s) for s in ((2, 5, 3), (4, 3), (4,))]
    grads = []
    for create_graph in (False, True):
        x, w, b = (_t(a, grad=g) for a, g in zip(arrays, (need_x, True, True)))
        out = Fn.linear(x, w, b if bias else None)
        (out * out).sum().backward(create_graph=create_graph)
        grads.append([t.grad.detach().numpy() for t in (x, w, b) if t.grad is not None])
    assert len(grads[0]) == len(grads[1]) == need_x + 1 + bias
    for fused, composite in zip(*grads):
        np.testing.assert_allclose(fused, composite, rtol=1e-12)

def test_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    for sa, sb in MATMUL_SHAPES:
        a, b = rng.standard_normal(sa), rng.standard_normal(sb)
        np.testing.assert_allclose(minflow.matmul(_t(a), _t(b)).numpy(),
                                   torch.matmul(torch.tensor(a), torch.tensor(b)).numpy())
    a = rng.standard_normal((2, 3, 4))
    np.testing.assert_allclose(minflow.einsum("b...->...b", _t(a)).numpy(),
                               torch.einsum("b...->...b", torch.tensor(a)).numpy())


def test_dot_mv_outer():
    rng = np.random.default_rng(5)
    a, b, m = rng.standard_normal(3), rng.standard_normal(3), rng.standard_normal((2, 3))
    np.testing.assert_allclose(minflow.dot(_t(a), _t(b)).item(), a @ b, rtol=1e-12)
    np.testing.assert_allclose(_t(m).mv(_t(a)).numpy(), m @ a, rtol=1e-12)
    np.testing.assert_allclose(minflow.outer(_t(a), _t(b[:2])).numpy(), np.outer(a, b[:2]))
    args = (_t(m, grad=True), _t(a, grad=True))
    assert gradcheck(minflow.mv, args) and gradcheck(minflow.outer, args[1:] * 2)


@pytest.mark.parametrize("equation, shapes", [("ii->i", [(3, 3)]), ("ii", [(3, 3)]),
                                              ("iji->j", [(2, 3, 2)]),
                                              ("ij,ij->ij", [(2, 3), (1, 3)])])
def test_einsum_diagonals_and_size_one_broadcast_are_differentiable(equation, shapes):
    rng = np.random.default_rng(6)
    args = tuple(_t(rng.standard_normal(s), grad=True) for s in shapes)
    expected = np.einsum(equation, *(a.detach().numpy() for a in args))
    np.testing.assert_allclose(minflow.einsum(equation, *args).detach().numpy(), expected)
    fn = lambda *xs: minflow.einsum(equation, *xs)      # noqa: E731
    assert gradcheck(fn, args) and gradgradcheck(fn, args)


_M = minflow.ones(2, 3)
BAD_INPUTS = {   # name: (call, message naming the function); all RuntimeError or ValueError
    "matmul shapes": (lambda: _M @ _M, "matmul: shapes \\[2, 3\\] and \\[2, 3\\]"),
    "matmul batch": (lambda: minflow.ones(2, 2, 3) @ minflow.ones(3, 3, 2),
                     "matmul: shapes .* cannot be broadcast"),
    "matmul bool": (lambda: (_M > 0) @ (_M.T > 0), "matmul: no kernel .* bool"),
    "dot dims": (lambda: minflow.dot(_M, _M), "dot: input must be a 1D tensor, got 2D"),
    "dot sizes": (lambda: minflow.dot(minflow.ones(2), minflow.ones(3)),
                  "dot: inconsistent tensor size"),
    "dot dtypes": (lambda: minflow.dot(minflow.ones(2), minflow.ones(2, dtype=minflow.float64)),
                   "dot: .*float32 != float64"),
    "mv sizes": (lambda: minflow.mv(_M, minflow.ones(2)), "mv: size mismatch"),
    "outer dims": (lambda: minflow.outer(_M, minflow.ones(2)), "outer: input must be a 1D"),
    "einsum output": (lambda: minflow.einsum("ij->k", _M), "einsum: output subscripts 'k'"),
    "einsum subscript": (lambda: minflow.einsum("i1", _M), "einsum\\(\\): invalid subscript"),
    "linear weight": (lambda: Fn.linear(_M, minflow.ones(1, 2, 3)),
                      "linear: weight must be a 2D tensor"),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_inputs_name_the_function(name):
    call, message = BAD_INPUTS[name]
    with pytest.raises((RuntimeError, ValueError), match=message):
        call()

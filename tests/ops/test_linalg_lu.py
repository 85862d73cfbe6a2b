"""The LU family (linalg.lu_factor, lu_factor_ex, lu, lu_solve, solve_ex; torch.lu, lu_unpack,
lu_solve) and the rest of torch.linalg (cholesky_solve, cholesky_inverse,
householder_product, geqrf, ormqr, tensorinv, tensorsolve, vander, torch.qr, ldl_factor,
ldl_solve) against
torch as an oracle:
values, gradients of sum(out * w), dtypes, batching and broadcasting; singular and
ill-conditioned inputs with their infos and errors; finite-difference gradchecks."""
import numpy as np
import pytest

import minflow
from minflow.autograd import gradcheck, gradgradcheck
from minflow.testing import Sample, check_op

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(3)
TOL = {"float32": dict(rtol=2e-4, atol=2e-5), "float64": dict(rtol=1e-9, atol=1e-10)}


def normal(*shape):
    return RNG.standard_normal(shape)


def well(*shape):
    return normal(*shape) + 4 * np.eye(shape[-1])


def lu_solve(t, a, b, **kwargs):
    return t.linalg.lu_solve(*t.linalg.lu_factor(a), b, **kwargs)


# name: (fn(lib, *tensors) -> tensor or tuple, input arrays)
CASES = {
    "lu_factor": (lambda t, a: t.linalg.lu_factor(a), [normal(2, 4, 4)]),
    "lu_factor/tall": (lambda t, a: t.linalg.lu_factor(a), [normal(6, 3)]),
    "lu_factor_ex/wide": (lambda t, a: t.linalg.lu_factor_ex(a), [normal(2, 3, 3, 5)]),
    "lu": (lambda t, a: t.linalg.lu(a), [normal(3, 5, 5)]),
    "lu/tall": (lambda t, a: t.linalg.lu(a), [normal(2, 5, 2)]),
    "lu/wide": (lambda t, a: t.linalg.lu(a), [normal(2, 4)]),
    "lu_solve": (lu_solve, [well(2, 3, 3), normal(2, 3, 4)]),
    "lu_solve/adjoint": (lambda t, a, b: lu_solve(t, a, b, adjoint=True),
                         [well(2, 3, 3), normal(2, 3, 2)]),
    "lu_solve/right": (lambda t, a, b: lu_solve(t, a, b, left=False), [well(3, 3), normal(4, 3)]),
    "lu_solve/right_adjoint_broadcast": (
        lambda t, a, b: lu_solve(t, a, b, left=False, adjoint=True),
        [well(2, 1, 3, 3), normal(4, 5, 3)]),
    "lu_solve/broadcast": (lu_solve, [well(4, 4), normal(3, 4, 2)]),
    "solve_ex": (lambda t, a, b: t.linalg.solve_ex(a, b), [well(2, 3, 3), normal(2, 3, 2)]),
    "solve_ex/vector": (lambda t, a, b: t.linalg.solve_ex(a, b), [well(2, 3, 3), normal(2, 3)]),
    "solve_ex/right": (lambda t, a, b: t.linalg.solve_ex(a, b, left=False),
                       [well(2, 3, 3), normal(4, 3)]),
    "solve_ex/broadcast": (lambda t, a, b: t.linalg.solve_ex(a, b), [well(3, 3), normal(2, 3, 1)]),
    "inv_ex": (lambda t, a: t.linalg.inv_ex(a), [well(2, 4, 4)]),
    "lu_unpack": (lambda t, a: t.lu_unpack(*t.linalg.lu_factor(a)), [normal(2, 4, 3)]),
    "lu_unpack/data_only": (lambda t, a: t.lu_unpack(*t.linalg.lu_factor(a),
                                                     unpack_pivots=False), [normal(3, 5)]),
    "lu_unpack/pivots_only": (lambda t, a: t.lu_unpack(*t.linalg.lu_factor(a),
                                                       unpack_data=False), [normal(2, 3, 3)]),
    "torch.lu": (lambda t, a: t.lu(a, get_infos=True), [normal(2, 4, 4)]),
    "Tensor.lu": (lambda t, a: a.lu(), [normal(3, 2)]),
    "torch.lu_solve": (lambda t, a, b: t.lu_solve(b, *t.linalg.lu_factor(a)),
                       [well(2, 3, 3), normal(2, 3, 2)]),
    "Tensor.lu_solve": (lambda t, a, b: b.lu_solve(*a.lu()), [well(3, 3), normal(3, 1)]),
    "cholesky_solve": (lambda t, b, a: t.cholesky_solve(b, a), [normal(2, 3, 2), well(2, 3, 3)]),
    "cholesky_solve/upper_broadcast": (lambda t, b, a: t.cholesky_solve(b, a, upper=True),
                                       [normal(3, 2), well(2, 3, 3)]),
    "cholesky_solve/method": (lambda t, b, a: b.cholesky_solve(a), [normal(4, 2), well(4, 4)]),
    "cholesky_inverse": (lambda t, a: t.cholesky_inverse(a), [well(2, 3, 3)]),
    "cholesky_inverse/upper": (lambda t, a: a.cholesky_inverse(True), [well(4, 4)]),
    "householder_product": (lambda t, a, tau: t.linalg.householder_product(a, tau),
                            [normal(2, 5, 3), normal(2, 2)]),
    "householder_product/square": (lambda t, a, tau: t.linalg.householder_product(a, tau),
                                   [normal(4, 4), normal(4)]),
    "orgqr": (lambda t, a, tau: t.orgqr(a, tau), [normal(4, 3), normal(3)]),
    "orgqr/method": (lambda t, a, tau: a.orgqr(tau), [normal(3, 3), normal(1)]),
    "tensorinv": (lambda t, a: t.linalg.tensorinv(a, ind=1), [well(6, 6).reshape(6, 2, 3)]),
    "tensorinv/ind2": (lambda t, a: t.linalg.tensorinv(a), [well(6, 6).reshape(2, 3, 3, 2)]),
    "tensorsolve": (lambda t, a, b: t.linalg.tensorsolve(a, b),
                    [well(6, 6).reshape(2, 3, 6), normal(2, 3)]),
    "tensorsolve/dims": (lambda t, a, b: t.linalg.tensorsolve(a, b, dims=(0,)),
                         [well(6, 6).reshape(6, 2, 3), normal(2, 3)]),
    "vander": (lambda t, x: t.linalg.vander(x), [normal(2, 3)]),
    "vander/N": (lambda t, x: t.linalg.vander(x, N=5), [np.array([0.0, 1.5, -2.0])]),
    "geqrf": (lambda t, a: t.geqrf(a), [normal(2, 5, 3)]),
    "geqrf/wide": (lambda t, a: a.geqrf(), [normal(3, 4)]),
    "ormqr": (lambda t, a, tau, c: t.ormqr(a, tau, c), [normal(2, 4, 3), normal(2, 3),
                                                          normal(2, 4, 2)]),
    "ormqr/transpose": (lambda t, a, tau, c: t.ormqr(a, tau, c, transpose=True),
                        [normal(4, 3), normal(3), normal(4, 5)]),
    "ormqr/right": (lambda t, a, tau, c: a.ormqr(tau, c, left=False),
                    [normal(4, 4), normal(4), normal(2, 4)]),
    "ormqr/right_transpose": (lambda t, a, tau, c: t.ormqr(a, tau, c, False, True),
                              [normal(2, 3, 2), normal(2, 2), normal(2, 5, 3)]),
    "ormqr/of_geqrf": (lambda t, a, c: t.ormqr(*t.geqrf(a.detach()), c, transpose=True),
                       [normal(5, 3), normal(5, 2)]),
    "qr/torch_complete": (lambda t, a: tuple(x.abs() for x in t.qr(a, some=False)),
                          [normal(4, 3)]),
    "qr/torch_reduced": (lambda t, a: tuple(x.abs() for x in a.qr()), [normal(2, 4, 3)]),
}

# values only: torch.qr(some=False) of a tall matrix and geqrf have no gradient; torch's
# empty L and U of lu_unpack(unpack_data=False) require grad, and its backward through them
# fails (minflow's do not require grad)
VALUES_ONLY = {"qr/torch_complete", "lu_unpack/pivots_only", "geqrf", "geqrf/wide"}


def _fields(result):
    """The field names of a named tuple (minflow's) or a structseq (torch's); () for a
    plain tuple or a tensor."""
    return tuple(getattr(type(result), "_fields", getattr(type(result), "__match_args__", ())))


def _outputs(out):
    out = out if isinstance(out, tuple) else (out,)
    return [o for o in out if o.dtype.is_floating_point and o.requires_grad]


def _run(lib, fn, arrays, dtype, backward=True):
    as_tensor = minflow.tensor if lib is minflow else torch.tensor
    leaves = [as_tensor(a.astype(dtype), requires_grad=True) for a in arrays]
    out = fn(lib, *leaves)
    floats = _outputs(out)
    weights = [np.random.default_rng(1).uniform(0.5, 1.5, tuple(o.shape)) for o in floats]
    if backward and floats:
        sum((o * as_tensor(w.astype(dtype))).sum() for o, w in zip(floats, weights)).backward()
    everything = out if isinstance(out, tuple) else (out,)
    return everything, [leaf.grad for leaf in leaves]


@pytest.mark.filterwarnings("ignore::UserWarning")      # torch.lu, lu_solve and qr deprecated
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_values_grads_dtypes_as_torch(name, dtype):
    fn, arrays = CASES[name]
    backward = name not in VALUES_ONLY
    ours, our_grads = _run(minflow, fn, arrays, dtype, backward)
    theirs, their_grads = _run(torch, fn, arrays, dtype, backward)
    assert type(ours).__name__ == type(theirs).__name__ and len(ours) == len(theirs)
    assert _fields(ours) == _fields(theirs), name
    for o, t in zip(ours, theirs):
        assert o.dtype.name == str(t.dtype).removeprefix("torch."), name
        assert tuple(o.shape) == tuple(t.shape), name
        np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), **TOL[dtype])
    for g, tg in zip(our_grads, their_grads):
        assert (g is None) == (tg is None), name
        if g is not None:
            np.testing.assert_allclose(g.numpy(), tg.numpy(), **TOL[dtype])


def _zero_one(*shape):
    """Matrices of 0s and 1s: many singular, many ties in a pivot column."""
    return RNG.integers(0, 2, shape).astype(np.float64)


@pytest.mark.parametrize("shape", [(300, 4, 4), (200, 3, 5), (200, 5, 3), (2, 0, 3)])
def test_singular_and_tied_pivots_as_torch(shape):
    """LAPACK getrf's choices: the first largest |value| on ties, info = the first zero on
    U's diagonal; the same LU (exactly, on these small integer matrices)."""
    a = _zero_one(*shape)
    ours = minflow.linalg.lu_factor_ex(minflow.tensor(a))
    theirs = torch.linalg.lu_factor_ex(torch.tensor(a))
    assert (ours.info.numpy() > 0).any() or 0 in shape
    for o, t in zip(ours, theirs):
        assert o.dtype.name == str(t.dtype)[6:]
        np.testing.assert_array_equal(o.numpy(), t.numpy())


def test_solve_ex_and_inv_ex_of_singular_matrices_as_torch():
    """info and the inf / nan the solver leaves, where the factorization hit a zero."""
    a = np.stack([np.eye(3), [[1.0, 2, 3], [2, 4, 6], [1, 1, 1]], np.zeros((3, 3))])
    b = np.ones((3, 3))
    ours = minflow.linalg.solve_ex(minflow.tensor(a), minflow.tensor(b))
    theirs = torch.linalg.solve_ex(torch.tensor(a), torch.tensor(b))
    assert ours.info.tolist() == theirs.info.tolist() == [0, 3, 1]
    np.testing.assert_array_equal(ours.result.numpy(), theirs.result.numpy())
    ours, theirs = minflow.linalg.inv_ex(minflow.tensor(a)), torch.linalg.inv_ex(torch.tensor(a))
    assert ours.info.tolist() == theirs.info.tolist()
    np.testing.assert_array_equal(ours.inverse.numpy(), theirs.inverse.numpy())


def test_ill_conditioned_hilbert_matrix_as_torch():
    """cond ~ 1e10: the same pivots, and lu_solve's solution as close to torch's as the
    conditioning allows."""
    n = 8
    h = 1.0 / (np.arange(n)[:, None] + np.arange(n) + 1.0)
    b = normal(n, 2)
    LU, pivots = minflow.linalg.lu_factor(minflow.tensor(h))
    tLU, tpivots = torch.linalg.lu_factor(torch.tensor(h))
    assert pivots.tolist() == tpivots.tolist()
    np.testing.assert_allclose(LU.numpy(), tLU.numpy(), rtol=1e-12, atol=1e-15)
    x = minflow.linalg.lu_solve(LU, pivots, minflow.tensor(b)).numpy()
    tx = torch.linalg.lu_solve(tLU, tpivots, torch.tensor(b)).numpy()
    np.testing.assert_allclose(x, tx, rtol=1e-5)
    np.testing.assert_allclose(h @ x, b, atol=1e-6)


@pytest.mark.parametrize("call", [
    lambda t: t.linalg.lu_factor(t.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 1.0, 1.0]])),
    lambda t: t.linalg.lu_factor(t.stack([t.eye(2), t.zeros(2, 2)])),
    lambda t: t.linalg.lu_factor(t.ones(2, 3)),
    lambda t: t.linalg.solve_ex(t.stack([t.eye(2), t.zeros(2, 2)]), t.ones(2), check_errors=True),
    lambda t: t.linalg.solve_ex(t.zeros(2, 2), t.ones(2), check_errors=True),
])
def test_singular_errors_as_torch(call):
    """torch's message; a LinAlgError from solve_ex, a plain RuntimeError from lu_factor."""
    with pytest.raises(RuntimeError) as theirs:
        call(torch)
    with pytest.raises(RuntimeError) as ours:
        call(minflow)
    assert str(ours.value) == str(theirs.value)
    linalg_error = isinstance(theirs.value, torch.linalg.LinAlgError)
    assert isinstance(ours.value, minflow.linalg.LinAlgError) == linalg_error


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_singular_inputs_factor_without_error_where_torch_does():
    a = np.stack([np.eye(2), np.ones((2, 2))])
    for fn in (lambda t, x: t.lu(x, get_infos=True)[2], lambda t, x: t.linalg.lu(x)[2],
               lambda t, x: t.lu(x)[0]):
        np.testing.assert_array_equal(fn(minflow, minflow.tensor(a)).numpy(),
                                      fn(torch, torch.tensor(a)).numpy())


def test_lu_without_pivoting():
    """pivot=False (torch computes it on cuda only): A = L U, pivots 1..k, P empty; a zero
    pivot gives info and inf / nan below it."""
    a = well(2, 4, 4)
    P, L, U = minflow.linalg.lu(minflow.tensor(a), pivot=False)
    assert tuple(P.shape) == (0,)
    np.testing.assert_allclose((L @ U).numpy(), a, rtol=1e-12)
    np.testing.assert_array_equal(np.triu(L.numpy(), 1), 0)
    LU, pivots, info = minflow.linalg.lu_factor_ex(minflow.tensor(a), pivot=False)
    assert pivots.tolist() == [[1, 2, 3, 4]] * 2 and info.tolist() == [0, 0]
    singular = minflow.linalg.lu_factor_ex(minflow.tensor([[0.0, 1.0], [1.0, 1.0]]), pivot=False)
    assert singular.info.item() == 1 and not singular.LU.isfinite().all().item()
    leaf = minflow.tensor(well(3, 3), requires_grad=True)
    assert gradcheck(lambda x: minflow.linalg.lu(x, pivot=False)[1:], (leaf,))


def _leaf(a):
    return minflow.tensor(a, requires_grad=True)


# gradcheck and double backward in float64 (forward values and torch's grads above)
COMPOSITES = {
    "lu/wide": (lambda a: minflow.linalg.lu(a)[1:], [normal(2, 3, 5)]),
    "lu_unpack": (lambda a: minflow.lu_unpack(*minflow.linalg.lu_factor(a))[1:], [normal(4, 3)]),
    "lu_solve": (lambda a, b: minflow.linalg.lu_solve(*minflow.linalg.lu_factor(a), b,
                                                       adjoint=True), [well(2, 3, 3), normal(3, 2)]),
    "solve_ex": (lambda a, b: minflow.linalg.solve_ex(a, b, left=False).result,
                 [well(3, 3), normal(2, 3)]),
    "cholesky_inverse": (lambda a: minflow.cholesky_inverse(a.tril()), [well(2, 3, 3)]),
    "householder_product": (minflow.linalg.householder_product, [normal(4, 3), normal(2)]),
    "ormqr": (lambda a, tau, c: minflow.ormqr(a, tau, c, left=False, transpose=True),
              [normal(2, 4, 3), normal(2, 3), normal(2, 5, 4)]),
    "tensorinv": (lambda a: minflow.linalg.tensorinv(a, ind=1), [well(4, 4).reshape(4, 2, 2)]),
    "tensorsolve": (lambda a, b: minflow.linalg.tensorsolve(a, b),
                    [well(4, 4).reshape(2, 2, 4), normal(2, 2)]),
    "vander": (lambda x: minflow.linalg.vander(x, N=4), [np.array([0.3, 0.5, -1.5])]),
    "vander_at_zero": (lambda x: minflow.linalg.vander(x, N=4), [np.array([0.0, 0.5, -1.5])]),
}


@pytest.mark.parametrize("name", sorted(COMPOSITES))
def test_composite_gradcheck(name):
    fn, arrays = COMPOSITES[name]
    leaves = tuple(_leaf(a) for a in arrays)
    assert gradcheck(fn, leaves) and gradgradcheck(fn, leaves)


def test_vander_grad_at_zero_as_torch():
    x = np.array([0.0, 0.5, -1.5])
    assert gradcheck(lambda v: minflow.linalg.vander(v, N=4), (_leaf(x),))
    ours, theirs = _leaf(x), torch.tensor(x, requires_grad=True)
    minflow.linalg.vander(ours, N=4).sum().backward()
    torch.linalg.vander(theirs, N=4).sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-12)


def _permutation_reference(pivots, m):
    perm = np.broadcast_to(np.arange(m), pivots.shape[:-1] + (m,)).copy()
    for index in np.ndindex(pivots.shape[:-1]):
        row = perm[index]
        for i, p in enumerate(pivots[index]):
            row[[i, p - 1]] = row[[p - 1, i]]
    return perm


def test_pivots_to_permutation_op(device):
    pivots = np.array([[[3, 3, 3], [1, 3, 3]], [[2, 2, 4], [4, 4, 3]]], dtype=np.int32)
    check_op("lu_pivots_to_permutation", [Sample(pivots, m=4), Sample(pivots[0, 0], m=3)],
             _permutation_reference, dtypes=["int32"], devices=[device],
             checks=("forward", "dtype", "meta", "non_contiguous"))
    with pytest.raises(RuntimeError, match="pivots must be between 1 and LU.size"):
        minflow.lu_unpack(minflow.ones(2, 2), minflow.tensor([3, 2], dtype=minflow.int32))


def test_vander_keeps_integers_exact():
    x = np.array([[2, -3, 5], [7, 0, 1]])
    ours = minflow.linalg.vander(minflow.tensor(x, dtype=minflow.int32), N=6)
    theirs = torch.linalg.vander(torch.tensor(x, dtype=torch.int32), N=6)
    assert ours.dtype is minflow.int64 and ours.tolist() == theirs.tolist()


# symmetric inputs for LDL^T: random, with a small diagonal (2x2 blocks of D), of 0s and
# +-1s (ties and singular matrices), and batched
LDL_INPUTS = {
    "normal": lambda: normal(5, 5),
    "small_diagonal": lambda: normal(6, 6) * (1 - 0.99 * np.eye(6)),
    "integers": lambda: RNG.integers(-1, 2, (40, 4, 4)).astype(np.float64),
    "batched": lambda: normal(2, 3, 4, 4),
    "empty": lambda: normal(0, 3, 3),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kind", sorted(LDL_INPUTS))
def test_ldl_factor_and_solve_as_torch(kind, dtype):
    """sytrf's Bunch-Kaufman pivots (1x1 and 2x2 blocks), LD and info; only A's lower
    triangle is read; ldl_solve where A is not singular."""
    a = LDL_INPUTS[kind]().astype(dtype)
    ours = minflow.linalg.ldl_factor_ex(minflow.tensor(a))
    theirs = torch.linalg.ldl_factor_ex(torch.tensor(a))
    assert _fields(ours) == _fields(theirs)
    for o, t in zip(ours, theirs):
        assert o.dtype.name == str(t.dtype)[6:] and tuple(o.shape) == tuple(t.shape)
    np.testing.assert_array_equal(ours.pivots.numpy(), theirs.pivots.numpy())
    np.testing.assert_array_equal(ours.info.numpy(), theirs.info.numpy())
    np.testing.assert_allclose(ours.LD.numpy(), theirs.LD.numpy(), **TOL[dtype])
    if kind == "small_diagonal":
        assert (ours.pivots.numpy() < 0).any()          # a 2x2 block was chosen
    ok = theirs.info.numpy() == 0
    b = normal(*a.shape[:-1], 2).astype(dtype)
    x = minflow.linalg.ldl_solve(ours.LD, ours.pivots, minflow.tensor(b)).numpy()
    tx = torch.linalg.ldl_solve(theirs.LD, theirs.pivots, torch.tensor(b)).numpy()
    np.testing.assert_allclose(x[ok], tx[ok], rtol=1e-3 if dtype == "float32" else 1e-8,
                               atol=1e-4 if dtype == "float32" else 1e-10)


def test_ldl_solve_broadcasts_and_ldl_factor_raises_when_singular():
    a = normal(4, 4)
    LD, pivots = minflow.linalg.ldl_factor(minflow.tensor(a))
    b = normal(3, 4, 2)
    x = minflow.linalg.ldl_solve(LD, pivots, minflow.tensor(b))
    sym = np.tril(a) + np.tril(a, -1).T
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(sym, b), rtol=1e-8, atol=1e-10)
    with pytest.raises(minflow.linalg.LinAlgError, match=r"ldl_factor: \(Batch element 1\): "):
        minflow.linalg.ldl_factor(minflow.stack([minflow.eye(2), minflow.zeros(2, 2)]))
    assert not minflow.linalg.ldl_factor(minflow.tensor(a, requires_grad=True)).LD.requires_grad


def test_out_arguments():
    a, b = minflow.tensor(well(2, 3, 3)), minflow.tensor(normal(2, 3, 1))
    LU, pivots = minflow.empty(0, dtype=a.dtype), minflow.empty(0, dtype=minflow.int32)
    result = minflow.linalg.lu_factor(a, out=(LU, pivots))
    assert result.LU is LU and result.pivots is pivots and tuple(LU.shape) == (2, 3, 3)
    x = minflow.empty(2, 3, 1, dtype=a.dtype)
    assert minflow.linalg.lu_solve(LU, pivots, b, out=x) is x
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a.numpy(), b.numpy()), rtol=1e-5)
    inverse = minflow.empty(2, 3, 3, dtype=a.dtype)
    assert minflow.cholesky_inverse(a.tril(), out=inverse) is inverse
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        minflow.linalg.lu_solve(LU, pivots, b.requires_grad_(), out=x)

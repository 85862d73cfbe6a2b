"""Complex kernels and gradients: values, dtypes and grads against torch (for real losses,
torch's convention grad = dL/dx + i dL/dy), gradcheck perturbing real and imaginary parts,
and real / imag / view_as_real as views sharing memory."""
import numpy as np
import pytest

import minflow
from minflow.autograd import gradcheck, gradgradcheck
from minflow.testing import Sample, check_op
from minflow.testing.checks import CHECKS

DTYPES = ("complex64", "complex128")


def _complex(shape, seed, dtype="complex128"):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


# name -> f(lib, x, y) with x, y complex tensors of shape (3, 4)
CASES = {
    "add": lambda L, x, y: L.add(x, y, alpha=2), "sub": lambda L, x, y: x - y,
    "mul": lambda L, x, y: x * y, "div": lambda L, x, y: x / y,
    "pow": lambda L, x, y: L.pow(x, y), "pow_scalar": lambda L, x, y: x ** 3 + 2 ** y,
    "pow_complex_scalar": lambda L, x, y: x ** (0.5 + 1j),
    "exp": lambda L, x, y: L.exp(x), "log": lambda L, x, y: L.log(x),
    "sqrt": lambda L, x, y: L.sqrt(x), "neg": lambda L, x, y: -x,
    "abs": lambda L, x, y: L.abs(x) * y, "angle": lambda L, x, y: L.angle(x) * y,
    "conj": lambda L, x, y: L.conj(x) * y, "conj_physical": lambda L, x, y: L.conj_physical(x),
    "real_imag": lambda L, x, y: L.real(x) * L.imag(y),
    "view_as_real": lambda L, x, y: L.view_as_real(x) ** 2,
    "view_as_complex": lambda L, x, y: L.view_as_complex(L.view_as_real(x) * 2) * y,
    "complex": lambda L, x, y: L.complex(x.real, y.imag * 2),
    "polar": lambda L, x, y: L.polar(x.abs(), y.real),
    "sgn": lambda L, x, y: L.sgn(x),
    "sum": lambda L, x, y: x.sum(0) * y.mean(), "mean": lambda L, x, y: x.mean(1, keepdim=True) * y,
    "matmul": lambda L, x, y: x @ y.T, "mm": lambda L, x, y: L.mm(x.mH, y),
    "bmm": lambda L, x, y: L.bmm(x.reshape(1, 3, 4), y.reshape(1, 4, 3)),
    "shape_ops": lambda L, x, y: x.reshape(-1) * y.permute(1, 0).reshape(-1) + x.T.flatten(),
    "cat_stack": lambda L, x, y: L.cat([x, y]) * L.stack([y, x]).reshape(6, 4),
    "index_select": lambda L, x, y: x[0] * y[:, 1:3].reshape(-1)[:4] + x[L.tensor([1, 0])][0]
    + x.select(1, 2).sum(),
    "where": lambda L, x, y: L.where(x.real > 0, x, y),
    "real_operand": lambda L, x, y: x.real * y + L.arange(4, dtype=L.float64) * x,
    "cast": lambda L, x, y: x.to(L.complex64).to(L.complex128) * y,
    "sin_cos": lambda L, x, y: L.sin(x) * L.cos(y), "tanh": lambda L, x, y: L.tanh(x),
    "sigmoid": lambda L, x, y: L.sigmoid(x) * y, "expm1_log1p": lambda L, x, y: L.expm1(x)
    + L.log1p(y), "rsqrt": lambda L, x, y: L.rsqrt(x), "reciprocal": lambda L, x, y:
    L.reciprocal(x) * y, "square": lambda L, x, y: L.square(x) + y,
    "tan_sinh_cosh": lambda L, x, y: L.tan(x * 0.5) + L.sinh(y) * L.cosh(x),
    "asin_acos_atan": lambda L, x, y: L.asin(x) * L.acos(y) + L.atan(x * 0.5),
    "asinh_acosh_atanh": lambda L, x, y: L.asinh(x) * L.acosh(y) + L.atanh(x * 0.5),
    "log2_log10_exp2": lambda L, x, y: L.log2(x) * L.log10(y) + L.exp2(x),
    "cumsum": lambda L, x, y: L.cumsum(x, 1) * y + x.cumsum(0),
    "prod_cumprod": lambda L, x, y: x.prod(1).unsqueeze(1) * y + L.cumprod(x, 1) + y.prod(),
    "vdot": lambda L, x, y: L.vdot(x[0], y[1]) * x[1],
    "flip_rot90": lambda L, x, y: L.flip(x, (0, 1)) * y + L.rot90(y, 2),
    "diagonal_trace": lambda L, x, y: L.diagonal(x) * L.diag(y) + L.trace(x[:, :3]),
    "diag_embed": lambda L, x, y: L.diag_embed(x) * y[0],
    "as_strided": lambda L, x, y: L.as_strided(x, (2, 2), (1, 2)) * y[:2, :2],
    "masked_fill": lambda L, x, y: x.masked_fill(y.real > 0, 2.0 + 1j) * y,
    "var_std": lambda L, x, y: L.var(x, 1) * L.std(y) + L.var_mean(y, 1)[0],
    "norms": lambda L, x, y: L.linalg.vector_norm(x, 3, 1) * L.linalg.norm(y, dim=1)
    + L.linalg.matrix_norm(x, 1) + y.norm(),
    "einsum": lambda L, x, y: L.einsum("ij,kj->ik", x, y) + L.einsum("ij,ij,ij->i", x, y, x),
    "linear": lambda L, x, y: L.nn.functional.linear(x, y, y[:, 0])
    + L.nn.functional.linear(y, x),
    "sinc_logsumexp": lambda L, x, y: L.sinc(x) * y + L.logsumexp(x * 3, 1, keepdim=True)
    + L.logsumexp(y, (0, 1)),
}


def _loss(out):
    """A real loss of a real or complex output."""
    if out.dtype.is_complex:
        return (out * out.conj()).real.sum() + out.abs().sum()
    return (out * out).sum()


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_grads_match_torch(name):
    torch = pytest.importorskip("torch")
    results = []
    for lib in (minflow, torch):
        x = lib.tensor(_complex((3, 4), 0), requires_grad=True)
        y = lib.tensor(_complex((3, 4), 1), requires_grad=True)
        out = CASES[name](lib, x, y)
        _loss(out).backward()
        grads = [None if g is None else g.detach().resolve_conj().numpy()
                 if lib is torch else g.numpy() for g in (x.grad, y.grad)]
        value = out.detach()
        results.append((str(value.dtype).split(".")[1],
                        value.resolve_conj().numpy() if lib is torch else value.numpy(), grads))
    (dtype, value, grads), (t_dtype, t_value, t_grads) = results
    assert dtype == t_dtype
    np.testing.assert_allclose(value, t_value, rtol=1e-10, atol=1e-12)
    for ours, theirs in zip(grads, t_grads):
        assert (ours is None) == (theirs is None)
        if ours is not None:
            np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["add", "mul", "div", "exp", "log", "sqrt", "abs", "angle",
                                  "real_imag", "view_as_real", "matmul", "sum", "mean",
                                  "sin_cos", "tanh", "sigmoid", "expm1_log1p", "rsqrt",
                                  "reciprocal", "square", "tan_sinh_cosh", "asin_acos_atan",
                                  "asinh_acosh_atanh", "log2_log10_exp2", "cumsum",
                                  "prod_cumprod", "vdot", "var_std", "norms", "einsum",
                                  "linear", "sinc_logsumexp"])
def test_dtypes_of_results_match_torch(name, dtype):
    torch = pytest.importorskip("torch")
    ours = CASES[name](minflow, minflow.tensor(_complex((3, 4), 0, dtype)),
                       minflow.tensor(_complex((3, 4), 1, dtype)))
    theirs = CASES[name](torch, torch.tensor(_complex((3, 4), 0, dtype)),
                         torch.tensor(_complex((3, 4), 1, dtype)))
    assert ours.dtype.name == str(theirs.dtype)[6:]
    tol = 1e-5 if dtype == "complex64" else 1e-12
    np.testing.assert_allclose(ours.numpy(), theirs.resolve_conj().numpy(), rtol=tol,
                               atol=tol)


@pytest.mark.parametrize("name", ["add", "mul", "div", "pow", "exp", "log", "sqrt", "abs",
                                  "angle", "conj", "real_imag", "view_as_real",
                                  "view_as_complex", "complex", "polar", "sgn", "matmul",
                                  "mean", "where", "real_operand", "sin_cos", "tanh",
                                  "sigmoid", "expm1_log1p", "rsqrt", "reciprocal", "square",
                                  "tan_sinh_cosh", "asin_acos_atan", "asinh_acosh_atanh",
                                  "log2_log10_exp2", "cumsum", "prod_cumprod", "vdot",
                                  "flip_rot90", "diagonal_trace", "as_strided", "masked_fill",
                                  "var_std", "norms", "einsum", "linear", "sinc_logsumexp"])
def test_gradcheck_perturbing_real_and_imaginary_parts(name):
    x = minflow.tensor(_complex((2, 4), 2), requires_grad=True)
    y = minflow.tensor(_complex((2, 4), 3), requires_grad=True)
    def fn(a, b):
        return CASES[name](minflow, a, b)

    assert gradcheck(fn, (x, y))
    if name not in ("abs", "angle", "sgn", "polar", "norms"):    # kinks aside, second order
        assert gradgradcheck(fn, (x, y))


def test_gradcheck_catches_a_wrong_complex_gradient():
    class Unconjugated(minflow.autograd.Function):
        """z * w with backward missing the conjugate torch's convention needs."""

        @staticmethod
        def forward(ctx, z):
            return z * (1 + 2j)

        @staticmethod
        def backward(ctx, grad_out):
            return grad_out * (1 + 2j)

    z = minflow.tensor(_complex((3,), 4), requires_grad=True)
    with pytest.raises(minflow.autograd.GradcheckError):
        gradcheck(Unconjugated.apply, (z,))


@pytest.mark.parametrize("momentum, weight_decay, nesterov", [(0, 0, False),
                                                            (0.9, 0.1, True)])
def test_sgd_on_a_complex_parameter_steps_as_torch(momentum, weight_decay, nesterov):
    torch = pytest.importorskip("torch")
    target = _complex((4,), 5)
    trajectories = []
    for lib in (minflow, torch):
        z = lib.zeros(4, dtype=lib.complex128, requires_grad=True)
        opt = lib.optim.SGD([z], lr=0.1, momentum=momentum, weight_decay=weight_decay,
                            nesterov=nesterov)
        for _ in range(4):
            opt.zero_grad()
            (z - lib.tensor(target)).abs().pow(2).sum().backward()
            opt.step()
        trajectories.append(z.detach().numpy())
    np.testing.assert_allclose(trajectories[0], trajectories[1], rtol=1e-12)
    assert np.abs(trajectories[0] - target).max() < np.abs(target).max()    # it descends


def test_real_and_imag_are_views_that_write_through():
    z = minflow.tensor([1 + 2j, -3 + 0.5j])
    z.real.mul_(2)
    z.imag[0] = 9.0
    assert z.tolist() == [2 + 9j, -6 + 0.5j]
    z.real.copy_(minflow.tensor([5.0, 6.0]))
    assert z.tolist() == [5 + 9j, 6 + 0.5j]
    pairs = minflow.view_as_real(z)
    pairs[1, 1] = -1.0
    assert z.tolist() == [5 + 9j, 6 - 1j] and pairs.shape == (2, 2)
    assert np.shares_memory(z.real.numpy(), z.numpy())
    assert minflow.ones(2).real is not None and minflow.is_conj(z) is False


def test_view_as_real_of_a_strided_tensor_and_back():
    base = minflow.tensor(_complex((3, 4), 6))
    strided = base[:, ::2]
    pairs = minflow.view_as_real(strided)
    np.testing.assert_array_equal(pairs.numpy()[..., 0], strided.numpy().real)
    np.testing.assert_array_equal(pairs.numpy()[..., 1], strided.numpy().imag)
    back = minflow.view_as_complex(minflow.view_as_real(base))
    assert back.tolist() == base.tolist() and np.shares_memory(back.numpy(), base.numpy())


@pytest.mark.parametrize("call, error, message", [
    (lambda: minflow.imag(minflow.ones(2)), RuntimeError,
     "imag is not implemented for tensors with non-complex dtypes"),
    (lambda: minflow.view_as_real(minflow.ones(2)), RuntimeError,
     "view_as_real is only supported for complex tensors, got float32"),
    (lambda: minflow.view_as_complex(minflow.ones(2, 3)), RuntimeError,
     "last dimension of size 2, got shape \\[2, 3\\]"),
    (lambda: minflow.view_as_complex(minflow.ones(2, 2).t()), RuntimeError,
     "last dimension with stride 1"),
    (lambda: minflow.view_as_complex(minflow.ones(2, 2, dtype=minflow.float16)), RuntimeError,
     "only supported for float32 and float64 tensors, but got a tensor of dtype float16"),
    (lambda: minflow.complex(minflow.ones(2), minflow.ones(2, dtype=minflow.float64)),
     RuntimeError, "expected real and imag to have the same dtype, got float32 and float64"),
    (lambda: minflow.complex(minflow.ones(2, dtype=minflow.int64),
                             minflow.ones(2, dtype=minflow.int64)),
     RuntimeError, "expected real and imag of dtype float32 or float64, got int64"),
    (lambda: minflow.polar(minflow.ones(2), minflow.ones(2, dtype=minflow.float64)),
     RuntimeError, "polar: expected abs and angle of one dtype"),
    (lambda: minflow.div(minflow.tensor([1j]), 2, rounding_mode="floor"), RuntimeError,
     "div: rounding_mode='floor' is not implemented for complex tensors"),
    (lambda: minflow.mm(minflow.ones(2, 2), minflow.ones(2, 2, dtype=minflow.complex64)),
     RuntimeError, "expected both operands to have the same dtype"),
])
def test_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_comparisons_and_closeness_match_torch():
    torch = pytest.importorskip("torch")
    a = np.array([1 + 2j, complex("nan") + 1j, complex("inf"), 0j, 1 + 1e-9j])
    b = np.array([1 + 2j, complex("nan") + 1j, complex("inf"), 1e-3, 1 + 0j])
    for lib in (minflow, torch):
        x, y = lib.tensor(a), lib.tensor(b)
        result = (lib.eq(x, y).tolist(), lib.ne(x, y).tolist(), lib.isclose(x, y).tolist(),
                  lib.isclose(x, y, equal_nan=True).tolist(), lib.allclose(x[:1], y[:1]))
        if lib is minflow:
            ours = result
    assert ours == result


def test_angle_of_real_inputs_as_torch():
    torch = pytest.importorskip("torch")
    values = [-1.0, -0.0, 0.0, 2.0, float("nan")]
    for dtype in ("float32", "float64"):
        ours = minflow.angle(minflow.tensor(values, dtype=getattr(minflow, dtype)))
        theirs = torch.angle(torch.tensor(values, dtype=getattr(torch, dtype)))
        assert ours.dtype.name == dtype
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    assert minflow.angle(minflow.tensor([-2, 3])).tolist() == torch.angle(
        torch.tensor([-2, 3])).tolist()


# ---- the new ops through minflow.testing.check_op (graph grads aside: nn.Graph refuses
# complex tensors) ----------------------------------------------------------------------------

def _pairs(a):
    return np.stack([a.real, a.imag], -1)


Z, X = _complex((3, 4), 7), np.random.default_rng(8).standard_normal((3, 4))
TABLE = {
    "angle": (minflow.angle, [Sample(Z), Sample(X)], np.angle,
              dict(dtypes=["float32", "float64", "complex64", "complex128"])),
    "conj_physical": (minflow.conj_physical, [Sample(Z)], np.conj,
                      dict(checks=tuple(c for c in CHECKS if c != "undeclared_dtype"))),
    "real": (minflow.real, [Sample(Z)], np.real,
             dict(checks=tuple(c for c in CHECKS if c != "undeclared_dtype"))),
    "imag": (minflow.imag, [Sample(Z)], np.imag, {}),
    "view_as_real": (minflow.view_as_real, [Sample(Z)], _pairs, {}),
    # a view needs the last dim contiguous: no non-contiguous check (torch refuses it too)
    "view_as_complex": (minflow.view_as_complex, [Sample(_pairs(Z))],
                        lambda a: a[..., 0] + 1j * a[..., 1],
                        dict(checks=tuple(c for c in CHECKS if c != "non_contiguous"))),
    "complex": (minflow.complex, [Sample(X, X[0]), Sample(X[:, :1], X)],
                lambda a, b: a + 1j * b, {}),
}


@pytest.mark.parametrize("name", sorted(TABLE))
def test_op_table(name, device):
    fn, samples, reference, options = TABLE[name]
    check_op(fn, samples, reference, devices=[device], graph=False, **options)


def test_prod_and_cumprod_with_zeros_match_torch_to_second_order():
    torch = pytest.importorskip("torch")
    a = _complex((3, 4), 7)
    a[1, 2] = a[2, 0] = a[2, 3] = 0
    results = []
    for lib in (minflow, torch):
        x = lib.tensor(a, requires_grad=True)
        out = x.prod(1) * 2 + lib.cumprod(x, 1).sum(0).sum() + x.prod(0).sum()
        grad, = lib.autograd.grad(_loss(out), x, create_graph=True)
        grad2, = lib.autograd.grad(_loss(grad), x)
        results.append([t.detach().numpy() for t in (out, grad, grad2)])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


def test_isclose_compares_complex_values_by_modulus():
    torch = pytest.importorskip("torch")
    a = _complex((20,), 8)
    b = a + np.array([1e-9j, 1e-3j, 1e-6, 1e-4j] * 5)
    b[0], a[1] = complex(np.nan, 1), complex(1, np.inf)
    b[1] = a[1]
    for kwargs in ({}, {"equal_nan": True}, {"rtol": 1e-3, "atol": 0.0}):
        ours = minflow.isclose(minflow.tensor(a), minflow.tensor(b), **kwargs).tolist()
        theirs = torch.isclose(torch.tensor(a), torch.tensor(b), **kwargs).tolist()
        assert ours == theirs
    assert not minflow.allclose(minflow.tensor(a[2:]), minflow.tensor(b[2:]))
    assert minflow.allclose(minflow.tensor(a[2:]), minflow.tensor(a[2:] * (1 + 1e-9j)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_random_complex_tensors_draw_both_parts_as_torch(dtype):
    n = 200_000
    dt = getattr(minflow, dtype)
    checks = {      # sample -> (mean, std) of each part, as torch's
        "randn": (minflow.randn(n, dtype=dt), 0.0, 0.5 ** 0.5),
        "normal": (minflow.normal(1.0, 2.0, (n,), dtype=dt), 1.0, 2 * 0.5 ** 0.5),
        "normal_": (minflow.zeros(n, dtype=dt).normal_(-1.0, 3.0), -1.0, 3 * 0.5 ** 0.5),
        "rand": (minflow.rand(n, dtype=dt), 0.5, (1 / 12) ** 0.5),
        "uniform_": (minflow.zeros(n, dtype=dt).uniform_(-2, 4), 1.0, 3 ** 0.5),
    }
    for name, (sample, mean, std) in checks.items():
        assert sample.dtype is dt, name
        for part in (sample.real, sample.imag):
            assert abs(part.mean().item() - mean) < 0.02 * max(1.0, std), name
            assert abs(part.std().item() - std) < 0.02 * std, name
        assert abs(np.corrcoef(sample.real.numpy(), sample.imag.numpy())[0, 1]) < 0.01, name
    assert 0 <= checks["rand"][0].real.min().item() and checks["rand"][0].imag.max().item() < 1
    assert -2 <= checks["uniform_"][0].imag.min().item()
    assert checks["uniform_"][0].real.max().item() < 4


def test_a_complex_linear_layer_trains_as_torch():
    torch = pytest.importorskip("torch")
    x, target = _complex((8, 4), 9), _complex((8, 3), 10)
    w, b = _complex((3, 4), 11), _complex((3,), 12)
    losses = []
    for lib in (minflow, torch):
        layer = lib.nn.Linear(4, 3, dtype=lib.complex128)
        assert layer.weight.dtype is lib.complex128
        with lib.no_grad():
            layer.weight.copy_(lib.tensor(w))
            layer.bias.copy_(lib.tensor(b))
        opt = lib.optim.SGD(layer.parameters(), lr=0.05)
        run = []
        for _ in range(5):
            opt.zero_grad()
            loss = (layer(lib.tensor(x)) - lib.tensor(target)).abs().pow(2).mean()
            loss.backward()
            opt.step()
            run.append(loss.item())
        losses.append(run)
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-12)
    assert losses[0][-1] < losses[0][0]


# name -> f(lib, A, B) with A complex (2, 3, 3), well conditioned, and B complex (2, 3, 2)
LINALG_CASES = {
    "inv": lambda L, A, B: L.linalg.inv(A) + L.inverse(A[0]),
    "det": lambda L, A, B: L.linalg.det(A) * A.det()[0],
    "solve": lambda L, A, B: L.linalg.solve(A, B) + L.linalg.solve(A[:1], B),
    "solve_vector_and_left": lambda L, A, B: L.linalg.solve(A[0], B[0, :, 0])
    + L.linalg.solve(A, B.mT, left=False)[0, 0],
    "matrix_power": lambda L, A, B: L.linalg.matrix_power(A, -2) + L.linalg.matrix_power(A, 3),
}


def _system(seed):
    return _complex((2, 3, 3), seed) + 3 * np.eye(3), _complex((2, 3, 2), seed + 1)


@pytest.mark.parametrize("name", sorted(LINALG_CASES))
def test_complex_linear_algebra_matches_torch(name):
    torch = pytest.importorskip("torch")
    a, b = _system(13)
    results = []
    for lib in (minflow, torch):
        A, B = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
        out = LINALG_CASES[name](lib, A, B)
        _loss(out).backward()
        results.append([t.detach().resolve_conj().numpy() if lib is torch else t.detach().numpy()
                        for t in (out, A.grad, B.grad if B.grad is not None else B * 0)])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", sorted(LINALG_CASES))
def test_complex_linear_algebra_gradcheck(name):
    a, b = _system(14)
    A, B = minflow.tensor(a, requires_grad=True), minflow.tensor(b, requires_grad=True)
    def fn(x, y):
        return LINALG_CASES[name](minflow, x, y)

    assert gradcheck(fn, (A, B))
    assert gradgradcheck(fn, (A, B))

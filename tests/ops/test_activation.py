import math

import numpy as np
import pytest

import minflow
import minflow.nn.functional as Fn
from minflow.autograd import gradcheck, gradgradcheck

X = np.array([-3.0, -1.2, -0.3, 0.4, 1.1, 2.5])
_erf = np.vectorize(math.erf)

REFERENCES = {
    "relu": (Fn.relu, lambda x: np.maximum(x, 0)),
    "leaky_relu": (lambda x: Fn.leaky_relu(x, 0.2), lambda x: np.where(x > 0, x, 0.2 * x)),
    "elu": (lambda x: Fn.elu(x, 1.5), lambda x: np.where(x > 0, x, 1.5 * np.expm1(x))),
    "gelu": (Fn.gelu, lambda x: 0.5 * x * (1 + _erf(x / math.sqrt(2)))),
    "gelu_tanh": (lambda x: Fn.gelu(x, approximate="tanh"), lambda x: 0.5 * x * (
        1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))),
    "silu": (Fn.silu, lambda x: x / (1 + np.exp(-x))),
    "softplus": (lambda x: Fn.softplus(x, beta=2, threshold=3),
                 lambda x: np.where(2 * x > 3, x, np.log1p(np.exp(2 * x)) / 2)),
    "hardtanh": (lambda x: Fn.hardtanh(x, -0.5, 2.0), lambda x: np.clip(x, -0.5, 2.0)),
    "sigmoid": (Fn.sigmoid, lambda x: 1 / (1 + np.exp(-x))),
    "tanh": (Fn.tanh, np.tanh),
    "selu": (Fn.selu, lambda x: 1.0507009873554805 * np.where(
        x > 0, x, 1.6732632423543772 * np.expm1(x))),
    "celu": (lambda x: Fn.celu(x, 0.7), lambda x: np.where(x > 0, x, 0.7 * np.expm1(x / 0.7))),
    "softshrink": (lambda x: Fn.softshrink(x, 0.35), lambda x: np.where(
        x > 0.35, x - 0.35, np.where(x < -0.35, x + 0.35, 0))),
    "hardshrink": (lambda x: Fn.hardshrink(x, 1.15), lambda x: np.where(np.abs(x) > 1.15, x, 0)),
    "tanhshrink": (Fn.tanhshrink, lambda x: x - np.tanh(x)),
    "threshold": (lambda x: Fn.threshold(x, 0.2, -1.5), lambda x: np.where(x > 0.2, x, -1.5)),
    "rrelu_eval": (lambda x: Fn.rrelu(x, 0.1, 0.4), lambda x: np.where(x > 0, x, 0.25 * x)),
    "softmin": (lambda x: Fn.softmin(x, -1), lambda x: np.exp(-x - np.log(np.exp(-x).sum(
        -1, keepdims=True)))),
}


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_forward_and_grads(name, device):
    fn, ref = REFERENCES[name]
    x = minflow.tensor(X, device=device, requires_grad=True)
    np.testing.assert_allclose(fn(x).detach().cpu().numpy(), ref(X), rtol=1e-10, atol=1e-12)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))
    x32 = minflow.tensor(X, dtype=minflow.float32, device=device)
    assert fn(x32).dtype is minflow.float32



@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_forward_and_grad_in_low_precision(name, dtype, device):
    """Every kernel (the hand-written CUDA ones too) runs in half and single precision and
    agrees with the float64 result to that precision."""
    fn, _ = REFERENCES[name]
    exact = minflow.tensor(X, requires_grad=True)
    fn(exact).sum().backward()
    x = minflow.tensor(X, dtype=getattr(minflow, dtype), device=device, requires_grad=True)
    y = fn(x)
    y.sum().backward()
    assert y.dtype is x.dtype and x.grad.dtype is x.dtype
    tol = 2e-3 if dtype == "float16" else 1e-6
    np.testing.assert_allclose(y.detach().cpu().numpy(), fn(exact).detach().numpy(),
                               rtol=tol, atol=tol)
    np.testing.assert_allclose(x.grad.cpu().numpy(), exact.grad.numpy(), rtol=tol, atol=tol)

def _softmax_ref(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_log_softmax(dim, device):
    a = np.random.default_rng(0).standard_normal((3, 4)) * 3
    x = minflow.tensor(a, device=device, requires_grad=True)
    np.testing.assert_allclose(Fn.softmax(x, dim).detach().cpu().numpy(), _softmax_ref(a, dim),
                               rtol=1e-12)
    np.testing.assert_allclose(x.log_softmax(dim).detach().cpu().numpy(),
                               np.log(_softmax_ref(a, dim)), rtol=1e-12)
    for fn in (lambda t: Fn.softmax(t, dim), lambda t: Fn.log_softmax(t, dim)):
        assert gradcheck(fn, (x,)) and gradgradcheck(fn, (x,))


@pytest.mark.parametrize("shape, dim", [((5, 0, 0), -1), ((0, 3), 1), ((3, 0), -1), ((0,), 0)])
def test_softmax_of_empty_tensors(shape, dim, device):
    x = minflow.zeros(*shape, device=device, requires_grad=True)
    for fn in (Fn.softmax, Fn.log_softmax):
        out = fn(x, dim)
        out.sum().backward()
        assert tuple(out.shape) == shape and tuple(x.grad.shape) == shape


def test_softmax_is_stable_and_takes_dtype():
    x = minflow.tensor([1000.0, 1000.0, -1000.0])
    assert Fn.softmax(x, 0).tolist() == [0.5, 0.5, 0.0]
    assert Fn.log_softmax(x, 0).tolist()[:2] == pytest.approx([math.log(0.5)] * 2)
    assert Fn.softmax(minflow.tensor([1.0, 2.0]), 0, dtype=minflow.float64).dtype \
        is minflow.float64
    assert Fn.softmax(minflow.tensor(3.0), 0).item() == 1.0
    with pytest.raises(IndexError, match="softmax: Dimension out of range"):
        Fn.softmax(minflow.ones(2, 3), 2)


def test_relu_at_zero_ints_and_inplace():
    x = minflow.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    Fn.relu(x).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 1.0]
    assert minflow.relu(minflow.tensor([-2, 3])).tolist() == [0, 3]
    y = minflow.tensor([-1.0, 2.0])
    assert y.relu_() is y and y.tolist() == [0.0, 2.0]
    z = minflow.tensor([-1.0, 2.0])
    assert Fn.leaky_relu(z, 0.5, inplace=True) is z and z.tolist() == [-0.5, 2.0]
    w = minflow.tensor([-4.0, 2.0])
    assert Fn.hardtanh(w, inplace=True) is w and w.tolist() == [-1.0, 1.0]


SPECIAL = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, -2.5, 3.0]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("size", [0, 1, 8, 40_000])   # the cpu kernel has a path per size
@pytest.mark.parametrize("negative_zero", [False, True])
def test_relu_keeps_nan_and_negative_zero(dtype, size, negative_zero, device):
    a = (np.random.default_rng(size).standard_normal(size) * 10).astype(dtype)
    if a.dtype.kind == "f":
        a[:min(size, 8)] = SPECIAL[:min(size, 8)]
        a[a == 0] = -0.0 if negative_zero else 0.0
    out = minflow.relu(minflow.tensor(a, device=device)).cpu().numpy()
    expected = np.where(a < 0, a.dtype.type(0), a)     # torch: NaN and -0.0 pass through
    assert out.dtype == a.dtype and out.shape == a.shape
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(np.signbit(out), np.signbit(expected))


def test_relu_special_values_as_torch():
    torch = pytest.importorskip("torch")
    a = np.array(SPECIAL, dtype=np.float32)
    ours, theirs = minflow.relu(minflow.tensor(a)).numpy(), torch.relu(torch.tensor(a)).numpy()
    np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(np.signbit(ours), np.signbit(theirs))


def test_inplace_composite_under_autograd():
    leaf = minflow.tensor(X, requires_grad=True)
    h = leaf * 1.0
    Fn.elu(h, inplace=True).sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy(), np.where(X > 0, 1.0, np.exp(X)))


def test_leaky_relu_grad_op_double_backward():
    x = minflow.tensor(X, requires_grad=True)
    g = minflow.tensor(np.linspace(-1, 1, 6), requires_grad=True)
    from minflow.core.dispatch import apply
    from minflow.ops.activation import LEAKY_RELU_GRAD
    fn = lambda g, x: apply(LEAKY_RELU_GRAD, (g, x), {"negative_slope": 0.1})  # noqa: E731
    assert gradcheck(fn, (g, x)) and gradgradcheck(fn, (g, x))


def test_large_inputs_give_finite_grads():
    x = minflow.tensor([-800.0, 800.0], dtype=minflow.float64, requires_grad=True)
    for fn in (Fn.softplus, Fn.elu, Fn.silu, Fn.gelu):
        (gx,) = minflow.autograd.grad(fn(x).sum(), x)
        assert np.isfinite(gx.numpy()).all()


def test_errors():
    with pytest.raises(TypeError, match="leaky_relu: expected input with dtype in"):
        Fn.leaky_relu(minflow.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        Fn.gelu(minflow.ones(2), approximate="fast")
    with pytest.raises(TypeError, match="relu: expected input with dtype"):
        Fn.relu(minflow.tensor([True]))
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        Fn.hardtanh(minflow.ones(2), 1.0, -1.0)


def test_against_torch():
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    t = torch.tensor(X)
    x = minflow.tensor(X)
    pairs = [(Fn.gelu(x), tf.gelu(t)), (Fn.gelu(x, approximate="tanh"), tf.gelu(t, approximate="tanh")),
             (Fn.softplus(x, 2, 3), tf.softplus(t, 2, 3)), (Fn.elu(x, 0.7), tf.elu(t, 0.7)),
             (Fn.silu(x), tf.silu(t)), (Fn.leaky_relu(x), tf.leaky_relu(t)),
             (Fn.log_softmax(x, 0), tf.log_softmax(t, 0))]
    for ours, theirs in pairs:
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-15)


def test_hardtanh_and_relu6_keep_integer_dtypes():
    """As torch: integer inputs stay integer, the bounds cast to the input's type."""
    x = minflow.tensor([-3, 0, 1, 5, 7])
    assert Fn.hardtanh(x, -0.5, 0.5).tolist() == [0, 0, 0, 0, 0]
    assert Fn.hardtanh(x, -2.7, 3.9).tolist() == [-2, 0, 1, 3, 3]
    out = Fn.relu6(x.int())
    assert out.dtype is minflow.int32 and out.tolist() == [0, 0, 1, 5, 6]


@pytest.mark.parametrize("fn", [minflow.softmax, minflow.log_softmax, Fn.softmin])
def test_softmax_family_of_empty_tensors(fn):
    x = minflow.empty(5, 0, 0, requires_grad=True)
    out = fn(x, -1)
    out.sum().backward()
    assert out.shape == (5, 0, 0) and x.grad.shape == (5, 0, 0)

"""Elementwise ops driven from one table: forward vs numpy, every dtype, non-contiguous
inputs, gradcheck and double backward, in-place and out= variants, meta inference."""
import numpy as np
import pytest

import minflow
from minflow.autograd import gradcheck, gradgradcheck
from minflow.core.dispatch import apply

F32, F64, I64, I32, B = "float32", "float64", "int64", "int32", "bool"
FLOATS = (F32, F64, "float16")


def positive(shape, rng):
    return rng.uniform(0.5, 2.0, shape)


def anywhere(shape, rng):
    return rng.uniform(-2.0, 2.0, shape)


def shift_amounts(shape, rng):
    return rng.integers(0, 4, shape).astype(float)


def away_from_ints(shape, rng):
    return rng.integers(-3, 3, shape) + rng.uniform(0.1, 0.9, shape)


# name: (numpy reference, input sampler, dtypes, differentiable)
UNARY = {
    "neg": (np.negative, anywhere, FLOATS + (I32, I64), True),
    "abs": (np.abs, away_from_ints, FLOATS + (I32, I64), True),
    "sign": (np.sign, away_from_ints, FLOATS + (I64,), True),
    "square": (np.square, anywhere, FLOATS + (I64,), True),
    "floor": (np.floor, away_from_ints, FLOATS, True),
    "ceil": (np.ceil, away_from_ints, FLOATS, True),
    "round": (np.round, away_from_ints, FLOATS, True),
    "exp": (np.exp, anywhere, FLOATS, True),
    "expm1": (np.expm1, anywhere, FLOATS, True),
    "log": (np.log, positive, FLOATS, True),
    "log1p": (np.log1p, positive, FLOATS, True),
    "sqrt": (np.sqrt, positive, FLOATS, True),
    "rsqrt": (lambda x: 1 / np.sqrt(x), positive, FLOATS, True),
    "reciprocal": (lambda x: 1 / x, positive, FLOATS, True),
    "sin": (np.sin, anywhere, FLOATS, True),
    "cos": (np.cos, anywhere, FLOATS, True),
    "tanh": (np.tanh, anywhere, FLOATS, True),
    "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), anywhere, FLOATS, True),
    "isnan": (np.isnan, anywhere, FLOATS, False),
    "isfinite": (np.isfinite, anywhere, FLOATS, False),
    "logical_not": (np.logical_not, anywhere, FLOATS + (B,), False),
}
BINARY = {
    "add": (np.add, anywhere, FLOATS + (I32, I64), True),
    "sub": (np.subtract, anywhere, FLOATS + (I32, I64), True),
    "mul": (np.multiply, anywhere, FLOATS + (I32, I64), True),
    "div": (np.true_divide, positive, FLOATS, True),
    "floor_divide": (np.floor_divide, positive, FLOATS + (I64,), True),
    "remainder": (np.remainder, positive, FLOATS + (I64,), True),
    "pow": (np.power, positive, FLOATS, True),
    "maximum": (np.maximum, anywhere, FLOATS + (I64,), True),
    "minimum": (np.minimum, anywhere, FLOATS + (I64,), True),
    "eq": (np.equal, away_from_ints, FLOATS + (I64, B), False),
    "lt": (np.less, anywhere, FLOATS + (I64,), False),
    "ge": (np.greater_equal, anywhere, FLOATS + (I64,), False),
    "logical_and": (np.logical_and, anywhere, FLOATS + (B,), False),
    "logical_xor": (np.logical_xor, anywhere, FLOATS + (B,), False),
    "bitwise_left_shift": (np.left_shift, shift_amounts, (I32, I64), False),
    "bitwise_right_shift": (np.right_shift, shift_amounts, (I32, I64), False),
}
UNDECLARED = [("floor", B), ("bitwise_not", F32), ("sub", B), ("isnan", None)]


def tanh_output(shape, rng):
    return np.tanh(anywhere(shape, rng))


def sigmoid_output(shape, rng):
    return 1 / (1 + np.exp(-anywhere(shape, rng)))


# Fused grad ops, called through the dispatcher as the grad functions call them.
# name: (numpy reference of (grad_out, output), output sampler)
GRAD_OPS = {
    "tanh_grad": (lambda g, y: g * (1 - y * y), tanh_output),
    "sigmoid_grad": (lambda g, y: g * y * (1 - y), sigmoid_output),
}


def sample(sampler, shape, dtype, seed=0):
    values = sampler(shape, np.random.default_rng(seed))
    if dtype == B:
        return values > 0
    if dtype in (I32, I64):
        return np.round(values * 3).astype(dtype) + (1 if sampler is positive else 0)
    return values.astype(dtype)


def fn(name):
    return getattr(minflow, name)


def grad_op(name):
    op = minflow.ops.get_op(name)
    return lambda grad_out, output: apply(op, (grad_out, output), {})


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_forward_every_dtype(name, device):
    ref, sampler, dtypes, _ = UNARY[name]
    for dtype in dtypes:
        x = sample(sampler, (3, 4), dtype)
        out = fn(name)(minflow.tensor(x, device=device))
        expected = ref(x)
        if expected.dtype.kind == "f" and x.dtype.kind != "f":
            expected = expected.astype(np.float32)
        assert out.dtype.name == expected.dtype.name or out.dtype.name == "bool"
        np.testing.assert_allclose(out.cpu().numpy(), expected, rtol=2e-3 if dtype == "float16"
                                   else 1e-6, atol=1e-6)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_forward_broadcast_every_dtype(name, device):
    ref, sampler, dtypes, _ = BINARY[name]
    for dtype in dtypes:
        x, y = sample(sampler, (3, 1), dtype, 1), sample(sampler, (4,), dtype, 2)
        out = fn(name)(minflow.tensor(x, device=device), minflow.tensor(y, device=device))
        tol = 3e-3 if dtype == "float16" else 1e-6
        np.testing.assert_allclose(out.cpu().numpy(), ref(x, y), rtol=tol, atol=tol)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_non_contiguous_input(name):
    ref, sampler, dtypes, _ = UNARY[name]
    x = sample(sampler, (4, 3), dtypes[0]).T          # a strided view
    out = fn(name)(minflow.from_numpy(x))
    np.testing.assert_allclose(out.numpy(), ref(x), rtol=1e-6)


@pytest.mark.parametrize("name", [n for n in sorted(UNARY) if UNARY[n][3]])
def test_unary_gradcheck_and_double_backward(name):
    _, sampler, _, _ = UNARY[name]
    x = minflow.tensor(sample(sampler, (2, 3), F64), requires_grad=True)
    assert gradcheck(fn(name), (x,))
    assert gradgradcheck(fn(name), (x,))


@pytest.mark.parametrize("name", [n for n in sorted(BINARY) if BINARY[n][3]])
def test_binary_gradcheck_and_double_backward(name):
    _, sampler, _, _ = BINARY[name]
    x = minflow.tensor(sample(sampler, (2, 1), F64, 3), requires_grad=True)
    y = minflow.tensor(sample(sampler, (3,), F64, 4), requires_grad=True)
    assert gradcheck(fn(name), (x, y))
    assert gradgradcheck(fn(name), (x, y))


@pytest.mark.parametrize("name", sorted(GRAD_OPS))
def test_grad_op_forward_every_dtype(name, device):
    ref, sampler = GRAD_OPS[name]
    for dtype in FLOATS:
        g, y = sample(anywhere, (3, 4), dtype, 1), sample(sampler, (3, 4), dtype, 2)
        out = grad_op(name)(minflow.tensor(g, device=device), minflow.tensor(y, device=device))
        assert out.dtype.name == dtype
        tol = 3e-3 if dtype == "float16" else 1e-6
        np.testing.assert_allclose(out.cpu().numpy(), ref(g, y), rtol=tol, atol=tol)
    meta = grad_op(name)(minflow.ones(2, 3, device="meta"), minflow.ones(2, 3, device="meta"))
    assert meta.shape == (2, 3) and meta.dtype is minflow.float32


@pytest.mark.parametrize("name", sorted(GRAD_OPS))
def test_grad_op_gradcheck_and_double_backward(name):
    _, sampler = GRAD_OPS[name]
    g = minflow.tensor(sample(anywhere, (2, 3), F64, 3), requires_grad=True)
    y = minflow.tensor(sample(sampler, (2, 3), F64, 4), requires_grad=True)
    assert gradcheck(grad_op(name), (g, y))
    assert gradgradcheck(grad_op(name), (g, y))


@pytest.mark.parametrize("name", ["exp", "sqrt", "abs", "neg", "sigmoid", "floor"])
def test_inplace_and_out_equal_functional(name):
    _, sampler, _, _ = UNARY[name]
    x = minflow.tensor(sample(sampler, (5,), F32))
    expected = fn(name)(x).tolist()
    out = minflow.empty(5)
    assert fn(name)(x, out=out) is out and out.tolist() == expected
    y = x.clone()
    assert getattr(y, name + "_")() is y and y.tolist() == expected


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "pow", "remainder"])
def test_binary_inplace_and_out_equal_functional(name):
    x = minflow.tensor(sample(positive, (2, 3), F32, 5))
    y = minflow.tensor(sample(positive, (3,), F32, 6))
    expected = fn(name)(x, y).tolist()
    out = minflow.zeros(2, 3)
    assert fn(name)(x, y, out=out).tolist() == expected
    z = x.clone()
    assert getattr(z, name + "_")(y).tolist() == expected


@pytest.mark.parametrize("name", sorted(UNARY))
def test_meta_inference_matches_eager(name):
    _, sampler, dtypes, _ = UNARY[name]
    x = minflow.tensor(sample(sampler, (2, 3), dtypes[0]))
    eager, meta = fn(name)(x), fn(name)(x.to("meta"))
    assert meta.shape == eager.shape and meta.dtype is eager.dtype


@pytest.mark.parametrize("name, dtype", UNDECLARED[:3])
def test_undeclared_dtype_raises(name, dtype):
    x = minflow.tensor(sample(anywhere, (2,), dtype))
    args = (x, x) if name == "sub" else (x,)
    with pytest.raises((TypeError, RuntimeError), match=name):
        fn(name)(*args)


def test_div_rounding_modes_match_python():
    a = minflow.tensor([7, -7, 7, -7])
    b = minflow.tensor([2, 2, -2, -2])
    assert minflow.div(a, b, rounding_mode="trunc").tolist() == [3, -3, -3, 3]
    assert minflow.div(a, b, rounding_mode="floor").tolist() == [7 // 2, -7 // 2, 7 // -2, 3]
    assert minflow.div(a.float(), b, rounding_mode="trunc").tolist() == [3.0, -3.0, -3.0, 3.0]


def test_where_clamp_masked_fill():
    x = minflow.tensor([-2.0, 0.5, 3.0])
    assert minflow.where(x > 0, x, minflow.zeros(3)).tolist() == [0.0, 0.5, 3.0]
    assert x.clamp(max=1).tolist() == [-2.0, 0.5, 1.0]
    assert minflow.clamp(minflow.tensor([1, 5]), 2, 4).tolist() == [2, 4]
    assert x.masked_fill(x < 0, 9.0).tolist() == [9.0, 0.5, 3.0]
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max'"):
        x.clamp()
    with pytest.raises(TypeError, match="masked_fill: expected mask with dtype in \\[bool\\]"):
        x.masked_fill(x, 1.0)


def test_against_torch():
    torch = pytest.importorskip("torch")
    x = np.linspace(-3, 3, 13)
    for name in ("sigmoid", "tanh", "expm1", "sign", "round", "floor"):
        ours = fn(name)(minflow.tensor(x)).numpy()
        theirs = getattr(torch, name)(torch.tensor(x)).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, err_msg=name)
    a, b = np.array([5.0, -5.0, 5.5, -5.5]), np.array([3.0, 3.0, -2.0, -2.0])
    for name in ("remainder", "floor_divide", "maximum", "pow"):
        ours = fn(name)(minflow.tensor(a), minflow.tensor(b)).numpy()
        theirs = getattr(torch, name)(torch.tensor(a), torch.tensor(b)).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, err_msg=name)
    xa = minflow.tensor([0.0, 1.0, 2.0], dtype=minflow.float64, requires_grad=True)
    ta = torch.tensor([0.0, 1.0, 2.0], dtype=torch.float64, requires_grad=True)
    (minflow.maximum(xa, minflow.tensor(1.0, dtype=minflow.float64)) + xa.abs() + xa ** 2
     ).sum().backward()
    (torch.maximum(ta, torch.tensor(1.0, dtype=torch.float64)) + ta.abs() + ta ** 2).sum().backward()
    np.testing.assert_allclose(xa.grad.numpy(), ta.grad.numpy())


_X = minflow.ones(2, 3)
BAD_INPUTS = {   # name: (call, error type, message naming the function)
    "broadcast": (lambda: _X + minflow.ones(4), RuntimeError, "add: shapes"),
    "devices": (lambda: _X * minflow.ones(3, device="meta"), RuntimeError,
                "mul: expected all tensors to be on the same device"),
    "operand type": (lambda: _X + "a", TypeError, "add: expected a Tensor or a Python number"),
    "bool subtraction": (lambda: minflow.tensor([True]) - True, RuntimeError, "sub: Subtraction"),
    "bool negation": (lambda: -minflow.tensor([True]), RuntimeError, "neg: Negation"),
    "int ** negative int": (lambda: minflow.tensor([2]) ** -1, RuntimeError,
                            "pow: Integers to negative integer powers"),
    "int // 0": (lambda: minflow.tensor([2]) // 0, RuntimeError, "floor_divide: ZeroDivision"),
    "int % 0": (lambda: minflow.tensor([2]) % minflow.tensor([0]), RuntimeError,
                "remainder: ZeroDivision"),
    "int div floor by 0": (lambda: minflow.div(minflow.tensor([2]), 0, rounding_mode="floor"),
                           RuntimeError, "div: ZeroDivision"),
    "rounding mode": (lambda: minflow.div(_X, 2, rounding_mode="round"), ValueError,
                      "div: attr 'rounding_mode' expected one of"),
    "float alpha on ints": (lambda: minflow.add(minflow.tensor([1]), 1, alpha=0.5), RuntimeError,
                            "add: For integral input tensors"),
    "bool alpha on floats": (lambda: minflow.sub(_X, 1, alpha=True), RuntimeError,
                             "sub: Boolean alpha"),
    "bitwise on floats": (lambda: _X & 1, TypeError, "bitwise_and: expected bool or integer"),
    "bitwise_not on floats": (lambda: ~_X, TypeError, "bitwise_not: expected bool or integer"),
    "where condition dtype": (lambda: minflow.where(_X, _X, 0.0), TypeError,
                              "where: expected condition with dtype in \\[bool\\]"),
    "where one branch": (lambda: minflow.where(_X > 0, _X), TypeError, "where: expected both"),
    "clamp without bounds": (lambda: _X.clamp(), RuntimeError, "clamp: At least one"),
    "clamp bound shape": (lambda: _X.clamp(minflow.zeros(4)), RuntimeError, "clamp: shapes"),
    "masked_fill mask shape": (lambda: _X.masked_fill(minflow.ones(4) > 0, 0.0),
                               RuntimeError, "masked_fill: shapes \\[\\[2, 3\\], \\[4\\]\\]"),
    "masked_fill_ larger mask": (lambda: _X.masked_fill_(minflow.ones(2, 1, 3) > 0, 0.0),
                                 RuntimeError, "masked_fill_: output with shape \\[2, 3\\]"),
    "masked_fill value dims": (lambda: _X.masked_fill(_X > 0, minflow.ones(1)), RuntimeError,
                               "masked_fill: only supports a 0-dimensional value"),
    "round int decimals": (lambda: minflow.tensor([5]).round(decimals=-1), TypeError,
                           "round: decimals=-1 needs a floating input"),
    "grad op shapes": (lambda: grad_op("tanh_grad")(_X, minflow.ones(3)), RuntimeError,
                       "tanh_grad: expected grad_out like output \\(shape \\[3\\]"),
    "grad op dtype": (lambda: grad_op("sigmoid_grad")(_X.int(), _X.int()), TypeError,
                      "sigmoid_grad: expected output with dtype in"),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_inputs_name_the_function(name):
    call, error, message = BAD_INPUTS[name]
    with pytest.raises(error, match=message):
        call()


def test_clamp_with_tensor_bounds_and_masked_fill_with_tensor_value_are_differentiable():
    x = minflow.tensor(sample(anywhere, (2, 3), F64, 7), requires_grad=True)
    lo = minflow.tensor(sample(anywhere, (3,), F64, 8) - 1, requires_grad=True)
    hi = minflow.tensor(sample(anywhere, (2, 1), F64, 9) + 1, requires_grad=True)
    assert gradcheck(lambda a, b, c: minflow.clamp(a, b, c), (x, lo, hi))
    value = minflow.tensor(0.5, dtype=minflow.float64, requires_grad=True)
    assert gradcheck(lambda a, v: a.masked_fill(a > 0, v), (x, value))


def test_masked_fill_broadcasts_input_to_a_larger_mask():
    """As torch's out-of-place masked_fill: the result has the broadcast shape and the
    gradient is summed back to input's shape."""
    x = minflow.tensor([1.0, 2.0, 3.0], requires_grad=True)
    mask = minflow.tensor([[True, False, True], [False, False, False]])
    for value in (5.0, minflow.tensor(5.0)):
        out = x.masked_fill(mask, value)
        assert out.tolist() == [[5.0, 2.0, 5.0], [1.0, 2.0, 3.0]]
        out.sum().backward()
        assert x.grad.tolist() == [1.0, 2.0, 1.0]
        x.grad = None
    x = minflow.tensor(sample(anywhere, (3,), F64, 3), requires_grad=True)
    assert gradcheck(lambda a: a.masked_fill(mask, 0.5), (x,))


def test_integer_pow_with_negative_tensor_exponents_follows_torch():
    base = minflow.tensor([0, 1, -1, -1, 2, -3])
    assert (base ** minflow.tensor([-1, -5, -3, -2, -1, -2])).tolist() == [0, 1, -1, 1, 0, 0]


def test_sign_of_nan_inf_and_zero_follows_torch(device):
    torch = pytest.importorskip("torch")
    x = np.array([np.nan, -np.inf, -0.0, 0.0, np.inf, -2.5, 3.0])
    for dtype in FLOATS:
        ours = minflow.sign(minflow.tensor(x, dtype=getattr(minflow, dtype), device=device))
        theirs = torch.sign(torch.tensor(x, dtype=getattr(torch, dtype)))
        np.testing.assert_array_equal(ours.cpu().numpy(), theirs.numpy(), err_msg=dtype)
    assert minflow.sign(minflow.tensor(np.nan, device=device)).item() == 0.0     # 0-d


def test_pow_gradients_at_zero_base_follow_torch():
    torch = pytest.importorskip("torch")
    x = [0.0, 0.0, 0.0, -0.0, 0.0, 2.0, 0.5, -1.5, 0.0]
    y = [-1.0, -2.0, 0.0, -1.0, 1.5, -0.5, 2.0, 2.0, -0.5]
    grad = [1.0, -2.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]

    def grads(lib, base):
        ys = lib.tensor(y, dtype=lib.float64, requires_grad=True)
        if isinstance(base, float):      # a Python number to a tensor power
            (base ** ys).backward(lib.tensor(grad, dtype=lib.float64))
            return [ys.grad.numpy()]
        xs = lib.tensor(base, dtype=lib.float64, requires_grad=True)
        (xs ** ys).backward(lib.tensor(grad, dtype=lib.float64))
        return [xs.grad.numpy(), ys.grad.numpy()]

    with np.errstate(all="ignore"):
        for base in (x, 0.0, 2.0, -2.0):
            for ours, theirs in zip(grads(minflow, base), grads(torch, base)):
                np.testing.assert_allclose(ours, theirs, rtol=1e-12, err_msg=str(base))

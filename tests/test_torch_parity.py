"""PyTorch parity of the ops: the same script run with ``minflow`` and with ``torch`` gives
the same values, dtypes, shapes, gradients and errors. (Tensor surface, factories, repr
and autograd: tests/core/test_tensor_parity.py, which shares the helpers below.)

Every case is a function of the library (``L`` is ``minflow`` or ``torch``); the table
entry runs it with both and compares the results (or checks that both raise).
"""
import itertools
import math

import numpy as np
import pytest

import minflow

torch = pytest.importorskip("torch")

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
_ERRORS = (RuntimeError, TypeError, ValueError, IndexError, OverflowError, ZeroDivisionError,
           NotImplementedError)


def _run(fn, lib):
    try:
        return fn(lib)
    except _ERRORS as err:
        return err


def _name(dtype):
    return str(dtype).split(".")[-1]


def assert_same(ours, theirs, tol=1e-5, where=""):
    """Recursively compare results: tensors by dtype name, shape and values."""
    if isinstance(theirs, Exception):
        assert isinstance(ours, Exception), f"{where}: torch raised {theirs!r}, we gave {ours!r}"
        return
    assert not isinstance(ours, Exception), f"{where}: we raised {ours!r}, torch: {theirs!r}"
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, minflow.Tensor), f"{where}: got {type(ours).__name__}"
        assert _name(ours.dtype) == _name(theirs.dtype), f"{where}: dtype"
        assert tuple(ours.shape) == tuple(theirs.shape), f"{where}: shape"
        assert ours.requires_grad == theirs.requires_grad, f"{where}: requires_grad"
        np.testing.assert_allclose(ours.detach().cpu().numpy().astype(np.float64),
                                   theirs.detach().numpy().astype(np.float64),
                                   rtol=tol, atol=tol, equal_nan=True, err_msg=where)
    elif isinstance(theirs, (tuple, list)) and not isinstance(theirs, torch.Size):
        assert len(ours) == len(theirs), where
        for a, b in zip(ours, theirs):
            assert_same(a, b, tol, where)
    elif isinstance(theirs, torch.dtype):
        assert _name(ours) == _name(theirs), where
    elif isinstance(theirs, float) and math.isnan(theirs):
        assert math.isnan(ours), where
    else:
        assert type(ours) is type(theirs) or isinstance(theirs, torch.Size), where
        assert ours == theirs, f"{where}: {ours!r} != {theirs!r}"


def check(fn, tol=1e-5, where=""):
    assert_same(_run(fn, minflow), _run(fn, torch), tol, where)


def T(L, values, dtype="float32", **kw):
    return L.tensor(values, dtype=getattr(L, dtype), **kw)


# -- dtype promotion of every binary op over every pair of dtypes ----------------------------
BINARY = ["add", "sub", "mul", "div", "floor_divide", "remainder", "pow", "maximum", "minimum",
          "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
          "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift"]
_A, _B = [[1, 0, 3], [2, 5, 7]], [[2, 1, 2], [3, 2, 3]]


@pytest.mark.parametrize("name", BINARY)
def test_binary_promotion_values_and_errors(name):
    for d1, d2 in itertools.product(DTYPES, DTYPES):
        check(lambda L: getattr(L, name)(T(L, _A, d1), T(L, _B, d2)), 2e-3, f"{name}[{d1},{d2}]")
        check(lambda L: getattr(L, name)(T(L, _A, d1), T(L, 2, d2)), 2e-3, f"{name}[{d1},0d {d2}]")


_SCALAR_OPS = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "eq", "lt", "ge",
               "and", "or", "xor", "lshift", "rshift"]


@pytest.mark.parametrize("name", _SCALAR_OPS)
def test_python_scalars_are_weak_both_sides(name):
    for dtype, scalar in itertools.product(DTYPES, (2, 2.5, True)):
        for reflected in (False, True):
            op = f"__r{name}__" if reflected else f"__{name}__"
            if reflected and name in ("eq", "lt", "ge"):
                continue
            check(lambda L: getattr(T(L, _A, dtype), op)(scalar), 2e-3,
                  f"{op}[{dtype}, {scalar!r}]")


UNARY = ["neg", "abs", "sign", "exp", "expm1", "log", "log1p", "sqrt", "rsqrt", "square",
         "reciprocal", "sin", "cos", "tanh", "sigmoid", "floor", "ceil", "round", "logical_not",
         "isnan", "isfinite", "isinf", "bitwise_not"]


@pytest.mark.parametrize("name", UNARY)
def test_unary_result_dtypes_and_values(name):
    for dtype in DTYPES:
        check(lambda L: getattr(L, name)(T(L, _A, dtype)), 2e-3, f"{name}[{dtype}]")


# -- special values, division and pow rules, where / clamp / masked_fill -----------------------
NAN, INF = float("nan"), float("inf")
CASES = {
    "int / int is float": lambda L: T(L, [1, -1, 0], "int64") / T(L, [0, 0, 0], "int64"),
    "int // 0 raises": lambda L: T(L, [1, -1], "int64") // 0,
    "int % 0 raises": lambda L: T(L, [1, -1], "int64") % T(L, [0, 0], "int64"),
    "int div floor 0 raises": lambda L: L.div(T(L, [1], "int64"), 0, rounding_mode="floor"),
    "float // 0": lambda L: T(L, [1., -1., 0.]) // 0,
    "float % 0": lambda L: T(L, [1., -1., 0.]) % 0,
    "remainder takes divisor sign": lambda L: T(L, [5., -5., 5.5, -5.5]) % T(L, [-3., -3., 2., 2.]),
    "int remainder sign": lambda L: T(L, [5, -5, 5, -5], "int64") % T(L, [-3, -3, 3, 3], "int64"),
    "scalar % tensor": lambda L: L.remainder(-7, T(L, [3, -3], "int64")),
    "div trunc":
        lambda L: L.div(T(L, [-7, 7], "int64"), T(L, [2, -2], "int64"), rounding_mode="trunc"),
    "div floor float": lambda L: L.div(T(L, [-7.5, 7.5]), 2, rounding_mode="floor"),
    "div floor int32 by float": lambda L: L.div(T(L, [-7, 7], "int32"), 2.0, rounding_mode="floor"),
    "int ** -1 raises": lambda L: T(L, [2, 3], "int64") ** -1,
    "int ** negative tensor":
        lambda L: T(L, [0, 1, -1, 2, -1], "int64") ** T(L, [-1, -1, -3, -2, -2], "int64"),
    "2 ** int tensor": lambda L: 2 ** T(L, [-1, 0, 3], "int64"),
    "int ** 0.5": lambda L: T(L, [1, 4], "int64") ** 0.5,
    "0 ** 0": lambda L: T(L, [0., 2.]) ** 0,
    "maximum nan": lambda L: L.maximum(T(L, [NAN, 1.]), T(L, [1., NAN])),
    "clamp nan": lambda L: L.clamp(T(L, [NAN, 1.]), 0, 0.5),
    "round half even": lambda L: L.round(T(L, [0.5, 1.5, 2.5, -0.5, -1.5])),
    "round decimals": lambda L: L.round(T(L, [0.125, 1.55, 1234.5]), decimals=1),
    "round negative decimals": lambda L: L.round(T(L, [1234., 1250.]), decimals=-2),
    "sign nan is 0": lambda L: L.sign(T(L, [NAN, -0., 3.])),
    "sign bool": lambda L: L.sign(T(L, [True, False], "bool")),
    "square bool is int64": lambda L: L.square(T(L, [True, False], "bool")),
    "neg bool raises": lambda L: -T(L, [True], "bool"),
    "bool - bool raises": lambda L: T(L, [True], "bool") - T(L, [True], "bool"),
    "int - True raises": lambda L: T(L, [1], "int64") - True,
    "True - float raises": lambda L: True - T(L, [1.]),
    "add alpha": lambda L: L.add(T(L, [1, 2], "int64"), T(L, [1, 2], "int64"), alpha=2),
    "add float alpha on ints raises": lambda L: L.add(T(L, [1], "int64"), 1, alpha=2.5),
    "sub alpha": lambda L: L.sub(T(L, [1., 2.]), 1, alpha=3),
    "bool alpha on bools":
        lambda L: L.add(T(L, [True, False], "bool"), T(L, [True, True], "bool"), alpha=True),
    "bool alpha on ints raises": lambda L: L.add(T(L, [1], "int64"), 1, alpha=True),
    "where scalars": lambda L: L.where(T(L, [True, False], "bool"), 1.0, 0.0),
    "where int and float scalar":
        lambda L: L.where(T(L, [True, False], "bool"), T(L, [1, 2], "int64"), 0.5),
    "where non-bool condition raises":
        lambda L: L.where(T(L, [1, 0], "int64"), T(L, [1, 2], "int64"), 0),
    "clamp int with float bounds": lambda L: L.clamp(T(L, [1, 5], "int64"), 1.5, 3.5),
    "clamp tensor bounds":
        lambda L: L.clamp(T(L, [1., 5., 3.]), T(L, [2., 2., 2.]), T(L, [4., 4., 2.5])),
    "clamp int by float tensor": lambda L: L.clamp(T(L, [1, 5], "int64"), T(L, [2.5, 2.5])),
    "clamp broadcast bound": lambda L: L.clamp(T(L, [[1., 5.]]), T(L, [[2.5], [0.]])),
    "clamp min > max": lambda L: L.clamp(T(L, [1., 5., 3.]), 4, 2),
    "clamp_min": lambda L: L.clamp_min(T(L, [1., 5.]), 4),
    "clamp_max": lambda L: T(L, [1., 5.]).clamp_max(4),
    "masked_fill 0-d tensor":
        lambda L: T(L, [1., 2.]).masked_fill(T(L, [True, False], "bool"), T(L, 3.)),
    "masked_fill int with float":
        lambda L: T(L, [1, 2], "int64").masked_fill(T(L, [True, False], "bool"), 3.5),
    "masked_fill 1-d value raises":
        lambda L: T(L, [1., 2.]).masked_fill(T(L, [True, False], "bool"), T(L, [3.])),
    "masked_fill broadcast mask":
        lambda L: T(L, [[1., 2.], [3., 4.]]).masked_fill(T(L, [True, False], "bool"), 0.),
    "int & int": lambda L: T(L, [1, 0, 6], "int64") & T(L, [3, 1, 5], "int64"),
    "int | scalar": lambda L: T(L, [1, 0], "int64") | 2,
    "scalar ^ int": lambda L: 5 ^ T(L, [1, 4], "int64"),
    "bool & int": lambda L: T(L, [True, False], "bool") & T(L, [3, 1], "int64"),
    "True & bool": lambda L: True & T(L, [True, False], "bool"),
    "float & raises": lambda L: T(L, [1.]) & 1,
    "numpy float64 scalar is weak": lambda L: np.float64(1.5) + T(L, [2., 3.]),
    "tensor * numpy int": lambda L: T(L, [2, 3], "int32") * np.int64(2),
    "numpy array operand is a tensor": lambda L: T(L, [1, 2], "int64") + np.array([1., 2.]),
    "== numpy array": lambda L: T(L, [1, 2], "int64") == np.array([1, 3]),
    "tensor == None": lambda L: T(L, [2, 3], "int64") == None,  # noqa: E711
    "tensor != None": lambda L: T(L, [2, 3], "int64") != None,  # noqa: E711
    "0-d float64 vs int32": lambda L: T(L, [2], "int32") + T(L, 3., "float64"),
    "0-d float64 vs float16": lambda L: T(L, [2], "float16") + T(L, 3., "float64"),
    "two 0-d": lambda L: T(L, 2, "int32") + T(L, 3., "float16"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_special_cases(name):
    check(CASES[name], 1e-3, name)


# -- reductions ---------------------------------------------------------------------------------
X = [[1., 5., 3.], [7., 2., 7.]]
REDUCE_FNS = {
    "sum": lambda L, x: x.sum(), "sum(1)": lambda L, x: L.sum(x, 1),
    "sum keep": lambda L, x: x.sum(-1, keepdim=True), "prod": lambda L, x: x.prod(),
    "prod(0)": lambda L, x: L.prod(x, 0), "mean": lambda L, x: x.mean(),
    "mean(1)": lambda L, x: x.mean(1),
    "amax": lambda L, x: x.amax(),
    "amin(0)": lambda L, x: L.amin(x, 0),
    "max": lambda L, x: x.max(),
    "max(1)": lambda L, x: L.max(x, 1),
    "min(0, keep)": lambda L, x: x.min(0, True),
    "argmax": lambda L, x: x.argmax(), "argmin(1)": lambda L, x: x.argmin(1),
    "argmax keep": lambda L, x: L.argmax(x, keepdim=True), "all": lambda L, x: x.all(),
    "any(1)": lambda L, x: x.any(1), "all keep": lambda L, x: x.all(keepdim=True),
    "var": lambda L, x: x.var(),
    "std(1)": lambda L, x: x.std(1),
    "var c0": lambda L, x: x.var(correction=0),
    "var(1, False)": lambda L, x: L.var(x, 1, False),
    "std unbiased=False": lambda L, x: x.std(unbiased=False),
    "logsumexp(1)": lambda L, x: L.logsumexp(x, 1), "cumsum(1)": lambda L, x: x.cumsum(1),
    "norm": lambda L, x: x.norm(),
    "norm(1)": lambda L, x: x.norm(1),
    "norm inf dim": lambda L, x: x.norm(float("inf"), 1),
    "norm 0": lambda L, x: x.norm(0), "norm 3 keep": lambda L, x: x.norm(3, 1, keepdim=True),
}


@pytest.mark.parametrize("name", sorted(REDUCE_FNS))
def test_reduction_dtypes_values_and_errors(name):
    for dtype in DTYPES:
        values = [[True, False, True], [True, True, True]] if dtype == "bool" else X
        check(lambda L: REDUCE_FNS[name](L, T(L, values, dtype)), 2e-3, f"{name}[{dtype}]")


REDUCE_CASES = {
    "sum dtype=": lambda L: L.sum(T(L, X), dtype=L.float64),
    "sum dim tuple": lambda L: L.sum(T(L, X), (0, 1)),
    "sum empty dims is all": lambda L: L.sum(T(L, X), ()),
    "sum of empty": lambda L: L.sum(L.zeros(0, 3), 0),
    "mean of empty is nan": lambda L: L.mean(L.zeros(0, 3)),
    "max of empty raises": lambda L: L.max(L.zeros(0)),
    "max ties: first index": lambda L: L.max(T(L, [[1., 7., 7.]]), 1),
    "max propagates nan": lambda L: L.max(T(L, [[1., NAN, 3.]]), 1),
    "0-d max over dim 0": lambda L: L.max(T(L, 3.), 0),
    "argmax 0-d": lambda L: L.argmax(T(L, 3.)),
    "logsumexp of -inf": lambda L: L.logsumexp(T(L, [-INF, -INF]), 0),
    "logsumexp of +inf": lambda L: L.logsumexp(T(L, [INF, 1.]), 0),
    "logsumexp large": lambda L: L.logsumexp(T(L, [1000., 1000.]), 0),
    "float16 mean accumulates in float32": lambda L: T(L, [60000., 60000.], "float16").mean(),
    "float16 std": lambda L: T(L, [60000., 60000., -60000., 0.5], "float16").std(),
    "float16 norm": lambda L: T(L, [300., 300.], "float16").norm(),
    "float16 cumsum": lambda L: T(L, [60000., 60000., -60000., 0.5], "float16").cumsum(0),
    "cumsum bool": lambda L: L.cumsum(T(L, [True, True], "bool"), 0),
    "cumsum dtype=": lambda L: L.cumsum(T(L, X), 0, dtype=L.float64),
    "norm int raises even with dtype": lambda L: L.norm(T(L, [3, 4], "int64"), dtype=L.float64),
    "norm dtype=": lambda L: L.norm(T(L, [3., 4.]), dtype=L.float64),
    "var single element": lambda L: L.var(T(L, [1.])),
}


@pytest.mark.parametrize("name", sorted(REDUCE_CASES))
def test_reduction_cases(name):
    check(REDUCE_CASES[name], 1e-3, name)


def test_max_named_tuple_repr():
    x = minflow.tensor([[1., 2.]])
    expected = repr(torch.max(torch.tensor([[1., 2.]]), 1)).replace("torch", "minflow")
    assert repr(minflow.max(x, 1)) == expected


# -- gradients, at kinks and ties too ------------------------------------------------------------
def grads_of(fn, arrays):
    """Run ``fn(L, *leaves)`` with both libraries; return (output, leaf grads) pairs."""
    def run(L):
        leaves = [L.tensor(a, dtype=L.float64, requires_grad=True) for a in arrays]
        out = fn(L, *leaves)
        out = out[0] if isinstance(out, tuple) else out
        weights = np.cos(np.arange(out.numel()) + 1.0).reshape(tuple(out.shape))
        (out * L.tensor(weights, dtype=L.float64)).sum().backward()
        return out.detach(), [x.grad for x in leaves]
    return run


TIES = np.array([[1., 5., 5.], [5., 2., 5.]])
KINKS = np.array([[0., -1., 2.], [0., 0., 3.]])
NORMAL = np.random.default_rng(0).standard_normal((2, 3))
UNARY_GRADS = {
    "sum": lambda L, x: x.sum(1), "mean": lambda L, x: x.mean(0), "prod": lambda L, x: x.prod(1),
    "amax (ties split evenly)": lambda L, x: x.amax(1), "amin all": lambda L, x: x.amin(),
    "max all (ties split)": lambda L, x: x.max(), "max dim (to index)": lambda L, x: x.max(1),
    "min dim keep": lambda L, x: x.min(0, keepdim=True), "var": lambda L, x: x.var(1),
    "std": lambda L, x: x.std(), "logsumexp": lambda L, x: L.logsumexp(x, (0, 1)),
    "norm": lambda L, x: x.norm(), "norm 1 (0 at 0)": lambda L, x: x.norm(1),
    "norm inf": lambda L, x: x.norm(float("inf")), "norm 3": lambda L, x: x.norm(3, 1),
    "cumsum": lambda L, x: x.cumsum(1), "abs (0 at 0)": lambda L, x: x.abs(),
    "sqrt of |x|": lambda L, x: (x.abs() + 1).sqrt(), "sign": lambda L, x: x.sign(),
    "clamp (kink passes)": lambda L, x: x.clamp(1, 5), "clamp min": lambda L, x: x.clamp(min=0),
    "relu via maximum (tie halves)": lambda L, x: L.maximum(x, L.zeros_like(x)),
    "x ** 2": lambda L, x: x ** 2,
    "x ** 0": lambda L, x: x ** 0,
    "|x| ** 0.5": lambda L, x: (x.abs() + 1) ** 0.5,
    "2 ** x": lambda L, x: 2 ** x,
    "x % 3": lambda L, x: x % 3,
    "x // 2": lambda L, x: L.div(x, 2, rounding_mode="floor"),
    "div trunc": lambda L, x: L.div(x, 2, rounding_mode="trunc"), "round": lambda L, x: x.round(),
    "where": lambda L, x: L.where(x > 2, x, x * 2),
    "masked_fill": lambda L, x: x.masked_fill(x > 2, 0.),
    "sigmoid": lambda L, x: x.sigmoid(),
    "tanh": lambda L, x: x.tanh(),
    "expm1": lambda L, x: x.expm1(),
    "reciprocal": lambda L, x: (x + 10).reciprocal(), "rsqrt": lambda L, x: (x.abs() + 1).rsqrt(),
    "einsum ij,kj": lambda L, x: L.einsum("ij,kj->ik", x, x),
    "einsum trace": lambda L, x: L.einsum("ij->", x),
    "einsum diagonal": lambda L, x: L.einsum("ii->i", L.mm(x, x.T)), "x^T x": lambda L, x: x.T @ x,
    "clone / cast round trip": lambda L, x: x.clone().float().double(),
}


@pytest.mark.parametrize("name", sorted(UNARY_GRADS))
def test_gradients_match(name):
    for label, x in (("ties", TIES), ("kinks", KINKS), ("normal", NORMAL)):
        run = grads_of(UNARY_GRADS[name], [x])
        assert_same(_run(run, minflow), _run(run, torch), 1e-9, f"{name} [{label}]")


BINARY_GRADS = {
    "maximum": lambda L, a, b: L.maximum(a, b), "minimum": lambda L, a, b: L.minimum(a, b),
    "max(a, b)": lambda L, a, b: L.max(a, b), "|a| ** b": lambda L, a, b: (a.abs() + 0.5) ** b,
    "clamp tensor min": lambda L, a, b: L.clamp(a, min=b),
    "clamp tensor both": lambda L, a, b: L.clamp(a, b - 1, b + 1),
    "div": lambda L, a, b: a / (b.abs() + 1), "remainder": lambda L, a, b: a % (b.abs() + 1),
    "add alpha": lambda L, a, b: L.add(a, b, alpha=-3),
    "sub alpha": lambda L, a, b: L.sub(a, b, alpha=2),
    "mm": lambda L, a, b: L.mm(a, b.T), "matmul": lambda L, a, b: a @ b.T,
    "bmm": lambda L, a, b: L.bmm(a.unsqueeze(0), b.T.unsqueeze(0)),
    "einsum broadcast ...": lambda L, a, b: L.einsum("...j,kj->...k", a, b),
    "einsum size-1 broadcast": lambda L, a, b: L.einsum("ij,ij->ij", a, b.sum(0, keepdim=True)),
    "masked_fill tensor value": lambda L, a, b: a.masked_fill(a > 2, b.sum()),
}


@pytest.mark.parametrize("name", sorted(BINARY_GRADS))
def test_binary_gradients_match(name):
    for label, (a, b) in (("ties", (TIES, KINKS + 1)), ("equal", (TIES, TIES)),
                          ("normal", (NORMAL, NORMAL[::-1].copy()))):
        run = grads_of(BINARY_GRADS[name], [a, b])
        assert_same(_run(run, minflow), _run(run, torch), 1e-9, f"{name} [{label}]")


MATMUL_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((5, 2, 3), (3,)),
                 ((3,), (5, 3, 4)), ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)),
                 ((1, 2, 3), (5, 3, 4)),
                 ((7, 1, 2, 3), (5, 3, 4)), ((0, 3), (3, 2)), ((2, 0), (0, 3))]


@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
def test_matmul_every_shape_case(shapes):
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(s) for s in shapes]
    run = grads_of(lambda L, a, b: L.matmul(a, b), arrays)
    assert_same(_run(run, minflow), _run(run, torch), 1e-9, str(shapes))


EINSUMS = [("ij,jk", [(2, 3), (3, 4)]), ("ii", [(3, 3)]), ("iij->j", [(2, 2, 3)]),
           ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]), ("i,j->ij", [(2,), (3,)]),
           ("...ij,...jk->...ik", [(5, 2, 3), (3, 4)]), ("i...->...", [(2, 3, 4)]),
           ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]), ("i j , j k -> i k", [(2, 3), (3, 4)]),
           ("ab...,b...->a...", [(2, 3, 4), (3, 4)]),
           ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)])]


@pytest.mark.parametrize("equation, shapes", EINSUMS, ids=[e for e, _ in EINSUMS])
def test_einsum_values_and_gradients(equation, shapes):
    rng = np.random.default_rng(2)
    run = grads_of(lambda L, *xs: L.einsum(equation, *xs), [rng.standard_normal(s) for s in shapes])
    assert_same(_run(run, minflow), _run(run, torch), 1e-9, equation)


def test_pow_exponent_gradient_at_zero_base():
    # d(b ** y)/dy = b ** y * log(b); torch takes it as 0 where b == 0 and y >= 0
    run = grads_of(lambda L, y: L.pow(L.zeros_like(y), y.abs() + 1), [NORMAL])
    assert_same(_run(run, minflow), _run(run, torch), 1e-9)

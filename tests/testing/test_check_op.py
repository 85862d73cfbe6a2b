"""minflow.testing.check_op: each check catches what it is for, and a failure names the
check, the sample and the size of the error."""
import numpy as np
import pytest

import minflow
import minflow.library as L
from minflow.testing import CHECKS, OpCheckError, Sample, check_op

X = np.linspace(-2, 2, 12).reshape(3, 4)


def test_a_builtin_op_passes_every_check():
    report = check_op(minflow.exp, [Sample(X), Sample(X[:, :1])], np.exp)
    assert set(report.counts) == {"forward", "dtype", "meta", "non_contiguous",
                                  "undeclared_dtype", "gradcheck", "gradgradcheck",
                                  "graph_grads", "inplace", "out"}
    # 2 samples x 5 dtypes (float16, float32, float64, complex64, complex128) per device
    runs = 10 * (2 if minflow.cuda.is_available() else 1)
    assert report.counts["forward"] == runs and not report.failures
    assert str(report).startswith(f"check_op(exp): all passed (forward {runs}, dtype {runs}")


def test_a_wrong_reference_names_check_sample_and_error():
    with pytest.raises(OpCheckError) as info:
        check_op(minflow.exp, [Sample(X), Sample(X[0])], lambda x: np.exp(x) * 1.01,
                 devices=["cpu"], checks=("forward",))
    msg = str(info.value)
    assert "check_op(exp): 9 failed" in msg      # float16 is within its tolerance
    assert ("check 'forward', sample 1 Sample(float64[4]) as float32 on cpu: max abs error "
            "0.00403 (at [3]), max rel error 0.0099") in msg


def test_dtype_mismatch_is_its_own_check():
    with pytest.raises(OpCheckError, match=r"check 'dtype', sample 0 .* as float16 on cpu: got "
                                           r"float16, expected float64"):
        check_op(minflow.exp, [Sample(X)], lambda x: np.exp(x.astype(np.float64)),
                 dtypes=["float16"], checks=("forward",))


@pytest.fixture
def bad_ops():
    """User ops with deliberate bugs, removed afterwards."""
    same = lambda input, **a: (input.shape, input.dtype)       # noqa: E731
    for name in ("t.no_check", "t.wrong_grad"):
        L.define_op(name, ["input"], infer=same)
    L.register_kernel("t.no_check", ("cpu", "cuda"), minflow.library.ALL_DTYPES[1:])(
        lambda xp, x: x * 3)
    L.register_kernel("t.wrong_grad", ("cpu", "cuda"), L.FLOATS)(lambda xp, x: x * 2)
    L.backward_spec("t.wrong_grad", "t.no_check", inputs=[L.grad("out")])
    yield
    L.unload("t")


def test_gradcheck_failure_says_by_how_much(bad_ops):
    wrong = L.bind_function("t.wrong_grad")
    with pytest.raises(OpCheckError, match=r"check 'gradcheck', sample 0 Sample\(float64\[4\]\) "
                                           r"as float64: gradcheck: gradient of output 0 w.r.t. "
                                           r"input 0 differs by up to"):
        check_op(wrong, [Sample(X[0])], lambda x: x * 2, checks=("gradcheck",))


def test_undeclared_dtype_that_runs_is_reported(bad_ops):
    fn = L.bind_function("t.no_check")
    with pytest.raises(OpCheckError, match=r"check 'undeclared_dtype', sample 0 .* as bool: "
                                           r"ran in bool, which has no kernel"):
        L.register_kernel("t.no_check", "cpu", ["bool"])(lambda x: x)
        check_op(fn, [Sample(X)], lambda x: x * 2, undeclared=["bool"], grad=False,
                 checks=("undeclared_dtype",))


def test_error_cases_and_graph_grads(bad_ops):
    fn = L.bind_function("t.wrong_grad")
    with pytest.raises(OpCheckError) as info:
        check_op(fn, [Sample(X)], lambda x: x * 2, checks=("errors",),
                 errors=[(Sample(X.astype(np.int64)), TypeError, "t.wrong_grad"),
                         (lambda: fn(minflow.ones(2)), RuntimeError, "never"),
                         (Sample(X, factor=2), TypeError, "unexpected attrs")])
    msg = str(info.value)
    assert "check_op(t.wrong_grad): 3 failed" in msg
    assert ("check 'errors', error case 0 (Sample(int64[3, 4])): raised KernelNotFoundError: "
            "t.wrong_grad: no kernel for device 'cpu' and dtype int64") in msg
    assert "error case 1 (<function" in msg and "raised nothing; expected RuntimeError" in msg
    assert "unexpected keyword argument 'factor'\" does not match 'unexpected attrs'" in msg


def test_checks_are_named():
    assert CHECKS == ("forward", "dtype", "meta", "non_contiguous", "undeclared_dtype",
                      "gradcheck", "gradgradcheck", "graph_grads", "inplace", "out", "errors")


def _strided_bug(x):
    """x * 2, but a non-contiguous view is read as if it were the start of its base."""
    if x.base is None or x.flags.c_contiguous:
        return x * 2
    return np.ascontiguousarray(x.base).reshape(-1)[:x.size].reshape(x.shape) * 2


@pytest.fixture
def buggy():
    """One user op per check, each with the bug that check is for; removed afterwards."""
    same = lambda input, **a: (input.shape, input.dtype)       # noqa: E731
    L.define_op("bug.strided", ["input"], infer=same)
    L.register_kernel("bug.strided", "cpu", L.FLOATS)(_strided_bug)
    L.define_op("bug.meta", ["input"], infer=lambda input: (input.shape[::-1], input.dtype))
    L.register_kernel("bug.meta", "cpu", L.FLOATS)(lambda x: x * 2)
    L.define_op("bug.twice", ["input"], infer=same)             # right eager grad, wrong conf
    L.register_kernel("bug.twice", "cpu", L.FLOATS)(lambda x: x * 2)
    L.backward_spec("bug.twice", "bug.twice", inputs=[L.grad("out")])
    L.register_grad_conf("bug.twice")(
        lambda ctx: ctx.bind_input_grad("input", ctx.output_grad("out")))
    L.define_op("bug.square", ["input"], infer=same)            # its grad's grad misses a term
    L.define_op("bug.square_grad", ["grad_out", "input"], infer=lambda g, x: same(x))
    L.register_kernel("bug.square", "cpu", L.FLOATS)(lambda x: x * x)
    L.register_kernel("bug.square_grad", "cpu", L.FLOATS)(lambda g, x: 2 * g * x)
    L.backward_spec("bug.square", "bug.square_grad")
    L.backward_spec("bug.square_grad", "bug.square_grad", inputs=[L.grad("out"), "input"],
                    outputs={"out": "grad_out"})
    fns = {name: L.bind_function(f"bug.{name}") for name in ("strided", "meta", "twice", "square")}
    L.bind_function("bug.twice", name="twice_", method="bug_twice_")   # returns a new tensor
    yield fns
    L.unload("bug")


def _twice_ignoring_out(input, out=None):
    return input * 2


@pytest.mark.parametrize("check, fn, expected", [
    ("non_contiguous", "strided", r"check 'non_contiguous', sample 0 Sample\(float64\[3, 4\]\) "
                                  r"as float16: max abs error 4.36 \(at \[2, 3\]\)"),
    ("meta", "meta", r"check 'meta', sample 0 Sample\(float64\[3, 4\]\) as float16: meta "
                     r"gives float16\[4, 3\], eager float16\[3, 4\]"),
    ("graph_grads", "twice", r"check 'graph_grads', sample 0 Sample\(float64\[3, 4\]\) as "
                             r"float64 \(grad of input 0\): max abs error 1.45 \(at \[0, 1\]\), "
                             r"max rel error 0.5"),
    ("gradgradcheck", "square", r"check 'gradgradcheck', sample 0 Sample\(float64\[3, 4\]\) as "
                                r"float64: gradgradcheck: gradient of first-derivative "
                                r"output 0 w.r.t. input 0 differs by up to 1.4"),
    ("inplace", "twice", r"check 'inplace', sample 0 Sample\(float64\[3, 4\]\) as float16: "
                         r"bug_twice_ returned a new tensor, not self"),
    ("out", _twice_ignoring_out, r"check 'out', sample 0 Sample\(float64\[3, 4\]\) as "
                                 r"float32: fn\(..., out=t\) did not return t"),
])
def test_each_check_catches_its_bug(buggy, check, fn, expected):
    fn = buggy[fn] if isinstance(fn, str) else fn
    with pytest.raises(OpCheckError, match=r"1 failed\n  " + expected):
        check_op(fn, [Sample(X)], lambda x: x * x if fn is buggy["square"] else x * 2,
                 checks=(check,), inplace="bug_twice_")

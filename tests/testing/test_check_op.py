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
    assert report.counts["forward"] == 6 and not report.failures
    assert str(report).startswith("check_op(exp): all passed (forward 6, dtype 6")


def test_a_wrong_reference_names_check_sample_and_error():
    with pytest.raises(OpCheckError) as info:
        check_op(minflow.exp, [Sample(X), Sample(X[0])], lambda x: np.exp(x) * 1.01,
                 checks=("forward",))
    msg = str(info.value)
    assert "check_op(exp): 5 failed" in msg      # float16 is within its tolerance
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

import pytest

import minflow
from minflow.core.dispatch import apply
from minflow.kernels import KernelNotFoundError, register_kernel
from minflow.ops import Attr, define_op, get_op
from minflow.ops.infer import unary


def test_defining_an_op_twice_names_both():
    with pytest.raises(ValueError, match="'add' is already defined"):
        define_op("add", ["input"], infer=unary)


def test_bad_attr_names_op_attr_expected_and_got():
    with pytest.raises(TypeError, match="div: attr 'rounding_mode' expected str"):
        minflow.div(minflow.ones(1), 2, rounding_mode=3)
    with pytest.raises(ValueError, match=r"expected one of \['trunc', 'floor'\], got 'up'"):
        minflow.div(minflow.ones(1), 2, rounding_mode="up")


def test_kernel_for_unknown_op_and_duplicate_kernel():
    with pytest.raises(KeyError, match="no op named 'no_such_op'"):
        register_kernel("no_such_op", "cpu", [minflow.float32])
    with pytest.raises(ValueError, match="already registered"):
        register_kernel("exp", "cpu", [minflow.float32])(lambda x: x)


def test_missing_kernel_lists_registered_pairs():
    op = define_op("test_only_cpu_float64", ["input"], infer=unary, traits=("no_grad",))
    register_kernel(op.name, "cpu", [minflow.float64])(lambda x: x * 2)
    assert apply(op, (minflow.ones(1, dtype=minflow.float64),), {}).tolist() == [2.0]
    with pytest.raises(KernelNotFoundError,
                       match=r"no kernel for device 'cpu' and dtype float32; registered .*"
                             r"'cpu': \['float64'\]"):
        apply(op, (minflow.ones(1),), {})


def test_match_predicate_picks_kernel():
    op = define_op("test_match_pick", ["input"], attrs=[Attr("mode", "str", "a")],
                   infer=lambda input, mode: (input.shape, input.dtype), traits=("no_grad",))
    register_kernel(op.name, "cpu", [minflow.float32])(lambda x, mode: x + 1)
    register_kernel(op.name, "cpu", [minflow.float32],
                    match=lambda x, mode: mode == "b")(lambda x, mode: x + 100)
    assert apply(op, (minflow.zeros(1),), {"mode": "a"}).tolist() == [1.0]
    assert apply(op, (minflow.zeros(1),), {"mode": "b"}).tolist() == [100.0]


def test_attr_constraints_and_unknown_attr():
    op = define_op("test_attr_checks", ["input"], attrs=[Attr("k", "int", 1, min=0)],
                   infer=lambda input, k: (input.shape, input.dtype), traits=("no_grad",))
    with pytest.raises(ValueError, match="test_attr_checks: attr 'k' expected >= 0, got -1"):
        apply(op, (minflow.zeros(1),), {"k": -1})
    with pytest.raises(TypeError, match=r"unexpected attrs \['j'\]"):
        apply(op, (minflow.zeros(1),), {"j": 1})


def test_shape_errors_name_the_op():
    with pytest.raises(RuntimeError, match=r"mul: shapes \[\[2\], \[3\]\] cannot be broadcast"):
        minflow.ones(2) * minflow.ones(3)


def test_differentiable_op_without_grad_is_a_clear_error():
    op = define_op("test_no_grad_fn", ["input"], infer=unary)
    register_kernel(op.name, "cpu", [minflow.float32])(lambda x: x.copy())
    with pytest.raises(RuntimeError, match="test_no_grad_fn: no grad function"):
        apply(op, (minflow.ones(1, requires_grad=True),), {})


def test_ops_are_listed_with_their_kernels():
    op = get_op("exp")
    assert [i.name for i in op.inputs] == ["input"]
    devices = {k.device for k in op.kernels}
    assert devices == {"cpu", "cuda"}

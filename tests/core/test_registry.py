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


@pytest.mark.parametrize("attr, value, ok", [
    (Attr("a", "int", 1), 5, True),
    (Attr("a", "int", 1), True, False),              # bool is an int subclass: refused
    (Attr("a", "int", 1), 2.0, False),
    (Attr("a", "float", 1.0), 3, True),               # an int is a float, as in torch
    (Attr("a", "float", 1.0), False, False),
    (Attr("a", "float", 1.0), None, False),
    (Attr("a", "float", None, optional=True), None, True),
    (Attr("a", "str", "x", choices=("x", "y")), "z", False),   # constrained: always checked
    (Attr("a", "int", 1, min=0), -1, False),
    (Attr("a", "ints", ()), (1, 2), True),
    (Attr("a", "ints", ()), (1, True), False),
    (Attr("a", "dtype", None, optional=True), minflow.float64, True),
    (Attr("a", "dtype", None, optional=True), "float64", False),
])
def test_attr_values_skip_validate_only_where_their_class_passes(attr, value, ok):
    """resolve_attrs validates a value only if its class is not one that passes as it is;
    every other value, and every value of a constrained attr, goes through validate."""
    op = define_op(f"test_attr_classes_{id(attr)}", ["input"], attrs=[attr],
                   infer=lambda input, a: (input.shape, input.dtype), traits=("no_grad",))
    if ok:
        assert op.resolve_attrs({"a": value}) == {"a": value}
    else:
        with pytest.raises((TypeError, ValueError), match=f"{op.name}: attr 'a' expected"):
            op.resolve_attrs({"a": value})


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

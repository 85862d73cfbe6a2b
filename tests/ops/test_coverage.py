"""Every registered op is complete: kernels on both devices, a grad function when it is
differentiable, a doc line; every public function has a docstring with an example."""
import pytest

import minflow
from minflow.core.namespace import F
from minflow.kernels.registry import registered_pairs

OPS = minflow.ops.all_ops()

# Fused grad ops whose double backward runs a composite of differentiable ops instead
# (see autograd/grads/nn.py and loss.py): they are never recorded on a tape.
COMPOSITE_DOUBLE_BACKWARD = {"batch_norm_grad", "layer_norm_grad", "cross_entropy_grad"}


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_op_has_kernels_on_every_device(op):
    pairs = registered_pairs(op)
    assert pairs.get("cpu"), f"{op.name}: no cpu kernel"
    if "cpu_only" not in op.traits:
        assert pairs.get("cuda") == pairs["cpu"], (
            f"{op.name}: cuda kernels {pairs.get('cuda')} differ from cpu {pairs['cpu']}")


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_differentiable_op_has_grad_function(op):
    if op.differentiable and op.name not in COMPOSITE_DOUBLE_BACKWARD:
        assert op.grad is not None, f"{op.name}: differentiable but no grad function"
    assert op.doc, f"{op.name}: no doc line"


def test_composite_double_backward_ops_exist():
    names = {op.name for op in OPS}
    assert COMPOSITE_DOUBLE_BACKWARD <= names


PUBLIC = sorted(name for name in vars(F) if not name.startswith("_"))


@pytest.mark.parametrize("name", PUBLIC)
def test_public_function_has_docstring(name):
    doc = getattr(F, name).__doc__
    assert doc and doc.strip(), f"minflow.{name}: no docstring"

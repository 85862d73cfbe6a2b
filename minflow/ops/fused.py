"""Fused elementwise ops: a chain of elementwise ops run as one kernel.

Graph mode makes them: the fusion pass (minflow/graph/fusion.py) replaces a chain of
elementwise ops on cuda, each value read only by the next, with one ``fused_elementwise``
node, which runs as one generated CUDA kernel (kernels/cupy/fused.py). There is no public
function: eager code calls the ops themselves.

``program`` is a tuple of steps ``(op name, attrs, args)``, in order: ``attrs`` a tuple
of (name, value) pairs, each arg ``("input", k)`` (the k-th input), ``("step", j)`` (the
result of step j) or a Python number. The last step's result is the output, of the
inputs' broadcast shape and their (common, floating) dtype.

>>> from minflow.core.dispatch import apply
>>> program = (("add", (), (("input", 0), ("input", 1))),
...            ("relu", (), (("step", 0),)))
>>> inputs = [minflow.tensor([1.0, -3.0]), minflow.tensor(1.0)]
>>> apply(minflow.ops.fused.FUSED_ELEMENTWISE, [inputs], {"program": program}).tolist()
[2.0, 0.0]
"""
from ..core import dtype as dtypes
from . import infer
from .registry import Attr, Input, define_op

__all__ = ["FUSED_ELEMENTWISE", "FUSABLE_DTYPES"]

# NOTE: no float16: CUDA's half arithmetic would round differently from numpy's
FUSABLE_DTYPES = (dtypes.float32, dtypes.float64)


def _infer(inputs, program):
    if not inputs:
        raise ValueError("fused_elementwise: expected at least one input, got none")
    dtype = inputs[0].dtype
    for i, x in enumerate(inputs):
        if x.dtype is not dtype or dtype not in FUSABLE_DTYPES:
            raise TypeError(f"fused_elementwise: inputs must share one dtype of "
                            f"{[d.name for d in FUSABLE_DTYPES]}; input 0 is {dtype.name}, "
                            f"input {i} is {x.dtype.name}")
    if not isinstance(program, tuple) or not program:
        raise ValueError(f"fused_elementwise: attr 'program' must be a non-empty tuple of "
                         f"steps, got {program!r}")
    return infer.broadcast_shapes(*[x._data.shape for x in inputs]), dtype


FUSED_ELEMENTWISE = define_op(
    "fused_elementwise", [Input("inputs", variadic=True)], attrs=[Attr("program", "any")],
    infer=_infer, traits=("no_grad", "no_side_effect", "elementwise", "broadcast"),
    doc="A chain of elementwise ops as one kernel (made by graph fusion).")

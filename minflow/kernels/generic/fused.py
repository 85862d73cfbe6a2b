"""The cpu kernel of fused_elementwise: each step of the program by its own cpu kernel, in
order. It is the reference the one-pass CUDA kernel (kernels/cupy/fused.py) must match;
the fusion pass never makes fused nodes on cpu, where numpy runs each op in one call."""
from ...ops.fused import FUSABLE_DTYPES
from ...ops.registry import get_op
from ..registry import register_kernel, select_kernel


@register_kernel("fused_elementwise", "cpu", FUSABLE_DTYPES)
def fused_elementwise(inputs, program):
    dtype = next(d for d in FUSABLE_DTYPES if d.np == inputs[0].dtype)
    results = []
    for name, attrs, args in program:
        values = [_operand(a, inputs, results) for a in args]
        kernel = select_kernel(get_op(name), "cpu", dtype, values, dict(attrs))
        results.append(kernel(*values, **dict(attrs)))
    return results[-1]


def _operand(arg, inputs, results):
    if isinstance(arg, tuple):
        return inputs[arg[1]] if arg[0] == "input" else results[arg[1]]
    return arg

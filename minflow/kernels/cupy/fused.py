"""The cuda kernel of fused_elementwise: the whole program as one generated
``cupy.ElementwiseKernel`` (one pass over memory), compiled once per program and dtype.

``CUDA_EXPRESSIONS`` holds one CUDA C expression per fusable op: ``{0}``, ``{1}`` are its
operands, ``{name}`` its attrs; each step is computed in the output type ``T`` and
stored, as numpy rounds after each op. The graph's fusion pass fuses exactly the ops
listed here. cupy is imported on first call: the source is made without it.

>>> program = (("add", (), (("input", 0), ("input", 1))),
...            ("relu", (), (("step", 0),)), ("mul", (), (("step", 1), 2)))
>>> print(minflow.kernels.cupy.fused.cuda_source(program, 2)[2])
T v0 = in0 + in1;
T v1 = (v0 < 0 ? (T)0 : v0);
T v2 = v1 * ((T)2.0);
out = v2;
"""
import functools

from ...core.device import array_module
from ...ops.fused import FUSABLE_DTYPES
from ..registry import register_kernel

__all__ = ["CUDA_EXPRESSIONS", "cuda_source", "fused_elementwise"]

# each as its cpu kernel computes it (kernels/generic, kernels/numpy), NaN rules included
CUDA_EXPRESSIONS = {
    "add": "{0} + {1}",
    "sub": "{0} - {1}",
    "mul": "{0} * {1}",
    "div": "{0} / {1}",                             # rounding_mode=None only
    "neg": "-{0}",
    "abs": "fabs({0})",
    "square": "{0} * {0}",
    "reciprocal": "(T)1 / {0}",
    "exp": "exp({0})",
    "expm1": "expm1({0})",
    "log": "log({0})",
    "log1p": "log1p({0})",
    "sqrt": "sqrt({0})",
    "rsqrt": "(T)1 / sqrt({0})",
    "sin": "sin({0})",
    "cos": "cos({0})",
    "tanh": "tanh({0})",
    "sigmoid": "tanh({0} * (T)0.5) * (T)0.5 + (T)0.5",     # never overflows, as on cpu
    "relu": "({0} < 0 ? (T)0 : {0})",               # NaN and -0.0 pass through
    "relu_grad": "{0} * (T)({1} > 0)",              # a product: a NaN grad stays NaN
    "tanh_grad": "{0} * ((T)1 - {1} * {1})",
    "sigmoid_grad": "{0} * {1} * ((T)1 - {1})",
    "leaky_relu": "({0} > 0 ? {0} : {0} * {negative_slope})",
    "leaky_relu_grad": "({1} > 0 ? {0} : {0} * {negative_slope})",
    "tan": "tan({0})",
    "asin": "asin({0})",
    "acos": "acos({0})",
    "atan": "atan({0})",
    "sinh": "sinh({0})",
    "cosh": "cosh({0})",
    "asinh": "asinh({0})",
    "acosh": "acosh({0})",
    "atanh": "atanh({0})",
    "log2": "log2({0})",
    "log10": "log10({0})",
    "exp2": "exp2({0})",
    "erfc": "erfc({0})",
    "sinc": "({0} == 0 ? (T)1 : (T)(sin({0} * (T)3.141592653589793) "
            "/ ({0} * (T)3.141592653589793)))",
    "deg2rad": "{0} * (T)0.017453292519943295",      # pi / 180
    "rad2deg": "{0} * (T)57.29577951308232",         # 180 / pi
    "fmod": "fmod({0}, {1})",
    "hypot": "hypot({0}, {1})",
    "copysign": "copysign({0}, {1})",
    "fmax": "fmax({0}, {1})",
    "fmin": "fmin({0}, {1})",
    "nextafter": "nextafter({0}, {1})",
    "xlogy": "(({0} == 0 && !isnan({1})) ? (T)0 : (T)({0} * log({1})))",
    "heaviside": "({0} == 0 ? {1} : (T)({0} > 0))",    # NaN input gives 0, as on cpu
    "lgamma": "lgamma({0})",                        # +inf at -inf too, as on cpu
}


def cuda_source(program, n_inputs):
    """(input params, output params, body, kernel name) of ``program``'s ElementwiseKernel."""
    lines = []
    for j, (name, attrs, args) in enumerate(program):
        operands = [_operand(a) for a in args]
        constants = {k: _literal(v) for k, v in attrs if v is not None}
        lines.append(f"T v{j} = {CUDA_EXPRESSIONS[name].format(*operands, **constants)};")
    lines.append(f"out = v{len(program) - 1};")
    params = ", ".join(f"T in{k}" for k in range(n_inputs))
    name = "minflow_fused_" + "_".join(step[0] for step in program)[:80]
    return params, "T out", "\n".join(lines), name


def _operand(arg):
    if isinstance(arg, tuple):
        return f"in{arg[1]}" if arg[0] == "input" else f"v{arg[1]}"
    return _literal(arg)


def _literal(value):
    """A finite Python number as a CUDA literal of type T (the fusion pass fuses no other)."""
    return f"((T){float(value)!r})"


@functools.lru_cache(maxsize=None)
def _kernel(program, n_inputs):
    params, out, body, name = cuda_source(program, n_inputs)
    return array_module("cuda").ElementwiseKernel(params, out, body, name)


@register_kernel("fused_elementwise", "cuda", FUSABLE_DTYPES, out=True)
def fused_elementwise(inputs, program, out=None):
    kernel = _kernel(program, len(inputs))
    return kernel(*inputs) if out is None else kernel(*inputs, out)

"""Linear algebra kernels, written once against the array module (numpy or cupy)."""
from ...core.dtype import COMPLEX, NUMERIC
from ..registry import register_kernel
from .opmath import in_float32, into


@register_kernel("matmul", ("cpu", "cuda"), NUMERIC + COMPLEX, out=True)
def matmul(xp, input, other, transpose_input, transpose_other, out=None):
    if transpose_input:
        input = xp.swapaxes(input, -1, -2)
    if transpose_other:
        other = xp.swapaxes(other, -1, -2)
    return xp.matmul(input, other, out=out)


@register_kernel("linear", ("cpu", "cuda"), NUMERIC, out=True)
def linear(xp, input, weight, bias, out=None):
    if input.dtype == xp.float16:       # torch's addmm: in float32, rounded once
        return into(out, linear(xp, *in_float32(xp, input, weight, bias)))
    out = xp.matmul(input, weight.T, out=out)
    if bias is not None:
        out += bias
    return out



@register_kernel("linear_grad_params", ("cpu", "cuda"), NUMERIC)
def linear_grad_params(xp, grad_out, input):
    rows = grad_out.reshape(-1, grad_out.shape[-1])
    # float16 bias grads summed in float32 (numpy adds float16 rows rounding each step)
    return xp.matmul(rows.T, input.reshape(-1, input.shape[-1])), rows.sum(
        axis=0, dtype=xp.float32 if rows.dtype == xp.float16 else None)


@register_kernel("linear_grad", ("cpu", "cuda"), NUMERIC)
def linear_grad(xp, grad_out, input, weight):
    return (xp.matmul(grad_out, weight),) + linear_grad_params(xp, grad_out, input)

@register_kernel("einsum", ("cpu", "cuda"), NUMERIC + COMPLEX)
def einsum(xp, operands, equation):
    # NOTE: optimize lets numpy contract 3+ operands pairwise via BLAS instead of one loop
    out = xp.einsum(equation, *operands, optimize=len(operands) > 2)
    # einsum returns a view for pure transposes and diagonals ("ij->ji", "ii->i")
    if any(xp.may_share_memory(out, x) for x in operands):
        out = out.copy()
    return xp.asarray(out)

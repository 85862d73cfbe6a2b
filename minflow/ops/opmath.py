"""torch's "opmath" for float16 and bfloat16 composites: computed in float32 and rounded
once.

A composite of several half-precision ops rounds after each of them; torch's kernels for
addcmul, lerp, baddbmm and friends compute in float32 and round only the result, so the
half-precision composites here do the same (casts are differentiable: gradients are
unchanged).
"""
from ..core import dtype as dtypes
from ..core.namespace import F
from ..core.tensor import Tensor


_HALF = (dtypes.float16, dtypes.bfloat16)


def in_float32(fn, *args):
    """``fn(*args)``, with float16 (or bfloat16) tensors upcast to float32 and the result
    cast back, where the result would be that half-precision dtype.

    >>> half = minflow.tensor([0.7], dtype=minflow.float16)
    >>> thirds = minflow.ops.opmath.in_float32(lambda x: x * 3 / 3, half)
    >>> (half * 3 / 3 == half).item(), (thirds == half).item()
    (False, True)
    """
    # NOTE: the common case (no half-precision input) costs one pass over args and no list
    for a in args:
        if isinstance(a, Tensor) and a.dtype in _HALF:
            break
    else:
        return fn(*args)
    half = dtypes.result_type(*[a for a in args if isinstance(a, Tensor)])
    if half not in _HALF:
        return fn(*args)
    return F.cast(fn(*[F.cast(a, dtypes.float32) if isinstance(a, Tensor) and
                       a.dtype in _HALF else a for a in args]), half)


def rounded_from_float64(fn, x):
    """``fn(x)`` for a float32 tensor, computed in float64 and rounded to float32 once:
    the float32 exp, expm1, log1p or tanh that torch's vectorized cpu kernels give.

    NOTE: torch's float16 kernels compute in float32 with Sleef's functions, within 1 ulp
    and correctly rounded nearly always; numpy's float32 loops are an ulp off more often,
    and that ulp decides the float16 rounding of a few values in 10^4 (silu, elu, celu).

    >>> x = minflow.tensor([-3.5])
    >>> minflow.ops.opmath.rounded_from_float64(minflow.expm1, x).dtype
    minflow.float32
    """
    return F.cast(fn(F.cast(x, dtypes.float64)), dtypes.float32)

"""More elementwise math: trunc, erf, erfinv, atan2, and composites built on ops
(frac, lerp, addcmul, addcdiv, isclose, allclose, equal).

Kernels: kernels/generic/special.py; grad functions: autograd/grads/special.py.
"""
import numbers

import numpy as np

from ..core import dtype as dtypes
from ..core.functional import generate_function, make_inplace, public
from ..core.inplace import write_out
from ..core.namespace import F
from ..core.tensor import Tensor
from . import infer
from .opmath import in_float32
from .registry import Input, define_op

EW = ("elementwise", "no_side_effect")

_trunc = define_op("trunc", ["input"], infer=infer.unary, traits=EW,
                   doc="Elementwise x rounded toward zero.")
generate_function(_trunc, method=True, out=True, inplace=True,
                  doc="trunc(input, *, out=None) -> Tensor\n\nThe integer part of each element "
                      "(rounded toward zero).\n\n>>> minflow.trunc(minflow.tensor([-1.7, 2.5]))"
                      ".tolist()\n[-1.0, 2.0]")
public(F.trunc, name="fix", method=True)

for _name, _doc, _example in (
        ("erf", "erf(x) = 2/sqrt(pi) * integral_0^x e^(-t^2) dt", "[0.0]"),
        ("erfinv", "the inverse of erf, defined on (-1, 1)", "[0.0]")):
    _op = define_op(_name, ["input"], infer=infer.unary_float, traits=EW, promote="out",
                    doc=f"Elementwise {_doc}.")
    generate_function(_op, method=True, out=True, inplace=True,
                      doc=f"{_name}(input, *, out=None) -> Tensor\n\nElementwise {_doc}."
                          f"\n\n>>> minflow.{_name}(minflow.tensor([0.0])).tolist()\n{_example}")

_atan2 = define_op("atan2", [Input("input"), Input("other")],
                   infer=infer.tensors_only(infer.binary_float),
                   traits=EW + ("broadcast",), promote="out",
                   doc="Elementwise angle of the point (other, input): atan(input / other) "
                       "in the right quadrant.")
generate_function(_atan2, method=True, out=True, inplace=True,
                  doc="atan2(input, other, *, out=None) -> Tensor\n\nElementwise "
                      "atan(input / other), in (-pi, pi] by the signs of both.\n\n"
                      ">>> round(minflow.atan2(minflow.tensor([1.0]), minflow.tensor([-1.0]))"
                      ".item(), 4)\n2.3562")
public(F.atan2, name="arctan2", method=True)


@public(method=True)
def frac(input, *, out=None):
    """frac(input, *, out=None) -> Tensor

    The fractional part, x - trunc(x) (with x's sign). Floating inputs only, as torch.

    >>> minflow.frac(minflow.tensor([-1.5, 2.25])).tolist()
    [-0.5, 0.25]
    """
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"frac: expected a floating point input, got {input.dtype.name}")
    result = F.sub(input, F.trunc(input))
    return result if out is None else write_out(result, out, "frac")


make_inplace(frac, "frac_")


@public(method=True)
def lerp(input, end, weight, *, out=None):
    """lerp(input, end, weight, *, out=None) -> Tensor

    Linear interpolation input + weight * (end - input); ``weight`` a number or a tensor
    (all three broadcast). Written as torch does: from ``end`` when |weight| >= 0.5, so
    weight 1 gives ``end`` exactly; float16 computed in float32 and rounded once.

    >>> minflow.lerp(minflow.tensor([1.0, 2.0]), minflow.tensor([3.0, 6.0]), 0.5).tolist()
    [2.0, 4.0]
    """
    infer.check_tensor("lerp", "end", end)
    if end.dtype is not input.dtype:
        raise RuntimeError(f"lerp: expected end to be a tensor of input's dtype "
                           f"{input.dtype.name}, got {end.dtype.name}")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"lerp: expected a floating point input, got {input.dtype.name}")
    if isinstance(weight, Tensor) and weight.dtype is not input.dtype:
        raise RuntimeError(f"lerp: expected weight to be a number or a tensor of input's dtype "
                           f"{input.dtype.name}, got {weight.dtype.name}")
    infer.check_broadcast("lerp", input=input, end=end, weight=weight)
    result = in_float32(_lerp, input, end, weight)
    return result if out is None else write_out(result, out, "lerp")


def _lerp(input, end, weight):
    diff = F.sub(end, input)
    if isinstance(weight, Tensor):
        small = F.lt(F.abs(weight), 0.5)
        return F.where(small, _fma(weight, diff, input),
                       _fma(F.neg(diff), F.sub(1, weight), end))
    if input.dtype is dtypes.float32:
        weight = float(np.float32(weight))      # torch's kernel takes the weight in float32
    if abs(weight) < 0.5:
        return _fma(diff, weight, input)
    one_minus = float(np.float32(1) - np.float32(weight)) if input.dtype is dtypes.float32 \
        else 1 - weight
    return _fma(F.neg(diff), one_minus, end)


def _fma(a, b, c):
    """a * b + c rounded once, as torch's vectorized cpu kernels (fused multiply-add): a
    float32 product is exact in float64, so computing there rounds as one fma."""
    if c.dtype is not dtypes.float32:
        return F.add(F.mul(a, b), c)
    wide = [F.cast(t, dtypes.float64) if isinstance(t, Tensor) else t for t in (a, b, c)]
    return F.cast(F.add(F.mul(wide[0], wide[1]), wide[2]), dtypes.float32)


make_inplace(lerp, "lerp_")


def _check_value(fn, input, tensor1, tensor2, value):
    if not isinstance(value, numbers.Number):
        raise TypeError(f"{fn}: expected value to be a number, got {type(value).__name__}")
    for name, t in (("tensor1", tensor1), ("tensor2", tensor2)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{fn}: expected {name} to be a Tensor, got {type(t).__name__}")
    infer.check_broadcast(fn, input=input, tensor1=tensor1, tensor2=tensor2)


@public(method=True)
def addcmul(input, tensor1, tensor2, *, value=1, out=None):
    """addcmul(input, tensor1, tensor2, *, value=1, out=None) -> Tensor

    input + value * tensor1 * tensor2 (all broadcast), the product taken as torch does:
    (value * tensor1) * tensor2, float16 in float32 rounded once.

    >>> minflow.addcmul(minflow.ones(2), minflow.tensor([1.0, 2.0]), minflow.tensor([3.0, 4.0]),
    ...                 value=0.5).tolist()
    [2.5, 5.0]
    """
    _check_value("addcmul", input, tensor1, tensor2, value)
    result = in_float32(lambda x, a, b: F.add(x, F.mul(F.mul(a, value), b)), input, tensor1,
                        tensor2)
    return result if out is None else write_out(result, out, "addcmul")


make_inplace(addcmul, "addcmul_")


@public(method=True)
def addcdiv(input, tensor1, tensor2, *, value=1, out=None):
    """addcdiv(input, tensor1, tensor2, *, value=1, out=None) -> Tensor

    input + value * tensor1 / tensor2 (all broadcast), as (value * tensor1) / tensor2
    (float16 in float32, rounded once); integer tensor1 and tensor2 are refused, as torch.

    >>> minflow.addcdiv(minflow.ones(2), minflow.tensor([1.0, 2.0]), minflow.tensor([4.0, 4.0]),
    ...                 value=2).tolist()
    [1.5, 2.0]
    """
    _check_value("addcdiv", input, tensor1, tensor2, value)
    if not (tensor1.dtype.is_floating_point or tensor2.dtype.is_floating_point):
        raise RuntimeError(f"addcdiv: integer division is not supported; expected a floating "
                           f"point tensor1 or tensor2, got {tensor1.dtype.name} and "
                           f"{tensor2.dtype.name}")
    result = in_float32(lambda x, a, b: F.add(x, F.div(F.mul(a, value), b)), input, tensor1,
                        tensor2)
    return result if out is None else write_out(result, out, "addcdiv")


make_inplace(addcdiv, "addcdiv_")


@public(method=True)
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> Tensor

    Elementwise ``|input - other| <= atol + rtol * |other|`` (bool; for complex values, |.|
    is their modulus); equal values (infinities included) are close, NaNs only with
    ``equal_nan``.

    >>> minflow.isclose(minflow.tensor([1.0, 1.1]), minflow.tensor([1.0, 1.0])).tolist()
    [True, False]
    """
    _check_tensors("isclose", input, other)
    if other.dtype is not input.dtype:
        raise RuntimeError(f"isclose: expected other to be a tensor of input's dtype "
                           f"{input.dtype.name}, got {other.dtype.name}")
    if rtol < 0 or atol < 0:
        raise RuntimeError(f"isclose: expected rtol and atol >= 0, got rtol={rtol}, "
                           f"atol={atol}")
    infer.check_broadcast("isclose", input=input, other=other)
    same = F.eq(input, other)
    if not input.dtype.is_differentiable:       # bools and ints
        if input.dtype is dtypes.bool or (rtol == 0 and atol == 0):
            return same
        input, other = F.cast(input, dtypes.float64), F.cast(other, dtypes.float64)
    # infinities and NaNs are close only when equal (or both NaN): compare finite pairs
    finite = F.logical_and(F.isfinite(input), F.isfinite(other))
    a, b = F.where(finite, input, 0), F.where(finite, other, 0)
    within = F.le(F.abs(F.sub(a, b)), F.add(F.mul(F.abs(b), rtol), atol))
    close = F.logical_or(same, F.logical_and(within, finite))
    if equal_nan:
        close = F.logical_or(close, F.logical_and(F.isnan(input), F.isnan(other)))
    return close


@public(method=True)
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool

    True if every element pair is close (see :func:`isclose`).

    >>> minflow.allclose(minflow.tensor([1.0, 2.0]), minflow.tensor([1.0, 2.0 + 1e-7]))
    True
    """
    _check_tensors("allclose", input, other)
    return bool(F.all(isclose(input, other, rtol, atol, equal_nan)).item())


def _check_tensors(fn, input, other):
    for position, (name, x) in enumerate((("input", input), ("other", other)), 1):
        if not isinstance(x, Tensor):
            raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be Tensor, "
                            f"not {type(x).__name__}")


@public(method=True)
def equal(input, other):
    """equal(input, other) -> bool

    True if both tensors have the same shape and the same values (dtypes may differ).

    >>> minflow.equal(minflow.tensor([1, 2]), minflow.tensor([1.0, 2.0]))
    True
    """
    if tuple(input.shape) != tuple(other.shape):
        return False
    return bool(F.all(F.eq(input, other)).item())

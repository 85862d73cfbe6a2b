"""Shape and dtype inference helpers shared by op families. They read metadata only."""
import numbers

import numpy as np

from ..core import dtype as dtypes
from ..core.autocast import state as autocast_state
from ..core.tensor import Tensor

__all__ = ["broadcast_shapes", "unary", "unary_float", "binary", "binary_float", "compare",
           "same_as", "check_tensor", "check_floating", "check_same_dtype", "check_number",
           "check_shape", "check_int", "normalize_dims", "check_dtype"]


def broadcast_shapes(*shapes):
    """The broadcast of shapes, as ``torch.broadcast_shapes``; ValueError when they clash."""
    if len(shapes) == 2 and shapes[0] == shapes[1]:     # the common case (matmul's batch dims)
        return tuple(shapes[0])
    result = list(shapes[0])
    for shape in shapes[1:]:
        if len(shape) > len(result):
            result = [1] * (len(shape) - len(result)) + result
        offset = len(result) - len(shape)
        for i, s in enumerate(shape):
            r = result[offset + i]
            if r != s:
                if r == 1:
                    result[offset + i] = s
                elif s != 1:
                    raise RuntimeError(
                        f"shapes {[list(x) for x in shapes]} cannot be broadcast: size {r} "
                        f"vs size {s} at dimension {offset + i}")
    return tuple(result)


def _shape_of(x):
    return x._data.shape if isinstance(x, Tensor) else ()


def check_broadcast(fn, **arguments):
    """The broadcast shape of the named arguments (numbers are 0-d); a RuntimeError naming
    ``fn`` and each argument's shape where they clash.

    >>> from minflow.ops.infer import check_broadcast
    >>> check_broadcast("lerp", input=minflow.ones(2, 3), end=minflow.ones(3), weight=0.5)
    (2, 3)
    """
    shapes = {name: tuple(_shape_of(x)) for name, x in arguments.items()}
    try:
        return broadcast_shapes(*shapes.values())
    except RuntimeError:
        listed = ", ".join(f"{name} {list(shape)}" for name, shape in shapes.items())
        raise RuntimeError(f"{fn}: the shapes cannot be broadcast together: {listed}") from None


def _not_a_tensor(input):
    return TypeError(f"expected input to be a Tensor, got {type(input).__name__}")


# NOTE: try / except costs nothing when no error is raised; an isinstance check on every
# call of the hot unary ops would.
def unary(input):
    """Same shape and dtype as the input."""
    try:
        return input._data.shape, input.dtype
    except AttributeError:
        raise _not_a_tensor(input) from None


def unary_float(input):
    """Same shape; integer and bool inputs give the default float (as torch.exp)."""
    try:
        return input._data.shape, dtypes.to_float(input.dtype)
    except AttributeError:
        raise _not_a_tensor(input) from None


def same_as(input, **attrs):
    return input._data.shape, input.dtype


def _binary_shape(a, b):
    sa, sb = _shape_of(a), _shape_of(b)
    return sa if sa == sb else broadcast_shapes(sa, sb)


def _operand(x):
    return x.__class__ is Tensor or isinstance(x, (Tensor, numbers.Number, np.bool_))


def _check_operands(input, other):
    """A TypeError unless each operand is a Tensor or a number (a string or None is not:
    None would pass result_type, which skips absent optional inputs)."""
    if _operand(input) and _operand(other):
        return
    for name, x in (("input", input), ("other", other)):
        if not _operand(x):
            raise TypeError(f"expected a Tensor or a Python number as {name}, got "
                            f"{type(x).__name__}")


def _binary_dtype(a, b):
    if isinstance(a, Tensor) and isinstance(b, Tensor) and a.dtype is b.dtype:
        return a.dtype
    return dtypes.result_type(a, b)


# NOTE: a Python scalar never changes the dtype of a tensor of its category or higher
# (bool 0 < int 1 < float 2): the common ``x * 2.0`` needs no result_type().
_SCALAR_CATEGORY = {float: 2, int: 1, bool: 0}


def binary(input, other):
    """Broadcast shapes, promoted dtype (Python scalars are weak)."""
    # the common cases first: two tensors of one dtype, or a tensor and a weak scalar
    if input.__class__ is Tensor:
        if other.__class__ is Tensor:
            if input.dtype is other.dtype:
                sa, sb = input._data.shape, other._data.shape
                return sa if sa == sb else broadcast_shapes(sa, sb), input.dtype
        elif _SCALAR_CATEGORY.get(other.__class__, 3) <= input.dtype.category:
            return input._data.shape, input.dtype
    elif other.__class__ is Tensor and \
            _SCALAR_CATEGORY.get(input.__class__, 3) <= other.dtype.category:
        return other._data.shape, other.dtype
    _check_operands(input, other)
    return _binary_shape(input, other), _binary_dtype(input, other)


def binary_float(input, other):
    """Broadcast shapes, promoted dtype made floating (true division)."""
    shape, dtype = binary(input, other)
    return shape, dtypes.to_float(dtype)


def compare(input, other):
    """Broadcast shapes, bool output; ``other`` may be a number, ``input`` not (torch's
    ``eq(2, t)`` is a TypeError; the operator ``2 == t`` calls ``t.eq(2)``)."""
    if not isinstance(input, Tensor):
        raise _not_a_tensor(input)
    _check_operands(input, other)
    return _binary_shape(input, other), dtypes.bool


def tensors_only(result):
    """The infer function ``result(input, other)`` for an op that takes no Python number
    in either place, as torch's maximum, atan2 or logical_and.

    >>> from minflow.ops.infer import binary, tensors_only
    >>> tensors_only(binary)(minflow.ones(2), 1.0)
    Traceback (most recent call last):
    ...
    TypeError: expected other to be a Tensor, got float
    """
    def infer_fn(input, other):
        for name, x in (("input", input), ("other", other)):
            if not isinstance(x, Tensor):
                raise TypeError(f"expected {name} to be a Tensor, got {type(x).__name__}")
        return result(input, other)
    return infer_fn


def tensor_somewhere(result):
    """The infer function ``result(input, other)`` for an op that takes a Python number in
    either place but not in both, as torch's remainder or bitwise_and.

    >>> from minflow.ops.infer import binary, tensor_somewhere
    >>> tensor_somewhere(binary)(2, 3)
    Traceback (most recent call last):
    ...
    TypeError: expected input or other to be a Tensor, got int and int
    """
    def infer_fn(input, other):
        if not isinstance(input, Tensor) and not isinstance(other, Tensor):
            raise TypeError(f"expected input or other to be a Tensor, got "
                            f"{type(input).__name__} and {type(other).__name__}")
        return result(input, other)
    return infer_fn


def check_tensor(fn, name, value):
    """torch's TypeError where argument ``name`` of ``fn`` is not a Tensor.

    >>> from minflow.ops.infer import check_tensor
    >>> check_tensor("take", "index", [0, 1])
    Traceback (most recent call last):
    TypeError: take(): argument 'index' must be Tensor, not list
    """
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' must be Tensor, not "
                        f"{type(value).__name__}")


def check_floating(fn, input, name="input"):
    """torch's errors where argument ``name`` of ``fn`` is not a floating point Tensor:
    a TypeError for a non-Tensor, a DTypeError (also a NotImplementedError, as torch's
    "not implemented for 'Long'") for an integer or bool one.

    >>> from minflow.ops.infer import check_floating
    >>> check_floating("silu", minflow.tensor([1]))
    Traceback (most recent call last):
    minflow.core.dtype.DTypeError: silu: expected a floating point input, got int64
    """
    check_tensor(fn, name, input)
    if not input.dtype.is_floating_point:
        raise dtypes.DTypeError(f"{fn}: expected a floating point {name}, got "
                                f"{input.dtype.name}")


def check_same_dtype(fn, **tensors):
    """torch's RuntimeError where the named tensors of ``fn`` differ in dtype (the matrix
    products do not promote).

    >>> from minflow.ops.infer import check_same_dtype
    >>> check_same_dtype("addmm", input=minflow.tensor([1]), mat1=minflow.ones(1, 1))
    Traceback (most recent call last):
    RuntimeError: addmm: expected input and mat1 to have the same dtype, got int64 and float32
    """
    dtypes_ = [t.dtype for t in tensors.values()]
    if autocast_state.active is not None:   # autocast casts them when the op runs
        return
    if any(d is not dtypes_[0] for d in dtypes_):
        raise RuntimeError(f"{fn}: expected {', '.join(list(tensors)[:-1])} and "
                           f"{list(tensors)[-1]} to have the same dtype, got "
                           f"{', '.join(d.name for d in dtypes_[:-1])} and {dtypes_[-1].name}")


def check_number(fn, name, value):
    """``value`` if it is a real number, else a TypeError naming ``fn`` and the argument.

    >>> from minflow.ops.infer import check_number
    >>> check_number("dropout", "p", None)
    Traceback (most recent call last):
    TypeError: dropout: expected p to be a number, got None (NoneType)
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{fn}: expected {name} to be a number, got {value!r} "
                        f"({type(value).__name__})")
    return value


def check_shape(fn, name, value):
    """An int or a sequence of ints as a tuple, else a TypeError naming ``fn`` and the
    argument ``name``.

    >>> from minflow.ops.infer import check_shape
    >>> check_shape("layer_norm", "normalized_shape", None)
    Traceback (most recent call last):
    TypeError: layer_norm: expected normalized_shape to be an int or a sequence of ints, got None
    """
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return (int(value),)
    if isinstance(value, (tuple, list)) and all(
            isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in value):
        return tuple(int(v) for v in value)
    raise TypeError(f"{fn}: expected {name} to be an int or a sequence of ints, got {value!r}")


def check_int(fn, name, value, fractional=TypeError):
    """``value`` as an int, or a TypeError naming ``fn`` and the argument ``name`` (the
    ``fractional`` error class for a number that is not whole, where torch's own checks
    raise another).

    >>> from minflow.ops.infer import check_int
    >>> check_int("chunk", "chunks", 1.5)
    Traceback (most recent call last):
    TypeError: chunk: expected chunks to be an int, got 1.5 (float)
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        error = fractional if isinstance(value, numbers.Real) else TypeError
        raise error(f"{fn}: expected {name} to be an int, got {value!r} "
                    f"({type(value).__name__})")
    return int(value)


def normalize_dims(dim, ndim, where="dim"):
    """``dim`` (None, int or sequence) as a sorted tuple of non-negative axes.

    None and an empty sequence both mean every axis, as in PyTorch.
    """
    # NOTE: the common case first (sum(x, 0), and every backward sum): one dim, in range
    if dim.__class__ is tuple and len(dim) == 1:
        if dim[0].__class__ is int and 0 <= dim[0] < ndim:
            return dim
    elif dim.__class__ is int and 0 <= dim < ndim:
        return (dim,)
    if not isinstance(dim, (int, tuple, list, type(None))):
        raise TypeError(f"{where}: expected dim to be an int or a sequence of ints, got "
                        f"{dim!r}")
    dims = (dim,) if isinstance(dim, int) else tuple(() if dim is None else dim)
    if not dims:
        return tuple(range(ndim))
    top = max(ndim, 1)
    out = []
    for d in dims:
        if not isinstance(d, int) or isinstance(d, bool):
            raise TypeError(f"{where}: expected int dims, got {d!r}")
        if not -top <= d < top:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-top}, {top - 1}], but got {d})")
        d = d % top
        if d in out:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        out.append(d)
    return tuple(sorted(out)) if ndim else ()


def check_dtype(x, allowed, name="input"):
    """Raise a DTypeError (a TypeError and a NotImplementedError) when ``x``'s dtype is
    not one of ``allowed``.

    >>> minflow.ops.infer.check_dtype(minflow.tensor([1]), minflow.library.FLOATS)
    Traceback (most recent call last):
    ...
    minflow.core.dtype.DTypeError: expected input with dtype in [float16, ...], got int64
    """
    if x.dtype not in allowed and not (x.dtype is dtypes.bfloat16 and dtypes.float32 in allowed):
        # bfloat16 runs the float32 kernels (see core.dtype), so it goes where float32 goes
        raise dtypes.DTypeError(f"expected {name} with dtype in "
                                f"[{', '.join(d.name for d in allowed)}], got {x.dtype.name}")

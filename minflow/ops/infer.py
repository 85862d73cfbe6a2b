"""Shape and dtype inference helpers shared by op families. They read metadata only."""
from ..core import dtype as dtypes
from ..core.tensor import Tensor

__all__ = ["broadcast_shapes", "unary", "unary_float", "binary", "binary_float", "compare",
           "same_as", "normalize_dims", "check_dtype"]


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

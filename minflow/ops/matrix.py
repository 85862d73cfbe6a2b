"""Matrix ops: diagonal (a view), diag, trace, addmm, inverse and det.

``diagonal_grad`` writes a diagonal into zeros: diagonal's backward, and diag of a
vector. The norms of minflow.linalg are composites (minflow/linalg/norms.py).
Kernels: kernels/generic/matrix.py; grad functions: autograd/grads/matrix.py.
"""
import numbers

from ..core import dtype as dtypes
from ..core.dispatch import apply
from ..core.functional import public
from ..core.namespace import F
from ..core.tensor import wrap_dim
from . import infer
from .opmath import in_float32
from .registry import Attr, define_op

__all__ = ["diagonal", "diag", "trace", "addmm", "inverse", "det"]

OPAQUE = ("opaque", "no_side_effect")
_DIAG_ATTRS = [Attr("offset", "int", 0), Attr("dim1", "int", 0), Attr("dim2", "int", 1)]


def diagonal_length(n1, n2, offset):
    """The length of diagonal ``offset`` of an n1 x n2 matrix."""
    return max(0, min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2))


def _diagonal_shape(shape, offset, dim1, dim2):
    rest = tuple(s for d, s in enumerate(shape) if d not in (dim1, dim2))
    return rest + (diagonal_length(shape[dim1], shape[dim2], offset),)


def _check_dims(ndim, dim1, dim2):
    if ndim < 2 or dim1 == dim2 or not (0 <= dim1 < ndim and 0 <= dim2 < ndim):
        raise RuntimeError(f"expected two different dims of a tensor with at least 2 dims, "
                           f"got dim1={dim1}, dim2={dim2} for {ndim} dims")


def _diagonal_infer(input, offset, dim1, dim2):
    _check_dims(input.ndim, dim1, dim2)
    return _diagonal_shape(input._data.shape, offset, dim1, dim2), input.dtype


def _diagonal_grad_infer(grad_out, input_size, offset, dim1, dim2):
    _check_dims(len(input_size), dim1, dim2)
    expected = _diagonal_shape(input_size, offset, dim1, dim2)
    if tuple(grad_out._data.shape) != expected:
        raise RuntimeError(f"expected grad_out of shape {list(expected)} (diagonal {offset} "
                           f"of {list(input_size)}), got {list(grad_out._data.shape)}")
    return tuple(input_size), grad_out.dtype


DIAGONAL = define_op("diagonal", ["input"], attrs=_DIAG_ATTRS, infer=_diagonal_infer,
                     traits=("view", "no_side_effect"),
                     doc="The diagonal ``offset`` of the (dim1, dim2) planes, as a view.")
DIAGONAL_GRAD = define_op("diagonal_grad", ["grad_out"],
                          attrs=[Attr("input_size", "ints")] + _DIAG_ATTRS,
                          infer=_diagonal_grad_infer, traits=OPAQUE,
                          doc="Zeros of input_size with grad_out on diagonal ``offset``: "
                              "diagonal's backward.")


@public(method=True)
def diagonal(input, offset=0, dim1=0, dim2=1):
    """diagonal(input, offset=0, dim1=0, dim2=1) -> Tensor

    The diagonal ``offset`` (> 0 above, < 0 below the main one) of each (dim1, dim2)
    plane, as the last dim. A view, as in torch: writes to it change ``input``.

    >>> minflow.tensor([[1, 2], [3, 4]]).diagonal().tolist()
    [1, 4]
    """
    ndim = input.ndim
    return apply(DIAGONAL, (input,), {"offset": offset, "dim1": wrap_dim(dim1, ndim, "diagonal"),
                                      "dim2": wrap_dim(dim2, ndim, "diagonal")})


@public(method=True)
def diag(input, diagonal=0):
    """diag(input, diagonal=0) -> Tensor

    A 1-D input gives the square matrix with it on diagonal ``diagonal``; a 2-D input
    gives a copy of its diagonal ``diagonal``.

    >>> minflow.diag(minflow.tensor([1, 2])).tolist()
    [[1, 0], [0, 2]]
    >>> minflow.diag(minflow.tensor([[1, 2], [3, 4]]), 1).tolist()
    [2]
    """
    if input.ndim == 1:
        n = input.shape[0] + abs(diagonal)
        return apply(DIAGONAL_GRAD, (input,), {"input_size": (n, n), "offset": diagonal,
                                               "dim1": 0, "dim2": 1})
    if input.ndim == 2:
        return F.clone(F.diagonal(input, diagonal))
    raise RuntimeError(f"diag: expected a 1-D or 2-D input, got {input.ndim}-D")


@public(method=True)
def trace(input):
    """trace(input) -> Tensor, the sum of a matrix's main diagonal (ints sum in int64).

    >>> minflow.trace(minflow.tensor([[1., 2.], [3., 4.]])).item()
    5.0
    """
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, got a {input.ndim}-D tensor")
    return F.sum(F.diagonal(input))


@public(method=True)
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """addmm(input, mat1, mat2, *, beta=1, alpha=1) -> Tensor

    beta * input + alpha * (mat1 @ mat2), ``input`` broadcast to the product's shape;
    with beta=0 ``input`` is ignored (its NaNs too), as torch.

    >>> minflow.addmm(minflow.zeros(2), minflow.ones(1, 3), minflow.ones(3, 2), alpha=2).tolist()
    [[6.0, 6.0]]
    """
    for name, m in (("mat1", mat1), ("mat2", mat2)):
        if m.ndim != 2:
            raise RuntimeError(f"addmm: {name} must be a matrix, got {m.ndim}-D")
    for name, value in (("beta", beta), ("alpha", alpha)):
        if not isinstance(value, numbers.Number):
            raise TypeError(f"addmm: expected {name} to be a number, got "
                            f"{type(value).__name__}")
    infer.check_same_dtype("addmm", input=input, mat1=mat1, mat2=mat2)
    if mat1.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"addmm: mat1 and mat2 shapes cannot be multiplied "
                           f"({mat1.shape[0]}x{mat1.shape[1]} and "
                           f"{mat2.shape[0]}x{mat2.shape[1]})")
    shape = (mat1.shape[0], mat2.shape[1])
    try:
        fits = infer.broadcast_shapes(tuple(input.shape), shape) == shape
    except RuntimeError:
        fits = False
    if not fits:
        raise RuntimeError(f"addmm: expected input to broadcast to the product's shape "
                           f"{list(shape)}, got {list(input.shape)}")
    if mat1.dtype in (dtypes.float16, dtypes.bfloat16):   # torch's kernel: float32, rounded once
        return in_float32(lambda x, m1, m2: _addmm(x, m1, m2, beta, alpha), input, mat1, mat2)
    return _addmm(input, mat1, mat2, beta, alpha)


def _addmm(input, mat1, mat2, beta, alpha):
    product = F.mm(mat1, mat2)
    if alpha != 1:
        product = F.mul(product, alpha)
    if beta == 0:
        return F.expand(product, infer.broadcast_shapes(tuple(input.shape),
                                                        tuple(product.shape)))
    return F.add(product, input if beta == 1 else F.mul(input, beta))


def _square_infer(input, batch_out):
    if input.ndim < 2 or input._data.shape[-1] != input._data.shape[-2]:
        raise RuntimeError(f"A must be batches of square matrices, but they are "
                           f"{'x'.join(map(str, input._data.shape[-2:])) or 'scalars'} "
                           f"({list(input._data.shape)})")
    if input.dtype not in (dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128):
        raise RuntimeError(f"Expected a float32, float64, complex64 or complex128 tensor, got "
                           f"{input.dtype.name}")
    shape = input._data.shape[:-2] if batch_out else input._data.shape
    return tuple(shape), input.dtype


INVERSE = define_op("inverse", ["input"], infer=lambda input: _square_infer(input, False),
                    traits=OPAQUE, doc="The inverse of each square matrix (the last two dims).")
DET = define_op("det", ["input"], infer=lambda input: _square_infer(input, True),
                traits=OPAQUE, doc="The determinant of each square matrix (the last two dims).")


@public(method=True)
def inverse(input):
    """inverse(input) -> Tensor, the inverse of each square matrix in the last two dims.

    A singular matrix raises LinAlgError, naming the batch element.

    >>> minflow.inverse(minflow.tensor([[2.0, 0.0], [0.0, 4.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    return apply(INVERSE, (input,), {})


@public(method=True)
def det(input):
    """det(input) -> Tensor, the determinant of each square matrix in the last two dims.

    Its gradient, g * det * inverse(A)^T, needs A invertible.

    >>> minflow.det(minflow.tensor([[2.0, 1.0], [1.0, 3.0]])).item()
    5.0
    """
    return apply(DET, (input,), {})

"""Products and distances of the torch namespace: kron, tensordot, inner, vdot, cross, dist,
cdist, addmv, addr, baddbmm, addbmm, chain_matmul and ger.

All are composites of matmul, reductions, shape and elementwise ops: no kernels or grad
functions of their own (gradients, graph mode and cuda come from those ops).
"""
import math
import numbers

import numpy as np

from ..core import dtype as dtypes
from ..core.dtype import bool as _bool
from ..core.functional import make_inplace, public
from ..core.namespace import F
from ..core.tensor import Tensor, wrap_dim
from . import infer
from .infer import broadcast_shapes
from .opmath import in_float32

__all__ = ["kron", "tensordot", "inner", "vdot", "dist", "cdist", "addmv", "addr", "baddbmm",
           "addbmm", "chain_matmul", "ger"]


def _check_same_dtype(name, a, b, names=("input", "other")):
    if a.dtype is not b.dtype:
        raise RuntimeError(f"{name}: expected {names[0]} and {names[1]} to have the same dtype, "
                           f"but got {a.dtype.name} != {b.dtype.name}")


@public(method=True)
def kron(input, other):
    """kron(input, other) -> Tensor

    The Kronecker product: out[i * other.shape + j] = input[i] * other[j] per dim, the
    operand with fewer dims padded with leading ones.

    >>> minflow.kron(minflow.eye(2), minflow.tensor([[1.0, 2.0]])).tolist()
    [[1.0, 2.0, 0.0, 0.0], [0.0, 0.0, 1.0, 2.0]]
    """
    nd = max(input.ndim, other.ndim)
    a_shape = (1,) * (nd - input.ndim) + tuple(input.shape)
    b_shape = (1,) * (nd - other.ndim) + tuple(other.shape)
    a = F.reshape(input, tuple(s for n in a_shape for s in (n, 1)))
    b = F.reshape(other, tuple(s for n in b_shape for s in (1, n)))
    return F.reshape(F.mul(a, b), tuple(x * y for x, y in zip(a_shape, b_shape)))


def _tensordot_dims(a, b, dims):
    if isinstance(dims, numbers.Integral) and not isinstance(dims, bool):
        if dims < 0 or dims > min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot: expected 0 <= dims <= min(a.ndim, b.ndim) = "
                               f"{min(a.ndim, b.ndim)}, got {dims}")
        return list(range(a.ndim - dims, a.ndim)), list(range(dims))
    if hasattr(dims, "tolist"):
        dims = dims.tolist()
    if not isinstance(dims, (list, tuple)) or len(dims) != 2:
        raise RuntimeError(f"tensordot: expected dims to be an int or a pair of dim lists, "
                           f"got {dims!r}")
    da, db = ([d] if isinstance(d, numbers.Integral) else list(d) for d in dims)
    if len(da) != len(db):
        raise RuntimeError(f"tensordot: both dim lists should have the same length, got "
                           f"{len(da)} and {len(db)}")
    return ([wrap_dim(d, a.ndim, "tensordot") for d in da],
            [wrap_dim(d, b.ndim, "tensordot") for d in db])


@public
def tensordot(a, b, dims=2, out=None):
    """tensordot(a, b, dims=2, out=None) -> Tensor

    Sums a * b over pairs of dims: ``dims`` an int d (a's last d dims with b's first d)
    or two lists of dims; a dim of size 1 pairs with one of any size, as torch. One matmul
    on the permuted, flattened operands.

    >>> minflow.tensordot(minflow.ones(2, 3, 4), minflow.ones(3, 4, 5)).shape
    minflow.Size([2, 5])
    """
    _check_same_dtype("tensordot", a, b, ("a", "b"))
    da, db = _tensordot_dims(a, b, dims)
    for x, y in zip(da, db):     # as torch, a size-1 dim pairs with any: sum the other
        if b.shape[y] == 1:
            a = F.sum(a, x, keepdim=True, dtype=a.dtype)
        elif a.shape[x] == 1:
            b = F.sum(b, y, keepdim=True, dtype=b.dtype)
        elif a.shape[x] != b.shape[y]:
            raise RuntimeError(f"tensordot: contracted dimensions need to match, but first has "
                               f"size {a.shape[x]} in dim {x} and second has size {b.shape[y]} "
                               f"in dim {y}")
    free_a = [d for d in range(a.ndim) if d not in da]
    free_b = [d for d in range(b.ndim) if d not in db]
    size = math.prod(a.shape[d] for d in da)
    left = F.reshape(F.permute(a, free_a + da), (-1, size))
    right = F.reshape(F.permute(b, db + free_b), (size, -1))
    shape = tuple(a.shape[d] for d in free_a) + tuple(b.shape[d] for d in free_b)
    result = F.reshape(F.matmul(left, right), shape)
    if out is None:
        return result
    from ..core.inplace import write_out
    return write_out(result, out, "tensordot")


@public(method=True)
def inner(input, other, *, out=None):
    """inner(input, other, *, out=None) -> Tensor

    Sums input * other over the last dim of each (a product where one is 0-d); the result
    has shape input.shape[:-1] + other.shape[:-1].

    >>> minflow.inner(minflow.tensor([[1.0, 2.0]]), minflow.tensor([[3.0, 4.0], [1.0, 1.0]]))
    tensor([[11.,  3.]])
    """
    _check_same_dtype("inner", input, other)
    if input.ndim == 0 or other.ndim == 0:
        result = F.mul(input, other)
    else:
        if input.shape[-1] != other.shape[-1]:
            raise RuntimeError(f"inner: inner() the last dimension must match on both input "
                               f"tensors but got shapes {list(input.shape)} and "
                               f"{list(other.shape)}")
        result = tensordot(input, other, ([-1], [-1]))
    if out is None:
        return result
    from ..core.inplace import write_out
    return write_out(result, out, "inner")


@public(method=True)
def vdot(input, other, *, out=None):
    """vdot(input, other, *, out=None) -> Tensor

    sum(conj(input) * other) of two 1-D tensors (for real ones, their dot product).

    >>> minflow.vdot(minflow.tensor([1.0, 2.0]), minflow.tensor([3.0, 4.0])).item()
    11.0
    >>> minflow.vdot(minflow.tensor([1j]), minflow.tensor([1j])).item()
    (1+0j)
    """
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"vdot: 1D tensors expected, but got {input.ndim}D and "
                           f"{other.ndim}D tensors")
    result = F.dot(F.conj(input), other)        # conj of a real tensor is the tensor
    if out is None:
        return result
    from ..core.inplace import write_out
    return write_out(result, out, "vdot")


@public(name="cross", method=True)
def torch_cross(input, other, dim=None, *, out=None):
    """cross(input, other, dim=None, *, out=None) -> Tensor

    linalg.cross along ``dim``; None (as torch, deprecated there) takes the first dim of
    size 3 of the broadcast shape.

    >>> minflow.cross(minflow.tensor([[0.0, 0.0, 1.0]]), minflow.tensor([[1.0, 0.0, 0.0]]))
    tensor([[0., 1., 0.]])
    """
    from ..linalg import cross
    if dim is None:
        shape = broadcast_shapes(tuple(input.shape), tuple(other.shape))
        sizes = [d for d, n in enumerate(shape) if n == 3]
        if not sizes:
            raise RuntimeError(f"cross: no dimension of size 3 in input {list(input.shape)} "
                               f"and other {list(other.shape)}")
        dim = sizes[0]
    return cross(input, other, dim=dim, out=out)


@public(method=True)
def dist(input, other, p=2):
    """dist(input, other, p=2) -> Tensor

    The p-norm of input - other (broadcast) over all elements.

    >>> minflow.dist(minflow.tensor([0.0, 0.0]), minflow.tensor([3.0, 4.0])).item()
    5.0
    """
    from ..linalg import vector_norm
    _check_same_dtype("dist", input, other)
    return vector_norm(F.sub(input, other), p)


@public
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """cdist(x1, x2, p=2.0, compute_mode='use_mm_for_euclid_dist_if_necessary') -> Tensor

    The p-norm distance between each row of x1 (B, P, M) and each row of x2 (B, R, M):
    (B, P, R), batch dims broadcast. Computed from the differences (exact, with a zero
    gradient at zero distance, as torch); ``compute_mode`` is accepted and ignored.

    >>> minflow.cdist(minflow.tensor([[0.0, 0.0]]), minflow.tensor([[3.0, 4.0], [0.0, 1.0]]))
    tensor([[5., 1.]])
    """
    from ..linalg import vector_norm
    name = "cdist"
    if x1.ndim < 2 or x2.ndim < 2:
        raise RuntimeError(f"{name}: cdist only supports at least 2D tensors, X1 got: "
                           f"{x1.ndim}D, X2 got: {x2.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"{name}: X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    if not x1.dtype.is_floating_point or not x2.dtype.is_floating_point:
        raise RuntimeError(f"{name}: cdist only supports floating-point dtypes, X1 got: "
                           f"{x1.dtype.name}, X2 got: {x2.dtype.name}")
    if isinstance(p, bool) or not isinstance(p, numbers.Real) or p < 0:
        raise RuntimeError(f"{name}: cdist only supports non-negative p values, got {p!r}")
    _check_same_dtype(name, x1, x2, ("x1", "x2"))
    diff = F.sub(F.unsqueeze(x1, -2), F.unsqueeze(x2, -3))
    return vector_norm(diff, p, -1)


def _scaled_sum(name, input, product, beta, alpha):
    """beta * input + alpha * product, input broadcast to product's shape (ignored when
    beta is 0, its NaNs too, as torch). Callers compute float16 as torch's kernels do."""
    for arg, value in (("beta", beta), ("alpha", alpha)):
        if isinstance(value, bool) or not isinstance(value, numbers.Number):
            raise TypeError(f"{name}: expected {arg} to be a number, got "
                            f"{type(value).__name__}")
    shape = tuple(product.shape)
    try:
        fits = broadcast_shapes(tuple(input.shape), shape) == shape
    except RuntimeError:
        fits = False
    if not fits:
        raise RuntimeError(f"{name}: expected input to broadcast to the product's shape "
                           f"{list(shape)}, got {list(input.shape)}")
    if product.dtype is _bool:          # as torch: (beta and input) or (alpha and product)
        if not alpha:
            product = F.zeros_like(product)
        return product if not beta else F.logical_or(input, product)
    if product.dtype.category == 1:             # torch casts the scalars to the int dtype
        beta, alpha = int(beta), int(alpha)
    if alpha != 1:
        product = F.mul(product, alpha)
    if beta == 0:
        return product
    return F.add(product, input if beta == 1 else F.mul(input, beta))


def _check_ndim(name, arg, x, ndim):
    if x.ndim != ndim:
        raise RuntimeError(f"{name}: expected {arg} to be a {ndim}-D tensor, got {x.ndim}-D "
                           f"of shape {list(x.shape)}")


@public(method=True)
def addmv(input, mat, vec, *, beta=1, alpha=1):
    """addmv(input, mat, vec, *, beta=1, alpha=1) -> Tensor: beta * input + alpha * mat @ vec.

    >>> minflow.addmv(minflow.ones(2), minflow.ones(2, 3), minflow.ones(3), alpha=2).tolist()
    [7.0, 7.0]
    """
    _check_ndim("addmv", "mat", mat, 2)
    _check_ndim("addmv", "vec", vec, 1)
    infer.check_same_dtype("addmv", input=input, mat=mat, vec=vec)
    return in_float32(lambda x, a, b: _scaled_sum("addmv", x, F.mv(a, b), beta, alpha),
                      input, mat, vec)


@public(method=True)
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """addr(input, vec1, vec2, *, beta=1, alpha=1) -> Tensor

    beta * input + alpha * outer(vec1, vec2).

    >>> minflow.addr(minflow.zeros(2, 2), minflow.tensor([1.0, 2.0]), minflow.ones(2)).tolist()
    [[1.0, 1.0], [2.0, 2.0]]
    """
    _check_ndim("addr", "vec1", vec1, 1)
    _check_ndim("addr", "vec2", vec2, 1)
    if vec1.dtype is dtypes.float16:
        # NOTE: torch's kernel takes alpha and beta as float16 (mul by a number would keep
        # it in float32)
        beta, alpha = (float(np.float16(v)) if isinstance(v, numbers.Number) and
                       not isinstance(v, bool) else v for v in (beta, alpha))
    if vec1.dtype.is_floating_point and isinstance(alpha, numbers.Number) and \
            not isinstance(alpha, bool) and alpha != 1:
        # NOTE: as torch's kernel, (alpha * vec1) * vec2, each op rounded in the dtype
        vec1, alpha = F.mul(vec1, alpha), 1
    return _scaled_sum("addr", input, F.outer(vec1, vec2), beta, alpha)


@public(method=True)
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """baddbmm(input, batch1, batch2, *, beta=1, alpha=1) -> Tensor

    beta * input + alpha * bmm(batch1, batch2).

    >>> minflow.baddbmm(minflow.ones(2, 1, 1), minflow.ones(2, 1, 3), minflow.ones(2, 3, 1)).shape
    minflow.Size([2, 1, 1])
    """
    infer.check_same_dtype("baddbmm", input=input, batch1=batch1, batch2=batch2)
    return in_float32(lambda x, a, b: _scaled_sum("baddbmm", x, F.bmm(a, b), beta, alpha),
                      input, batch1, batch2)


@public(method=True)
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """addbmm(input, batch1, batch2, *, beta=1, alpha=1) -> Tensor

    beta * input + alpha * sum_b batch1[b] @ batch2[b].

    >>> minflow.addbmm(minflow.zeros(1, 1), minflow.ones(2, 1, 3), minflow.ones(2, 3, 1)).item()
    6.0
    """
    infer.check_same_dtype("addbmm", input=input, batch1=batch1, batch2=batch2)

    def scaled(x, a, b):        # the sum keeps int32 int32
        return _scaled_sum("addbmm", x, F.sum(F.bmm(a, b), 0, dtype=a.dtype), beta, alpha)
    if batch1.dtype is dtypes.float16 and batch1.ndim == 3 and batch1.shape[0]:
        return _half_addbmm(input, batch1, batch2, beta, alpha)
    return in_float32(scaled, input, batch1, batch2)


def _half_addbmm(input, batch1, batch2, beta, alpha):
    """torch's cpu addbmm on float16: one addmm per batch, each in float32 and rounded to
    float16 (beta scales input in the first only)."""
    if batch2.ndim != 3 or batch2.shape[0] != batch1.shape[0] or \
            batch2.shape[1] != batch1.shape[2]:
        F.bmm(batch1, batch2)       # raises bmm's error for the mismatch
    result = input
    for b in range(batch1.shape[0]):
        result = in_float32(lambda x, m1, m2: _scaled_sum("addbmm", x, F.mm(m1, m2), beta,
                                                          alpha), result, batch1[b], batch2[b])
        beta = 1
    return result


@public
def chain_matmul(*matrices, out=None):
    """chain_matmul(*matrices, out=None) -> Tensor: linalg.multi_dot of 2-D matrices (one
    matrix is returned as is, as torch).

    >>> minflow.chain_matmul(minflow.ones(2, 3), minflow.ones(3, 4), minflow.ones(4, 1)).shape
    minflow.Size([2, 1])
    """
    from ..linalg import multi_dot
    for i, m in enumerate(matrices):
        _check_ndim("chain_matmul", f"matrices[{i}]", m, 2)
    if len(matrices) == 1:
        return F.clone(matrices[0])
    return multi_dot(matrices, out=out)


@public(method=True)
def ger(input, vec2):
    """ger(input, vec2) -> Tensor: outer(input, vec2).

    >>> minflow.ger(minflow.tensor([1.0, 2.0]), minflow.tensor([3.0])).tolist()
    [[3.0], [6.0]]
    """
    for name, x in (("input", input), ("vec2", vec2)):
        if not isinstance(x, Tensor):
            raise TypeError(f"ger: expected {name} to be a Tensor, got {type(x).__name__}")
    return F.outer(input, vec2)


for _fn in (addmv, addr, baddbmm, addbmm):
    make_inplace(_fn, _fn.__name__ + "_")

"""Linear algebra: matmul (every PyTorch shape case), mm, bmm, einsum, linear, bilinear.

One ``matmul`` op serves matmul, mm, bmm and ``@``; its ``transpose_input`` and
``transpose_other`` attrs (swap the last two dims first) let its grad function
differentiate it with matmul alone. ``einsum`` is an op over a variadic operand list.
``linear``'s eager backward is one fused op, ``linear_grad`` (``linear_grad_params`` where
the input needs no grad).
"""
import string

from ..core import dtype as dtypes
from ..core.dispatch import apply
from ..core.functional import public
from ..core.namespace import F
from . import infer
from .opmath import in_float32
from .registry import Attr, Input, define_op

__all__ = ["linear", "bilinear"]


def _check_same_dtype(name, a, b):
    if a.dtype is not b.dtype:
        raise RuntimeError(f"{name}: expected both operands to have the same dtype, but got "
                           f"{a.dtype.name} != {b.dtype.name}")


def _mat_shape(x, transpose):
    shape = tuple(x._data.shape)
    return shape[:-2] + (shape[-1], shape[-2]) if transpose else shape


def _matmul_infer(input, other, transpose_input, transpose_other):
    _check_same_dtype("matmul", input, other)
    a, b = _mat_shape(input, transpose_input), _mat_shape(other, transpose_other)
    if not a or not b:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{len(a)}D and {len(b)}D")
    if (transpose_input and len(a) < 2) or (transpose_other and len(b) < 2):
        raise RuntimeError(f"transposed operands must be at least 2D, got shapes {list(a)} "
                           f"and {list(b)}")
    a2 = (1,) + a if len(a) == 1 else a             # 1-D input: a row vector, squeezed after
    b2 = b + (1,) if len(b) == 1 else b             # 1-D other: a column vector
    if a2[-1] != b2[-2]:
        raise RuntimeError(f"shapes {list(a)} and {list(b)} cannot be multiplied "
                           f"({a2[-2]}x{a2[-1]} and {b2[-2]}x{b2[-1]})")
    batch = infer.broadcast_shapes(a2[:-2], b2[:-2])
    out = batch + (a2[-2],) * (len(a) > 1) + (b2[-1],) * (len(b) > 1)
    return out, input.dtype


MATMUL = define_op(
    "matmul", ["input", "other"], infer=_matmul_infer,
    attrs=[Attr("transpose_input", "bool", False), Attr("transpose_other", "bool", False)],
    traits=("opaque", "no_side_effect"),
    doc="Matrix product with broadcast batch dims; 1-D operands are promoted and squeezed.")


@public(method=True)
def matmul(input, other, *, out=None):
    """matmul(input, other, *, out=None) -> Tensor

    Matrix product as ``torch.matmul``: 1-D x 1-D is a dot product, 2-D x 2-D a matrix
    product, a 1-D operand is promoted to a matrix and its dim removed from the result,
    and batch dims (all but the last two) broadcast.

    >>> a, b = minflow.ones(2, 3, 4), minflow.ones(4)
    >>> minflow.matmul(a, b).shape
    minflow.Size([2, 3])
    """
    result = apply(MATMUL, (input, other), {})
    if out is None:
        return result
    from ..core.inplace import write_out
    return write_out(result, out, "matmul")


def _check_ndim(name, what, x, ndim):
    if x.ndim != ndim:
        raise RuntimeError(f"{name}: {what} must be a {ndim}D tensor, got {x.ndim}D with "
                           f"shape {list(x.shape)}")


@public(method=True)
def mm(input, mat2):
    """mm(input, mat2) -> Tensor

    Product of two matrices: (n, m) @ (m, p) -> (n, p). No broadcasting.

    >>> minflow.mm(minflow.ones(2, 3), minflow.ones(3, 4)).shape
    minflow.Size([2, 4])
    """
    _check_ndim("mm", "self", input, 2)
    _check_ndim("mm", "mat2", mat2, 2)
    _check_same_dtype("mm", input, mat2)
    if input.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"mm: mat1 and mat2 shapes cannot be multiplied "
                           f"({input.shape[0]}x{input.shape[1]} and "
                           f"{mat2.shape[0]}x{mat2.shape[1]})")
    return apply(MATMUL, (input, mat2), {})


@public(method=True)
def bmm(input, mat2):
    """bmm(input, mat2) -> Tensor

    Batched matrix product: (b, n, m) @ (b, m, p) -> (b, n, p). Batch sizes must match.

    >>> minflow.bmm(minflow.ones(5, 2, 3), minflow.ones(5, 3, 4)).shape
    minflow.Size([5, 2, 4])
    """
    _check_ndim("bmm", "batch1", input, 3)
    _check_ndim("bmm", "batch2", mat2, 3)
    _check_same_dtype("bmm", input, mat2)
    if input.shape[0] != mat2.shape[0] or input.shape[2] != mat2.shape[1]:
        raise RuntimeError(f"bmm: expected batch1 of shape [b, n, m] and batch2 of shape "
                           f"[b, m, p], got {list(input.shape)} and {list(mat2.shape)}")
    return apply(MATMUL, (input, mat2), {})


@public(method=True)
def dot(input, other):
    """dot(input, other) -> Tensor

    Inner product of two 1-D tensors of the same length and dtype: sum(input * other).

    >>> minflow.dot(minflow.tensor([1., 2.]), minflow.tensor([3., 4.])).item()
    11.0
    """
    _check_ndim("dot", "input", input, 1)
    _check_ndim("dot", "other", other, 1)
    _check_same_dtype("dot", input, other)
    if input.shape[0] != other.shape[0]:
        raise RuntimeError(f"dot: inconsistent tensor size, expected input {list(input.shape)} "
                           f"and other {list(other.shape)} to have the same number of elements")
    return apply(MATMUL, (input, other), {})


@public(method=True)
def mv(input, vec):
    """mv(input, vec) -> Tensor

    Matrix-vector product: (n, m) @ (m,) -> (n,).

    >>> minflow.mv(minflow.ones(2, 3), minflow.ones(3)).tolist()
    [3.0, 3.0]
    """
    _check_ndim("mv", "input", input, 2)
    _check_ndim("mv", "vec", vec, 1)
    _check_same_dtype("mv", input, vec)
    if input.shape[1] != vec.shape[0]:
        raise RuntimeError(f"mv: size mismatch, got input ({input.shape[0]}x{input.shape[1]}) "
                           f"and vec ({vec.shape[0]})")
    return apply(MATMUL, (input, vec), {})


@public(method=True)
def outer(input, vec2):
    """outer(input, vec2) -> Tensor

    Outer product of two 1-D tensors: out[i, j] = input[i] * vec2[j].

    >>> minflow.outer(minflow.tensor([1., 2.]), minflow.tensor([1., 10., 100.])).shape
    minflow.Size([2, 3])
    """
    _check_ndim("outer", "input", input, 1)
    _check_ndim("outer", "vec2", vec2, 1)
    return F.mul(F.reshape(input, (input.shape[0], 1)), vec2)


@public
def linear(input, weight, bias=None):
    """linear(input, weight, bias=None) -> Tensor

    y = input @ weight^T + bias, with weight of shape (out_features, in_features).

    >>> x, w = minflow.ones(2, 3), minflow.ones(4, 3)
    >>> minflow.nn.functional.linear(x, w, minflow.zeros(4)).shape
    minflow.Size([2, 4])
    """
    # NOTE: the checks only call out (for their messages) when they fail: a hot path
    if bias is not None and bias.dtype is not weight.dtype:    # input against weight: infer's
        infer.check_same_dtype("linear", weight=weight, bias=bias)
    w = weight._data.shape
    if len(w) == 1:
        out = matmul(input, weight)
        return out if bias is None else F.add(out, bias)
    if len(w) != 2:
        _check_ndim("linear", "weight", weight, 2)
    if not weight.dtype.is_complex and (
            bias is None or (bias._data.shape == w[:1] and bias.dtype is weight.dtype)):
        return apply(LINEAR, (input, weight, bias), {})
    if bias is None:        # complex: matmul's kernel and (conjugating) grads
        return apply(MATMUL, (input, weight), {"transpose_other": True})
    return F.add(apply(MATMUL, (input, weight), {"transpose_other": True}), bias)


@public
def bilinear(input1, input2, weight, bias=None):
    """bilinear(input1, input2, weight, bias=None) -> Tensor

    y[..., o] = sum_ij input1[..., i] * weight[o, i, j] * input2[..., j] + bias[o], with
    weight of shape (out_features, in1_features, in2_features); the leading dims of the
    two inputs must match.

    >>> x1, x2, w = minflow.ones(2, 3), minflow.ones(2, 4), minflow.ones(5, 3, 4)
    >>> minflow.nn.functional.bilinear(x1, x2, w).tolist()[0]
    [12.0, 12.0, 12.0, 12.0, 12.0]
    """
    _check_ndim("bilinear", "weight", weight, 3)
    infer.check_same_dtype("bilinear", input1=input1, input2=input2, weight=weight,
                           **({} if bias is None else {"bias": bias}))
    out_features, in1, in2 = weight.shape
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and "
                           f"{input2.ndim}")
    for dim, (a, b) in enumerate(zip(input1.shape[:-1], input2.shape[:-1])):
        if a != b:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {dim}: "
                               f"got {a} and {b}")
    for name, x, size in (("input1", input1, in1), ("input2", input2, in2)):
        if x.shape[-1] != size:
            raise RuntimeError(f"bilinear(): {name} size does not match weight size: got "
                               f"{x.shape[-1]} but expected {size}")
    if bias is not None and tuple(bias.shape) != (out_features,):
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                           f"{bias.shape[-1] if bias.ndim else list(bias.shape)} but expected "
                           f"{out_features}")
    batch = tuple(input1.shape[:-1])
    x1, x2 = F.reshape(input1, (-1, in1)), F.reshape(input2, (-1, 1, in2))
    # (N, in1) @ (in1, out * in2): each output's in1-contraction, then the in2 one; each
    # rounded once in float16, as torch's two batched products
    left = matmul(x1, F.reshape(F.permute(weight, 1, 0, 2), (in1, out_features * in2)))
    out = in_float32(_contract_last, F.reshape(left, (-1, out_features, in2)), x2)
    if bias is not None:
        out = F.add(out, bias)
    return F.reshape(out, batch + (out_features,))


def _contract_last(a, b):
    """sum(a * b) over the last dim (int32 stays int32, as torch)."""
    return F.sum(F.mul(a, b), -1, dtype=a.dtype)


def _linear_infer(input, weight, bias):
    x, w = input._data.shape, weight._data.shape
    if (len(x) == 2 and len(w) == 2 and x[1] == w[1] and input.dtype is weight.dtype
            and (bias is None or bias._data.shape == w[:1])):
        return (x[0], w[0]), input.dtype                # the common case, checked in full
    shape, dtype = _matmul_infer(input, weight, False, True)
    if bias is not None and bias._data.shape != (weight._data.shape[0],):
        raise RuntimeError(f"linear: expected bias of shape [{weight._data.shape[0]}] "
                           f"(out_features), got {list(bias._data.shape)}")
    return shape, dtype


# NOTE: its own op (not matmul + add) for speed: the kernel adds the bias in place, and
# backward runs one fused linear_grad op (eager) or two matmuls and a sum (graph mode,
# double backward), with no broadcasting to undo.
LINEAR = define_op(
    "linear", ["input", "weight", Input("bias", optional=True)], infer=_linear_infer,
    traits=("opaque", "no_side_effect"),
    doc="input @ weight^T + bias, weight (out_features, in_features), bias (out_features).")



def _linear_grad_params_infer(grad_out, input):
    rows = grad_out._data.shape[:-1]
    if input._data.shape[:-1] != rows or input.dtype is not grad_out.dtype:
        raise RuntimeError(f"expected input of shape [{', '.join(map(str, rows))}, *] and "
                           f"dtype {grad_out.dtype.name} as grad_out, got "
                           f"{list(input._data.shape)} and {input.dtype.name}")
    out_features = grad_out._data.shape[-1]
    return [((out_features, input._data.shape[-1]), input.dtype), ((out_features,), input.dtype)]


def _linear_grad_infer(grad_out, input, weight):
    metas = _linear_grad_params_infer(grad_out, input)
    if weight._data.shape != metas[0][0] or weight.dtype is not input.dtype:
        raise RuntimeError(f"expected weight of shape {list(metas[0][0])} and dtype "
                           f"{input.dtype.name}, got {list(weight._data.shape)} and "
                           f"{weight.dtype.name}")
    return [(input._data.shape, input.dtype)] + metas


LINEAR_GRAD_PARAMS = define_op(
    "linear_grad_params", ["grad_out", "input"], outputs=("grad_weight", "grad_bias"),
    infer=_linear_grad_params_infer, traits=("no_grad", "opaque", "no_side_effect"),
    doc="linear's weight and bias grads in one call: grad_out^T @ input and grad_out summed "
        "over the rows.")
LINEAR_GRAD = define_op(
    "linear_grad", ["grad_out", "input", "weight"],
    outputs=("grad_input", "grad_weight", "grad_bias"), infer=_linear_grad_infer,
    traits=("no_grad", "opaque", "no_side_effect"),
    doc="linear's three grads in one call: grad_out @ weight, then as linear_grad_params.")

def _parse_einsum(equation, operands):
    """The equation with '...' spelled out as letters, '->' always present, and the
    broadcast shape of the ellipsis dims (None when there is no ellipsis)."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise ValueError(f"einsum(): {len(terms)} subscripts in equation {equation!r} but "
                         f"{len(operands)} operands were given")
    free = [c for c in string.ascii_uppercase + string.ascii_lowercase if c not in eq]
    ell_shapes = []
    for term, x in zip(terms, operands):
        named = len(term.replace("...", ""))
        if any(not c.isalpha() for c in term.replace("...", "")):
            raise ValueError(f"einsum(): invalid subscript in {term!r}; expected letters "
                             f"and at most one '...'")
        if ("..." in term and named > x.ndim) or ("..." not in term and named != x.ndim):
            raise RuntimeError(f"einsum(): the number of subscripts in {term!r} does not "
                               f"match the number of dimensions ({x.ndim}) of operand of "
                               f"shape {list(x.shape)}")
        ell_shapes.append(tuple(x.shape)[len(term.split("...")[0]):][:x.ndim - named]
                          if "..." in term else None)
    used = [s for s in ell_shapes if s is not None]
    ell = infer.broadcast_shapes(*used) if used else None
    letters = "".join(free[:len(ell)]) if ell is not None else ""
    if not arrow:
        counts = {c: lhs.count(c) for c in lhs if c.isalpha()}
        rhs = ("..." if used else "") + "".join(sorted(c for c, n in counts.items() if n == 1))
    # every '...' gets all the letters: _expand_ellipsis gives each operand all ell dims
    terms = [t.replace("...", letters) for t in terms]
    return ",".join(terms) + "->" + rhs.replace("...", letters), ell


def _einsum_infer(operands, equation):
    lhs, rhs = equation.split("->")
    sizes = {}
    for term, x in zip(lhs.split(","), operands):
        if x.dtype is not operands[0].dtype:
            raise RuntimeError(f"expected all operands to have the same dtype, but got "
                               f"{operands[0].dtype.name} != {x.dtype.name}")
        for c, n in zip(term, x._data.shape):
            if sizes.setdefault(c, n) != n:
                raise RuntimeError(f"subscript '{c}' has size {sizes[c]} in one operand and "
                                   f"{n} in another (equation {equation!r})")
    if any(c not in sizes or rhs.count(c) > 1 for c in rhs):
        raise ValueError(f"output subscripts {rhs!r} must each appear once and in an input")
    return tuple(sizes[c] for c in rhs), operands[0].dtype


EINSUM = define_op("einsum", [Input("operands", variadic=True)],
                   attrs=[Attr("equation", "str")], infer=_einsum_infer,
                   traits=("opaque", "no_side_effect"),
                   doc="Einstein summation over explicit subscripts ('...' already expanded).")


@public
def einsum(equation, *operands):
    """einsum(equation, *operands) -> Tensor

    Sums the product of operands over the subscripts missing from the output, as
    ``torch.einsum`` (implicit output, '...' with broadcasting, operands as a list too).

    >>> a, b = minflow.ones(2, 3), minflow.ones(3, 4)
    >>> minflow.einsum("ij,jk->ik", a, b).shape
    minflow.Size([2, 4])
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not isinstance(equation, str):       # torch's class: ValueError
        raise ValueError(f"einsum(): expected equation to be a str, got "
                        f"{type(equation).__name__}")
    eq, ell = _parse_einsum(equation, operands)
    if ell is not None:     # ellipsis dims broadcast: expand them to one shape first
        operands = [_expand_ellipsis(x, t, ell) for x, t in
                    zip(operands, equation.replace(" ", "").partition("->")[0].split(","))]
    return apply(EINSUM, (_expand_size_one(eq, operands),), {"equation": eq})


def _expand_size_one(equation, operands):
    """Size-1 dims broadcast against the other operands' size of that subscript (as torch),
    so the op itself only sees matching sizes."""
    terms = equation.split("->")[0].split(",")
    sizes = {}
    for term, x in zip(terms, operands):
        for c, n in zip(term, x.shape):
            if n != 1:
                sizes.setdefault(c, n)
    out = []
    for term, x in zip(terms, operands):
        target = tuple(sizes.get(c, 1) if n == 1 else n for c, n in zip(term, x.shape))
        out.append(x if target == tuple(x.shape) else F.expand(x, target))
    return out


def _expand_ellipsis(x, term, ell):
    if "..." not in term:
        return x
    before, after = term.split("...")
    shape = tuple(x.shape)
    mid = shape[len(before):len(shape) - len(after)]
    full = shape[:len(before)] + (1,) * (len(ell) - len(mid)) + mid + shape[len(shape)
                                                                              - len(after):]
    target = shape[:len(before)] + ell + shape[len(shape) - len(after):]
    if full == target:
        return x
    return F.expand(F.reshape(x, full), target)

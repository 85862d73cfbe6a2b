"""Grad functions of matmul and einsum, written with matmul and einsum themselves, so
backward is differentiable to any order."""
import string

from ...core.dispatch import (EagerInterpreter, apply, apply_in_backward,
                              current_interpreter)
from ...core.namespace import F
from ...core.grad_mode import state as grad_state
from ...ops.linalg import EINSUM, LINEAR_GRAD, LINEAR_GRAD_PARAMS, MATMUL
from ..node import GradFunction, register_grad
from .util import conj, sum_to


def _mm(a, b, ta=False, tb=False):
    return apply(MATMUL, (a, b), {"transpose_input": ta, "transpose_other": tb})


@register_grad("matmul")
class MatmulGrad(GradFunction):
    """out = A' @ B' with A' = A or A^T (transpose_input), B' = B or B^T: each grad is
    one matmul with transpose attrs; 1-D operands are treated as a row / column."""

    def capture(self, ctx, inputs, outputs, attrs):
        a, b = inputs
        ctx.ta, ctx.tb = attrs["transpose_input"], attrs["transpose_other"]
        ctx.shapes = (tuple(a.shape), tuple(b.shape))
        ctx.save_for_backward(a, b)

    def apply(self, ctx, grad_out):
        a, b = (conj(t) for t in ctx.saved_tensors)    # complex: products with A^H, B^H
        ta, tb = ctx.ta, ctx.tb
        sa, sb = ctx.shapes
        a2 = a.reshape((1,) + sa) if len(sa) == 1 else a
        b2 = b.reshape(sb + (1,)) if len(sb) == 1 else b
        batch = tuple(grad_out.shape)[:grad_out.ndim - (len(sa) > 1) - (len(sb) > 1)]
        g = grad_out.reshape(batch + (a2.shape[-1 if ta else -2], b2.shape[-2 if tb else -1]))
        grad_a = grad_b = None
        if ctx.needs_input_grad[0]:
            grad_a = _mm(b2, g, tb, True) if ta else _mm(g, b2, False, not tb)
            grad_a = sum_to(grad_a, a2.shape).reshape(sa)
        if ctx.needs_input_grad[1]:
            grad_b = _mm(g, a2, True, ta) if tb else _mm(a2, g, not ta, False)
            grad_b = sum_to(grad_b, b2.shape).reshape(sb)
        return grad_a, grad_b


@register_grad("linear")
class LinearGrad(GradFunction):
    """out = x W^T + b: grad_x = g W, grad_W = g^T x and grad_b = g summed over the rows,
    with x and g flattened to rows ((*, in) -> (n, in)) for the last two.

    An eager backward without create_graph computes them in one call of the fused
    linear_grad (or linear_grad_params) op: one dispatch instead of three. Double backward
    and graph mode use matmul and sum, which are differentiable, and whose ``out=``
    kernels let a graph plan preallocate the grads."""

    def node_name(self, ctx):
        return "AddmmBackward0" if ctx.bias else "MmBackward0"    # torch's names

    def capture(self, ctx, inputs, outputs, attrs):
        x, w, bias = inputs
        need_x, need_w, _ = ctx.needs_input_grad
        ctx.bias = bias is not None
        ctx.save_for_backward(x if need_w else None, w if need_x else None)

    def apply(self, ctx, grad_out):
        x, w = ctx.saved_tensors
        need_x, need_w, need_b = ctx.needs_input_grad
        if need_w and need_b and not grad_state.grad_enabled and _eager():
            if need_x:
                return apply_in_backward(LINEAR_GRAD, (grad_out, x, w), {})
            return (None,) + apply_in_backward(LINEAR_GRAD_PARAMS, (grad_out, x), {})
        grad_x = _mm(grad_out, w) if need_x else None
        rows = grad_out if grad_out.ndim == 2 else grad_out.reshape(-1, grad_out.shape[-1])
        grad_w = grad_b = None
        if need_w:
            grad_w = _mm(rows, x if x.ndim == 2 else x.reshape(-1, x.shape[-1]), True)
        if need_b:
            grad_b = F.sum(rows, 0)
        return grad_x, grad_w, grad_b


def _eager():
    return current_interpreter().__class__ is EagerInterpreter


@register_grad("einsum")
class EinsumGrad(GradFunction):
    """The grad of operand i is the einsum of grad_out with the other operands into
    operand i's subscripts; subscripts only operand i has are summed over in forward, so
    their grad is broadcast back (unsqueeze + expand). A subscript repeated within operand i
    (a diagonal, "ii->i") is renamed apart and tied back with an identity matrix. Complex
    operands enter conjugated (torch's convention: the product rule's conj(d out / d x))."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.equation = attrs["equation"]
        ctx.save_for_backward(*inputs[0])

    def apply(self, ctx, grad_out):
        operands = [conj(x) for x in ctx.saved_tensors]
        lhs, rhs = ctx.equation.split("->")
        terms = lhs.split(",")
        grads = []
        for i, (need, term, x) in enumerate(zip(ctx.needs_input_grad[0], terms, operands)):
            if not need:
                grads.append(None)
                continue
            term, ties = _split_repeats(term, ctx.equation)
            others = [(t, o) for j, (t, o) in enumerate(zip(terms, operands)) if j != i]
            others += [(tie, _eye(x.shape[term.index(tie[0])], grad_out)) for tie in ties]
            known = set(rhs).union(*(t for t, _ in others))
            kept = "".join(c for c in term if c in known)
            eq = ",".join([rhs] + [t for t, _ in others]) + "->" + kept
            grad = apply(EINSUM, ([grad_out] + [o for _, o in others],), {"equation": eq})
            if kept != term:
                full = tuple(n if c in known else 1 for c, n in zip(term, x.shape))
                grad = F.expand(grad.reshape(full), tuple(x.shape))
            grads.append(grad)
        return (grads,)


def _split_repeats(term, equation):
    """'iij' -> ('iAj', ['iA']): each repeat of a subscript gets a fresh letter, and a tie
    (first letter, fresh letter) for the identity matrix that joins them."""
    fresh = (c for c in string.ascii_letters if c not in equation)
    seen, letters, ties = set(), [], []
    for c in term:
        if c in seen:
            new = next(fresh)
            ties.append(c + new)
            letters.append(new)
        else:
            seen.add(c)
            letters.append(c)
    return "".join(letters), ties


def _eye(n, like):
    return F.eye(n, dtype=like.dtype, device=like.device)

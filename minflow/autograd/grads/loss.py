"""Grad functions of the loss ops, written with minflow ops so they differentiate again."""
from ...core.dispatch import apply, apply_in_backward
from ...core.grad_mode import state as grad_state
from ...core.namespace import F
from ...ops.loss import CROSS_ENTROPY_GRAD
from ..node import GradFunction, register_grad
from .util import sum_to


def _class_view(t, ndim, cdim):
    """A (C,) tensor shaped to broadcast along the class dim of an ndim-d tensor."""
    shape = [1] * ndim
    shape[cdim] = t.shape[0]
    return F.reshape(t, tuple(shape))


def _nll_input_grad(grad_out, target, weight, shape, dtype, ignore_index, reduction):
    """d/d input[n, c] = -weight[t_n] * g_n where c == t_n (0 elsewhere and where ignored);
    'mean' divides g by the summed kept weights."""
    ndim = len(shape)
    cdim = 1 if ndim >= 2 else 0
    kept = F.ne(target, ignore_index)
    safe = F.where(kept, target, 0)
    classes = _class_view(F.arange(shape[cdim], device=target.device), ndim, cdim)
    hits = F.eq(F.unsqueeze(safe, cdim), classes)
    if weight is None:
        picked = F.cast(kept, dtype)
    else:
        picked = F.sum(F.where(hits, _class_view(weight, ndim, cdim), 0.0), cdim)
        picked = F.where(kept, picked, 0.0)
    scale = F.div(grad_out, F.sum(picked)) if reduction == "mean" else grad_out
    per_target = F.neg(F.mul(picked, scale))
    return F.where(hits, F.unsqueeze(per_target, cdim), 0.0)


@register_grad("nll_loss")
class NllLossGrad(GradFunction):
    """The weight gets no gradient (as torch)."""

    def capture(self, ctx, inputs, outputs, attrs):
        input, target, weight = inputs
        ctx.save_for_backward(target, weight)
        ctx.shape, ctx.dtype = tuple(input.shape), input.dtype
        ctx.ignore_index, ctx.reduction = attrs["ignore_index"], attrs["reduction"]

    def apply(self, ctx, grad_out):
        target, weight = ctx.saved_tensors
        return _nll_input_grad(grad_out, target, weight, ctx.shape, ctx.dtype,
                               ctx.ignore_index, ctx.reduction), None, None


@register_grad("cross_entropy")
class CrossEntropyGrad(GradFunction):
    """A plain backward runs the fused grad op on the saved log_prob. Under create_graph
    (grad mode on in backward) it runs a composite of differentiable ops instead, on
    log_prob as this node's output, so double backward works: log_softmax's backward
    dx = g - softmax * sum(g) of g = nll_loss's input grad (+ log_prob's own grad, which
    only double backward gives)."""

    def node_name(self, ctx):
        return "NllLossBackward0"       # torch's cross_entropy ends in nll_loss

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.materialize_grads = False
        ctx.attrs = attrs
        ctx.save_for_backward(outputs[1], inputs[1], inputs[2])

    def apply(self, ctx, grad_out, grad_log_prob=None):
        log_prob, target, weight = ctx.saved_tensors
        if grad_log_prob is None and not grad_state.grad_enabled:
            return apply_in_backward(CROSS_ENTROPY_GRAD, (grad_out, log_prob, target, weight),
                                     dict(ctx.attrs)), None, None
        cdim = 1 if log_prob.ndim >= 2 else 0
        g = grad_log_prob
        if grad_out is not None:
            g_nll = _nll_input_grad(grad_out, target, weight, tuple(log_prob.shape),
                                    log_prob.dtype, ctx.attrs["ignore_index"],
                                    ctx.attrs["reduction"])
            g = g_nll if g is None else F.add(g, g_nll)
        return F.sub(g, F.mul(F.exp(log_prob), F.sum(g, cdim, keepdim=True))), None, None


@register_grad("binary_cross_entropy")
class BinaryCrossEntropyGrad(GradFunction):
    """As torch: d/dx = g (x - t) / max(x (1 - x), 1e-12);
    d/dt = g (max(log(1 - x), -100) - max(log x, -100))."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(*inputs)

    def apply(self, ctx, grad_out):
        x, t = ctx.saved_tensors
        need = ctx.needs_input_grad
        grad_x = grad_t = None
        if need[0]:
            denom = F.clamp(F.mul(x, F.sub(1, x)), min=1e-12)
            grad_x = F.div(F.mul(grad_out, F.sub(x, t)), denom)
        if need[1]:
            log_x = F.clamp(F.log(x), min=-100)
            log_1mx = F.clamp(F.log1p(F.neg(x)), min=-100)
            grad_t = F.mul(grad_out, F.sub(log_1mx, log_x))
        return grad_x, grad_t


def _softplus_neg(x):
    """log(1 + e^-x) without overflow."""
    return F.add(F.relu(F.neg(x)), F.log1p(F.exp(F.neg(F.abs(x)))))


@register_grad("binary_cross_entropy_with_logits")
class BinaryCrossEntropyWithLogitsGrad(GradFunction):
    """With w = 1 + (p - 1) t (p the pos_weight, 1 if absent):
    d/dx = g ((1 - t) - w sigmoid(-x)); d/dt = g ((p - 1) softplus(-x) - x);
    d/dp = g t softplus(-x), summed back to p's shape."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(*inputs)

    def apply(self, ctx, grad_out):
        x, t, p = ctx.saved_tensors
        need = ctx.needs_input_grad
        grad_x = grad_t = grad_p = None
        if need[0]:
            w = 1.0 if p is None else F.add(F.mul(F.sub(p, 1), t), 1)
            local = F.sub(F.sub(1, t), F.mul(w, F.sigmoid(F.neg(x))))
            grad_x = F.mul(grad_out, local)
        if need[1]:
            local = F.neg(x) if p is None else F.sub(F.mul(F.sub(p, 1), _softplus_neg(x)), x)
            grad_t = F.mul(grad_out, local)
        if p is not None and need[2]:
            grad_p = sum_to(F.mul(grad_out, F.mul(t, _softplus_neg(x))), p.shape)
        return grad_x, grad_t, grad_p

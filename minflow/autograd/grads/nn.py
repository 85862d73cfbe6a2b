"""Grad functions of the nn ops.

batch_norm and layer_norm: a plain backward runs the fused grad op (every input grad in one
pass). Under create_graph (grad mode is on while backward runs) the same formulas run as a
composite of differentiable ops instead, recomputing the statistics from the input, so
double backward works without a grad function for the grad ops.
dropout_grad and embedding_grad are linear in grad_out: their own grads reuse the ops.
"""
from ...core.dispatch import apply
from ...core.grad_mode import state as grad_state
from ...core.namespace import F
from ...ops.nn import (BATCH_NORM_GRAD, DROPOUT_GRAD, EMBEDDING, EMBEDDING_GRAD,
                       LAYER_NORM_GRAD, dropout_scale)
from ..node import GradFunction, register_grad


def _normalized(x, axes, eps):
    """xhat = (x - mean) * rstd and rstd = 1 / sqrt(biased var + eps) over ``axes``."""
    centered = F.sub(x, F.mean(x, axes, keepdim=True))
    rstd = F.rsqrt(F.add(F.mean(F.mul(centered, centered), axes, keepdim=True), eps))
    return F.mul(centered, rstd), rstd


def _input_grad(grad_out, xhat, rstd, weight, axes):
    """dx = rstd * (g' - mean(g') - xhat * mean(g' * xhat)) over ``axes``, g' = g * weight."""
    gw = grad_out if weight is None else F.mul(grad_out, weight)
    mean_gw = F.mean(gw, axes, keepdim=True)
    mean_gwx = F.mean(F.mul(gw, xhat), axes, keepdim=True)
    return F.mul(rstd, F.sub(F.sub(gw, mean_gw), F.mul(xhat, mean_gwx)))


def _sum_over(t, dims):
    return F.sum(t, dims) if dims else t     # NOTE: F.sum over () would reduce every dim


def _pick(needs, grads):
    return tuple(g if need else None for need, g in zip(needs, grads))


@register_grad("batch_norm")
class BatchNormGrad(GradFunction):
    def capture(self, ctx, inputs, outputs, attrs):
        ctx.training, ctx.eps = attrs["training"], attrs["eps"]
        ctx.save_for_backward(inputs[0], inputs[3], outputs[1], outputs[2])

    def apply(self, ctx, grad_out, grad_mean, grad_var):
        x, weight, mean, var = ctx.saved_tensors
        if grad_state.grad_enabled:
            grads = self.composite(ctx, grad_out, x, weight, mean, var)
        else:
            grads = apply(BATCH_NORM_GRAD, (grad_out, x, weight, mean, var),
                          {"training": ctx.training, "eps": ctx.eps})
        need = ctx.needs_input_grad
        return _pick(need, (grads[0], None, None, grads[1], grads[2]))

    @staticmethod
    def composite(ctx, grad_out, x, weight, mean, var):
        axes = (0,) + tuple(range(2, x.ndim))
        view = (1, x.shape[1]) + (1,) * (x.ndim - 2)
        w = None if weight is None else F.reshape(weight, view)
        if ctx.training:
            xhat, rstd = _normalized(x, axes, ctx.eps)
            grad_input = _input_grad(grad_out, xhat, rstd, w, axes)
        else:   # the running stats are constants
            rstd = F.reshape(F.rsqrt(F.add(var.detach(), ctx.eps)), view)
            xhat = F.mul(F.sub(x, F.reshape(mean.detach(), view)), rstd)
            grad_input = F.mul(grad_out, rstd if w is None else F.mul(rstd, w))
        return grad_input, F.sum(F.mul(grad_out, xhat), axes), F.sum(grad_out, axes)


@register_grad("layer_norm")
class LayerNormGrad(GradFunction):
    def capture(self, ctx, inputs, outputs, attrs):
        ctx.normalized_shape, ctx.eps = attrs["normalized_shape"], attrs["eps"]
        ctx.save_for_backward(inputs[0], inputs[1], outputs[1], outputs[2])

    def apply(self, ctx, grad_out, grad_mean, grad_rstd):
        x, weight, mean, rstd = ctx.saved_tensors
        if grad_state.grad_enabled:
            k = len(ctx.normalized_shape)
            axes, lead = tuple(range(x.ndim - k, x.ndim)), tuple(range(x.ndim - k))
            xhat, rstd = _normalized(x, axes, ctx.eps)
            grads = (_input_grad(grad_out, xhat, rstd, weight, axes),
                     _sum_over(F.mul(grad_out, xhat), lead), _sum_over(grad_out, lead))
        else:
            grads = apply(LAYER_NORM_GRAD, (grad_out, x, weight, mean, rstd),
                          {"normalized_shape": ctx.normalized_shape})
        return _pick(ctx.needs_input_grad, grads)


@register_grad("dropout")
class DropoutGrad(GradFunction):
    def capture(self, ctx, inputs, outputs, attrs):
        ctx.scale = dropout_scale(attrs["p"])
        ctx.save_for_backward(outputs[1])

    def apply(self, ctx, grad_out, grad_mask):
        (mask,) = ctx.saved_tensors
        return apply(DROPOUT_GRAD, (grad_out, mask), {"scale": ctx.scale})


@register_grad("dropout_grad")
class DropoutGradGrad(GradFunction):
    """dropout_grad is linear in grad_out, with the same mask and scale."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.scale = attrs["scale"]
        ctx.save_for_backward(inputs[1])

    def apply(self, ctx, grad):
        (mask,) = ctx.saved_tensors
        return apply(DROPOUT_GRAD, (grad, mask), {"scale": ctx.scale}), None


def _embed_attrs(ctx):
    return {"padding_idx": ctx.padding_idx, "scale_grad_by_freq": ctx.scale_grad_by_freq}


@register_grad("embedding")
class EmbeddingGrad(GradFunction):
    def capture(self, ctx, inputs, outputs, attrs):
        ctx.padding_idx, ctx.scale_grad_by_freq = attrs["padding_idx"], attrs["scale_grad_by_freq"]
        ctx.num_weights = inputs[1].shape[0]
        ctx.save_for_backward(inputs[0])

    def apply(self, ctx, grad_out):
        (indices,) = ctx.saved_tensors
        grad_weight = apply(EMBEDDING_GRAD, (grad_out, indices),
                            {"num_weights": ctx.num_weights, **_embed_attrs(ctx)})
        return None, grad_weight


@register_grad("embedding_grad")
class EmbeddingGradGrad(GradFunction):
    """embedding_grad is linear in grad_out; its adjoint gathers rows back:
    grad_out[i] <- grad[input[i]] / count[input[i]], 0 where input[i] == padding_idx."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.padding_idx, ctx.scale_grad_by_freq = attrs["padding_idx"], attrs["scale_grad_by_freq"]
        ctx.num_weights = attrs["num_weights"]
        ctx.save_for_backward(inputs[1])

    def apply(self, ctx, grad):
        (indices,) = ctx.saved_tensors
        plain = {"padding_idx": None, "scale_grad_by_freq": False}
        out = apply(EMBEDDING, (indices, grad), dict(plain))
        if ctx.scale_grad_by_freq:
            ones = F.ones(*indices.shape, 1, dtype=grad.dtype, device=grad.device)
            counts = apply(EMBEDDING_GRAD, (ones, indices),
                           {"num_weights": ctx.num_weights, **plain})
            out = F.div(out, apply(EMBEDDING, (indices, counts), dict(plain)))
        if ctx.padding_idx is not None:
            out = F.where(F.unsqueeze(F.ne(indices, ctx.padding_idx), -1), out, 0.0)
        return out, None

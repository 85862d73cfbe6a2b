"""Grad functions of the CTC loss ops (ops/ctc_loss.py)."""
from ...core.dispatch import apply
from ...ops.ctc_loss import CTC_LOSS_GRAD
from ..node import GradFunction, register_grad


@register_grad("ctc_loss")
class CtcLossGrad(GradFunction):
    """log_probs only, as torch: targets and lengths are indices. The grad op runs the
    alpha recursion again rather than keeping alpha (T, N, 2S+1) from the forward."""

    def capture(self, ctx, inputs, outputs, attrs):
        ctx.save_for_backward(*inputs)
        ctx.attrs = dict(attrs)

    def apply(self, ctx, grad_out):
        log_probs, targets, input_lengths, target_lengths = ctx.saved_tensors
        grad = apply(CTC_LOSS_GRAD, (grad_out, log_probs, targets, input_lengths,
                                     target_lengths), dict(ctx.attrs))
        return grad, None, None, None


@register_grad("ctc_loss_grad")
class CtcLossGradGrad(GradFunction):
    """Not implemented, as torch (its _ctc_loss_backward has no derivative)."""

    def capture(self, ctx, inputs, outputs, attrs):
        pass

    def apply(self, ctx, grad):
        raise RuntimeError("derivative for ctc_loss_grad is not implemented: ctc_loss has no "
                           "double backward (as torch's _ctc_loss_backward)")

"""CUDA kernels of ctc_loss and ctc_loss_grad: the code of kernels/generic/ctc_loss.py
with one step of the alpha recursion as one fused ElementwiseKernel (a launch per frame,
where the ufuncs would take a dozen). cupy is imported lazily, on a kernel's first call,
so this module imports on machines without cupy."""
import functools

from ...core.device import array_module
from ..generic import ctc_loss as generic
from ..registry import register_kernel

# torch's step: the largest term taken out (0 where all three are -inf), the sum of the
# three exponentials in its order, then the log-probabilities at the positions
_STEP = ("T stay, T step, T jump, T skip, T lp", "T out", """
    T skipped = jump + skip;
    T top = stay;
    if (step > top) top = step;
    if (skipped > top) top = skipped;
    if (isinf(top) && top < 0) top = 0;
    out = log(exp(stay - top) + exp(step - top) + exp(skipped - top)) + top + lp;
""", "minflow_ctc_alpha_step")


@functools.lru_cache(maxsize=None)
def _step_kernel():
    return array_module("cuda").ElementwiseKernel(*_STEP)


def fused_step(xp, shape, dtype):
    """The frame step of generic._log_alpha as one kernel launch."""
    kernel = _step_kernel()

    def step(prev, skip, lp, out):
        kernel(prev[:, 2:], prev[:, 1:-1], prev[:, :-2], skip, lp, out)
    return step


@register_kernel("ctc_loss", "cuda", generic.FLOATS)
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    return generic.forward(array_module("cuda"), fused_step, log_probs, targets,
                           input_lengths, target_lengths, blank, zero_infinity)


@register_kernel("ctc_loss_grad", "cuda", generic.FLOATS)
def ctc_loss_grad(grad_out, log_probs, targets, input_lengths, target_lengths, blank,
                  zero_infinity):
    return generic.backward(array_module("cuda"), fused_step, grad_out, log_probs, targets,
                            input_lengths, target_lengths, blank, zero_infinity)

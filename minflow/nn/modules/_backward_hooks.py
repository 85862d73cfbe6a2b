"""Module backward hooks (``register_full_backward_hook`` / ``_pre_hook``), as torch's
BackwardHook: the module's tensor inputs and outputs pass through identity Functions
whose backward sees the gradients flowing through.

    outputs' identity   backward: the grads of the outputs (grad_output); the pre-hooks
                        run here and may replace them
    inputs' identity    backward: the grads of the inputs (grad_input); the hooks run
                        here with (module, grad_input, grad_output) and may replace them

Where no input requires grad, the hooks run at the outputs' identity with grad_input all
None. Only tensors directly among the positional args, and the output (or the tensors of
a tuple output), take part, as in torch.
"""
import warnings

from ...autograd.function import Function
from ...core.grad_mode import is_grad_enabled
from ...core.tensor import Tensor

__all__ = ["call_with_backward_hooks"]


class _State:
    def __init__(self, module, args):
        self.module, self.n_inputs = module, len(args)
        self.tensor_positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        self.grad_output = None
        self.input_hooked = False


def _replaced(hooks, call, grads, what):
    """Run each hook by ``call(hook, grads)``; a non-None result (a tensor or a tuple of
    them, one per entry) replaces ``grads`` for the next hook and the caller."""
    for hook in tuple(hooks.values()):
        new = call(hook, grads)
        if new is None:
            continue
        new = new if isinstance(new, tuple) else (new,)
        if len(new) != len(grads):
            raise RuntimeError(f"Backward {what} returned an invalid number of grad_"
                               f"{'output' if what == 'pre hook' else 'input'}, got "
                               f"{len(new)}, but expected {len(grads)}")
        grads = new
    return grads


def _run_hooks(state, grad_input):
    module = state.module
    return _replaced(module._backward_hooks,
                     lambda hook, grads: hook(module, grads, state.grad_output), grad_input,
                     "hook")


class _Identity(Function):
    """The tensors as they are, with the hooks' state on the context."""

    @staticmethod
    def forward(ctx, state, *tensors):
        ctx.state = state
        return tuple(t.view_as(t) for t in tensors)


class _OutputsIdentity(_Identity):
    @staticmethod
    def backward(ctx, *grads):
        state, module = ctx.state, ctx.state.module
        grads = _replaced(module._backward_pre_hooks, lambda hook, g: hook(module, g), grads,
                          "pre hook")
        state.grad_output = grads
        if not state.input_hooked and module._backward_hooks:
            warnings.warn("Full backward hook is firing when gradients are computed with "
                          "respect to module outputs since no inputs require gradients.",
                          UserWarning, stacklevel=2)
            _run_hooks(state, (None,) * state.n_inputs)
        return (None, *grads)


class _InputsIdentity(_Identity):
    @staticmethod
    def backward(ctx, *grads):
        # the hooks see one entry per positional arg (None for a non-tensor)
        state = ctx.state
        full = [None] * state.n_inputs
        for i, g in zip(state.tensor_positions, grads):
            full[i] = g
        full = _run_hooks(state, tuple(full))
        return (None, *[full[i] for i in state.tensor_positions])


def _through(identity, state, values):
    """``values`` with its tensors passed through ``identity`` (one call for all)."""
    where = [i for i, v in enumerate(values) if isinstance(v, Tensor)]
    if not where:
        return values
    passed = identity.apply(state, *[values[i] for i in where])
    passed = passed if isinstance(passed, tuple) else (passed,)
    values = list(values)
    for i, t in zip(where, passed):
        values[i] = t
    return tuple(values)


def call_with_backward_hooks(module, forward, args, kwargs):
    """Run ``forward(*args, **kwargs)`` so that the module's backward (pre-)hooks see the
    gradients of its inputs and outputs."""
    if not is_grad_enabled():
        return forward(*args, **kwargs)
    state = _State(module, args)
    if module._backward_hooks and any(isinstance(a, Tensor) and a.requires_grad
                                      for a in args):
        state.input_hooked = True
        args = _through(_InputsIdentity, state, args)
    output = forward(*args, **kwargs)
    if isinstance(output, Tensor):
        return _through(_OutputsIdentity, state, (output,))[0]
    if isinstance(output, tuple):
        return _through(_OutputsIdentity, state, output)
    return output

"""``minflow.autograd.Function``: user-defined ops with forward and backward in Python.

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad_out):
            (y,) = ctx.saved_tensors
            return grad_out * y

    y = Exp.apply(x)
"""
from ..core.grad_mode import no_grad, state as grad_state
from ..core.tensor import Tensor
from .node import GradContext, GradFunction, Node, _anomaly, _edge, user_source_line

__all__ = ["Function", "FunctionCtx"]


class _FunctionGrad(GradFunction):
    """Adapts a Function subclass's ``backward`` to the tape's grad-function protocol."""

    def __init__(self, cls):
        self.cls = cls

    def node_name(self, ctx):
        return f"{self.cls.__name__}Backward"           # as torch: no overload number

    def apply(self, ctx, *grad_outs):
        grads = self.cls.backward(ctx, *grad_outs)
        grads = grads if isinstance(grads, tuple) else (grads,)
        if len(grads) != len(ctx.input_is_tensor):
            raise RuntimeError(f"{self.cls.__name__}.backward returned {len(grads)} gradients, "
                               f"expected {len(ctx.input_is_tensor)} (one per forward input)")
        return tuple(g for g, is_t in zip(grads, ctx.input_is_tensor) if is_t)


class FunctionCtx(GradContext):
    """The ``ctx`` of a Function: GradContext plus ``mark_non_differentiable`` and

    ``set_materialize_grads``.

    >>> class Argmax(minflow.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         index = x.argmax()
    ...         ctx.mark_non_differentiable(index)
    ...         return index
    ...     @staticmethod
    ...     def backward(ctx, grad_out):
    ...         return None
    >>> Argmax.apply(minflow.tensor([1.0, 3.0], requires_grad=True)).requires_grad
    False
    """

    def mark_non_differentiable(self, *tensors):
        """Outputs that never require grad (indices, masks); their grads arrive as zeros."""
        self.non_differentiable = getattr(self, "non_differentiable", ()) + tensors

    def set_materialize_grads(self, value):
        """With False, backward gets None (not zeros) for output grads never computed."""
        self.materialize_grads = bool(value)


class Function:
    """Base class of custom differentiable functions: define static ``forward(ctx, *args)``

    and ``backward(ctx, *grad_outs)``, call ``apply(*args)``.

    >>> class Exp(minflow.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         y = x.exp()
    ...         ctx.save_for_backward(y)
    ...         return y
    ...     @staticmethod
    ...     def backward(ctx, grad_out):
    ...         (y,) = ctx.saved_tensors
    ...         return grad_out * y
    >>> x = minflow.tensor([0.0, 1.0], requires_grad=True)
    >>> Exp.apply(x).sum().backward()
    >>> x.grad
    tensor([1.0000, 2.7183])
    """

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("Function subclasses must define forward(ctx, *args)")

    @staticmethod
    def backward(ctx, *grad_outs):
        raise NotImplementedError("Function subclasses must define backward(ctx, *grad_outs)")

    @classmethod
    def apply(cls, *args):
        tensors = [a for a in args if isinstance(a, Tensor)]
        record = grad_state.grad_enabled and any(t._requires_grad for t in tensors)
        fn = _FunctionGrad(cls)
        node = Node(fn, cls.__name__, tuple(_edge(t) for t in tensors), ())
        ctx = FunctionCtx(node, tuple(isinstance(a, Tensor) and a._requires_grad
                                      for a in args), ())
        ctx.input_is_tensor = tuple(isinstance(a, Tensor) for a in args)
        with no_grad():
            result = cls.forward(ctx, *args)
        if not record:
            return result
        outputs = result if isinstance(result, tuple) else (result,)
        for o in outputs:
            if not isinstance(o, Tensor):
                raise TypeError(f"{cls.__name__}.forward must return tensors, got "
                                f"{type(o).__name__}")
        # an input returned as is gets a new tensor object, so the input stays a leaf
        outputs = tuple(_alias(o) if any(o is t for t in tensors) else o for o in outputs)
        result = outputs if isinstance(result, tuple) else outputs[0]
        node.ctx = ctx
        node.out_meta = tuple((o._data.shape, o.dtype, o.device) for o in outputs)
        frozen = getattr(ctx, "non_differentiable", ())
        for nr, o in enumerate(outputs):
            if o.dtype.is_differentiable and not any(o is t for t in frozen):
                o._requires_grad, o._grad_fn, o._output_nr = True, node, nr
        ctx._saved = [_saved_output(entry, outputs, node) for entry in ctx._saved]
        if _anomaly[0]:
            node.source = user_source_line()
        return result


def _saved_output(entry, outputs, node):
    """A tensor forward saved that turned out to be an output of ``node``: kept as its array
    and output number, as GradContext.save_for_backward keeps outputs, and re-made on
    unpack; kept as the tensor, it would hold ``node`` in a reference cycle."""
    if entry is None or entry[3] >= 0:
        return entry
    t = entry[0]
    for nr, o in enumerate(outputs):
        if o is t and o._grad_fn is node:
            return (t._data, entry[1], entry[2], nr)
    return entry


def _alias(t):
    out = Tensor._make(t._data, t.dtype, t.device)
    out._version = t._share_version()
    return out

"""Grad-op conf generators: how graph backward differentiates one forward node.

A generator (OneFlow's REGISTER_USER_OP_GRAD) is a function ``conf(ctx)`` that, given the
forward node's inputs, outputs, attrs and output grads (lazy tensors, in a
``GradConfContext``), defines grad ops by calling minflow ops on them (the lazy
interpreter records those with role "backward") and binds their outputs to the forward
op's input grads with ``ctx.bind_input_grad``.

Declare once, derive both: an op's eager GradFunction already says "save these, then
compute the input grads with these minflow ops", so every op with one gets its
generator derived from it (``eager_conf``: capture on the lazy forward tensors, apply on
the lazy output grads). ``register_grad_conf`` is for an op whose eager grad cannot run
lazily; no op needs one today.
"""
from ..autograd.node import GradContext, Node
from ..core.namespace import F
from ..ops.registry import get_op

__all__ = ["GradConfContext", "register_grad_conf", "grad_conf_of", "eager_conf"]

_CONFS = {}


class GradConfContext:
    """One forward node as its grad-op conf generator sees it.

    inputs / outputs: as the op received / returned them (lazy tensors, Python scalars,
    None, lists for variadic inputs); output_grads: a lazy tensor or None per output;
    needs_input_grad: per input, whether it wants a gradient (a tuple for a variadic one).

    Graph backward hands one to each generator, which binds the input grads:

    >>> w = minflow.ones(3, requires_grad=True)
    >>> with minflow.graph.trace() as g:
    ...     (minflow.graph.placeholder(g, (3,)) * w).sum().backward()
    >>> sorted({n.op for n in g.nodes if n.role == "backward"})
    ['expand', 'full', 'mul']
    """

    def __init__(self, node, inputs, outputs, output_grads):
        self.node, self.op = node, get_op(node.op)
        self.attrs = dict(node.attrs)
        self.inputs, self.outputs = tuple(inputs), tuple(outputs)
        self.output_grads = tuple(output_grads)
        self.needs_input_grad = node.needs_grad
        self.input_grads = [None] * len(self.inputs)

    def _index(self, names, key, what):
        if isinstance(key, int):
            return key
        if key not in names:
            raise KeyError(f"{self.op.name}: no {what} named {key!r}; expected one of {names}")
        return names.index(key)

    def input(self, key):
        """An input by name or position."""
        return self.inputs[self._index([i.name for i in self.op.inputs], key, "input")]

    def output(self, key):
        """An output by name or position."""
        return self.outputs[self._index(list(self.op.outputs), key, "output")]

    def output_grad(self, key):
        """The gradient of an output (None where nothing flows back into it)."""
        return self.output_grads[self._index(list(self.op.outputs), key, "output")]

    def bind_input_grad(self, key, grad):
        """Make ``grad`` the gradient of an input (a list of them for a variadic input)."""
        self.input_grads[self._index([i.name for i in self.op.inputs], key, "input")] = grad


def register_grad_conf(op_name):
    """Decorator: make ``conf(ctx)`` the grad-op conf generator of ``op_name``, in place
    of the one derived from its eager grad function.

    >>> @minflow.graph.register_grad_conf("nonzero")
    ... def conf(ctx):
    ...     pass
    Traceback (most recent call last):
    ...
    ValueError: register_grad_conf('nonzero'): op has the no_grad trait
    """
    def decorator(conf):
        op = get_op(op_name)
        if not op.differentiable:
            raise ValueError(f"register_grad_conf({op_name!r}): op has the no_grad trait")
        if op_name in _CONFS:
            raise ValueError(f"register_grad_conf({op_name!r}): a generator is already "
                             f"registered ({_CONFS[op_name].__qualname__})")
        _CONFS[op_name] = conf
        return conf
    return decorator


def grad_conf_of(op):
    """The generator of ``op``: registered, else derived from its eager grad, else None."""
    conf = _CONFS.get(op.name)
    if conf is None and op.grad is not None:
        return eager_conf
    return conf


def eager_conf(ctx):
    """The generator derived from ``ctx.op``'s eager GradFunction: its capture runs on the
    lazy forward tensors and its apply (written with minflow ops) on the lazy output grads,
    as the eager engine calls them, so apply's ops become the grad ops."""
    fn = ctx.op.grad
    out_meta = tuple((v.shape, v.dtype, v.device) for v in ctx.node.outputs)
    node = Node(fn, ctx.op.name, (), out_meta)     # held here: a context refers to it weakly
    gctx = node.ctx = GradContext(node, ctx.needs_input_grad, ctx.outputs)
    fn.capture(gctx, ctx.inputs, ctx.outputs, dict(ctx.attrs))
    gctx._outputs = None
    grads = list(ctx.output_grads)
    if len(grads) > 1 and gctx.materialize_grads:
        for nr, (shape, dtype, device) in enumerate(out_meta):
            if grads[nr] is None and dtype.is_floating_point:
                grads[nr] = F.zeros(shape, dtype=dtype, device=device)
    result = fn.apply(gctx, *grads)
    for i, grad in enumerate(_per_input(result, ctx.inputs, ctx.op.name)):
        ctx.bind_input_grad(i, grad)


def _per_input(result, inputs, name):
    """apply's result (as the eager engine reads it: lists flattened) split per input."""
    if result.__class__ is not tuple:
        result = (result,)
    flat = [g for item in result for g in (item if isinstance(item, list) else (item,))]
    sizes = [len(x) if isinstance(x, (list, tuple)) else 1 for x in inputs]
    if len(flat) != sum(sizes):
        raise RuntimeError(f"{name}: the eager grad function returned {len(flat)} gradients, "
                           f"expected {sum(sizes)} (one per input)")
    out, start = [], 0
    for x, n in zip(inputs, sizes):
        out.append(flat[start:start + n] if isinstance(x, (list, tuple)) else flat[start])
        start += n
    return out

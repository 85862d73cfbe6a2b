"""Activation checkpointing, as torch.utils.checkpoint: keep only a segment's inputs and
outputs after its forward, and run the forward again in backward to get what the
gradients need. Trades compute for memory.

use_reentrant=False (recommended, as torch): the forward runs with grad enabled; then the
tape nodes the segment made are dropped (and with them every tensor they saved) and
replaced by one node whose edges are the segment's boundary: the inputs, the parameters
and any outside tensor it used. In backward that node re-runs the forward, backpropagates
through the fresh nodes down to the boundary only (``engine._run``'s ``stop_seq``) and
hands the boundary's grads on, so ``backward`` and ``autograd.grad`` behave as without
checkpointing.

use_reentrant=True: the forward runs under no_grad inside a custom Function; its backward
re-runs the forward and calls ``autograd.backward`` on it, which accumulates the
parameters' ``.grad`` directly (so ``autograd.grad`` through it is refused, as torch).

preserve_rng_state (default True): the recomputation sees the random state the forward
saw, so dropout draws the same mask.

Inside nn.Graph (lazy tracing) the function is traced once, as without checkpointing:
the compiled plan's memory planner decides what stays alive.
"""
import contextlib
import warnings

from ..autograd import engine
from ..autograd.function import Function, _alias
from ..autograd.node import AccumulateGrad, GradFunction, Node, _next_seq
from ..core import random as mf_random
from ..core.grad_mode import enable_grad, state as grad_state
from ..core.tensor import Tensor
from ..graph.lazy import current_graph

__all__ = ["checkpoint", "checkpoint_sequential"]


def _generators():
    return [mf_random.default_generator] + list(mf_random._cuda_generator)


def _rng_states(args):
    """The states of the default generators, the cuda one made first when an input is on
    cuda (so that it is saved even before its first use)."""
    for a in args:
        if isinstance(a, Tensor) and a.device.type == "cuda":
            mf_random.generator_for(None, a.device)
    return [g.get_state() for g in _generators()]


@contextlib.contextmanager
def _rng_fork(states):
    """Run the block from the random ``states`` (None: as is), then restore the current
    ones, so the recomputation neither changes nor is changed by the rest of the run."""
    if states is None:
        yield
        return
    generators = _generators()
    current = [g.get_state() for g in generators]
    try:
        for g, saved in zip(generators, states):
            g.set_state(saved)
        yield
    finally:
        for g, now in zip(generators, current):
            g.set_state(now)


def _tensors_of(value):
    """The tensors in a (nested tuple / list / dict) result, in order."""
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for item in value for t in _tensors_of(item)]
    if isinstance(value, dict):
        return [t for item in value.values() for t in _tensors_of(item)]
    return []


def _replace_tensors(value, new):
    """``value`` with its tensors replaced, in order, by the iterator ``new``'s."""
    if isinstance(value, Tensor):
        return next(new)
    if isinstance(value, (tuple, list)):
        items = [_replace_tensors(item, new) for item in value]
        return type(value)(items) if isinstance(value, list) else tuple(items)
    if isinstance(value, dict):
        return {k: _replace_tensors(item, new) for k, item in value.items()}
    return value


def _boundary(outputs, start):
    """The nodes made since ``start`` (reachable from ``outputs``), and the edges from
    them to nodes made before, or to leaves: what the segment's gradients flow out to."""
    inside, stack, edges = {}, [], {}
    for out in outputs:
        node = out.grad_fn
        if node is not None and node.seq > start and id(node) not in inside:
            inside[id(node)] = node
            stack.append(node)
    while stack:
        for edge in stack.pop().next_edges:
            if edge is None:
                continue
            child = edge[0]
            if child.__class__ is AccumulateGrad or child.seq < start:
                edges.setdefault((id(child), edge[1]), edge)
            elif id(child) not in inside:
                inside[id(child)] = child
                stack.append(child)
    return list(inside.values()), list(edges.values())


class _CheckpointGrad(GradFunction):
    """Backward of a checkpointed segment: recompute, then backpropagate to its boundary."""

    def node_name(self, ctx):
        return "CheckpointBackward"

    def apply(self, ctx, *grad_outs):
        if ctx.function is None:
            raise RuntimeError("CheckpointBackward: Trying to backward through the graph a "
                               "second time (the checkpointed inputs have been freed). "
                               "Specify retain_graph=True if you need to backward a second "
                               "time.")
        create_graph = grad_state.grad_enabled
        with _rng_fork(ctx.rng_states), enable_grad():
            start = _next_seq()
            recomputed = _tensors_of(ctx.function(*ctx.args, **ctx.kwargs))
        outputs = [recomputed[i] if i < len(recomputed) else None for i in ctx.positions]
        _check_same(outputs, ctx.out_meta)
        roots = [(out.grad_fn, out._output_nr, g) for out, g in zip(outputs, grad_outs)
                 if g is not None and out.grad_fn is not None]
        keys = [(id(node), nr) for node, nr in ctx.boundary]
        captures = {key: [None] for key in keys}
        engine._run(roots, False, create_graph, captures, stop_seq=start)
        return tuple(captures[key][0] for key in keys)


def _check_same(outputs, out_meta):
    for i, (out, (shape, dtype, _)) in enumerate(zip(outputs, out_meta)):
        if out is None or out._data.shape != shape or out.dtype is not dtype:
            got = "nothing" if out is None else f"{out.dtype.name}{list(out.shape)}"
            raise RuntimeError(f"checkpoint: the recomputed forward gave {got} for output {i}, "
                               f"the original forward {dtype.name}{list(shape)}; the function "
                               f"must compute the same thing when run again")


def _checkpoint_without_reentrant(function, preserve, args, kwargs):
    rng_states = _rng_states(args) if preserve else None
    start = _next_seq()
    result = function(*args, **kwargs)
    tensors = _tensors_of(result)
    positions = [i for i, t in enumerate(tensors)
                 if t.grad_fn is not None and t.grad_fn.seq > start]
    if not positions:
        return result
    outputs = [tensors[i] for i in positions]
    inside, boundary = _boundary(outputs, start)
    for dropped in inside:
        # NOTE: a node and its context refer to each other; freeing the saved tensors now,
        # rather than when the cyclic GC gets to the pair, is the memory checkpoint saves
        dropped.release()
    node = Node(_CheckpointGrad(), "checkpoint", tuple(boundary),
                tuple((t._data.shape, t.dtype, t.device) for t in outputs))
    node.ctx = _CheckpointContext(node, function, args, kwargs, rng_states, positions)
    replaced = list(tensors)
    for nr, i in enumerate(positions):
        out = replaced[i] = _alias(tensors[i])
        out._requires_grad, out._grad_fn, out._output_nr = True, node, nr
    return _replace_tensors(result, iter(replaced))


class _CheckpointContext:
    """What the checkpoint node keeps: the function and its inputs, the random state, which
    outputs it produced, and its boundary edges."""

    materialize_grads = False

    def __init__(self, node, function, args, kwargs, rng_states, positions):
        self.function, self.args, self.kwargs = function, args, kwargs
        self.rng_states, self.positions = rng_states, positions
        self.boundary, self.out_meta = node.next_edges, node.out_meta

    def release(self):
        self.function = self.args = self.kwargs = None


class CheckpointFunction(Function):
    """use_reentrant=True: forward under no_grad; backward recomputes and calls backward."""

    @staticmethod
    def forward(ctx, function, preserve, *args):
        ctx.function, ctx.rng_states = function, (_rng_states(args) if preserve else None)
        ctx.inputs = args
        return function(*args)

    @staticmethod
    def backward(ctx, *grad_outs):
        from ..autograd import backward
        inputs = [a.detach().requires_grad_(a.requires_grad) if isinstance(a, Tensor) else a
                  for a in ctx.inputs]
        with _rng_fork(ctx.rng_states), enable_grad():
            outputs = ctx.function(*inputs)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grad_outs)
                 if isinstance(o, Tensor) and o.requires_grad and g is not None]
        if pairs:
            backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(a.grad if isinstance(a, Tensor) else None for a in inputs)


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default",
               debug=False, early_stop=True, **kwargs):
    """``function(*args, **kwargs)``, keeping for backward only its inputs (see the module
    docstring): the forward runs again during backward. Grads equal those without
    checkpointing. ``preserve_rng_state=False`` (a keyword) skips saving the random state.
    Pass ``use_reentrant`` explicitly (False is recommended); left out it warns and is
    True, as torch.

    >>> layer = minflow.nn.Linear(4, 4)
    >>> x = minflow.randn(2, 4, requires_grad=True)
    >>> y = minflow.utils.checkpoint.checkpoint(layer, x, use_reentrant=False)
    >>> y.sum().backward()
    >>> bool(minflow.allclose(x.grad, layer.weight.sum(0).expand(2, 4)))
    True
    """
    if use_reentrant is None:
        warnings.warn("minflow.utils.checkpoint: the use_reentrant parameter should be passed "
                      "explicitly. use_reentrant=False is recommended; left out, it is True.",
                      stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if determinism_check not in ("default", "none"):
        raise ValueError(f"checkpoint: determinism_check should be 'default' or 'none', got "
                         f"{determinism_check!r}")
    if context_fn is not None or debug:
        raise ValueError("checkpoint: `context_fn` and `debug` are not supported by minflow's "
                         "checkpoint")
    if use_reentrant and kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if current_graph() is not None or not grad_state.grad_enabled:
        return function(*args, **kwargs)        # nothing is kept for backward anyway
    if use_reentrant:
        if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                          stacklevel=2)
        return CheckpointFunction.apply(function, preserve, *args)
    return _checkpoint_without_reentrant(function, preserve, args, kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run ``functions`` (a Sequential or a list of modules) in order on ``input``, split
    into ``segments`` chunks, each checkpointed but the last.

    >>> model = minflow.nn.Sequential(*[minflow.nn.Linear(3, 3) for _ in range(4)])
    >>> x = minflow.randn(2, 3, requires_grad=True)
    >>> out = minflow.utils.checkpoint.checkpoint_sequential(model, 2, x, use_reentrant=False)
    >>> bool(minflow.allclose(out, model(x)))
    True
    """
    if use_reentrant is None:
        warnings.warn("minflow.utils.checkpoint.checkpoint_sequential: the use_reentrant "
                      "parameter should be passed explicitly. use_reentrant=False is "
                      "recommended; left out, it is True.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    from ..nn.modules.container import Sequential
    if isinstance(functions, Sequential):
        functions = list(functions.children())

    def run(start, end):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x
        return forward

    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1)(input)

"""The tape: grad functions registered per op, and the nodes recorded as ops run.

A ``GradFunction`` has three steps, as OneFlow's OpExprGradFunction:
  init(op)                                   once, when registered for an op
  capture(ctx, inputs, outputs, attrs)       each forward call: save what backward needs
  apply(ctx, *grad_outs) -> grads of inputs  in backward, computed with minflow ops,
                                             so backward is itself differentiable

NOTE: ``record`` runs once per differentiable op call under grad; it allocates a Node,
a GradContext and a few tuples, nothing more.
"""
import itertools
import sys
import weakref

from ..core.tensor import Tensor
from ..ops.registry import get_op

__all__ = ["GradFunction", "register_grad", "GradContext", "Node", "record", "custom_node",
           "backward_name"]


def backward_name(op_name):
    """torch's name for the grad_fn of an op: "log_softmax" -> "LogSoftmaxBackward0"
    (a namespaced user op "myns.leaky_relu" -> "MynsLeakyReluBackward0")."""
    return "".join(p.capitalize() for p in op_name.replace(".", "_").split("_")) + "Backward0"


class GradFunction:
    """Base class of per-op backward rules; see the module docstring.

    >>> import minflow.library as L
    >>> _ = L.define_op("doc.square", ["input"], infer=lambda x: (x.shape, x.dtype))
    >>> _ = L.register_kernel("doc.square", ("cpu", "cuda"), L.FLOATS)(lambda xp, x: x * x)
    >>> @L.register_grad("doc.square")
    ... class SquareGrad(L.GradFunction):
    ...     def capture(self, ctx, inputs, outputs, attrs):
    ...         ctx.save_for_backward(inputs[0])        # exactly what apply needs
    ...     def apply(self, ctx, grad_out):
    ...         (x,) = ctx.saved_tensors
    ...         return grad_out * 2 * x                 # minflow ops: differentiable again
    >>> x = minflow.tensor([3.0], requires_grad=True)
    >>> L.call("doc.square", x).backward()
    >>> x.grad
    tensor([6.])
    >>> L.unload("doc")
    """

    variadic = False    # the op has a variadic input, whose grads apply returns as a list

    def init(self, op):
        self.op = op
        self.variadic = any(i.variadic for i in op.inputs)

    def node_name(self, ctx):
        """The name of this function's nodes (``y.grad_fn``). Override where torch's name
        differs from ``backward_name(op)``, e.g. by overload: "SumBackward1" for sum(dim)."""
        return backward_name(self.op.name)

    def capture(self, ctx, inputs, outputs, attrs):
        raise NotImplementedError

    def apply(self, ctx, *grad_outs):
        raise NotImplementedError


def register_grad(op_name):
    """Class decorator: make ``cls()`` the grad function of ``op_name``.

    >>> minflow.library.register_grad("exp")(minflow.library.GradFunction)
    Traceback (most recent call last):
    ...
    ValueError: register_grad('exp'): a grad function is already registered (ExpGrad)
    """
    def decorator(cls):
        op = get_op(op_name)
        if not op.differentiable:
            raise ValueError(f"register_grad({op_name!r}): op has the no_grad trait")
        if op.grad is not None:
            raise ValueError(f"register_grad({op_name!r}): a grad function is already "
                             f"registered ({type(op.grad).__name__})")
        fn = cls()
        fn.init(op)
        op.grad = fn
        return cls
    return decorator


class GradContext:
    """Per-call state a grad function's capture fills and its apply reads.

    Grad functions may keep anything else on it too (``ctx.shapes = ...``).
    """

    __slots__ = ("_node", "_outputs", "_saved", "_released", "needs_input_grad", "__dict__")
    materialize_grads = True      # output grads that were not computed arrive as zeros

    def __init__(self, node, needs_input_grad, outputs):
        # NOTE: weak: node.ctx is this context, and a strong pair would be a cycle that only
        # the cyclic GC frees, keeping the saved tensors of a graph that is never
        # backpropagated alive long after its output is gone
        self._node = weakref.ref(node)
        self._outputs = outputs
        self._saved = ()
        self._released = False
        self.needs_input_grad = needs_input_grad

    def save_for_backward(self, *tensors):
        """Save tensors (or None) for apply; in-place changes to them are detected.

        Each entry is (tensor, version counter, its value now, -1), or for an output of
        this node (array, counter, value, output number). Under saved_tensors_hooks
        (autograd.graph) it is (what pack_hook made of the tensor, counter, value, output
        number or -1, unpack_hook).
        """
        saved = []
        outputs = self._outputs
        hooks = saved_tensors_hooks_stack[-1] if saved_tensors_hooks_stack else None
        for t in tensors:
            if t is None:
                saved.append(None)
                continue
            counter = t._version
            if counter is None:
                counter = t._version = [0]        # views and in-place ops bump it
            nr = -1
            for i, out in enumerate(outputs):
                if out is t:
                    nr = i
                    break
            if hooks is not None:
                saved.append((hooks[0](t), counter, counter[0], nr, hooks[1]))
                continue
            # NOTE: an output keeps its node alive through grad_fn; saving it as is would
            # make a cycle node -> ctx -> output -> node, freed only by the cyclic GC.
            # Keep its array instead and re-wrap it on unpack.
            saved.append((t if nr < 0 else t._data, counter, counter[0], nr))
        self._saved = saved

    @property
    def saved_tensors(self):
        if self._released:
            raise RuntimeError(
                f"{self._node().name()}: Trying to backward through the graph a second time "
                f"(or directly access saved tensors after they have already been freed). "
                f"Specify retain_graph=True if you need to backward a second time.")
        result = []
        for entry in self._saved:
            if entry is None:
                result.append(None)
                continue
            unpack = None
            if len(entry) == 4:
                t, counter, version, nr = entry
            else:
                t, counter, version, nr, unpack = entry
            if counter[0] != version:
                self._modified(counter[0], version, nr)
            if unpack is not None:
                t = _unpacked(unpack(t), self._node(), nr)
            elif nr >= 0:
                _, dtype, device = self._node().out_meta[nr]
                t = Tensor._make(t, dtype, device)
                t._version = counter
                if dtype.is_differentiable:
                    t._requires_grad, t._grad_fn, t._output_nr = True, self._node(), nr
            result.append(t)
        return tuple(result)

    def _modified(self, now, version, nr):
        what = f"output {nr}" if nr >= 0 else "an input"
        raise RuntimeError(
            f"one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: {what} of {self._node().name()} (op '{self._node().op_name}') "
            f"is at version {now}; expected version {version} instead")

    def release(self):
        if self._saved:
            self._released = True
            self._saved = ()


# (pack_hook, unpack_hook) pairs of the active autograd.graph.saved_tensors_hooks, innermost last
saved_tensors_hooks_stack = []


def _unpacked(t, node, nr):
    """What an unpack hook returned for a saved tensor: a Tensor; an output of ``node``
    gets its place in the graph back (for double backward), as the original had."""
    if not isinstance(t, Tensor):
        raise TypeError(f"{node.name()}: the unpack hook of saved_tensors_hooks must return a "
                        f"Tensor, got {type(t).__name__}")
    if nr >= 0 and t._grad_fn is not node and t.dtype.is_differentiable:
        t = Tensor._make(t._data, t.dtype, t.device)
        t._requires_grad, t._grad_fn, t._output_nr = True, node, nr
    return t


# NOTE: an op can only take inputs made before it, so a node's sequence number is above
# those of all nodes it sends gradients to: the engine runs nodes highest first, with no
# dependency counting pass (as PyTorch's sequence_nr).
_sequence = itertools.count()
_next_seq = _sequence.__next__


class Node:
    """One recorded op in the tape: its grad function, context and edges to its inputs.

    An edge is (node, output number) of the input's producer, or None where the input
    needs no gradient.
    """

    __slots__ = ("fn", "ctx", "next_edges", "op_name", "out_meta", "hooks", "retained",
                 "source", "seq", "__weakref__")

    def __init__(self, fn, op_name, next_edges, out_meta):
        self.fn = fn
        self.op_name = op_name
        self.next_edges = next_edges
        self.out_meta = out_meta      # (shape, dtype, device) per output, for zero grads
        self.ctx = None
        self.hooks = None             # {output_nr: [hook, ...]}
        self.retained = None          # {output_nr: weakref to tensor}
        self.source = None            # user's source line, under detect_anomaly
        self.seq = _next_seq()

    def name(self):
        return self.fn.node_name(self.ctx)

    @property
    def next_functions(self):
        """((node, output number), ...) of this node's inputs, as torch's: the producers'
        nodes (AccumulateGrad at leaves), (None, 0) where an input needs no grad."""
        return tuple((None, 0) if edge is None else edge for edge in self.next_edges)

    def __repr__(self):
        return f"<{self.name()}>"

    def register_hook(self, output_nr, hook):
        from ..core.tensor_autograd import _HookHandle
        if self.hooks is None:
            self.hooks = {}
        return _HookHandle(self.hooks.setdefault(output_nr, []), hook)

    def retain_grad(self, tensor):
        if self.retained is None:
            self.retained = {}
        self.retained[tensor._output_nr] = weakref.ref(tensor)

    def retains(self, tensor):
        return bool(self.retained) and tensor._output_nr in self.retained

    def release(self):
        if self.ctx is not None:
            self.ctx.release()


class AccumulateGrad:
    """The node at a leaf: accumulates into ``leaf.grad`` after the leaf's hooks, then
    calls its post-accumulate hooks with the leaf.

    One per leaf tensor (kept on the tensor), so a leaf used twice gets one summed grad.
    """

    __slots__ = ("leaf_ref", "hooks", "post_hooks", "out_meta", "seq", "__weakref__")
    next_edges = ()
    op_name = "accumulate_grad"
    retained = source = None

    def __init__(self, leaf):
        self.leaf_ref = weakref.ref(leaf)
        self.hooks = self.post_hooks = None
        self.out_meta = ((leaf._data.shape, leaf.dtype, leaf.device),)
        self.seq = next(_sequence)    # made before the first node that uses the leaf

    def name(self):
        return "AccumulateGrad"

    next_functions = ()

    @property
    def variable(self):
        """The leaf tensor this node accumulates into."""
        return self.leaf_ref()

    register_hook = Node.register_hook

    def register_post_hook(self, hook):
        from ..core.tensor_autograd import _HookHandle
        if self.post_hooks is None:
            self.post_hooks = []
        return _HookHandle(self.post_hooks, hook)

    def run_post_hooks(self, leaf):
        """Call each post-accumulate hook with the leaf. As torch, a hook returns None (or
        the leaf itself); anything else is an error."""
        for hook in list(self.post_hooks):
            result = hook(leaf)
            if result is None or result is leaf:
                continue
            if not hasattr(result, "_data"):
                raise TypeError(f"expected Tensor, but hook returned "
                                f"'{type(result).__name__}'")
            if result.shape != leaf.shape:
                raise RuntimeError(f"hook '{getattr(hook, '__name__', hook)}' has changed "
                                   f"the size of value")
            raise RuntimeError("Tensor post accumulate grad hooks should return None.")

    def release(self):
        pass


def grad_accumulator(leaf):
    """The leaf's AccumulateGrad node, made on first need."""
    acc = leaf._grad_acc
    if acc is None:
        acc = leaf._grad_acc = AccumulateGrad(leaf)
    return acc


def _edge(t):
    if not t._requires_grad:
        return None
    producer = t.grad_fn
    if producer is None:
        return (t._grad_acc or grad_accumulator(t), 0)
    return (producer, t._output_nr)


def record(op, inputs, attrs, outputs):
    """Add a node for ``op`` to the tape: called by the eager interpreter."""
    fn = op.grad
    if fn is None:
        raise RuntimeError(f"{op.name}: no grad function is registered for this "
                           f"differentiable op, so it cannot be used on tensors that require "
                           f"grad (register one with minflow.autograd.register_grad)")
    edges, needs = [], []
    for x in inputs:
        if isinstance(x, Tensor) and x._requires_grad:
            # NOTE: _edge(x) inlined: this loop runs for every input of every recorded op.
            # Only a view's grad_fn can be out of date (Tensor.grad_fn refreshes it).
            producer = x._grad_fn if x._base is None else x.grad_fn
            edges.append((producer, x._output_nr) if producer is not None
                         else (x._grad_acc or grad_accumulator(x), 0))
            needs.append(True)
        elif isinstance(x, (list, tuple)):
            sub = [_edge(y) if isinstance(y, Tensor) else None for y in x]
            edges.extend(sub)
            needs.append(tuple(e is not None for e in sub))
        else:
            edges.append(None)
            needs.append(False)
    if len(outputs) == 1:
        out = outputs[0]
        node = Node(fn, op.name, tuple(edges), ((out._data.shape, out.dtype, out.device),))
        ctx = node.ctx = GradContext(node, tuple(needs), outputs)
        fn.capture(ctx, inputs, outputs, attrs)
        ctx._outputs = None
        if out.dtype.is_differentiable:
            out._requires_grad = True
            out._grad_fn = node         # _output_nr stays 0
    else:
        node = Node(fn, op.name, tuple(edges),
                    tuple([(o._data.shape, o.dtype, o.device) for o in outputs]))
        ctx = node.ctx = GradContext(node, tuple(needs), outputs)
        fn.capture(ctx, inputs, outputs, attrs)
        ctx._outputs = None
        for nr, out in enumerate(outputs):
            if out.dtype.is_differentiable:
                out._requires_grad = True
                out._grad_fn, out._output_nr = node, nr
    if _anomaly[0]:
        node.source = user_source_line()
    return node


def custom_node(fn, op_name, edges, out_meta):
    """A node made by hand rather than by ``record`` (in-place ops on views): ``fn`` is a
    GradFunction, ``edges`` one per input, None where no grad is needed. Grad functions
    keep what they need on ``node.ctx``."""
    node = Node(fn, op_name, tuple(edges), out_meta)
    node.ctx = GradContext(node, tuple(e is not None for e in edges), ())
    if _anomaly[0]:
        node.source = user_source_line()
    return node


_anomaly = [False, False]       # anomaly mode on (record source lines); check for NaN/Inf


def user_source_line():
    """``file:line`` of the innermost frame outside the minflow package."""
    import os
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame = sys._getframe(1)
    while frame is not None and (frame.f_code.co_filename.startswith("<minflow.")
                                 or os.path.abspath(frame.f_code.co_filename).startswith(pkg)):
        frame = frame.f_back
    if frame is None:
        return "<unknown>"
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"

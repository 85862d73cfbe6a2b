"""The backward engine: walks the tape from the roots, each node after all its consumers.

Nodes run in decreasing sequence number (a node is always made after the nodes of its
inputs), so a node runs once every node that feeds it gradients has run. Gradients
arriving at one output are summed; leaf nodes accumulate into ``.grad``;
``autograd.grad`` captures gradients instead.
"""
import sys
import warnings
from heapq import heappop, heappush

import numpy as np

from ..core.device import to_numpy
from ..core.dispatch import observer
from ..core.namespace import F
from ..core.autocast import suspended as autocast_suspended
from ..core.grad_mode import set_grad_enabled
from ..core.tensor import Tensor
from .node import AccumulateGrad, _anomaly, grad_accumulator

__all__ = ["backward", "grad"]


def _as_tuple(x, where, argument):
    """A Tensor as a 1-tuple, any other iterable (a list, a generator such as
    ``model.parameters()``, ``dict.values()``) as a tuple, as torch takes them."""
    if x is None:
        return ()
    if isinstance(x, Tensor):
        return (x,)
    try:
        return tuple(x)
    except TypeError:
        raise TypeError(f"{where}: expected {argument} to be a Tensor or an iterable of "
                        f"Tensors, got {type(x).__name__}") from None


def _root_grads(outputs, grad_outputs, where):
    grads = _as_tuple(grad_outputs, where, "the gradients") or (None,) * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(f"{where}: got {len(grads)} gradients for {len(outputs)} outputs")
    roots = []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if not isinstance(out, Tensor):
            raise TypeError(f"{where}: expected outputs[{i}] to be a Tensor, got "
                            f"{type(out).__name__}")
        if not out._requires_grad:
            raise RuntimeError(f"{where}: element {i} of tensors does not require grad and "
                               f"does not have a grad_fn")
        if g is None:
            if out.numel() != 1:
                raise RuntimeError(f"{where}: grad can be implicitly created only for scalar "
                                   f"outputs; got shape {list(out.shape)}, pass gradient=")
            if out.dtype.is_complex:
                raise RuntimeError(f"{where}: grad can be implicitly created only for real "
                                   f"scalar outputs; got dtype {out.dtype.name}")
            g = _ones_like(out)
        elif not isinstance(g, Tensor):
            raise TypeError(f"{where}: expected gradient[{i}] to be a Tensor, got "
                            f"{type(g).__name__}")
        elif tuple(g.shape) != tuple(out.shape):
            raise RuntimeError(f"{where}: mismatch in shape: gradient[{i}] has shape "
                               f"{list(g.shape)} and output[{i}] has shape {list(out.shape)}")
        roots.append((_node_of(out), out._output_nr, g))
    return roots


def _ones_like(t):
    """The implicit gradient of a scalar output: made directly on cpu (every backward
    call makes one), through the dispatcher elsewhere."""
    if t.device.type == "cpu":
        return Tensor._make(np.ones(t._data.shape, t.dtype.np), t.dtype, t.device)
    return F.ones_like(t)


def _node_of(t):
    node = t.grad_fn
    return node if node is not None else grad_accumulator(t)


def _run(roots, retain_graph, create_graph, captures=None, stop_seq=-1):
    """Execute the graph. With ``captures`` ({(id(node), nr): [grad]}), fill those slots
    and leave ``.grad`` alone, as ``autograd.grad`` does. Nodes made before ``stop_seq``
    only have their grads captured, not run (checkpoint's recomputed region ends there).

    ``pending`` maps each node due to run to its gradient slots, one per output;
    ``ready`` is a heap of (-sequence number, node), so the newest node runs first.
    """
    pending, ready = {}, []
    for node, nr, g in roots:
        _accumulate(pending, ready, node, nr, g)
    with set_grad_enabled(create_graph), autocast_suspended():
        while ready:
            node = heappop(ready)[1]
            grads = pending.pop(node)
            if node.seq < stop_seq:
                _capture(node, grads, captures)
                continue
            if grads[0] is None and _all_none(grads):
                # nothing flows through: still visit (and release) what lies below
                grads_in = (None,) * len(node.next_edges)
            else:
                if node.hooks or node.retained or captures is not None:
                    _pre_hooks(node, grads, captures, create_graph)
                if node.__class__ is AccumulateGrad:
                    if captures is None:
                        _accumulate_leaf(node.leaf_ref(), *_take_grad(grads), create_graph)
                    continue
                grads_in = (_apply(node, grads) if observer[0] is None
                            else _profiled_apply(node, grads))
            _route(node, grads_in, pending, ready)
            grads_in = None             # the grads live on in their slots only: _take_grad
            if not retain_graph:
                node.release()


def _all_none(grads):
    # NOTE: not `grads.count(None)`: that compares with ==, which is elementwise on tensors
    for g in grads:
        if g is not None:
            return False
    return True


def _accumulate(pending, ready, node, nr, g):
    """Add ``g`` to slot ``nr`` of ``node``, marking the node due to run."""
    slots = pending.get(node)
    if slots is None:
        slots = pending[node] = [None] * len(node.out_meta)
        heappush(ready, (-node.seq, node))
    slots[nr] = g if slots[nr] is None else slots[nr] + g


def _pre_hooks(node, grads, captures, create_graph):
    if node.hooks:
        for nr, hooks in node.hooks.items():
            if grads[nr] is not None:
                for hook in list(hooks):
                    new = hook(grads[nr])
                    if new is not None:
                        grads[nr] = new
    if node.retained:
        for nr, ref in node.retained.items():
            t = ref()
            if t is not None and grads[nr] is not None:
                t.grad = grads[nr] if create_graph else grads[nr].detach()
    if captures is not None:
        _capture(node, grads, captures)


def _capture(node, grads, captures):
    for nr, g in enumerate(grads):
        slot = captures.get((id(node), nr))
        if slot is not None:
            slot[0] = g


def _profiled_apply(node, grads):
    """_apply inside a minflow.profiler span named after the node."""
    with observer[0].span(f"autograd::engine::evaluate_function: {node.name()}"):
        return _apply(node, grads)


def _apply(node, grads):
    """Run the node's grad function: its input grads, one per edge."""
    try:
        if len(grads) == 1:
            result = node.fn.apply(node.ctx, *grads)
        else:
            if node.ctx.materialize_grads:
                for nr, (shape, dtype, device) in enumerate(node.out_meta):
                    if grads[nr] is None and dtype.is_differentiable:
                        grads[nr] = F.zeros(shape, dtype=dtype, device=device)
            result = node.fn.apply(node.ctx, *grads)
    except Exception:
        if _anomaly[0]:     # as torch: say which forward call made the failing node
            warnings.warn(f"Error detected in {node.name()}: the forward op '{node.op_name}' "
                          f"was created at {node.source or '<unknown source>'}")
        raise
    if result.__class__ is not tuple:
        result = (result,)
    if node.fn.variadic:                    # a variadic input's grads come as a list
        result = [g for item in result for g in (item if type(item) is list else (item,))]
    if len(result) != len(node.next_edges):
        raise RuntimeError(f"{node.name()}: apply returned {len(result)} gradients, expected "
                           f"{len(node.next_edges)} (one per input)")
    if _anomaly[1]:
        _check_finite(node, result)
    return result


def _route(node, grads_in, pending, ready):
    """Send each input grad along its edge, checked against the producer's output.

    A None grad still marks the producer due to run, so that it is visited and released.
    """
    for edge, g in zip(node.next_edges, grads_in):
        if edge is None:
            continue
        child, nr = edge
        if g is not None:
            meta = child.out_meta[nr]
            if g._data.shape != meta[0]:
                _invalid_grad(node, grads_in, g, meta[0])
            if g.dtype is not meta[1]:
                if g.dtype.is_complex and not meta[1].is_complex:
                    g = F.real(g)       # a real input of a complex op: the real part, as torch
                g = g.to(meta[1])
        # NOTE: _accumulate inlined: this runs once per edge of the graph
        slots = pending.get(child)
        if slots is None:
            slots = pending[child] = [None] * len(child.out_meta)
            heappush(ready, (-child.seq, child))
        if g is not None:
            slots[nr] = g if slots[nr] is None else slots[nr] + g


def _invalid_grad(node, grads_in, g, shape):
    i = [x is g for x in grads_in].index(True)
    raise RuntimeError(f"{node.name()} returned an invalid gradient at index {i}: got shape "
                       f"{list(g.shape)} but expected shape {list(shape)}")


def _check_finite(node, grads):
    for i, g in enumerate(grads):
        if g is None or not g.dtype.is_differentiable or g.device.type == "meta":
            continue
        if not bool(to_numpy(F.isfinite(g.detach())._data).all()):
            raise RuntimeError(f"Function '{node.name()}' returned nan or inf values in its "
                               f"{i}th output; the forward op '{node.op_name}' was created at "
                               f"{node.source or '<unknown source>'}")


def _take_grad(slots):
    """A leaf's grad, taken out of its slot, and whether ``.grad`` may take it over as it
    is: nothing else refers to it or its array, and the array owns its memory, so no other
    tensor, view, saved tensor or hook's keepsake can see a change to it (as torch's
    AccumulateGrad steals a grad nobody else holds).

    NOTE: CPython refcounts: 2 is the local ``g`` (or ``g._data``) + getrefcount's argument.
    tests/core/test_autograd.py checks both ways (taken over; copied when shared).
    """
    g = slots[0]
    slots[0] = None
    sole = (g is not None and getattr(g._data, "base", True) is None
            and sys.getrefcount(g) <= 2 and sys.getrefcount(g._data) <= 2)
    return g, sole


def _accumulate_leaf(leaf, g, sole, create_graph):
    """Add ``g`` to ``leaf.grad``, then run the leaf's post-accumulate hooks. Outside
    create_graph, grad mode is off here: a copy has no grad_fn, and an existing ``.grad`` is
    added to in place, as torch does."""
    if leaf is None or g is None:
        return
    grad = leaf._grad
    if grad is None:
        # NOTE: the grad may share storage with other grads (add passes one tensor to
        # both inputs) or be an expand view; a copy, unless ``sole`` (see _take_grad),
        # keeps in-place changes to .grad local. Its shape was checked on its way here
        # (_route), so it skips the ``.grad`` setter's checks.
        leaf._grad = g if create_graph or sole else F.clone(g)
    elif create_graph:
        leaf.grad = grad + g
    else:
        grad.add_(g)
    acc = leaf._grad_acc
    if acc is not None and acc.post_hooks:
        acc.run_post_hooks(leaf)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Compute gradients of ``tensors`` and accumulate them into the leaves' ``.grad``.

    >>> w = minflow.tensor([1.0, 2.0], requires_grad=True)
    >>> minflow.autograd.backward([(w * w).sum()])
    >>> w.grad
    tensor([2., 4.])
    """
    outputs = _as_tuple(tensors, "backward", "tensors")
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is not None:
        inputs = _as_tuple(inputs, "backward", "inputs")
        if not inputs:
            raise RuntimeError("backward: the `inputs` argument cannot be empty")
        found = grad(outputs, inputs, grad_tensors, retain_graph, create_graph,
                     allow_unused=True)
        with set_grad_enabled(create_graph):
            for t, g in zip(inputs, found):
                _accumulate_leaf(t, g, False, create_graph)
        return
    _run(_root_grads(outputs, grad_tensors, "backward"), retain_graph, create_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False,
         materialize_grads=False):
    """Return d(outputs)/d(inputs) without touching ``.grad`` (as ``torch.autograd.grad``).

    An input the outputs do not depend on is an error, or gives None with
    ``allow_unused=True``, or zeros with ``materialize_grads=True``. With
    ``is_grads_batched``, the first dim of each grad_output indexes a batch of them, and
    each result gains that dim (a Jacobian from grad_outputs=eye(n)).

    >>> x = minflow.tensor([3.0], requires_grad=True)
    >>> minflow.autograd.grad((x * x).sum(), x)[0].tolist()
    [6.0]
    """
    allow_unused = _allow_unused(only_inputs, allow_unused, materialize_grads)
    outputs = _as_tuple(outputs, "autograd.grad", "outputs")
    inputs = _as_tuple(inputs, "autograd.grad", "inputs")
    if is_grads_batched:
        return _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph,
                             allow_unused, materialize_grads)
    if not inputs:
        raise RuntimeError("autograd.grad: the `inputs` argument cannot be empty")
    roots = _root_grads(outputs, grad_outputs, "autograd.grad")
    if retain_graph is None:
        retain_graph = create_graph
    captures, keys = {}, []
    for i, t in enumerate(inputs):
        if not isinstance(t, Tensor):
            raise RuntimeError(f"autograd.grad: expected inputs[{i}] to be a Tensor, got "
                               f"{type(t).__name__}")
        if not t._requires_grad:
            raise RuntimeError(f"autograd.grad: inputs[{i}] does not require grad")
        key = (id(_node_of(t)), t._output_nr)
        keys.append(key)
        captures.setdefault(key, [None])
    _run(roots, retain_graph, create_graph, captures)
    result = []
    for i, key in enumerate(keys):
        g = captures[key][0]
        if g is None and not allow_unused:
            raise RuntimeError(f"autograd.grad: One of the differentiated Tensors (inputs[{i}]) "
                               f"appears to not have been used in the graph. Set "
                               f"allow_unused=True if this is the desired behavior.")
        if g is None and materialize_grads:
            g = F.zeros_like(inputs[i], requires_grad=create_graph)
        result.append(g if g is None or create_graph else g.detach())
    return tuple(result)


def _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                  materialize_grads):
    """autograd.grad once per index of the grad_outputs' first dim, the results stacked
    (torch vmaps this; the values are the same)."""
    grads = _as_tuple(grad_outputs, "autograd.grad", "grad_outputs")
    for i, (g, out) in enumerate(zip(grads, outputs)):
        if not isinstance(g, Tensor) or tuple(g.shape[1:]) != tuple(out.shape):
            got = list(g.shape) if isinstance(g, Tensor) else type(g).__name__
            raise RuntimeError(f"autograd.grad: with is_grads_batched=True the first dim of "
                               f"each grad_output is the batch dim and the rest must match "
                               f"its output: grad_outputs[{i}] is {got}, outputs[{i}] has "
                               f"shape {list(out.shape)}")
    if len(grads) != len(outputs) or len({g.shape[0] for g in grads}) != 1:
        raise RuntimeError(f"autograd.grad: with is_grads_batched=True expected one "
                           f"grad_output per output, all of one batch size; got "
                           f"{[list(g.shape) for g in grads]} for {len(outputs)} outputs")
    size = grads[0].shape[0]
    keep = create_graph if retain_graph is None else retain_graph
    rows = [grad(outputs, inputs, [g[b] for g in grads], keep or b < size - 1, create_graph,
                 allow_unused=allow_unused, materialize_grads=materialize_grads)
            for b in range(size)]
    return tuple(None if row[0] is None else F.stack(row) for row in zip(*rows))


def _allow_unused(only_inputs, allow_unused, materialize_grads):
    """torch's checks of autograd.grad's options; the allow_unused that applies."""
    if materialize_grads and allow_unused is False:
        raise ValueError("autograd.grad: Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    if not only_inputs:
        warnings.warn("autograd.grad: only_inputs argument is deprecated and is ignored now "
                      "(defaults to True). To accumulate gradient for other parts of the "
                      "graph, please use minflow.autograd.backward.", FutureWarning, stacklevel=3)
    return materialize_grads if allow_unused is None else allow_unused

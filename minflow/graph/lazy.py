"""Lazy tracing: inside ``trace()`` every op call adds a node to a Graph instead of running.

The dispatcher resolves attrs and infers output shapes and dtypes as always, then hands
the op to the current interpreter; ``LazyInterpreter`` records a node (with the user's
source line) and returns lazy tensors: Tensors whose data is a ``LazyArray``, a
shape-only array that remembers its graph and Value. Real tensors used while tracing
(parameters, captured constants) become param / const Values by reference.

>>> with minflow.graph.trace() as g:
...     x = minflow.graph.placeholder(g, (2, 3), name="x")
...     y = (x * 2).sum(1)
...     minflow.graph.set_outputs(g, y)
>>> y.shape, type(y).__name__
(minflow.Size([2]), 'Tensor')
>>> [node.op for node in g.nodes]
['mul', 'sum']

Lazy tensors have no values: ``item()``, ``numpy()``, ``tolist()``, ``bool()`` and
``float()`` on one raise, naming what to do instead. In-place ops are traced out of
place: a lazy tensor then stands for the result, and a real tensor (a module buffer) is
written by the compiled plan at the end of each run (``Graph.write_back``).

>>> count = minflow.zeros(())
>>> with minflow.graph.trace() as g:
...     _ = count.add_(1)
>>> plan = minflow.graph.compile(g)
>>> _ = plan(); _ = plan()
>>> count.item()
2.0
"""
import contextlib

from ..autograd.node import user_source_line
from ..core import dtype as dtypes
from ..core.device import Device, MetaArray
from ..core.dispatch import Interpreter, current_interpreter, set_interpreter
from ..core.grad_mode import state as grad_state
from ..core.inplace import check_can_cast
from ..core.tensor import Tensor
from ..ops.registry import get_op
from .ir import Graph

__all__ = ["LazyArray", "LazyInterpreter", "trace", "tracing", "placeholder", "lazy_tensor",
           "value_of", "set_outputs", "trace_function", "is_lazy", "GraphBuildError"]

_CPU = Device("cpu")


class GraphBuildError(RuntimeError):
    """Something graph building cannot do: read values, mutate in place, mix graphs.

    >>> with minflow.graph.trace() as g:
    ...     x = minflow.graph.placeholder(g, (3,))
    ...     x.sum().item()                                   # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    minflow.graph.lazy.GraphBuildError: item: graph tensor %1 (float32[]) has no values ...
    """


class LazyArray(MetaArray):
    """The data of a lazy tensor: shape and dtype (as a meta array) plus its graph Value.

    numpy functions and conversions on it raise: it holds no values while the graph is built.

    >>> with minflow.graph.trace() as g:
    ...     x = minflow.graph.placeholder(g, (2, 3))
    ...     type(x._data).__name__, x._data.value, x.shape
    ('LazyArray', %0, minflow.Size([2, 3]))
    """

    __slots__ = ("graph", "value")
    is_lazy = True          # what the Tensor hooks check (Tensor.item, numpy, backward...)

    def __init__(self, graph, value):
        super().__init__(value.shape, value.dtype.np)
        self.graph, self.value = graph, value

    def error(self, where):
        """The error for ``where`` (e.g. "item", "numpy.copyto") needing values."""
        at = f" (at {user_source_line()})"
        head = f"{where}: graph tensor {self.value!r} ({self.value.type_str()})"
        if where == "out=" or where.endswith("_"):
            return GraphBuildError(
                f"{where}: out= cannot be traced{at}, and a graph tensor takes part in one "
                f"({self.value!r}: {self.value.type_str()}); use the returned tensor "
                f"(y = x.add(1)). In-place ops (x.add_(1)) are traced, but only while the "
                f"graph is built")
        if where.startswith("numpy."):
            return GraphBuildError(
                f"{head} has no values while its graph is being built{at}, and this op needs "
                f"them: ops whose output shape depends on the data (nonzero, masked_select, "
                f"x[bool_mask]) cannot be traced; use integer indices or "
                f"minflow.where(mask, x, 0) instead")
        return GraphBuildError(
            f"{head} has no values while its graph is being built{at}. Return it from the "
            f"graph to get its value when the compiled graph runs; for Python logic use "
            f"shapes (x.shape), and minflow.where instead of branching on tensor values")

    def __getattr__(self, name):
        # array methods (x.sum(), x.flags) reach here when an eager kernel gets a lazy tensor:
        # one used after its trace ended. An AttributeError still, so getattr defaults work.
        raise AttributeError(
            f"graph tensor {self.value!r} ({self.value.type_str()}) has no array attribute "
            f"{name!r}: lazy tensors have no values and only exist while their graph is "
            f"built; return it from the graph and run the compiled plan to get its value")

    def __array__(self, dtype=None, copy=None):
        raise self.error("numpy.asarray")

    def __array_function__(self, func, types, args, kwargs):
        # numpy.copyto is how out= writes its result (in-place ops are refused earlier)
        raise self.error("out=" if func.__name__ == "copyto" else f"numpy.{func.__name__}")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        raise self.error(f"numpy.{ufunc.__name__}")

    def __repr__(self):
        return f"LazyArray({self.value!r}: {self.value.type_str()})"


def is_lazy(t):
    """True for a Tensor whose data is a LazyArray (made while tracing).

    >>> with minflow.graph.trace():
    ...     minflow.graph.is_lazy(minflow.ones(2)), minflow.graph.is_lazy(minflow.tensor(1.0))
    (True, False)
    """
    return isinstance(t, Tensor) and getattr(t._data, "is_lazy", False)


def lazy_tensor(graph, value, requires_grad=False):
    """A lazy Tensor standing for ``value`` of ``graph``."""
    t = Tensor._make(LazyArray(graph, value), value.dtype, value.device)
    t._requires_grad = requires_grad
    return t


def value_of(graph, t):
    """The Value of tensor ``t`` in ``graph``: its own for a lazy tensor, a param or
    const Value (made on first use, by reference) for a real one."""
    data = t._data
    if getattr(data, "is_lazy", False):
        if data.graph is not graph:
            raise GraphBuildError(f"graph tensor {data.value!r} belongs to another graph; a "
                                  f"graph can only use its own lazy tensors and real tensors")
        return data.value
    if t._requires_grad and t.grad_fn is not None:
        raise GraphBuildError(
            f"a real tensor with grad_fn=<{t.grad_fn.name()}> is used in a graph; graph "
            f"gradients stop at real tensors, so use a leaf (a Parameter), or detach() it, "
            f"or compute it inside the graph (at {user_source_line()})")
    return graph.add_tensor(t)


class LazyInterpreter(Interpreter):
    """Adds a node per op call to ``graph``, tagged with ``role``; returns lazy tensors.

    ``trace()`` installs one for the duration of its ``with`` block:

    >>> with minflow.graph.trace() as g:
    ...     y = minflow.graph.placeholder(g, (2,)).exp()
    >>> [(n.op, n.role) for n in g.nodes]
    [('exp', 'forward')]
    """

    def __init__(self, graph, role="forward"):
        self.graph, self.role = graph, role

    def run(self, op, inputs, attrs, metas):
        args, needs, device = self._bind(op, inputs)
        device = attrs.get("device") or device or _CPU
        single = metas[1].__class__ is dtypes.DType
        specs = (metas,) if single else metas
        requires = (grad_state.grad_enabled and op.differentiable
                    and any(any(n) if isinstance(n, tuple) else n for n in needs))
        outs = self.graph.add_node(op.name, dict(attrs), args, specs, device,
                                   user_source_line(), self.role, tuple(needs), requires)
        tensors = [lazy_tensor(self.graph, v, v.requires_grad) for v in outs]
        return tensors[0] if single else tuple(tensors)

    def _bind(self, op, inputs):
        """Each input as the node keeps it, whether it requires grad, the inputs' device."""
        args, needs, devices = [], [], []
        for x in inputs:
            if isinstance(x, Tensor):
                args.append(value_of(self.graph, x))
                needs.append(x._requires_grad)
                devices.append(x.device)
            elif isinstance(x, (list, tuple)) and any(isinstance(y, Tensor) for y in x):
                tensors = [isinstance(y, Tensor) for y in x]
                args.append(tuple(value_of(self.graph, y) if t else y for y, t in zip(x, tensors)))
                needs.append(tuple(t and y._requires_grad for y, t in zip(x, tensors)))
                devices.extend(y.device for y, t in zip(x, tensors) if t)
            else:
                args.append(x)
                needs.append(False)
        if any(d is not devices[0] for d in devices):
            raise RuntimeError(f"{op.name}: expected all tensors to be on the same device, "
                               f"but found {sorted(set(map(str, devices)))} "
                               f"(at {user_source_line()})")
        return args, needs, devices[0] if devices else None

    def inplace(self, fn, name, target, *args, **kwargs):
        """``target.<name>(*args)`` while tracing (core/inplace.py hands it here): the op is
        traced out of place. A lazy target then stands for the result; a real one (a buffer
        such as BatchNorm's running_mean) reads as the result for the rest of the trace, and
        the plan writes the result into it at the end of every run."""
        _refuse_views(target, name)
        if grad_state.grad_enabled and target._requires_grad and target.grad_fn is None \
                and not is_lazy(target):
            raise RuntimeError(f"{name}: a leaf Variable that requires grad is being used in "
                               f"an in-place operation (at {user_source_line()})")
        result = fn(target, *args, **kwargs)
        check_can_cast(result.dtype, target.dtype, name)
        if tuple(result.shape) != tuple(target.shape):
            raise RuntimeError(f"{name}: output with shape {list(target.shape)} doesn't match "
                               f"the broadcast shape {list(result.shape)}")
        if result.dtype is not target.dtype:
            result = result.to(target.dtype)
        value = value_of(self.graph, result)
        if is_lazy(target):
            target._data = LazyArray(self.graph, value)
            target._requires_grad = target._requires_grad or result._requires_grad
        else:
            self.graph.write_back(target, value)
        return target

    def op_error(self, op, inputs, err):
        """A failed check or inference while tracing: add the input types and source line."""
        where = user_source_line()
        msg = str(err.args[0]) if err.args else ""
        if where in msg:
            return err
        sig = ", ".join(_describe(x) for x in inputs)
        return type(err)(f"{msg}\n  while building a graph: {op.name}({sig}) at {where}")


def _refuse_views(target, name):
    """In-place ops on views cannot be traced: the view's base would not see the change."""
    data = target._data
    view = (target._base is not None if not getattr(data, "is_lazy", False) else
            data.value.producer is not None and get_op(data.value.producer.op).is_view)
    if view:
        raise GraphBuildError(f"{name}: in-place ops on views cannot be traced (at "
                              f"{user_source_line()}); write x = x.{name.rstrip('_')}(...) on "
                              f"the whole tensor, or make the view a copy with .clone()")


def _describe(x):
    if isinstance(x, Tensor):
        return f"{x.dtype.name}[{', '.join(map(str, x.shape))}]"
    if isinstance(x, (list, tuple)):
        return f"[{', '.join(map(_describe, x))}]"
    return repr(x)


@contextlib.contextmanager
def tracing(graph, role="forward"):
    """Record op calls into ``graph`` (tagged ``role``) inside the ``with`` block.

    >>> g = minflow.graph.Graph()
    >>> with minflow.graph.tracing(g, role="optimizer"):
    ...     _ = minflow.zeros(2)
    >>> [(node.op, node.role) for node in g.nodes]
    [('full', 'optimizer')]
    """
    prev = set_interpreter(LazyInterpreter(graph, role))
    try:
        yield graph
    finally:
        set_interpreter(prev)


def trace():
    """``with trace() as graph:`` records op calls into a new Graph.

    >>> w = minflow.ones(2)
    >>> with minflow.graph.trace() as g:
    ...     y = w.exp()
    >>> print(g)
    graph(%0: float32[2] const) {
      %1: float32[2] = exp(%0)
      return
    }
    """
    return tracing(Graph())


def current_graph():
    """The graph being traced, or None outside tracing."""
    interp = current_interpreter()
    return interp.graph if isinstance(interp, LazyInterpreter) else None


def placeholder(graph, shape, dtype=None, device="cpu", name=None):
    """A lazy tensor for the graph's next input (placeholders never require grad).

    >>> g = minflow.graph.Graph()
    >>> x = minflow.graph.placeholder(g, (2, 3), minflow.float64, name="x")
    >>> x.shape, x.dtype, g.inputs
    (minflow.Size([2, 3]), minflow.float64, [%0])
    """
    dtype = dtypes.as_dtype(dtype) if dtype is not None else dtypes.get_default_dtype()
    return lazy_tensor(graph, graph.add_input(shape, dtype, device, name))


def set_outputs(graph, outputs):
    """Make ``outputs`` (a tensor, or a tuple / list of tensors) the graph's outputs.

    >>> with minflow.graph.trace() as g:
    ...     x = minflow.graph.placeholder(g, (2,))
    ...     minflow.graph.set_outputs(g, (x + 1, x))
    >>> g.outputs
    [%1, %0]
    """
    items = outputs if isinstance(outputs, (tuple, list)) else (outputs,)
    for i, t in enumerate(items):
        if not isinstance(t, Tensor):
            raise TypeError(f"graph outputs must be tensors, got {type(t).__name__} at "
                            f"position {i}")
    graph.outputs = [value_of(graph, t) for t in items]


def trace_function(fn, *example_inputs):
    """The Graph of ``fn`` called with placeholders shaped like the example tensors
    (other arguments pass through as constants of the trace).

    >>> g = minflow.graph.trace_function(lambda x: x.exp() + 1, minflow.ones(3))
    >>> print(g)
    graph(%0: float32[3] input input0) {
      %1: float32[3] = exp(%0)
      %2: float32[3] = add(%1, 1)
      return %2
    }
    """
    graph = Graph()
    with tracing(graph):
        args = [placeholder(graph, x.shape, x.dtype, x.device) if isinstance(x, Tensor)
                else x for x in example_inputs]
        set_outputs(graph, fn(*args))
    return graph

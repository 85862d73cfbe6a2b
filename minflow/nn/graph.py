"""nn.Graph: OneFlow's API for compiled graphs, forward only (evaluation) for now.

Subclass it, assign modules in ``__init__`` after ``super().__init__()``, and write
``build(self, *inputs)`` as a module's forward. The first call with a given input
signature (shapes, dtypes, devices) traces ``build`` lazily and compiles a plan (see
minflow.graph); later calls with that signature only run the plan. Modules keep their
parameters: the graph reads them by reference, so eager updates show in the next call.
Training graphs (``loss.backward()`` in build, ``add_optimizer``) come in a later phase.
"""
from ..core.tensor import Tensor
from ..graph import compile as compile_graph
from ..graph.ir import Graph as GraphIR
from ..graph.lazy import placeholder, set_outputs, tracing

__all__ = ["Graph"]


class Graph:
    """A compiled graph of ``build``; see the module docstring.

    >>> class Eval(minflow.nn.Graph):
    ...     def __init__(self, model):
    ...         super().__init__()
    ...         self.model = model
    ...     def build(self, x):
    ...         return self.model(x).softmax(1)
    >>> model = minflow.nn.Linear(4, 3)
    >>> graph = Eval(model)
    >>> x = minflow.randn(2, 4)
    >>> bool((graph(x) - model(x).softmax(1)).abs().max() < 1e-6)
    True
    """

    max_plans = 8       # input signatures kept compiled; the oldest is dropped beyond this

    def __init__(self):
        self._plans = {}

    def build(self, *inputs):
        raise NotImplementedError(f"nn.Graph [{type(self).__name__}] is missing the required "
                                  f'"build" method')

    def __call__(self, *inputs):
        for i, x in enumerate(inputs):
            if not isinstance(x, Tensor):
                raise TypeError(f"{type(self).__name__}: graph inputs must be tensors, got "
                                f"{type(x).__name__} at position {i}")
        key = tuple((tuple(x.shape), x.dtype, x.device) for x in inputs)
        entry = self._plans.get(key)
        if entry is None:
            entry = self._plans[key] = self._compile(inputs)
            if len(self._plans) > self.max_plans:
                del self._plans[next(iter(self._plans))]
        plan, single = entry
        outputs = plan(*inputs)
        return outputs[0] if single else outputs

    def _compile(self, inputs):
        """Trace ``build`` on placeholders like ``inputs``; the plan and whether build
        returned one tensor."""
        ir = GraphIR()
        with tracing(ir):
            args = [placeholder(ir, x.shape, x.dtype, x.device, name=f"input{i}")
                    for i, x in enumerate(inputs)]
            outputs = self.build(*args)
            set_outputs(ir, outputs)
        if any(node.role != "forward" for node in ir.nodes):
            raise NotImplementedError(f"{type(self).__name__}.build: training graphs "
                                      f"(loss.backward() in build) are not supported yet; "
                                      f"nn.Graph runs forward-only (evaluation) graphs")
        return compile_graph(ir), isinstance(outputs, Tensor)

    def __repr__(self):
        return f"{type(self).__name__}(compiled for {len(self._plans)} input signature(s))"

"""minflow.graph: lazy tracing into a graph IR, graph autodiff from grad-op conf generators,
passes and a compiled plan of pre-bound kernel calls (see DESIGN.md, "Graph mode").

>>> w = minflow.ones(3, requires_grad=True)
>>> with minflow.graph.trace() as g:
...     x = minflow.graph.placeholder(g, (3,))
...     loss = (x * w).sum()
...     loss.backward()
...     minflow.graph.set_outputs(g, loss)
>>> plan = minflow.graph.compile(g)
>>> plan(minflow.tensor([1.0, 2.0, 3.0]))[0].item(), w.grad.tolist()
(6.0, [1.0, 2.0, 3.0])
"""
from .ir import Graph, Node, Value
from .lazy import (GraphBuildError, LazyArray, LazyInterpreter, is_lazy, placeholder,
                   set_outputs, trace, trace_function, tracing)
from .grad_conf import GradConfContext, register_grad_conf
from .autodiff import graph_backward
from .passes import common_subexpression_elimination, constant_folding, dead_code_elimination
from .memory import MemoryPlan, plan_memory, schedule_updates_early
from .fusion import FusionReport, fuse_elementwise
from .report import CompileReport
from .plan import DEFAULT_PASSES, Plan, compile
from .export import LoadedGraph, load, save

__all__ = ["Graph", "Node", "Value", "GraphBuildError", "LazyArray", "LazyInterpreter",
           "is_lazy", "placeholder", "set_outputs", "trace", "trace_function", "tracing",
           "GradConfContext", "register_grad_conf", "graph_backward", "dead_code_elimination",
           "common_subexpression_elimination", "constant_folding", "MemoryPlan", "plan_memory",
           "schedule_updates_early", "fuse_elementwise", "FusionReport",
           "CompileReport", "DEFAULT_PASSES", "Plan", "compile", "save", "load", "LoadedGraph"]

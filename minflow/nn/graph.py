"""nn.Graph: OneFlow's API for compiled graphs, for evaluation and for training.

Subclass it, call ``super().__init__()``, assign modules as attributes and write
``build(self, *inputs)`` as a module's forward. The first call with a given input
signature (structure, shapes, dtypes, devices) traces ``build`` lazily and compiles a plan
(see minflow.graph); later calls with that signature only run the plan. Inputs and outputs
may be tensors, None, or tuples / lists / dicts of them.

Training: ``add_optimizer(optimizer, lr_sch=None)`` and ``loss.backward()`` in build (a
scalar loss). Each call then runs forward, backward and the optimizer's update ops, then
steps the scheduler. The gradients feed the update ops directly: as in OneFlow, a graph
call leaves ``param.grad`` untouched (None after ``zero_grad()``), which is the eager
``zero_grad(set_to_none=True)`` view. The float hyperparameters (lr, momentum, betas,
eps, weight_decay...) are a graph input read from the param groups at each call, so
schedulers (OneCycleLR cycling lr and momentum or beta1 included) and edits of
``param_groups`` need no recompiling; a change of a flag (nesterov, amsgrad, maximize,
foreach...) or of whether momentum is zero compiles a new plan at the next call (see
minflow/graph/optim.py). Optimizer state (momentum buffers, ``exp_avg``, ``step``...)
lives in ``optimizer.state``, shared with eager steps.

Parameters and buffers are the modules' own tensors, read and written in place: training
through the graph changes the module, eager changes show in the next call, BatchNorm's
running stats update inside the graph, dropout draws fresh masks from the generator.
"""
import os
import time

from ..core import dtype as dtypes
from ..graph import DEFAULT_PASSES, compile as compile_graph
from ..graph import export
from ..graph.ir import Graph as GraphIR
from ..graph.lazy import GraphBuildError, placeholder, set_outputs, tracing
from ..graph.nest import flatten, leaf_paths, unflatten
from ..graph.optim import add_update_ops, check_supported, scalars_tensor, structure
from ..optim.lr_scheduler import LRScheduler
from ..optim.optimizer import Optimizer
from .modules.module import Module

__all__ = ["Graph"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class _Compiled:
    """One compiled signature: its plan, the input / output structures, the feeds of the
    optimizers' hyperparameters and the optimizer structure it was compiled for."""

    def __init__(self, plan, in_spec, out_spec, feeds, seconds, hyperparams):
        self.plan, self.in_spec, self.out_spec = plan, in_spec, out_spec
        self.feeds, self.seconds, self.hyperparams = feeds, seconds, hyperparams


class Graph:
    """A compiled graph of ``build``; see the module docstring.

    >>> class Train(minflow.nn.Graph):
    ...     def __init__(self, model, opt):
    ...         super().__init__()
    ...         self.model = model
    ...         self.add_optimizer(opt)
    ...     def build(self, x, y):
    ...         loss = ((self.model(x) - y) ** 2).mean()
    ...         loss.backward()
    ...         return loss
    >>> model = minflow.nn.Linear(4, 1)
    >>> graph = Train(model, minflow.optim.SGD(model.parameters(), lr=0.1))
    >>> x, y = minflow.randn(8, 4), minflow.randn(8, 1)
    >>> losses = [graph(x, y).item() for _ in range(3)]
    >>> losses[2] < losses[0], model.weight.grad
    (True, None)
    """

    max_plans = 8       # input signatures kept compiled; the oldest is dropped beyond this
    plan_cache = True   # False: a call with another input signature is an error
    passes = DEFAULT_PASSES     # the compile passes, in order (a subclass may drop one)

    def __init__(self):
        self._plans, self._last = {}, None
        self._optimizers = []           # (optimizer, lr scheduler or None)
        self._debug_level = 0
        self.compile_log = []           # every message compiling wrote, whatever the level

    def build(self, *inputs):
        raise NotImplementedError(f"nn.Graph [{type(self).__name__}] is missing the required "
                                  f'"build" method')

    # -- configuration ----------------------------------------------------------------
    def add_optimizer(self, optimizer, lr_sch=None):
        """Train with ``optimizer`` (and step ``lr_sch`` after each call); build must then
        call ``loss.backward()``."""
        self._check_init()
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"add_optimizer: expected a minflow.optim.Optimizer, got "
                            f"{type(optimizer).__name__}")
        check_supported(optimizer)
        if lr_sch is not None and (not isinstance(lr_sch, LRScheduler)
                                   or lr_sch.optimizer is not optimizer):
            raise TypeError("add_optimizer: lr_sch must be an LRScheduler of this optimizer, "
                            f"got {type(lr_sch).__name__}")
        self._optimizers.append((optimizer, lr_sch))
        self._plans.clear()

    def debug(self, level=1):
        """Print what compiling does: 0 nothing, 1 signatures, pass reports and times,
        2 the traced and the compiled graphs too, 3 with source lines."""
        self._check_init()
        self._debug_level = int(level)

    @property
    def training(self):
        return bool(self._optimizers)

    def modules(self):
        """(name, module) for each module assigned as an attribute."""
        return [(k, v) for k, v in vars(self).items() if isinstance(v, Module)]

    # -- calling ------------------------------------------------------------------------
    def __call__(self, *args):
        self._check_init()
        tensors, in_spec = flatten(args, "input")
        key = (in_spec, tuple((x._data.shape, x.dtype, x.device) for x in tensors))
        entry = self._plans.get(key)
        if entry is None:
            entry = self._compile_for(key, tensors, in_spec)
        elif self._optimizers and entry.hyperparams != self._hyperparams():
            entry = self._recompile_for_hyperparams(key, entry, tensors, in_spec)
        self._last = key
        feeds = [scalars_tensor(group, op) for group, op, _ in entry.feeds]
        outputs = entry.plan.run(*tensors, *feeds)
        for optimizer, lr_sch in self._optimizers:
            optimizer._opt_called = True     # the graph ran its update: no scheduler warning
            if lr_sch is not None:
                lr_sch.step()
        return unflatten(entry.out_spec, outputs)[0]

    def _compile_for(self, key, tensors, in_spec):
        """Compile for a new signature, logging what changed since the last call."""
        if self._last is not None:
            change = _describe_change(self._last, key)
            if not self.plan_cache:
                raise RuntimeError(f"{type(self).__name__}: the input signature changed "
                                   f"({change}) and the plan cache is disabled (plan_cache = "
                                   f"False); call it with the signature it was compiled for")
            self._log(1, f"input signature changed: {change}; compiling a new plan")
        entry = self._plans[key] = self._compile(tensors, in_spec)
        if len(self._plans) > self.max_plans:
            del self._plans[next(iter(self._plans))]
        return entry

    def _hyperparams(self):
        """What a plan holds fixed, per optimizer: its state generation (the plan binds the
        state tensors and group dicts that load_state_dict replaces) and per group what the
        update ops hold fixed (graph.optim.structure: the flags, whether momentum is zero).
        A change needs a new plan. The float hyperparameters are fed at each call."""
        return tuple((getattr(opt, "state_generation", 0),
                      tuple(structure(opt, group) for group in opt.param_groups))
                     for opt, _ in self._optimizers)

    def _recompile_for_hyperparams(self, key, old, tensors, in_spec):
        """Replace the plan ``old`` of signature ``key``, compiled with other optimizer
        hyperparameters, logging what changed."""
        change = _describe_hyper_change(old.hyperparams, self._hyperparams())
        self._log(1, f"optimizer hyperparameters changed: {change}; compiling a new plan")
        self._plans[key] = self._compile(tensors, in_spec)
        return self._plans[key]

    def _compile(self, tensors, in_spec):
        """Trace ``build`` on placeholders like ``tensors``, add the optimizer, compile."""
        start = time.perf_counter()
        ir, out_spec = self._trace(tensors, in_spec)
        self._check_roles(ir)
        feeds = [f for optimizer, _ in self._optimizers for f in add_update_ops(ir, optimizer)]
        self._log(2, f"traced graph:\n{ir.dump(sources=self._debug_level >= 3)}")
        plan = compile_graph(ir, self.passes)
        seconds = time.perf_counter() - start
        for report in plan.reports:
            self._log(1, str(report))
        self._log(1, f"compiled {len(plan.calls)} kernel calls in {seconds * 1e3:.1f} ms")
        self._log(2, f"compiled graph:\n{plan.graph.dump(sources=self._debug_level >= 3)}")
        return _Compiled(plan, in_spec, out_spec, feeds, seconds, self._hyperparams())

    def _trace(self, tensors, in_spec):
        """The traced IR of ``build`` and the structure of its outputs."""
        ir = GraphIR()
        names = leaf_paths(in_spec, "input")
        signature = ", ".join(f"{n}: {x.dtype.name}{list(x.shape)} on {x.device}"
                              for n, x in zip(names, tensors)) or "no inputs"
        self._log(1, "compiling for " + signature)
        with tracing(ir):
            lazy = [placeholder(ir, x.shape, x.dtype, x.device, name=n)
                    for x, n in zip(tensors, names)]
            try:
                outputs = self.build(*unflatten(in_spec, lazy))
            except Exception as err:
                _add_build_context(err, type(self).__name__, signature)
                raise
            out_tensors, out_spec = flatten((outputs,), "output")
            set_outputs(ir, out_tensors)
        return ir, out_spec

    def _check_roles(self, ir):
        backward = any(node.role == "backward" for node in ir.nodes)
        name = type(self).__name__
        if self._optimizers and not backward:
            raise GraphBuildError(f"{name}.build: a graph with an optimizer must call "
                                  f"loss.backward() in build")
        if backward and not self._optimizers:
            raise GraphBuildError(f"{name}.build: loss.backward() in build needs an optimizer: "
                                  f"call self.add_optimizer(optimizer) in __init__")

    def _log(self, level, message):
        self.compile_log.append(message)
        if self._debug_level >= level:
            print(f"[{type(self).__name__}] {message}")

    def _check_init(self):
        if "_plans" not in vars(self):
            raise RuntimeError(f"{type(self).__name__}: call super().__init__() at the start "
                               f"of __init__")

    # -- reading and checkpoints ----------------------------------------------------------
    @property
    def plan(self):
        """The plan of the latest call (None before the first)."""
        entry = self._plans.get(self._last)
        return entry.plan if entry is not None else None

    def _latest(self, what):
        plan = self.plan
        if plan is None:
            raise RuntimeError(f"{type(self).__name__}.{what}: the graph is not compiled yet; "
                               f"call it once first")
        return plan

    def compile_report(self):
        """The CompileReport of the latest call's plan (``str()`` or ``.as_dict()``)."""
        return self._latest("compile_report").report

    def to_dot(self):
        """The latest plan's graph in Graphviz DOT, forward / backward / optimizer ops in
        their colors."""
        return self._latest("to_dot").graph.to_dot()

    def to_networkx(self):
        """The latest plan's graph as a networkx.DiGraph (nodes carry op and role)."""
        return self._latest("to_networkx").graph.to_networkx()

    def save(self, f):
        """Save the latest call's compiled plan to ``f`` (a path or a binary file object),
        to be run by ``minflow.graph.load(f)`` without the model's Python code.

        Only eval graphs (no optimizer) can be saved; the file holds the ops with their
        attrs, shapes and dtypes, the weights and buffers, and the input and output
        structure (format in minflow/graph/export.py).
        """
        name = type(self).__name__
        if self._optimizers:
            raise ValueError(f"{name}.save: a training graph (one with an optimizer) cannot "
                             f"be saved; save graph.state_dict() with minflow.save for "
                             f"checkpoints, or save an eval graph of the same modules")
        plan = self._latest("save")
        entry = self._plans[self._last]
        names = {id(t): f"{module_name}.{key}" for module_name, module in self.modules()
                 for key, t in (*module.named_parameters(), *module.named_buffers())}
        export.save(plan, f, entry.in_spec, entry.out_spec, names)

    def __repr__(self):
        lines = [f"{type(self).__name__}("]
        for name, module in self.modules():
            lines.append(_indent(f"({name}): {module!r}"))
        for i, (opt, sch) in enumerate(self._optimizers):
            lrs = [group["lr"] for group in opt.param_groups]
            extra = f", lr_sch={type(sch).__name__}" if sch is not None else ""
            lines.append(f"  (optimizer{i}): {type(opt).__name__}(lr={lrs}{extra})")
        lines.append(")")
        plan = self.plan
        if plan is None:
            lines.append("not compiled yet")
        else:
            lines.append(f"compiled for {len(self._plans)} input signature(s); the latest:")
            lines.append(plan.graph.dump())
        return "\n".join(lines)

    def state_dict(self):
        """{"modules": {name: state dict}, "optimizers": [...], "lr_schedulers": [...]}."""
        return {"modules": {name: m.state_dict() for name, m in self.modules()},
                "optimizers": [opt.state_dict() for opt, _ in self._optimizers],
                "lr_schedulers": [None if s is None else s.state_dict()
                                  for _, s in self._optimizers]}

    def load_state_dict(self, state_dict):
        """Load a ``state_dict()``; plans are compiled again (optimizer state is new)."""
        modules = dict(self.modules())
        for name, sd in state_dict["modules"].items():
            if name not in modules:
                raise KeyError(f"load_state_dict: no module {name!r} in {type(self).__name__}"
                               f" (has {sorted(modules)})")
            modules[name].load_state_dict(sd)
        saved = list(zip(state_dict["optimizers"], state_dict["lr_schedulers"]))
        if len(saved) != len(self._optimizers):
            raise ValueError(f"load_state_dict: {len(saved)} optimizers saved, the graph has "
                             f"{len(self._optimizers)}")
        for (opt, sch), (opt_sd, sch_sd) in zip(self._optimizers, saved):
            opt.load_state_dict(opt_sd)
            if sch is not None and sch_sd is not None:
                sch.load_state_dict(sch_sd)
        self._plans.clear()
        self._last = None


def _describe_change(old, new):
    """Which input changed and how, between two signature keys."""
    (old_spec, old_sig), (new_spec, new_sig) = old, new
    if old_spec != new_spec or len(old_sig) != len(new_sig):
        return "the structure of the inputs changed"
    names = leaf_paths(new_spec, "input")
    changes = []
    for name, a, b in zip(names, old_sig, new_sig):
        for what, x, y in zip(("shape", "dtype", "device"), a, b):
            if x != y:
                x, y = (list(x), list(y)) if what == "shape" else (x, y)
                changes.append(f"{name} {what} {_name(x)} -> {_name(y)}")
    return "; ".join(changes)


def _add_build_context(err, name, signature):
    """Add to ``err``'s message the user's source line where build failed and the input
    signature, unless the message has that line already (op errors while tracing name
    the op, its input types and the line)."""
    line = _user_line(err.__traceback__)
    if line is None or len(err.args) != 1 or not isinstance(err.args[0], str) \
            or line in err.args[0]:
        return
    err.args = (f"{err.args[0]}\n  while building {name} at {line} (for {signature})",)


def _user_line(tb):
    """``file:line`` of the innermost traceback frame outside the minflow package."""
    line = None
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if not filename.startswith("<minflow.") and \
                not os.path.abspath(filename).startswith(_PACKAGE):
            line = f"{filename}:{tb.tb_lineno}"
        tb = tb.tb_next
    return line


def _describe_hyper_change(old, new):
    """Which compiled-in options changed, between two ``Graph._hyperparams()``."""
    changes = []
    for i, ((old_gen, old_groups), (new_gen, new_groups)) in enumerate(zip(old, new)):
        if old_gen != new_gen:
            changes.append(f"optimizer{i} loaded a state dict")
        if len(old_groups) != len(new_groups):
            changes.append(f"optimizer{i} has {len(new_groups)} param groups, was "
                           f"{len(old_groups)}")
        for j, (a, b) in enumerate(zip(old_groups, new_groups)):
            changes += [f"optimizer{i} group {j} {k} {x} -> {y}"
                        for (k, x), (_, y) in zip(a, b) if x != y]
    return "; ".join(changes)


def _name(x):
    return x.name if isinstance(x, dtypes.DType) else str(x)


def _indent(text):
    return "\n".join("  " + line for line in text.splitlines())

"""minflow.library: add ops from user code, in one file, with the machinery the built-in
ops use (docs/adding_an_op.md walks through it; examples/custom_op_leaky_relu.py is the
whole thing on one screen).

    define_op("myns.scale", ...)       what the op IS: inputs, outputs, typed attrs, traits,
                                       shape/dtype inference (never reads data)
    register_kernel(name, device, dtypes)       how it RUNS: numpy / cupy code on raw arrays
    bind_function(op)                  the public function (minflow.ops.myns.scale)
    backward_spec(op, grad_op)         its gradient, declared once: eager autograd and graph
                                       mode both derive from it; or hand-write a
                                       GradFunction (register_grad) and, where its apply
                                       cannot run lazily, a graph conf (register_grad_conf)
    load_library(path) / load_entry_points(group)   load modules that define ops
    unload(namespace)                  remove a namespace's ops again

Op names may carry a namespace prefix, ``"myns.scale"``: the public function then lives
in the module ``minflow.ops.myns`` and never shadows a built-in. A name defined twice is
an error naming both definitions, except that running the same file again (reloading a
library, re-running a script in one process) replaces the earlier definition: then attrs
may only be added, each with a default, so that graphs recorded with the earlier
definition still resolve.

>>> import minflow.library as L
>>> SCALE = L.define_op("doc.scale", ["input"], attrs=[L.Attr("factor", "float", 2.0)],
...                     infer=lambda input, factor: (input.shape, input.dtype))
>>> _ = L.register_kernel("doc.scale", ("cpu", "cuda"), L.FLOATS)(
...     lambda xp, input, factor: input * input.dtype.type(factor))
>>> scale = L.bind_function(SCALE)
>>> L.backward_spec("doc.scale", "doc.scale", inputs=[L.grad("out")],
...                 outputs={"out": "input"})
>>> x = minflow.tensor([1.0, -2.0], requires_grad=True)
>>> minflow.ops.doc.scale(x, factor=3.0).sum().backward()
>>> x.grad.tolist()
[3.0, 3.0]
>>> L.unload("doc")
"""
import functools
import importlib
import importlib.metadata
import importlib.util
import os
import sys
import types

from .autograd.node import GradFunction, backward_name, register_grad
from .core import dtype as _dtypes
from .core.device import array_module
from .core.dispatch import apply
from .core.functional import _METHODS, tensor_method
from .core.namespace import F
from .core.tensor import Tensor
from .graph import grad_conf as _grad_conf
from .graph.grad_conf import register_grad_conf
from .kernels.registry import register_kernel
from .ops import infer as _infer
from .ops import registry as _ops
from .ops.registry import REQUIRED, TRAITS, Attr, Input, OpDef, get_op

__all__ = ["Input", "Attr", "OpDef", "REQUIRED", "TRAITS", "FLOATS", "INTS", "NUMERIC",
           "ALL_DTYPES", "define_op", "get_op", "check_dtype", "register_kernel",
           "cuda_elementwise", "GradFunction", "register_grad", "register_grad_conf",
           "bind_function", "call", "grad", "backward_spec", "load_library",
           "load_entry_points", "unload", "origin_of"]

FLOATS, INTS, NUMERIC, ALL_DTYPES = _dtypes.FLOATS, _dtypes.INTS, _dtypes.NUMERIC, _dtypes.ALL
check_dtype = _infer.check_dtype

_HERE = os.path.abspath(__file__)


class _Record:
    """What the library attached to one user op, so that unload / reload can take it away."""

    def __init__(self, origin, file):
        self.origin, self.file = origin, file     # file: a reload from it redefines
        self.functions = []     # (container, attribute name)
        self.methods = []       # Tensor method names


_RECORDS = {}       # op name -> _Record, for ops defined through this module
_LOADING = []       # labels of the entry points being loaded, innermost last


def _caller():
    """(file, ``file:line``) of the innermost frame outside this module: where the user
    defines; the entry point being loaded, if any, follows the line."""
    frame = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename) == _HERE:
        frame = frame.f_back
    if frame is None:
        return "<unknown>", "<unknown>"
    where = f"{frame.f_code.co_filename}:{frame.f_lineno}"
    return frame.f_code.co_filename, f"{where} ({_LOADING[-1]})" if _LOADING else where


def origin_of(name):
    """Where op ``name`` was defined: ``file:line`` for user ops, the module for built-ins.

    >>> minflow.library.origin_of("leaky_relu")
    'minflow.ops.activation'
    """
    return get_op(name).source


def _split(name):
    """``(namespace or None, short name)``; checks both are identifiers."""
    ns, _, short = name.rpartition(".")
    if not short.isidentifier() or (ns and not ns.isidentifier()):
        raise ValueError(f"define_op: op name {name!r} must be an identifier, optionally "
                         f"prefixed by one namespace: 'myns.my_op'")
    return ns or None, short


def define_op(name, inputs, outputs=("out",), *, infer, attrs=(), traits=(), check=None,
              promote=None, dtype_from=None, doc=""):
    """Declare an op (see minflow.ops.registry.OpDef for every argument).

    ``infer(*inputs, **attrs) -> (shape, dtype)`` (a list of them for several outputs)
    reads metadata only: the same function serves eager calls, the meta device and graph
    building. ``check`` may validate inputs and attrs further; raise with a clear message.

    >>> minflow.library.define_op("leaky_relu", ["input"], infer=None)
    Traceback (most recent call last):
    ...
    ValueError: define_op: op 'leaky_relu' is already defined by minflow.ops.activation; defined again by ...; put user ops in a namespace: 'myns.leaky_relu'
    """
    ns, _ = _split(name)
    file, origin = _caller()
    try:
        old = get_op(name)
    except KeyError:
        old = None
    if old is not None:
        record = _RECORDS.get(name)
        if record is None or record.file != file:
            hint = "" if ns else f"; put user ops in a namespace: 'myns.{name}'"
            raise ValueError(f"define_op: op {name!r} is already defined by {old.source}; "
                             f"defined again by {origin}{hint}")
        _check_compatible(old, attrs, origin)
        _remove(name)
    op = _ops.define_op(name, inputs, outputs, infer=infer, attrs=attrs, traits=traits,
                        check=check, promote=promote, dtype_from=dtype_from,
                        doc=doc or f"User op {name}.", source=origin)
    _RECORDS[name] = _Record(origin, file)
    if ns:
        _namespace(ns)
    return op


def _check_compatible(old, attrs, origin):
    """A new definition of an op keeps its attrs and gives every new attr a default."""
    before = {a.name for a in old.attrs}
    after = {a.name: a for a in attrs}
    missing = sorted(before - set(after))
    if missing:
        raise ValueError(f"define_op({old.name!r}) at {origin}: attrs {missing} of the earlier "
                         f"definition ({old.source}) are gone; graphs recorded with it set "
                         f"them. Keep them, or unload({old.name!r}) first")
    for attr in after.values():
        if attr.name not in before and attr.default is REQUIRED:
            raise ValueError(f"define_op({old.name!r}) at {origin}: new attr {attr.name!r} "
                             f"needs a default: graphs recorded with the earlier definition "
                             f"({old.source}) have no value for it")


def _namespace(ns):
    """The module ``minflow.ops.<ns>`` that holds a namespace's public functions."""
    import minflow.ops
    module = getattr(minflow.ops, ns, None)
    if module is None:
        module = types.ModuleType(f"minflow.ops.{ns}", f"User ops of namespace {ns!r}.")
        module.__user_namespace__ = True
        setattr(minflow.ops, ns, module)
        sys.modules[module.__name__] = module
    elif not getattr(module, "__user_namespace__", False):
        raise ValueError(f"define_op: namespace {ns!r} is taken by minflow.ops.{ns}; "
                         f"choose another")
    return module


@functools.lru_cache(maxsize=None)
def _compiled(in_params, out_params, body, name):
    return array_module("cuda").ElementwiseKernel(in_params, out_params, body, name)


def cuda_elementwise(in_params, out_params, body, name):
    """A ``cupy.ElementwiseKernel``, compiled on its first call (so this runs without cupy).

    >>> kernel = minflow.library.cuda_elementwise("T x, T s", "T y", "y = x * s", "scale")
    >>> callable(kernel)
    True
    """
    def run(*args, **kwargs):
        return _compiled(in_params, out_params, body, name)(*args, **kwargs)
    run.__name__ = name
    return run


def call(op, *inputs, **attrs):
    """Run ``op`` (an OpDef or its name) through the dispatcher: eager, lazy and autograd
    alike. Inputs are positional, attrs by keyword.

    >>> minflow.library.call("leaky_relu", minflow.tensor([-1.0]), negative_slope=0.5)
    tensor([-0.5000])
    """
    op = get_op(op) if isinstance(op, str) else op
    return apply(op, inputs, attrs)


def bind_function(op, *, name=None, method=None, doc=None):
    """Make the public function of ``op`` from its signature: ``f(inputs..., attrs...)``,

    attrs with their defaults, and return it.

    A namespaced op's function goes in ``minflow.ops.<namespace>``; an op without one is
    also ``minflow.<name>``. ``method``: a name to install the function as a Tensor
    method too (it must not exist yet).

    >>> import minflow.library as L
    >>> op = L.define_op("doc.twice", ["input"], infer=lambda input: (input.shape, input.dtype))
    >>> _ = L.register_kernel("doc.twice", ("cpu", "cuda"), L.NUMERIC)(lambda xp, x: x * 2)
    >>> twice = L.bind_function(op, method="doc_twice")
    >>> twice(minflow.tensor([1, 2])), minflow.tensor([3.0]).doc_twice()
    (tensor([2, 4]), tensor([6.]))
    >>> L.unload("doc")
    """
    op = get_op(op) if isinstance(op, str) else op
    record = _RECORDS.get(op.name)
    if record is None:
        raise ValueError(f"bind_function: op {op.name!r} was not defined through "
                         f"minflow.library ({op.source})")
    ns, short = _split(op.name)
    fname = name or short
    fn = _generate(op, fname, doc)
    if ns:
        container = _namespace(ns)
        if hasattr(container, fname) and (container, fname) not in record.functions:
            raise ValueError(f"bind_function: minflow.ops.{ns}.{fname} is already bound")
        setattr(container, fname, fn)
        record.functions.append((container, fname))
    else:
        import minflow
        if hasattr(F, fname) or hasattr(minflow, fname):
            raise ValueError(f"bind_function: minflow.{fname} already exists; put the op in "
                             f"a namespace ('myns.{fname}') or pass another name=")
        setattr(F, fname, fn)
        setattr(minflow, fname, fn)
        record.functions += [(F, fname), (minflow, fname)]
    if method:
        tensor_method(method)(fn)
        record.methods.append(method)
    return fn


def _generate(op, fname, doc):
    """``def fname(input, negative_slope=<default>): return apply(op, (input,), {...})``."""
    params, defaults = [], {}
    for inp in op.inputs:
        params.append(f"{inp.name}=None" if inp.optional else inp.name)
    for attr in op.attrs:
        if attr.default is REQUIRED:
            params.append(attr.name)
        else:
            params.append(f"{attr.name}=_d_{attr.name}")
            defaults[f"_d_{attr.name}"] = attr.default
    inputs = "".join(f"{i.name}, " for i in op.inputs)
    attrs = ", ".join(f"{a.name!r}: {a.name}" for a in op.attrs)
    src = (f"def {fname}({', '.join(params)}):\n"
           f"    return _apply(_op, ({inputs}), {{{attrs}}})\n")
    env = {"_apply": apply, "_op": op, **defaults}
    exec(compile(src, f"<minflow.ops.{op.name}>", "exec"), env)
    fn = env[fname]
    fn.__doc__ = doc or op.doc
    fn.__module__ = f"minflow.ops.{op.name.rpartition('.')[0]}".rstrip(".")
    fn.__qualname__ = fname
    fn.__minflow_op__ = op          # lets minflow.testing.check_op find the op
    return fn


# ---- backward spec: one declaration, eager GradFunction and graph conf both derived ----

class GradOf:
    """The gradient flowing into forward output ``output`` (made by ``grad``)."""

    def __init__(self, output):
        self.output = output

    def __repr__(self):
        return f"grad({self.output!r})"


def grad(output):
    """In ``backward_spec(inputs=[...])``: the gradient of forward output ``output``.

    >>> minflow.library.grad("out")
    grad('out')
    """
    return GradOf(output)


def backward_spec(op, grad_op, *, inputs=None, attrs=None, outputs=None):
    """Declare ``op``'s gradient as one call of ``grad_op``, and register it.

    inputs: what to pass as each input of ``grad_op``, in order: a forward input or
    output name, or ``grad(output)`` for the gradient of an output. Default: by name, as
    Paddle's DefaultGradOpMaker: ``grad_<output>`` (or ``grad_out``) is that output's
    gradient, any other name a forward input or output of that name.
    attrs: forward attrs passed on (default: the grad op's attrs that the op also has).
    outputs: ``{grad op output: forward input}`` (default: ``grad_<input>`` names, or the
    one output to the one tensor input).

    The eager GradFunction made from it saves exactly the forward tensors named, and its
    apply calls ``grad_op``: graph mode derives its grad-op conf from that function
    (minflow.graph.grad_conf.eager_conf), so the spec serves both.

    >>> import minflow.library as L
    >>> same = lambda *inputs: (inputs[-1].shape, inputs[-1].dtype)
    >>> _ = L.define_op("doc.cube", ["input"], infer=same)
    >>> _ = L.define_op("doc.cube_grad", ["grad_out", "input"], infer=same)
    >>> _ = L.register_kernel("doc.cube", ("cpu", "cuda"), L.FLOATS)(lambda xp, x: x ** 3)
    >>> _ = L.register_kernel("doc.cube_grad", ("cpu", "cuda"), L.FLOATS)(
    ...     lambda xp, g, x: 3 * g * x * x)
    >>> L.backward_spec("doc.cube", "doc.cube_grad")     # grad_out, input: matched by name
    >>> x = minflow.tensor([2.0], requires_grad=True)
    >>> L.call("doc.cube", x).sum().backward()
    >>> x.grad
    tensor([12.])
    >>> L.unload("doc")
    """
    fwd = get_op(op) if isinstance(op, str) else op
    gop = get_op(grad_op) if isinstance(grad_op, str) else grad_op
    in_names, out_names = [i.name for i in fwd.inputs], list(fwd.outputs)
    sources = [_source(fwd, gop, x, in_names, out_names) for x in
               (inputs if inputs is not None else [i.name for i in gop.inputs])]
    if len(sources) != len(gop.inputs):
        raise ValueError(f"backward_spec({fwd.name!r}): {gop.name} takes {len(gop.inputs)} "
                         f"inputs {[i.name for i in gop.inputs]}, got {len(sources)}")
    gattrs = {a.name for a in gop.attrs}
    attrs = list(attrs) if attrs is not None else [a.name for a in fwd.attrs if a.name in gattrs]
    for a in attrs:
        if a not in fwd._attr_index or a not in gattrs:
            raise ValueError(f"backward_spec({fwd.name!r}): attr {a!r} must be an attr of both "
                             f"{fwd.name} and {gop.name}")
    binds = _binds(fwd, gop, outputs, in_names)
    register_grad(fwd.name)(_spec_grad(fwd, gop, sources, tuple(attrs), binds))


def _source(fwd, gop, x, in_names, out_names):
    """("grad", output index) | ("input", index) | ("output", index) for one grad op input."""
    if isinstance(x, GradOf):
        if x.output not in out_names:
            raise ValueError(f"backward_spec({fwd.name!r}): {x!r} names no output of "
                             f"{fwd.name}; expected one of {out_names}")
        return "grad", out_names.index(x.output)
    if not isinstance(x, str):
        raise TypeError(f"backward_spec({fwd.name!r}): expected an input or output name or "
                        f"grad(output), got {x!r}")
    if x.startswith("grad_") and x[5:] in out_names:
        return "grad", out_names.index(x[5:])
    if x == "grad_out" and len(out_names) == 1:
        return "grad", 0
    if x in in_names:
        return "input", in_names.index(x)
    if x in out_names:
        return "output", out_names.index(x)
    raise ValueError(f"backward_spec({fwd.name!r}): {gop.name} input {x!r} is neither an "
                     f"input {in_names} nor an output {out_names} of {fwd.name}; pass "
                     f"inputs=[...] with names or grad(output)")


def _binds(fwd, gop, outputs, in_names):
    """Forward input index per grad op output (None where it feeds no input grad)."""
    if outputs is None:
        named = {o: o[5:] for o in gop.outputs if o.startswith("grad_") and o[5:] in in_names}
        if named:
            outputs = named
        elif len(gop.outputs) == 1 and len(in_names) == 1:
            outputs = {gop.outputs[0]: in_names[0]}
        else:
            raise ValueError(f"backward_spec({fwd.name!r}): say which input gets each output "
                             f"of {gop.name}: outputs={{output: input}}")
    binds = [None] * len(gop.outputs)
    for out, inp in outputs.items():
        if out not in gop.outputs or inp not in in_names:
            raise ValueError(f"backward_spec({fwd.name!r}): outputs={{{out!r}: {inp!r}}}: "
                             f"expected an output of {gop.name} {list(gop.outputs)} and an "
                             f"input of {fwd.name} {in_names}")
        binds[gop.outputs.index(out)] = in_names.index(inp)
    return tuple(binds)


def _spec_grad(fwd, gop, sources, attrs, binds):
    """The GradFunction class of a backward spec."""
    saved = [s for s in sources if s[0] != "grad"]

    class SpecGrad(GradFunction):
        __doc__ = f"{fwd.name}'s gradient: {gop.name}, from a backward_spec."

        def capture(self, ctx, inputs, outputs, attr_values):
            ctx.attrs = {a: attr_values[a] for a in attrs}
            values = [(inputs if kind == "input" else outputs)[i] for kind, i in saved]
            ctx.consts = [None if isinstance(v, Tensor) else v for v in values]
            ctx.save_for_backward(*[v if isinstance(v, Tensor) else None for v in values])

        def apply(self, ctx, *grad_outs):
            values = iter(t if c is None else c for t, c in zip(ctx.saved_tensors, ctx.consts))
            args = [grad_outs[i] if kind == "grad" else next(values) for kind, i in sources]
            result = apply(gop, tuple(args), dict(ctx.attrs))
            result = result if isinstance(result, tuple) else (result,)
            grads = [None] * len(fwd.inputs)
            for value, i in zip(result, binds):
                if i is not None and ctx.needs_input_grad[i]:
                    grads[i] = value
            return tuple(grads)

    SpecGrad.__name__ = SpecGrad.__qualname__ = backward_name(fwd.name)[:-9] + "SpecGrad"
    return SpecGrad


# ---- loading and unloading op libraries -----------------------------------------------

def load_library(path):
    """Import the Python file (or package directory) at ``path``, whose top level defines

    ops, as TensorFlow's ``load_op_library``; returns the module. Loading a file again
    reloads it: its ops are redefined in place (see the module docstring).

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "negate_lib.py"
    >>> _ = path.write_text(
    ...     "import minflow.library as L\\n"
    ...     "OP = L.define_op('doc.negate', ['input'], infer=lambda x: (x.shape, x.dtype))\\n"
    ...     "L.register_kernel('doc.negate', ('cpu', 'cuda'), L.NUMERIC)(lambda xp, x: -x)\\n"
    ...     "negate = L.bind_function(OP)\\n")
    >>> module = minflow.library.load_library(path)
    >>> module.negate(minflow.tensor([1, -2]))
    tensor([-1,  2])
    >>> minflow.library.unload("doc")
    """
    path = os.path.abspath(os.fspath(path))
    init = os.path.join(path, "__init__.py") if os.path.isdir(path) else path
    if not os.path.isfile(init):
        raise FileNotFoundError(f"load_library: no Python file or package at {path!r}")
    stem = os.path.splitext(os.path.basename(path))[0]
    name = f"minflow_oplib_{stem}"
    spec = importlib.util.spec_from_file_location(
        name, init, submodule_search_locations=[path] if init != path else None)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def load_entry_points(group="minflow.ops"):
    """Load every op library that installed packages declare in entry point ``group``,

    e.g. in pyproject.toml ``[project.entry-points."minflow.ops"] myns = "myns.ops"``.

    An entry point names a module (imported) or a callable (called with no arguments).
    Returns ``{entry point name: loaded object}``.

    >>> minflow.library.load_entry_points("minflow.no_such_group")    # nothing installed
    {}
    """
    loaded = {}
    for ep in importlib.metadata.entry_points(group=group):
        _LOADING.append(f"entry point {ep.name!r} = {ep.value!r} of group {group!r}")
        try:
            obj = ep.load()
            if callable(obj) and not isinstance(obj, types.ModuleType):
                obj()
        finally:
            _LOADING.pop()
        loaded[ep.name] = obj
    return loaded


def unload(name):
    """Remove user op ``name``, or every op of namespace ``name``, with its kernels,

    gradients and public functions; the namespace module goes with its last op.

    >>> import minflow.library as L
    >>> _ = L.define_op("doc.thing", ["input"], infer=lambda x: (x.shape, x.dtype))
    >>> L.unload("doc")
    >>> L.get_op("doc.thing")
    Traceback (most recent call last):
    ...
    KeyError: "no op named 'doc.thing'"
    """
    names = [n for n in _RECORDS if n == name or n.rpartition(".")[0] == name]
    if not names:
        raise KeyError(f"unload: no op or namespace {name!r} was defined through "
                       f"minflow.library; user ops: {sorted(_RECORDS) or 'none'}")
    for n in names:
        _remove(n)
    import minflow.ops
    for ns in {n.rpartition(".")[0] for n in names} - {""}:
        if not any(n.rpartition(".")[0] == ns for n in _RECORDS):
            delattr(minflow.ops, ns)
            sys.modules.pop(f"minflow.ops.{ns}", None)


def _remove(name):
    """Undo everything recorded for user op ``name`` (its kernels and grad live on the
    OpDef, which goes)."""
    record = _RECORDS.pop(name)
    for container, attr in record.functions:
        if hasattr(container, attr):
            delattr(container, attr)
    for method in record.methods:
        _METHODS.pop(method, None)
        if method in Tensor.__dict__:
            delattr(Tensor, method)
    _grad_conf._CONFS.pop(name, None)
    _ops.remove_op(name)

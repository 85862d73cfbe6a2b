"""The functional layer: public functions generated from op signatures, and the table
that Tensor's operators and methods look functions up in.

``F`` holds every public function by name (``F.add``, ``F.exp`` ...); Tensor operators
call through it, so ops can be defined after the Tensor class without import cycles.

Every compiled wrapper takes numpy's names ``axis`` and ``keepdims`` for ``dim`` and
``keepdim`` as keywords, as torch's native functions do (``x.sum(axis=-1)``).
"""
import functools
import inspect

from .autocast import COMPOSITES, wrap_composite
from .dispatch import apply, run_into
from .namespace import F
from .inplace import inplace as _inplace, write_outs
from .tensor import Tensor

__all__ = ["F", "public", "generate_function", "tensor_method", "checking_tensor_args"]


_METHODS = {}

# torch functions that take ``out=`` where minflow's own definition does not say so: their
# public wrapper adds it and writes the result there (several, for a tuple result, into a
# tuple of tensors). The creation functions also take out's dtype and device as theirs.
_CREATION_OUT = frozenset({
    "arange", "empty", "eye", "full", "linspace", "logspace", "ones", "rand", "randint",
    "randn", "randperm", "zeros"})
OUT_ADDED = _CREATION_OUT | frozenset({
    "addbmm", "addmm", "addmv", "addr", "all", "amax", "amin", "aminmax", "any", "baddbmm",
    "bitwise_not", "bmm", "bucketize", "cat", "column_stack", "concat", "concatenate",
    "cummax", "cummin", "cumprod", "cumsum", "diag", "dot", "dstack", "gather", "ger", "histc",
    "histogram", "hstack", "index_select", "inverse", "kron", "kthvalue", "logsumexp",
    "masked_select", "max", "min", "mm", "mode", "multinomial", "mv", "nanmean",
    "nanquantile", "narrow_copy", "nonzero", "normal", "outer", "quantile", "renorm",
    "row_stack", "searchsorted", "sort", "stack", "std", "take", "take_along_dim", "topk", "triangular_solve",
    "var", "vstack", "where"})
_JOINS = frozenset({"cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack",
                    "column_stack", "row_stack"})
# torch's out= rules: out must have the result's dtype exactly, except for these (one the
# result can be cast to); and out may not share memory with the inputs of these
_OUT_CASTABLE = _CREATION_OUT | _JOINS | frozenset({
    "cumsum", "cumprod", "logsumexp", "var", "std", "nanmean", "kron", "outer", "addr", "ger",
    "normal"})
_OUT_APART = _JOINS | frozenset({"gather", "index_select", "take", "masked_select",
                                 "kthvalue"})


def public(fn=None, *, name=None, method=False, method_name=None):
    """Register a hand-written public function (and optionally a Tensor method)."""
    def register(fn):
        fname = name or fn.__name__
        if fname in COMPOSITES:         # casts by autocast's lists, as torch's one op would
            fn = wrap_composite(fn, fname)
        if not getattr(fn, "_checks_tensor_args", False):
            fn = _checking_tensor_args(fn, fname)
        setattr(F, fname, fn)
        if method:
            tensor_method(method_name or fname)(fn)
        return fn
    return register(fn) if fn is not None else register


def checking_tensor_args(fn, fname):
    """``fn`` (a public function outside ``F``, such as ``minflow.linalg.solve``) raising
    torch's TypeError, ``linalg.solve(): argument 'A' (position 1) must be Tensor, not str``,
    where an argument that is not a Tensor was used as one."""
    return fn if getattr(fn, "_checks_tensor_args", False) else _checking_tensor_args(fn, fname)


def _checking_tensor_args(fn, fname):
    """``fn`` raising torch's TypeError where an argument that is not a Tensor was used as
    one (``minflow.sum(2)``), instead of an AttributeError from deep inside.

    The wrapper is compiled with ``fn``'s own signature, so a call passes its arguments on
    as they are (no ``*args`` / ``**kwargs`` packing: this sits on every public call)."""
    sig = inspect.signature(fn)
    params = [p.replace(annotation=p.empty, default=_Default(p.name) if p.default is not
                        p.empty else p.empty) for p in sig.parameters.values()]
    aliases, prelude, optional = [], "", set()
    if all(p.kind is not p.VAR_KEYWORD for p in params):
        aliases, prelude, optional = numpy_aliases(fname, [
            (p.name, p.default is not p.empty or p.kind is p.KEYWORD_ONLY) for p in params
            if p.kind is not p.VAR_POSITIONAL])
    params = [p.replace(default=_Default("missing")) if p.name in optional else p
              for p in params]
    with_out = (fname in OUT_ADDED and "out" not in sig.parameters
                and all(p.kind is not p.VAR_KEYWORD for p in params))
    if with_out:
        params.append(inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY,
                                        default=_Default("out")))
    params += [inspect.Parameter(a, inspect.Parameter.KEYWORD_ONLY, default=_Default("unset"))
               for a in aliases]
    args, names, values, kwargs = [], [], "", "{}"     # the call; what the check reads
    for p in params:
        if p.name in aliases or (with_out and p.name == "out"):
            continue
        if p.kind is p.VAR_POSITIONAL:
            args.append(f"*{p.name}")
            values = f" + tuple({p.name})"
        elif p.kind is p.VAR_KEYWORD:
            args.append(f"**{p.name}")
            kwargs = p.name
        elif p.kind is p.KEYWORD_ONLY:
            args.append(f"{p.name}={p.name}")
        else:
            args.append(p.name)
            names.append(p.name)
    values = f"({''.join(n + ', ' for n in names)}){values}"
    call = f"return _mf_fn({', '.join(args)})"
    if with_out:
        call = (f"if out is None:\n            {call}\n"
                f"        return _mf_write_outs({_out_call(fname, args)}, out, {fname!r}, "
                f"{fname not in _OUT_CASTABLE}, {values if fname in _OUT_APART else '()'})")
    def_name = fname.replace(".", "_")      # linalg.solve is defined as linalg_solve
    src = (f"def {def_name}{sig.replace(parameters=params, return_annotation=sig.empty)}:\n"
           f"{prelude}    try:\n        {call}\n"
           f"    except AttributeError as _mf_err:\n"
           f"        _mf_raise({fname!r}, {tuple(names)!r}, {values}, {kwargs}, _mf_err)\n"
           f"        raise\n")
    env = {"_mf_fn": fn, "_mf_raise": raise_not_tensor, "_mf_write_outs": write_outs,
           "_mf_out_dtype": _out_dtype, "_d_out": None, **_ALIAS_ENV}
    env.update({f"_d_{p.name}": p.default for p in sig.parameters.values()
                if p.default is not p.empty})
    exec(compile(src, f"<minflow.{fname}>", "exec"), env)
    checked = functools.wraps(fn)(env[def_name])
    if with_out:        # what inspect shows: fn's own signature, and out
        checked.__signature__ = sig.replace(parameters=[*sig.parameters.values(), (
            inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None))])
    checked._checks_tensor_args = True
    return checked


def _out_call(fname, args):
    """The call of a wrapper with an added ``out=``: a creation function's dtype and device
    come from ``out`` where not given."""
    if fname not in _CREATION_OUT:
        return f"_mf_fn({', '.join(args)})"
    args = [f"dtype=_mf_out_dtype(dtype, out, {fname!r})" if a == "dtype=dtype" else
            "device=out.device if device is None else device" if a == "device=device" else a
            for a in args]
    return f"_mf_fn({', '.join(args)})"


def _out_dtype(dtype, out, fname):
    """The dtype of a creation function called with ``out=``: out's, which a given dtype
    must equal, as torch."""
    if not isinstance(out, Tensor):
        raise TypeError(f"{fname}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if dtype is not None and dtype is not out.dtype:
        raise RuntimeError(f"{fname}: dtype {dtype.name} does not match dtype of out "
                           f"parameter ({out.dtype.name})")
    return out.dtype


class _Default:
    """A parameter default in a compiled wrapper's signature: written as ``_d_<name>``."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"_d_{self.name}"


# numpy's argument names that torch's native functions take too: sum(x, axis=0, keepdims=True)
ALIASES = {"dim": "axis", "keepdim": "keepdims"}


def _take_alias(fname, name, value, default, alias, alias_value):
    """The value of ``name`` where it was given as ``alias``; both given is an error."""
    if value is not default:
        raise TypeError(f"{fname}(): got both '{name}' and its alias '{alias}'")
    return alias_value


def _raise_missing(fname, name):
    raise TypeError(f"{fname}() missing 1 required positional argument: '{name}'")


# _d_unset: an alias not given; _d_missing: a required argument not given (see numpy_aliases)
_ALIAS_ENV = {"_d_unset": object(), "_d_missing": object(), "_mf_take_alias": _take_alias,
              "_mf_raise_missing": _raise_missing}


def numpy_aliases(fname, params):
    """For a compiled wrapper with ``params`` [(name, may be left out: it has a default or
    is keyword-only)]: the alias keywords to add (``axis`` for ``dim``...), the source
    lines that take them, and the required positional parameters that need the default
    ``_d_missing`` (those from the first aliased one on, so that ``gather(x, axis=0,
    index=i)`` parses), checked in the same lines."""
    names = [name for name, _ in params]
    aliased = [name for name in names if name in ALIASES and ALIASES[name] not in names]
    if not aliased:
        return [], "", set()
    first = min(names.index(name) for name in aliased)
    optional = {name for name, has_default in params[first:] if not has_default}
    lines = []
    for name in aliased:
        default = "_d_missing" if name in optional else f"_d_{name}"
        lines += [f"    if {ALIASES[name]} is not _d_unset:\n",
                  f"        {name} = _mf_take_alias({fname!r}, {name!r}, {name}, {default}, "
                  f"{ALIASES[name]!r}, {ALIASES[name]})\n"]
    for name in sorted(optional, key=names.index):
        lines.append(f"    if {name} is _d_missing:\n"
                     f"        _mf_raise_missing({fname!r}, {name!r})\n")
    return [ALIASES[name] for name in aliased], "".join(lines), optional


def raise_not_tensor(fname, params, args, kwargs, err):
    """Raise torch's ``f(): argument 'x' (position i) must be Tensor, not int`` if the
    AttributeError ``err`` came from using a non-Tensor argument of the public function
    ``fname`` as a tensor; return (the caller re-raises ``err``) if it came from elsewhere.
    """
    if err.name is None or isinstance(err.obj, Tensor):
        return                          # raised by hand, or a real bug: not the caller's
    for i, value in enumerate(args):
        if value is err.obj:
            where = f"'{params[i]}' (position {i + 1})" if i < len(params) else \
                f"(position {i + 1})"
            break
    else:
        found = [key for key, value in kwargs.items() if value is err.obj]
        if not found:
            return
        where = f"'{found[0]}'"
    raise TypeError(f"{fname}(): argument {where} must be Tensor, not "
                    f"{type(err.obj).__name__}") from None


def tensor_method(name):
    """Install ``fn`` as ``Tensor.<name>``; the Tensor class is looked up lazily."""
    def register(fn):
        from .tensor import Tensor
        if name in _METHODS or name in Tensor.__dict__:
            raise ValueError(f"Tensor method {name!r} is already defined")
        _METHODS[name] = fn
        setattr(Tensor, name, fn)
        return fn
    return register


def generate_function(op, name=None, method=False, doc=None, out=False, inplace=False):
    """Make ``name(inputs..., attrs...)`` with the op's own signature and register it.

    The function is compiled once from the signature, so a call does no argument
    parsing of its own: it builds the attr dict and goes straight to the dispatcher.
    """
    fname = name or op.name
    params = []
    for inp in op.inputs:
        params.append(f"{inp.name}=None" if inp.optional else inp.name)
    for attr in op.attrs:
        params.append(f"{attr.name}=_d_{attr.name}" if attr.default is not _REQUIRED
                      else attr.name)
    aliases, prelude, optional = numpy_aliases(
        fname, [(p.split("=")[0], "=" in p) for p in params])
    params = [f"{p}=_d_missing" if p in optional else p for p in params]
    inputs = "".join(f"{i.name}, " for i in op.inputs)
    attrs = ", ".join(f"{a.name!r}: {a.name}" for a in op.attrs)
    call = f"_apply(_op, ({inputs}), {{{attrs}}})"
    if out or fname in OUT_ADDED:
        params.append("out=None")
        rules = (f"{fname in OUT_ADDED and fname not in _OUT_CASTABLE}, "
                 + (f"({inputs})" if fname in _OUT_APART else "()"))
        body = (f"        if out is None:\n            return {call}\n"
                f"        return _write_out({call}, out, {fname!r}, {rules})\n")
    else:
        body = f"        return {call}\n"
    # NOTE: the try costs nothing until an exception (CPython 3.11+): no wrapper frame,
    # unlike hand-written public functions (_checking_tensor_args)
    names = [p.split("=")[0] for p in params]
    values = "".join(n + ", " for n in names)
    if aliases:
        params += ["*"] + [f"{a}=_d_unset" for a in aliases]
    body = (f"{prelude}    try:\n{body}    except AttributeError as err:\n"
            f"        _raise_not_tensor({fname!r}, {tuple(names)!r}, ({values}), {{}}, err)\n"
            f"        raise\n")
    src = f"def {fname}({', '.join(params)}):\n{body}"
    env = {"_apply": apply, "_op": op, "_write_out": write_outs,
           "_raise_not_tensor": raise_not_tensor, **_ALIAS_ENV}
    env.update({f"_d_{a.name}": a.default for a in op.attrs})
    exec(compile(src, f"<minflow.{fname}>", "exec"), env)
    fn = env[fname]
    fn.__doc__ = doc or op.doc
    fn.__module__ = "minflow"
    fn._checks_tensor_args = True
    public(fn, name=fname, method=method)
    if inplace:
        make_inplace(fn, fname + "_", None if op.attrs else _writer(op))
    return fn


def _writer(op):
    """The ``direct`` in-place writer of an op without attrs, self its first input."""
    def direct(self, *args, **kwargs):
        return not kwargs and run_into(op, (self, *args), {}, self)
    return direct


def make_inplace(fn, name, direct=None):
    """Register ``name`` (e.g. ``exp_``) as function and Tensor method: ``fn`` then write back.

    ``direct(self, *args, **kwargs) -> bool``, where given, is tried first outside autograd:
    it writes the result into self itself, or returns False (see ``dispatch.run_into``).
    """
    def method(self, *args, **kwargs):
        return _inplace(fn, name, self, *args, _direct=direct, **kwargs)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"In-place version of :func:`{fn.__name__}`."
    method._checks_tensor_args = True   # inplace() checks self; fn checks the others
    return public(method, name=name, method=True)


from ..ops.registry import REQUIRED as _REQUIRED  # noqa: E402  (registry imports nothing of ours)

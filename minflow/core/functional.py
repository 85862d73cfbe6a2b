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
from .inplace import inplace as _inplace, write_out
from .tensor import Tensor

__all__ = ["F", "public", "generate_function", "tensor_method"]


_METHODS = {}


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
    params += [inspect.Parameter(a, inspect.Parameter.KEYWORD_ONLY, default=_Default("unset"))
               for a in aliases]
    args, names, values, kwargs = [], [], "", "{}"     # the call; what the check reads
    for p in params:
        if p.name in aliases:
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
    src = (f"def {fname}{sig.replace(parameters=params, return_annotation=sig.empty)}:\n"
           f"{prelude}    try:\n        return _mf_fn({', '.join(args)})\n"
           f"    except AttributeError as _mf_err:\n"
           f"        _mf_raise({fname!r}, {tuple(names)!r}, {values}, {kwargs}, _mf_err)\n"
           f"        raise\n")
    env = {"_mf_fn": fn, "_mf_raise": raise_not_tensor, **_ALIAS_ENV}
    env.update({f"_d_{p.name}": p.default for p in sig.parameters.values()
                if p.default is not p.empty})
    exec(compile(src, f"<minflow.{fname}>", "exec"), env)
    checked = functools.wraps(fn)(env[fname])
    checked._checks_tensor_args = True
    return checked


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
    if out:
        params.append("out=None")
        body = (f"        if out is None:\n            return {call}\n"
                f"        return _write_out({call}, out, {fname!r})\n")
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
    env = {"_apply": apply, "_op": op, "_write_out": write_out,
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

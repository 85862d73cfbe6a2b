"""Op definitions: what an op IS, apart from how it runs.

An ``OpDef`` names its inputs, outputs, typed attrs and traits, and carries the shape and
dtype inference that serves eager calls, the meta device and graph building alike.
Inference receives tensors (or Python scalars) and attrs and must never read data.
"""
from ..core import dtype as dtypes
from ..core.device import Device

import sys

__all__ = ["Input", "Attr", "AttrValueError", "OpDef", "define_op", "get_op", "all_ops",
           "remove_op", "REQUIRED", "TRAITS"]

TRAITS = frozenset({
    "no_grad",          # not differentiable: outputs never require grad
    "cpu_only",         # kernels exist for cpu only, by design
    "no_side_effect",   # graph passes may prune or merge it
    "elementwise", "broadcast", "reduce", "opaque",   # kind, for fusion and memory planning
    "view",             # outputs share memory with the first input
    "random",           # draws from a Generator
    "creation",         # makes a tensor from attrs only
})

REQUIRED = type("REQUIRED", (), {"__repr__": lambda self: "REQUIRED"})()


class AttrValueError(ValueError, RuntimeError):
    """An attr of the right type but out of range or not among its choices.

    NOTE: both a ValueError and a RuntimeError (as numpy's AxisError is both a ValueError
    and an IndexError): torch raises RuntimeError for such arguments from its C++ checks
    (``topk(x, -1)``, ``randperm(-1)``) and ValueError from its Python ones, so code
    written against torch catches either.
    """


class Input:
    """An op input: single, ``optional`` (may be None) or ``variadic`` (a list of tensors).

    ``scalar_ok``: a Python number may stand in for the tensor (``x + 2``).
    ``promote``: the input takes part in type promotion when the op promotes.
    ``mutable``: the kernel writes the input's array in place (optimizer updates); the
    caller bumps its version counter, and graph passes must neither copy nor reuse it.

    >>> minflow.library.Input("bias", optional=True)
    bias?
    """

    __slots__ = ("name", "optional", "variadic", "scalar_ok", "promote", "mutable")

    def __init__(self, name, optional=False, variadic=False, scalar_ok=False, promote=True,
                 mutable=False):
        self.name, self.optional, self.variadic = name, optional, variadic
        self.scalar_ok, self.promote, self.mutable = scalar_ok, promote, mutable

    def __repr__(self):
        kind = "?" if self.optional else "*" if self.variadic else ""
        return f"{self.name}{kind}{'!' if self.mutable else ''}"


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _is_float(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _all_of(is_type, values):
    # NOTE: a plain loop, not all(<generator>): shape attrs are checked on every call
    for v in values:
        if not is_type(v):
            return False
    return True


_ATTR_TYPES = {
    "int": _is_int,
    "float": _is_float,
    "bool": lambda v: isinstance(v, bool),
    "str": lambda v: isinstance(v, str),
    "scalar": lambda v: isinstance(v, (int, float, bool, complex)),
    "dtype": lambda v: isinstance(v, dtypes.DType),
    "device": lambda v: isinstance(v, Device),
    "ints": lambda v: isinstance(v, tuple) and _all_of(_is_int, v),
    "floats": lambda v: isinstance(v, tuple) and _all_of(_is_float, v),
    "any": lambda v: True,
}


# classes whose values pass an attr type's check as they are (the rest go through the
# check function: subclasses, tuples of ints...)
_EXACT_CLASSES = {"int": (int,), "float": (int, float), "bool": (bool,), "str": (str,),
                  "scalar": (int, float, bool, complex), "dtype": (dtypes.DType,), "device": (Device,)}
_NONE_TYPE = type(None)


class Attr:
    """A typed op attribute with a default and optional constraints.

    type: one of int, float, bool, str, scalar, dtype, device, ints, floats, any.
    ``optional`` lets None through; ``choices``, ``min`` and ``max`` constrain values.

    >>> minflow.library.Attr("negative_slope", "float", 0.01, min=0.0)
    negative_slope: float=0.01
    """

    __slots__ = ("name", "type", "default", "optional", "choices", "min", "max", "_is_type",
                 "valid_classes")

    def __init__(self, name, type, default=REQUIRED, optional=False, choices=None,
                 min=None, max=None):
        if type not in _ATTR_TYPES:
            raise ValueError(f"attr {name!r}: unknown attr type {type!r}; expected one of "
                             f"{sorted(_ATTR_TYPES)}")
        self.name, self.type, self.default, self.optional = name, type, default, optional
        self.choices, self.min, self.max = choices, min, max
        self._is_type = _ATTR_TYPES[type]
        # values of these classes need no validate() call: unconstrained attrs only
        unconstrained = choices is None and min is None and max is None
        self.valid_classes = frozenset(
            _EXACT_CLASSES.get(type, ()) + ((_NONE_TYPE,) if optional else ())
        ) if unconstrained else frozenset()

    def validate(self, op_name, value):
        """Return ``value`` if it fits, else raise naming the op, the attr and expected vs got."""
        if value is None and self.optional:
            return value
        if not self._is_type(value):
            raise TypeError(f"{self._where(op_name)} expected {self.type}"
                            f"{' or None' if self.optional else ''}, got {value!r} "
                            f"({type(value).__name__})")
        if self.choices is not None and value not in self.choices:
            raise AttrValueError(f"{self._where(op_name)} expected one of "
                                 f"{list(self.choices)}, got {value!r}")
        if self.min is not None and value < self.min:
            raise AttrValueError(f"{self._where(op_name)} expected >= {self.min}, got {value!r}")
        if self.max is not None and value > self.max:
            raise AttrValueError(f"{self._where(op_name)} expected <= {self.max}, got {value!r}")
        return value

    def _where(self, op_name):
        # NOTE: built only on error: validate runs for every attr of every op call
        return f"{op_name}: attr '{self.name}'"

    def __repr__(self):
        default = "" if self.default is REQUIRED else f"={self.default!r}"
        return f"{self.name}: {self.type}{'?' if self.optional else ''}{default}"


class OpDef:
    """One op, declared once; kernels, grads and public functions refer to it by name.

    promote: None (inputs keep their dtypes), "out" (inputs marked ``promote`` are cast
    to the inferred output dtype) or "common" (cast to their promoted dtype, e.g. for
    comparisons whose output is bool).
    dtype_from: the input or attr whose dtype picks the kernel (default: the first tensor
    input, or the output when there is none).

    >>> minflow.ops.get_op("leaky_relu")
    OpDef(leaky_relu: (input) -> (out), attrs=[negative_slope: float=0.01])
    """

    __slots__ = ("name", "inputs", "outputs", "attrs", "traits", "infer", "check", "doc",
                 "promote", "dtype_from", "grad", "kernels", "kernel_cache", "_attr_index",
                 "differentiable", "source", "fast", "is_view")

    def __init__(self, name, inputs, outputs, infer, attrs=(), traits=(), check=None,
                 promote=None, dtype_from=None, doc="", source=None):
        self.name = name
        self.inputs = tuple(i if isinstance(i, Input) else Input(i) for i in inputs)
        self.outputs = tuple(outputs)
        self.attrs = tuple(attrs)
        self.traits = frozenset(traits)
        unknown = self.traits - TRAITS
        if unknown:
            raise ValueError(f"define_op({name!r}): unknown traits {sorted(unknown)}; "
                             f"expected some of {sorted(TRAITS)}")
        if promote not in (None, "out", "common"):
            raise ValueError(f"define_op({name!r}): promote must be None, 'out' or 'common', "
                             f"got {promote!r}")
        names = [i.name for i in self.inputs] + [a.name for a in self.attrs]
        if len(set(names)) != len(names):
            raise ValueError(f"define_op({name!r}): input and attr names must be unique, "
                             f"got {names}")
        if dtype_from is not None and dtype_from not in names:
            raise ValueError(f"define_op({name!r}): dtype_from={dtype_from!r} names no input "
                             f"or attr; expected one of {names}")
        self.infer, self.check, self.doc = infer, check, doc
        self.promote, self.dtype_from = promote, dtype_from
        self.differentiable = "no_grad" not in self.traits
        self.grad = None            # set by minflow.autograd.register_grad
        self.kernels = []           # set by minflow.kernels.register_kernel
        self.kernel_cache = {}      # (device type, dtype) -> kernel, filled on first use;
                                    # cpu ones also under the bare dtype (dispatch's fast key)
        self._attr_index = {a.name: a for a in self.attrs}
        self.source = source
        self.is_view = "view" in self.traits
        # the eager interpreter's one-pass path applies to ops without these features
        # (an input's promote flag matters only where the op promotes)
        self.fast = (not any(i.variadic or (promote and not i.promote) for i in self.inputs)
                     and "device" not in self._attr_index and dtype_from is None)

    def resolve_attrs(self, attrs):
        """Fill defaults and validate; the same dict comes back (callers pass a fresh one)."""
        for attr in self.attrs:
            value = attrs.get(attr.name, REQUIRED)
            if value is REQUIRED:
                if attr.default is REQUIRED:
                    raise TypeError(f"{self.name}: missing required attr '{attr.name}'")
                attrs[attr.name] = attr.default
            elif value is not attr.default and value.__class__ not in attr.valid_classes:
                attr.validate(self.name, value)
        if len(attrs) != len(self.attrs):
            extra = sorted(set(attrs) - set(self._attr_index))
            raise TypeError(f"{self.name}: unexpected attrs {extra}; expected "
                            f"{[a.name for a in self.attrs]}")
        return attrs

    def __repr__(self):
        return (f"OpDef({self.name}: ({', '.join(map(repr, self.inputs))}) -> "
                f"({', '.join(self.outputs)}), attrs=[{', '.join(map(repr, self.attrs))}])")


_REGISTRY = {}


def define_op(name, inputs, outputs=("out",), *, infer, attrs=(), traits=(), check=None,
              promote=None, dtype_from=None, doc="", source=None):
    """Declare an op; a second definition of the same name is an error.

    >>> minflow.ops.define_op("exp", ["input"], infer=None)
    Traceback (most recent call last):
    ...
    ValueError: define_op: op 'exp' is already defined by minflow.ops.elementwise; defined again by ...
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"define_op: expected a non-empty op name, got {name!r}")
    if source is None:      # where the op is defined, for clash errors: the calling module
        source = sys._getframe(1).f_globals.get("__name__", "?")
    if name in _REGISTRY:
        raise ValueError(f"define_op: op {name!r} is already defined by {_REGISTRY[name].source}; "
                         f"defined again by {source}")
    op = OpDef(name, inputs, outputs, infer, attrs, traits, check, promote, dtype_from, doc,
               source)
    _REGISTRY[name] = op
    return op


def get_op(name):
    """The ``OpDef`` called ``name``, or a KeyError listing close names.

    >>> minflow.ops.get_op("exp").name
    'exp'
    >>> minflow.ops.get_op("expp")
    Traceback (most recent call last):
    ...
    KeyError: "no op named 'expp'; did you mean ['exp']?"
    """
    op = _REGISTRY.get(name)
    if op is None:
        close = [n for n in _REGISTRY if name in n or n in name][:8]
        raise KeyError(f"no op named {name!r}" + (f"; did you mean {close}?" if close else ""))
    return op


def remove_op(name):
    """Take op ``name`` out of the registry (minflow.library's unload and reload)."""
    return _REGISTRY.pop(name)


def all_ops():
    """Every defined op, sorted by name.

    >>> names = [op.name for op in minflow.ops.all_ops()]
    >>> names == sorted(names), "matmul" in names
    (True, True)
    """
    return [_REGISTRY[n] for n in sorted(_REGISTRY)]

"""Kernel registry: how an op RUNS, per (op, device type, dtypes).

A kernel computes on raw arrays (numpy.ndarray or cupy.ndarray), never on Tensors:
``fn(*arrays, **attrs) -> array or tuple of arrays``. A kernel registered for
``device=("cpu", "cuda")`` is array-module generic and takes the module first:
``fn(xp, *arrays, **attrs)``; it is bound to numpy or cupy when first chosen.
A kernel registered with ``out=True`` also takes ``out=``, an array of the output's shape
and dtype to write its one output into (and return): the graph plan passes its
preallocated buffers there (ufuncs registered by name take ``out=`` by nature).
A kernel registered with ``overwrites=("grad",)`` also takes ``overwrite=False``: True
lets it write over those inputs, which the graph plan passes where nothing reads them
after the call (a gradient that dies at its optimizer update).
"""
import functools

from ..core import dtype as dtypes
from ..core.device import array_module
from ..ops.registry import get_op

__all__ = ["Kernel", "register_kernel", "register_array_function", "select_kernel",
           "find_kernel", "KernelNotFoundError"]


class KernelNotFoundError(NotImplementedError):
    """No kernel is registered for an (op, device, dtype) (a NotImplementedError, so a
    RuntimeError, as torch's "not implemented for" errors)."""


class Kernel:
    __slots__ = ("op", "device", "dtypes", "fn", "match", "generic", "out", "overwrites")

    def __init__(self, op, device, dtypes_, fn, match, generic, out=False, overwrites=()):
        self.op, self.device, self.dtypes, self.fn = op, device, dtypes_, fn
        self.match, self.generic, self.out = match, generic, out
        self.overwrites = tuple(overwrites)

    def bind(self):
        """The callable the dispatcher runs: generic kernels get their array module."""
        if isinstance(self.fn, str):
            return getattr(array_module(self.device), self.fn)
        if self.generic:
            return functools.partial(self.fn, array_module(self.device))
        return self.fn

    def __repr__(self):
        return (f"Kernel({self.op.name}, {self.device}, "
                f"[{', '.join(d.name for d in sorted(self.dtypes, key=lambda d: d.rank))}])")


def register_kernel(op_name, device, dtypes_, match=None, out=False, overwrites=()):
    """Register ``fn`` as the kernel of ``op_name`` on ``device`` for ``dtypes_``.

    ``device`` is "cpu", "cuda", or a tuple of both for an array-module-generic kernel.
    ``match(*inputs, **attrs) -> bool`` narrows the kernel further (e.g. by an attr value).
    ``out``: ``fn`` takes ``out=None``, an array to write its one output into.
    ``overwrites``: names of inputs ``fn`` may write over when called with ``overwrite=True``.

    >>> import minflow.library as L
    >>> _ = L.define_op("doc.halve", ["input"], infer=lambda x: (x.shape, x.dtype))
    >>> @L.register_kernel("doc.halve", ("cpu", "cuda"), L.FLOATS)   # xp: numpy or cupy
    ... def halve(xp, input):
    ...     return input / 2
    >>> L.call("doc.halve", minflow.tensor([3.0]))
    tensor([1.5000])
    >>> L.call("doc.halve", minflow.tensor([3]))
    Traceback (most recent call last):
    ...
    minflow.kernels.registry.KernelNotFoundError: doc.halve: no kernel for device 'cpu' and dtype int64; ...
    >>> L.unload("doc")
    """
    op = get_op(op_name)
    devices = (device,) if isinstance(device, str) else tuple(device)
    generic = isinstance(device, tuple)
    for dev in devices:
        if dev not in ("cpu", "cuda"):
            raise ValueError(f"register_kernel({op_name!r}): unknown device type {dev!r}; "
                             f"expected 'cpu' or 'cuda'")
        if dev == "cuda" and "cpu_only" in op.traits:
            raise ValueError(f"register_kernel({op_name!r}): op is cpu_only")
    dts = frozenset(dtypes.as_dtype(d) for d in dtypes_)
    if not dts:
        raise ValueError(f"register_kernel({op_name!r}): expected at least one dtype")
    names = [spec.name for spec in op.inputs]
    unknown = [name for name in overwrites if name not in names]
    if unknown:
        raise ValueError(f"register_kernel({op_name!r}): overwrites names {unknown}, which "
                         f"are not inputs of the op; its inputs: {names}")

    def decorator(fn):
        for dev in devices:
            for other in op.kernels:
                clash = other.device == dev and other.dtypes & dts
                if clash and other.match is None and match is None:
                    names = sorted(d.name for d in other.dtypes & dts)
                    raise ValueError(f"register_kernel({op_name!r}): a kernel for device "
                                     f"{dev!r} and dtypes {names} is already registered "
                                     f"({_describe(other.fn)})")
            op.kernels.append(Kernel(op, dev, dts, fn, match, generic, out, overwrites))
        op.kernel_cache.clear()
        return fn
    return decorator


def register_array_function(op_name, name, dtypes_, device=("cpu", "cuda")):
    """Register ``numpy.<name>`` / ``cupy.<name>`` (a ufunc, usually) as the kernel itself.

    NOTE: the hot elementwise ops use this, so a call runs the ufunc with no Python
    wrapper in between.
    """
    register_kernel(op_name, device, dtypes_)(name)


def registered_pairs(op):
    """``{device type: [dtype names]}`` of the kernels an op has."""
    pairs = {}
    for k in op.kernels:
        pairs.setdefault(k.device, set()).update(d.name for d in k.dtypes)
    return {dev: sorted(names, key=lambda n: dtypes.as_dtype(n).rank)
            for dev, names in sorted(pairs.items())}


def _describe(fn):
    if isinstance(fn, str):
        return f"array function {fn!r}"
    return f"{fn.__module__}.{fn.__qualname__}"


def select_kernel(op, device_type, dtype, inputs, attrs):
    """The kernel for (op, device, dtype), bound, from the cache when the choice is static."""
    kernel = find_kernel(op, device_type, dtype, inputs, attrs)
    bound = kernel.bind()
    if kernel.match is None and not any(k.match is not None for k in op.kernels
                                        if k.device == device_type and dtype in k.dtypes):
        op.kernel_cache[(device_type, dtype)] = bound
    return bound


def find_kernel(op, device_type, dtype, inputs, attrs):
    """The Kernel registered for (op, device, dtype) that matches ``inputs`` and ``attrs``."""
    candidates = [k for k in op.kernels if k.device == device_type and dtype in k.dtypes]
    if any(k.match is not None for k in candidates):
        matched = [k for k in candidates if k.match is None or k.match(*inputs, **attrs)]
        specific = [k for k in matched if k.match is not None]
        chosen = specific if specific else matched
        if len(chosen) > 1:
            raise RuntimeError(f"{op.name}: {len(chosen)} kernels match device "
                               f"{device_type!r}, dtype {dtype.name}: {chosen}")
        candidates = chosen
    if not candidates:
        raise KernelNotFoundError(
            f"{op.name}: no kernel for device {device_type!r} and dtype {dtype.name}; "
            f"registered (device: dtypes): {registered_pairs(op) or 'none'}")
    return candidates[0]

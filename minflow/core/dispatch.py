"""The dispatcher: every public function ends here.

    apply(op, inputs, attrs)
      resolve attrs (defaults, types, constraints)  -> op.check -> op.infer (shape, dtype)
      -> the current interpreter runs the op:
           eager: pick the kernel by (device, dtype) (cached), run it, wrap outputs,
                  record an autograd node when grad is on and an input requires grad;
           lazy (graph mode) adds a node instead; it plugs in with ``set_interpreter``.

NOTE: this is the hot path of every op call; it avoids per-call allocation beyond the
output tensors, and does no autograd work when no input requires grad.
"""
import numpy as np

from . import dtype as dtypes
from .device import MetaArray, check_available, cuda_context
from .grad_mode import state as grad_state
from .tensor import Tensor

__all__ = ["apply", "Interpreter", "EagerInterpreter", "set_interpreter", "current_interpreter",
           "OpError"]

_ERRORS = (ValueError, TypeError, IndexError, RuntimeError)


class OpError(RuntimeError):
    """Raised for bad input to an op: names the op and what was expected vs got."""


def apply(op, inputs, attrs):
    """Run ``op`` on ``inputs`` (a tuple) with ``attrs`` (a fresh dict) via the interpreter."""
    if op.attrs:
        op.resolve_attrs(attrs)
    elif attrs:
        raise TypeError(f"{op.name}: takes no attrs, got {sorted(attrs)}")
    try:
        if op.check is not None:
            op.check(*inputs, **attrs)
        metas = op.infer(*inputs, **attrs)
    except _ERRORS as err:
        raise _named(err, op.name) from None
    return _interpreter[0].run(op, inputs, attrs, metas)


def _named(err, name):
    msg = str(err.args[0]) if err.args else ""
    if msg.startswith(f"{name}:") or msg.startswith(f"{name}("):
        return err
    return type(err)(f"{name}: {msg}")


class Interpreter:
    """Runs an op once attrs are resolved and outputs inferred. Subclassed per mode."""

    def run(self, op, inputs, attrs, metas):
        raise NotImplementedError


def _tensor_device(op, inputs):
    """The one device of an op's tensor inputs (variadic lists included)."""
    device = None
    for i, x in enumerate(inputs):
        if isinstance(x, (list, tuple)):
            for y in x:
                if isinstance(y, Tensor):
                    if device is None:
                        device = y.device
                    elif y.device is not device:
                        _device_mismatch(op, device, y.device, f"{op.inputs[i].name}[...]")
        elif isinstance(x, Tensor):
            if device is None:
                device = x.device
            elif x.device is not device:
                _device_mismatch(op, device, x.device, op.inputs[i].name)
    return device


def _device_mismatch(op, first, other, name):
    raise RuntimeError(f"{op.name}: expected all tensors to be on the same device, but found "
                       f"{first} and {other} (input '{name}')")


def _kernel_dtype(op, inputs, attrs, metas, compute):
    if compute is not None:
        return compute
    src = op.dtype_from
    if src is not None:
        value = attrs[src] if src in attrs else inputs[[i.name for i in op.inputs].index(src)]
        return value if isinstance(value, dtypes.DType) else value.dtype
    for x in inputs:
        if isinstance(x, Tensor):
            return x.dtype
        if isinstance(x, (list, tuple)) and x and isinstance(x[0], Tensor):
            return x[0].dtype
    return (metas if isinstance(metas[1], dtypes.DType) else metas[0])[1]


def _compute_dtype(op, inputs, metas):
    """The dtype promoted inputs are cast to before the kernel runs."""
    if op.promote == "out":
        return metas[1]
    promoted = [x for spec, x in zip(op.inputs, inputs) if spec.promote and x is not None]
    return dtypes.result_type(*promoted)


class EagerInterpreter(Interpreter):
    """Runs kernels now, on real arrays."""

    def run(self, op, inputs, attrs, metas):
        if op.fast and metas[1].__class__ is _DType:
            out = _run_fast(op, inputs, attrs, metas)
            if out is not None:
                return out
        in_device = _tensor_device(op, inputs)
        device = attrs.get("device") if "device" in attrs else None
        if device is None:
            device = in_device or _CPU
        compute = _compute_dtype(op, inputs, metas) if op.promote is not None else None
        single = isinstance(metas[1], dtypes.DType)
        if device.type == "meta":
            outs = [MetaArray(s, d.np) for s, d in ((metas,) if single else metas)]
        else:
            outs = self._run_kernel(op, inputs, attrs, metas, in_device or device, compute)
        outputs = []
        for arr, (shape, dtype) in zip(outs, (metas,) if single else metas):
            outputs.append(Tensor._make(arr, dtype, device))
        if "view" in op.traits:
            base = inputs[0]
            outputs[0]._version = base._share_version()
            outputs[0]._base = base if base._base is None else base._base
        if grad_state.grad_enabled and op.differentiable:
            for x in inputs:
                if isinstance(x, Tensor):
                    if x._requires_grad:
                        record(op, inputs, attrs, outputs)
                        break
                elif isinstance(x, (list, tuple)) and any(
                        isinstance(y, Tensor) and y._requires_grad for y in x):
                    record(op, inputs, attrs, outputs)
                    break
        return outputs[0] if single else tuple(outputs)

    def _run_kernel(self, op, inputs, attrs, metas, device, compute):
        dtype = _kernel_dtype(op, inputs, attrs, metas, compute)
        kernel = op.kernel_cache.get((device.type, dtype))
        if kernel is None:
            if device.type == "cuda":
                check_available(device)
            from ..kernels.registry import select_kernel
            kernel = select_kernel(op, device.type, dtype, inputs, attrs)
        arrays = []
        for spec, x in zip(op.inputs, inputs):
            if isinstance(x, Tensor):
                a = x._data
                if compute is not None and spec.promote and x.dtype is not compute:
                    a = a.astype(compute.np)
                arrays.append(a)
            elif isinstance(x, (list, tuple)) and spec.variadic:
                arrays.append([_cast(y._data, y.dtype, compute, spec.promote) for y in x])
            else:
                arrays.append(x)
        if device.index is not None:
            with cuda_context(device):
                result = kernel(*arrays, **attrs)
        else:
            result = kernel(*arrays, **attrs)
        if not isinstance(result, tuple):
            result = (result,)
        single = isinstance(metas[1], dtypes.DType)
        outs = []
        for arr, (shape, dtype) in zip(result, (metas,) if single else metas):
            if isinstance(arr, _SCALARS):
                arr = np.asarray(arr)     # numpy reductions return numpy scalars
            if arr.dtype != dtype.np:
                arr = arr.astype(dtype.np)
            outs.append(arr)
        return outs


def _run_fast(op, inputs, attrs, metas):
    """The common case in one pass: single output, plain inputs, cpu, cached kernel.

    Returns None whenever the general path is needed (it also reports the errors).
    """
    dtype = metas[1]
    compute = dtype if op.promote == "out" else (
        _compute_dtype(op, inputs, metas) if op.promote is not None else None)
    device = key_dtype = None
    grad = False
    arrays = []
    for x in inputs:
        if isinstance(x, Tensor):
            if device is None:
                device, key_dtype = x.device, x.dtype
            elif x.device is not device:
                return None
            if x._requires_grad:
                grad = True
            a = x._data
            if compute is not None and x.dtype is not compute:
                a = a.astype(compute.np)
            arrays.append(a)
        else:
            arrays.append(x)
    if device is not _CPU:
        return None
    kernel = op.kernel_cache.get(("cpu", compute or key_dtype))
    if kernel is None:
        return None
    result = kernel(*arrays, **attrs) if attrs else kernel(*arrays)
    if result.__class__ is not np.ndarray:
        result = np.asarray(result)
    if result.dtype is not dtype.np and result.dtype != dtype.np:
        result = result.astype(dtype.np)
    out = _make(result, dtype, device)
    if grad and grad_state.grad_enabled and op.differentiable:
        record(op, inputs, attrs, [out])
    return out


def _cast(array, dtype, compute, promote):
    if compute is not None and promote and dtype is not compute:
        return array.astype(compute.np)
    return array


_SCALARS = (np.generic, int, float, bool)
_DType = dtypes.DType
_make = Tensor._make
_CPU = None
_interpreter = [EagerInterpreter()]


def set_interpreter(interpreter):
    """Make ``interpreter`` run ops from now on; returns the previous one."""
    prev = _interpreter[0]
    _interpreter[0] = interpreter
    return prev


def current_interpreter():
    return _interpreter[0]


def _late_imports():
    global _CPU, record
    from .device import Device
    from ..autograd.node import record
    _CPU = Device("cpu")


record = None

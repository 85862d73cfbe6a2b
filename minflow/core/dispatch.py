"""The dispatcher: every public function ends here.

    apply(op, inputs, attrs)
      resolve attrs (defaults, types, constraints)  -> op.check -> op.infer (shape, dtype)
      -> the current interpreter runs the op:
           eager: pick the kernel by (device, dtype) (cached), run it, wrap outputs,
                  record an autograd node when grad is on and an input requires grad;
           lazy (graph mode) adds a node instead; it plugs in with ``set_interpreter``.

NOTE: this is the hot path of every op call (backward's ops included); it avoids
per-call allocation beyond the output tensors, and does no autograd work when no input
requires grad.
"""
import warnings

import numpy as np

from . import dtype as dtypes
from .autocast import cast_inputs, state as _autocast
from .device import MetaArray, check_available, cuda_context
from .grad_mode import state as grad_state
from .tensor import Tensor

__all__ = ["apply", "apply_in_backward", "run_into", "run_in_place", "Interpreter",
           "EagerInterpreter", "set_interpreter", "current_interpreter", "OpError",
           "LinAlgError"]

# NOTE: torch never warns for x / 0, log(0) or overflow; numpy does, attributed to the
# Python frame that called the ufunc. np.errstate around each kernel would cost 0.2-0.9 us
# (a + b takes ~1.3) and np.seterr would change the user's own numpy, so this ignores
# numpy's floating-point warnings raised in minflow's modules, and only those. Not
# covered: ufuncs that numpy's own Python code calls (ndarray.sum -> numpy/_core/_methods),
# and code that resets the warning filters after import (pytest, catch_warnings).
warnings.filterwarnings(
    "ignore", r"(divide by zero|invalid value|overflow|underflow) encountered",
    RuntimeWarning, r"minflow\.")

_ERRORS = (ValueError, TypeError, IndexError, RuntimeError)


class OpError(RuntimeError):
    """Raised for bad input to an op: names the op and what was expected vs got."""


class LinAlgError(RuntimeError):
    """A linear algebra kernel met a matrix it cannot handle (singular, not positive-definite,
    no convergence), as torch.linalg.LinAlgError; a RuntimeError, as torch's.

    >>> try:
    ...     minflow.linalg.cholesky(-minflow.eye(2))
    ... except minflow.linalg.LinAlgError as err:
    ...     print(str(err)[:60])
    linalg.cholesky: The factorization could not be completed be
    """


def apply(op, inputs, attrs):
    """Run ``op`` on ``inputs`` (a tuple) with ``attrs`` (a fresh dict) via the interpreter."""
    if observer[0] is not None:         # minflow.profiler records the call
        return observer[0].observe(op, inputs, attrs)
    if _autocast.active is not None:
        inputs = cast_inputs(op.name, inputs)
    if op.attrs:
        op.resolve_attrs(attrs)
    elif attrs:
        raise TypeError(f"{op.name}: takes no attrs, got {sorted(attrs)}")
    try:
        if op.check is not None:
            op.check(*inputs, **attrs)
        # NOTE: `f(*a, **{})` still builds a kwargs dict; most hot ops have no attrs.
        metas = op.infer(*inputs, **attrs) if attrs else op.infer(*inputs)
    except _ERRORS as err:
        raise _interpreter[0].op_error(op, inputs, _named(err, op.name)) from None
    return _interpreter[0].run(op, inputs, attrs, metas)


def run_into(op, inputs, attrs, target):
    """Write ``op``'s result straight into ``target``'s array, for in-place ops outside
    autograd (the caller checks that nothing is recorded). True if done; False, with nothing
    done, where this shortcut does not apply: then the caller runs the op out of place and
    copies the result in (one allocation and one pass over memory more).

    It applies to a cpu ufunc kernel whose tensor inputs all have target's device and dtype
    and whose result has target's shape and dtype, with target writable.
    """
    if (attrs or not op.fast or op.check is not None or target.device is not _CPU
            or observer[0] is not None):
        return False
    dtype = target.dtype
    for x in inputs:
        if isinstance(x, Tensor) and (x.device is not _CPU or x.dtype is not dtype):
            return False
    kernel = op.kernel_cache.get(dtype)
    if kernel is None:
        try:
            kernel = _select(op, _CPU, dtype, inputs, attrs)
        except RuntimeError:
            return False
    if kernel.__class__ is not _ufunc or not target._data.flags.writeable:
        return False
    try:
        metas = op.infer(*inputs)
    except _ERRORS:
        return False            # the general path raises the op's own error
    if metas[1] is not dtype or metas[0] != target._data.shape:
        return False
    kernel(*[x._data if isinstance(x, Tensor) else x for x in inputs], out=target._data)
    if target._version is not None:
        target._version[0] += 1
    return True


def apply_in_backward(op, inputs, attrs):
    """``apply`` for a grad function's call of its backward op (linear_grad, relu_grad...)
    on tensors that passed their checks already: the forward's saved tensors and the
    incoming grad, whose shape and dtype the engine checked. Outside create_graph, on cpu,
    it runs the cached kernel straight on the arrays, its outputs of the first input's
    dtype (the caller's op must give them that dtype); anywhere else it is ``apply``."""
    first = inputs[0]
    dtype = first.dtype
    kernel = op.kernel_cache.get(dtype)
    if (kernel is None or grad_state.grad_enabled or first.device is not _CPU
            or op.promote is not None or op.is_view or observer[0] is not None
            or _autocast.active is not None or _interpreter[0].__class__ is not EagerInterpreter):
        return apply(op, inputs, attrs)
    arrays = []
    for x in inputs:
        if isinstance(x, Tensor):
            if x.device is not _CPU or x.dtype.category == 3:
                return apply(op, inputs, attrs)
            arrays.append(x._data)
        else:
            arrays.append(x)
    result = kernel(*arrays, **attrs) if attrs else kernel(*arrays)
    if result.__class__ is not tuple:
        return _make(_as_dtype(op, result, dtype), dtype, _CPU)
    return tuple([_make(_as_dtype(op, a, dtype), dtype, _CPU) for a in result])


def _as_dtype(op, array, dtype):
    """A cpu kernel's result as an array of ``dtype``."""
    if array.__class__ is not _ndarray:
        array = np.asarray(array)       # ufuncs and reductions on 0-d arrays give scalars
    if array.dtype is not dtype.np and array.dtype != dtype.np:
        array = _cast_result(op, array, dtype)
    return array


def run_in_place(op, inputs, attrs):
    """Run a kernel that updates its first input in place straight on the arrays, for an
    op called outside autograd on inputs its caller has already checked as the op's infer
    would (the same device and dtype, matching shapes) and with its attrs resolved. The
    first input may be a list (a foreach op's params; the other lists are passed as lists
    of arrays). True if done; False, with nothing done, where no cpu kernel is cached for
    the target's dtype, a profiler is observing or a graph is being traced: then the
    caller goes through ``apply``."""
    target = inputs[0]
    if target.__class__ is list:
        target = target[0]
    if (target.device is not _CPU or observer[0] is not None
            or _interpreter[0].__class__ is not EagerInterpreter):
        return False
    kernel = op.kernel_cache.get(target.dtype)
    if kernel is None:
        return False
    kernel(*[x._data if isinstance(x, Tensor) else [y._data for y in x]
             if x.__class__ is list else x for x in inputs], **attrs)
    return True


def _named(err, name):
    msg = str(err.args[0]) if err.args else ""
    if msg.startswith(f"{name}:") or msg.startswith(f"{name}("):
        return err
    return type(err)(f"{name}: {msg}")


class Interpreter:
    """Runs an op once attrs are resolved and outputs inferred. Subclassed per mode.

    ``inplace``: None, or a method that takes over in-place tensor methods (graph mode's
    tracing of ``x.add_(y)``; see core/inplace.py)."""

    inplace = None

    def run(self, op, inputs, attrs, metas):
        raise NotImplementedError

    def op_error(self, op, inputs, err):
        """The error to raise for a failed check or inference (graph mode adds where)."""
        return err


class EagerInterpreter(Interpreter):
    """Runs kernels now, on real arrays."""

    def run(self, op, inputs, attrs, metas):
        """The common case in one pass: one output, plain inputs, cpu, a cached kernel.

        Anything else (and every error report) goes to ``run_general``.
        """
        dtype = metas[1]
        single = dtype.__class__ is _DType
        if not op.fast or not (single or op.promote is None):
            return self.run_general(op, inputs, attrs, metas)
        promote = op.promote
        compute = None if promote is None else (
            dtype if promote == "out" else _compute_dtype(op, inputs, metas))
        device = first = None
        grad = False
        arrays = []
        for x in inputs:
            if isinstance(x, Tensor):
                if device is None:
                    device, first = x.device, x.dtype
                    if device is not _CPU:      # meta arrays cannot be cast; cuda goes there too
                        return self.run_general(op, inputs, attrs, metas)
                elif x.device is not device:
                    return self.run_general(op, inputs, attrs, metas)
                if x._requires_grad:
                    grad = True
                a = x._data
                if compute is not None and x.dtype is not compute:
                    if x.dtype.category == 3 and compute.category != 3:
                        return self.run_general(op, inputs, attrs, metas)   # it raises
                    a = a.astype(compute.np)
                elif x.dtype is not first and x.dtype.category == 3:
                    return self.run_general(op, inputs, attrs, metas)       # it raises
                arrays.append(a)
            elif x.__class__ is int and compute is not None and compute.category == 1:
                arrays.append(_wrap_int(x, compute))
            else:
                arrays.append(x)
        # NOTE: cpu kernels are also cached under the bare dtype: no key tuple per call.
        kernel = op.kernel_cache.get(compute or first) if device is _CPU else None
        if kernel is None:
            return self.run_general(op, inputs, attrs, metas)
        result = kernel(*arrays, **attrs) if attrs else kernel(*arrays)
        if not single:
            return self._wrap_outputs(op, inputs, attrs, metas, result, grad)
        if result.__class__ is not _ndarray:
            result = np.asarray(result)     # ufuncs on 0-d arrays return numpy scalars
        if result.dtype is not dtype.np and result.dtype != dtype.np:
            result = _cast_result(op, result, dtype)
        out = _make(result, dtype, device)
        if op.is_view:
            _share_storage(out, inputs[0])
        if grad and grad_state.grad_enabled and op.differentiable:
            record(op, inputs, attrs, (out,))
        return out

    @staticmethod
    def _wrap_outputs(op, inputs, attrs, metas, result, grad):
        """``run``'s end for an op of several outputs: the kernel's arrays as cpu tensors of
        the inferred dtypes."""
        outputs = []
        for arr, (_, dtype) in zip(result, metas):
            outputs.append(_make(_as_dtype(op, arr, dtype), dtype, _CPU))
        if op.is_view:
            _share_storage(outputs[0], inputs[0])
        if grad and grad_state.grad_enabled and op.differentiable:
            record(op, inputs, attrs, outputs)
        return tuple(outputs)

    def run_general(self, op, inputs, attrs, metas):
        """Any op: variadic inputs, several outputs, creation ops, other devices, meta."""
        in_device = _tensor_device(op, inputs)
        device = attrs.get("device") or in_device or _CPU
        compute = None if op.promote is None else _compute_dtype(op, inputs, metas)
        single = metas[1].__class__ is _DType
        specs = (metas,) if single else metas           # (shape, dtype) per output
        if device.type == "meta":
            arrays = [MetaArray(shape, dtype.np) for shape, dtype in specs]
        else:
            arrays = _run_kernel(op, inputs, attrs, specs, in_device or device, compute)
        outputs = [_make(arrays[0], metas[1], device)] if single else [
            _make(a, dtype, device) for a, (_, dtype) in zip(arrays, specs)]
        if op.is_view:
            _share_storage(outputs[0], inputs[0])
        if grad_state.grad_enabled and op.differentiable and _any_requires_grad(inputs):
            record(op, inputs, attrs, outputs)
        return outputs[0] if single else tuple(outputs)


def _share_storage(view, base):
    """A view shares its base's version counter, so in-place changes show on both. One made
    under grad mode is differentiable: in-place ops on it rewrite its base's history."""
    view._version = counter = base._share_version()
    view._base = base if base._base is None else base._base
    view._view_version = counter[0] if grad_state.grad_enabled else None


def _any_requires_grad(inputs):
    for x in inputs:
        if isinstance(x, Tensor):
            if x._requires_grad:
                return True
        elif isinstance(x, (list, tuple)) and any(
                isinstance(y, Tensor) and y._requires_grad for y in x):
            return True
    return False


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


def _kernel_dtype(op, inputs, attrs, first_spec, compute):
    """The dtype that picks the kernel: compute dtype, ``dtype_from``, first tensor input,
    else the first output's."""
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
    return first_spec[1]


def _compute_dtype(op, inputs, metas):
    """The dtype promoted inputs are cast to before the kernel runs."""
    if op.promote == "out":
        return metas[1]
    promoted = [x for spec, x in zip(op.inputs, inputs) if spec.promote and x is not None]
    return dtypes.result_type(*promoted)


def _select(op, device, dtype, inputs, attrs):
    """The kernel for (op, device, dtype): cached, else chosen by the kernel registry."""
    kernel = op.kernel_cache.get((device.type, dtype))
    if kernel is None:
        if device.type == "cuda":
            check_available(device)
        from ..kernels.registry import select_kernel
        kernel = select_kernel(op, device.type, dtype, inputs, attrs)
        if device.type == "cpu" and op.kernel_cache.get(("cpu", dtype)) is kernel:
            op.kernel_cache[dtype] = kernel      # the key EagerInterpreter.run looks up
    return kernel


def _run_kernel(op, inputs, attrs, specs, device, compute):
    """Run the kernel on the inputs' arrays; its outputs as arrays of the inferred dtypes.

    A bfloat16 op runs the float32 kernel: its bfloat16 inputs widened to float32 (exactly),
    its results rounded to bfloat16 once by the output cast below; a view op's kernel gets
    the bfloat16 array itself (a view must share its memory)."""
    dtype = _kernel_dtype(op, inputs, attrs, specs[0], compute)
    widen = False
    if dtype is _BFLOAT16:
        if device.type != "cpu":
            raise dtypes.DTypeError(f"{op.name}: bfloat16 tensors are cpu only (cupy has no "
                                    f"bfloat16 type); got device {device}")
        dtype = dtypes.float32      # a view's kernel takes the bfloat16 array as it is
        widen = not op.is_view
    if widen:
        compute = dtypes.float32 if compute is not None else None
        if attrs.get("dtype") is _BFLOAT16:
            attrs = dict(attrs, dtype=dtypes.float32)
    if dtype.category != 3:
        _refuse_complex(op, inputs, dtype, device)
    kernel = _select(op, device, dtype, inputs, attrs)
    arrays = []
    written = []        # (bfloat16 tensor, its widened array) the kernel updates in place
    for spec, x in zip(op.inputs, inputs):
        if isinstance(x, Tensor):
            arrays.append(_widened(x, spec, written) if widen and x.dtype is _BFLOAT16 else
                          _cast(x._data, x.dtype, compute, spec.promote))
        elif isinstance(x, (list, tuple)) and spec.variadic and widen:
            arrays.append([_widened(y, spec, written) if y.dtype is _BFLOAT16 else
                           _cast(y._data, y.dtype, compute, spec.promote) for y in x])
        elif isinstance(x, (list, tuple)) and spec.variadic:
            arrays.append([y._data for y in x] if compute is None else
                          [_cast(y._data, y.dtype, compute, spec.promote) for y in x])
        elif x.__class__ is int and spec.promote and compute is not None \
                and compute.category == 1:
            arrays.append(_wrap_int(x, compute))
        else:
            arrays.append(x)
    if device.index is not None:
        with cuda_context(device):
            result = kernel(*arrays, **attrs)
    else:
        result = kernel(*arrays, **attrs)
    for x, array in written:            # round the in-place results back into bfloat16
        np.copyto(x._data, array, casting="unsafe")
    if result.__class__ is not tuple:
        result = (result,)
    outs = []
    for arr, (_, dtype) in zip(result, specs):
        if arr.__class__ is not _ndarray and isinstance(arr, _SCALARS):
            arr = np.asarray(arr)     # numpy reductions return numpy scalars
        if arr.dtype is not dtype.np and arr.dtype != dtype.np:
            arr = _cast_result(op, arr, dtype)
        outs.append(arr)
    return outs


def _refuse_complex(op, inputs, dtype, device):
    """A complex input to a kernel chosen for a real dtype would lose its imaginary part
    (in a cast to the compute dtype, or in the kernel): the registry's error instead."""
    for x in inputs:
        if isinstance(x, (list, tuple)):
            found = next((y.dtype for y in x if isinstance(y, Tensor) and y.dtype.is_complex),
                         None)
        else:
            found = x.dtype if isinstance(x, Tensor) and x.dtype.is_complex else None
        if found is not None:
            from ..kernels.registry import KernelNotFoundError, registered_pairs
            raise KernelNotFoundError(
                f"{op.name}: no kernel for device {device.type!r} and dtype {found.name} "
                f"(the op would compute in {dtype.name}); registered (device: dtypes): "
                f"{registered_pairs(op) or 'none'}")


def _cast_result(op, array, dtype):
    """A kernel's result as the inferred dtype; never a complex result cast to a real one,
    which would drop the imaginary part."""
    if array.dtype.kind == "c" and dtype.category != 3:
        raise RuntimeError(f"{op.name}: the kernel returned complex values for a "
                           f"{dtype.name} output; the op does not support complex inputs")
    return array.astype(dtype.np)


def _widened(x, spec, written):
    """A bfloat16 tensor's array as float32 for a float32 kernel; noted in ``written`` when
    the kernel updates that input in place (its result goes back into x)."""
    array = x._data.astype(np.float32)
    if spec.mutable:
        written.append((x, array))
    return array


def _cast(array, dtype, compute, promote):
    if compute is not None and promote and dtype is not compute:
        return array.astype(compute.np)
    return array


_SCALARS = (np.generic, int, float, bool)
# NOTE: torch casts a Python int operand to the integer compute dtype with C's wraparound
# (uint8 + 1000 adds 232); numpy refuses an out-of-range int with an OverflowError.
_wrap_int = dtypes.wrap_int
_ndarray = np.ndarray
_ufunc = np.ufunc
_DType = dtypes.DType
_BFLOAT16 = dtypes.bfloat16
_make = Tensor._make
_CPU = None
_interpreter = [EagerInterpreter()]
# the active profiler (minflow.profiler), or None: ``apply`` hands each op call to its
# ``observe(op, inputs, attrs)``, which times it and calls ``apply`` again with itself off
observer = [None]


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

"""In-place variants (``x.add_(y)``) and ``out=`` arguments, built on out-of-place ops.

The op runs out of place; its result is then written into the target's storage, so
views and ``from_numpy`` arrays see the change. Under autograd the target takes over
the new node, and its old value is snapshotted for grad functions that saved it.
"""
import numpy as np

from .grad_mode import state as grad_state
from .tensor import Tensor

__all__ = ["inplace", "write_out", "check_can_cast"]


def check_can_cast(src, dst, where):
    """PyTorch's rule for writing a result into an existing tensor: no float -> int and
    no number -> bool."""
    if src.category > dst.category:
        raise RuntimeError(f"{where}: result type {src.name} can't be cast to the desired "
                           f"output type {dst.name}")


def _any_requires_grad(args):
    for a in args:
        if isinstance(a, Tensor) and a._requires_grad:
            return True
    return False


def inplace(fn, name, self, *args, **kwargs):
    """Run ``fn(self, *args, **kwargs)`` and store the result in ``self``; return ``self``."""
    if not isinstance(self, Tensor):
        raise TypeError(f"{name}: expected a Tensor, got {type(self).__name__}")
    recording = grad_state.grad_enabled and (self._requires_grad or _any_requires_grad(args))
    src = self
    if recording:
        if self.grad_fn is None and self._requires_grad:
            raise RuntimeError(f"{name}: a leaf Variable that requires grad is being used in "
                               f"an in-place operation.")
        if self._base is not None and (self._base._requires_grad or self._requires_grad):
            raise RuntimeError(f"{name}: in-place operation on a view of a tensor that "
                               f"requires grad is not supported; clone() the view first or "
                               f"use the out-of-place {name.rstrip('_')}")
        src = Tensor._make(self._data.copy(), self.dtype, self.device)
        src._requires_grad, src.grad_fn = self._requires_grad, self.grad_fn
        src._output_nr, src._grad_acc = self._output_nr, self._grad_acc
    result = fn(src, *args, **kwargs)
    check_can_cast(result.dtype, self.dtype, name)
    if tuple(result._data.shape) != tuple(self._data.shape):
        raise RuntimeError(f"{name}: output with shape {list(self._data.shape)} doesn't match "
                           f"the broadcast shape {list(result._data.shape)}")
    _copy_into(self, result)
    if recording and result._requires_grad:
        self.grad_fn, self._output_nr, self._requires_grad = result.grad_fn, result._output_nr, True
    return self


def _copy_into(target, result):
    if target.device.type != "meta":
        xp_copyto = np.copyto if target.device.type == "cpu" else _cupy_copyto
        xp_copyto(target._data, result._data, casting="unsafe")
    if target._version is not None:
        target._version[0] += 1


def _cupy_copyto(dst, src, casting):
    from .device import array_module
    array_module("cuda").copyto(dst, src, casting=casting)


def write_out(result, out, name):
    """Store ``result`` in the ``out=`` tensor (resizing it if its shape differs)."""
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}: expected out to be a Tensor, got {type(out).__name__}")
    if grad_state.grad_enabled and (result._requires_grad or out._requires_grad):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                           f"differentiation, but one of the arguments requires grad.")
    if out.device is not result.device:
        raise RuntimeError(f"{name}: expected out on device {result.device}, got {out.device}")
    check_can_cast(result.dtype, out.dtype, name)
    if tuple(out._data.shape) != tuple(result._data.shape):
        out._data = result._data.astype(out.dtype.np)
        if out._version is not None:
            out._version[0] += 1
        return out
    _copy_into(out, result)
    return out

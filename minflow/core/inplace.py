"""In-place variants (``x.add_(y)``) and ``out=`` arguments, built on out-of-place ops.

The op runs out of place; its result is then written into the target's storage, so
views and ``from_numpy`` arrays see the change. Under autograd the target takes over
the result's node, and its old value is snapshotted for grad functions that saved it.

An in-place op on a view under autograd works as in torch: the base (the tensor that
owns the storage) gets a ``CopySlices`` node, "the old base with the view's region
replaced by the op's result", and the view an ``AsStridedBackward0`` node that reads its
region back out of the new base. Every other view of that base is out of date from then
on (the shared version counter moved on); it gets the same kind of node the next time
its ``grad_fn`` is read (``refresh_view``). The region is found from the memory layout,
as torch's as_strided: flat indices into the base, so any chain of view ops works alike.
"""
import warnings

import numpy as np

from ..autograd.node import GradFunction, _edge, backward_name, custom_node
from ..ops.registry import get_op
from . import dtype as dtypes
from .device import array_module
from .dispatch import apply, current_interpreter
from .grad_mode import state as grad_state
from .namespace import F
from .tensor import Tensor

_ndarray = np.ndarray

__all__ = ["inplace", "write_out", "check_can_cast", "refresh_view"]


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


def inplace(fn, name, self, *args, _direct=None, **kwargs):
    """Run ``fn(self, *args, **kwargs)`` and store the result in ``self``; return ``self``.

    ``_direct``: see ``functional.make_inplace``."""
    if not isinstance(self, Tensor):
        raise TypeError(f"{name}: expected a Tensor, got {type(self).__name__}")
    traced = current_interpreter().inplace    # graph mode (minflow.graph)
    if traced is not None:
        return traced(fn, name, self, *args, **kwargs)
    _refuse_lazy(self, args, name)
    base = self._base
    if base is not None:
        _check_no_overlap(self, name)
    recording = grad_state.grad_enabled and (
        self._requires_grad or (base is not None and base._requires_grad)
        or _any_requires_grad(args))
    if not recording:
        if _direct is None or not _direct(self, *args, **kwargs):
            _write(self, fn(self, *args, **kwargs), name)
        return self
    if self._requires_grad and self._grad_fn is None:
        raise RuntimeError(f"{name}: a leaf Variable that requires grad is being used in "
                           f"an in-place operation.")
    if base is not None:
        _check_view(self, base, name)
        index = _positions(self, base)
        if base._requires_grad:     # the view's value as read out of its base as it is now
            _read_back(self, base, index)
    src = _snapshot(self)
    result = fn(src, *args, **kwargs)
    _write(self, result, name)
    if base is not None:
        _make_node(base, _COPY_SLICES, name, (base, result), index=index,
                   base_shape=tuple(base._data.shape))
        _read_back(self, base, index)
    elif result._requires_grad:
        self._grad_fn, self._output_nr, self._requires_grad = \
            result.grad_fn, result._output_nr, True
    elif self._requires_grad:
        # the result does not depend on the old value (fill_, zero_, copy_ of a constant):
        # as in torch, self still requires grad, and its old value gets zero gradient
        _make_node(self, _OVERWRITTEN, name, (src,), op_name=name.rstrip("_"))
    return self


def _refuse_lazy(self, args, name):
    """Graph mode (minflow.graph) has no in-place ops yet: its error, for a lazy tensor."""
    for t in (self, *args):
        # NOTE: the class test first: getattr with a default is slow on a miss (ndarray)
        if (isinstance(t, Tensor) and t._data.__class__ is not _ndarray
                and getattr(t._data, "is_lazy", False)):
            raise t._data.error(name)


def _snapshot(self):
    """The old value in a storage of its own, with self's history (for saved tensors)."""
    src = Tensor._make(self._data.copy(), self.dtype, self.device)
    src._requires_grad, src._grad_fn = self._requires_grad, self._grad_fn
    src._output_nr, src._grad_acc = self._output_nr, self._grad_acc
    return src


def _write(target, result, name):
    check_can_cast(result.dtype, target.dtype, name)
    if target.dtype.is_complex and not result.dtype.is_complex:     # abs_, as torch
        raise RuntimeError(f"In-place {name.rstrip('_')} is not supported for complex "
                           f"tensors.")
    if tuple(result._data.shape) != tuple(target._data.shape):
        raise RuntimeError(f"{name}: output with shape {list(target._data.shape)} doesn't "
                           f"match the broadcast shape {list(result._data.shape)}")
    _copy_into(target, result)


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
    _check_no_overlap(out, name)
    if tuple(out._data.shape) != tuple(result._data.shape):
        if out._data.size:
            warnings.warn(f"{name}: an output with one or more elements was resized since it "
                          f"had shape {list(out._data.shape)}, which does not match the "
                          f"required output shape {list(result._data.shape)}; resize it to "
                          f"zero elements first (out.resize_(0)) to reuse it silently",
                          UserWarning, stacklevel=3)
        out._data = result._data.astype(out.dtype.np)
        if out._version is not None:
            out._version[0] += 1
        return out
    _copy_into(out, result)
    return out


def write_outs(result, out, name, exact=True, apart=()):
    """Store a function's result (a Tensor, or a tuple of them such as ``max``'s
    (values, indices)) in ``out``: a Tensor, or a tuple of as many Tensors. Returns
    ``out`` in the result's form (the same named tuple type).

    As torch's: with ``exact``, out must have the result's dtype (most functions), else
    one it can be cast to; ``apart``: the inputs (or lists of them) that out may not share
    memory with."""
    results = result if isinstance(result, tuple) else (result,)
    if not isinstance(result, tuple):
        out = (out,)
    elif not (isinstance(out, (tuple, list)) and len(out) == len(result)):
        raise TypeError(f"{name}(): argument 'out' must be tuple of {len(result)} Tensors, "
                        f"not {type(out).__name__}")
    for r, o in zip(results, out):
        if exact and isinstance(o, Tensor) and o.dtype is not r.dtype:
            raise RuntimeError(f"{name}: expected out tensor to have dtype {r.dtype.name}, "
                               f"but got {o.dtype.name} instead")
        if isinstance(o, Tensor) and _shares_memory(o, apart):
            raise RuntimeError(f"{name}: unsupported operation: some elements of the input "
                               f"tensor and the written-to tensor refer to a single memory "
                               f"location. Please clone() the tensor before performing the "
                               f"operation.")
    written = [write_out(r, o, name) for r, o in zip(results, out)]
    if not isinstance(result, tuple):
        return written[0]
    return type(result)(*written) if hasattr(result, "_fields") else tuple(written)


def _shares_memory(out, inputs):
    for x in inputs:
        if isinstance(x, (list, tuple)):
            if _shares_memory(out, x):
                return True
        elif (isinstance(x, Tensor) and x.device is out.device and x.device.type != "meta"
              and array_module(x.device.type).may_share_memory(x._data, out._data)):
            return True
    return False


# ---- in-place ops on views under autograd ----------------------------------------------

def _check_no_overlap(view, name):
    strides = getattr(view._data, "strides", ())     # meta arrays have no layout
    for n, s in zip(view._data.shape, strides):
        if s == 0 and n > 1:
            raise RuntimeError(f"{name}: unsupported operation: more than one element of the "
                               f"written-to tensor refers to a single memory location. "
                               f"Please clone() the tensor before performing the operation.")


def _check_view(view, base, name):
    if view._view_version is None:         # made under no_grad
        raise RuntimeError(f"{name}: A view was created in no_grad mode and is being modified "
                           f"inplace with grad mode enabled. Move both the view and the "
                           f"inplace inside the no_grad block (if the inplace should not be "
                           f"tracked) or both outside (if it should).")
    if base._requires_grad and base._grad_fn is None:
        raise RuntimeError(f"{name}: a view of a leaf Variable that requires grad is being "
                           f"used in an in-place operation.")


def refresh_view(view):
    """Bring an out-of-date view's grad_fn up to date: read it out of its base as now.

    NOTE: only for views that require grad already. One made before its base came to
    require grad (by an in-place op) stays as it is: the dispatcher reads
    ``_requires_grad`` directly, and checking every input for this would slow every op.
    """
    base = view._base
    if view._requires_grad and base._requires_grad:
        _read_back(view, base, _positions(view, base))
    view._view_version = view._version[0]


def _read_back(view, base, index):
    """Make ``view``'s grad_fn read it out of ``base`` at flat ``index`` (as_strided)."""
    _make_node(view, _AS_STRIDED, "as_strided", (base,), index=index,
               base_shape=tuple(base._data.shape))
    view._view_version = view._version[0]


def _make_node(target, fn, name, inputs, **saved):
    """Make ``target``'s grad_fn a node of ``fn`` with edges to ``inputs``; ``saved`` goes
    on the node's ctx."""
    meta = ((target._data.shape, target.dtype, target.device),)
    node = custom_node(fn, name, [_edge(t) for t in inputs], meta)
    node.ctx.__dict__.update(saved)
    target._grad_fn, target._output_nr, target._requires_grad = node, 0, True


def _positions(view, base):
    """Where each element of ``view`` sits in ``base``: an int64 tensor shaped like view of
    flat (row-major) indices into base, found from both arrays' strides and addresses."""
    b, v = base._data, view._data
    if not hasattr(b, "strides"):
        raise RuntimeError("in-place operation on a view of a meta tensor under autograd: a "
                           "meta tensor has no memory layout to locate the view in")
    if v.size == 0:
        return F.zeros(v.shape, dtype=dtypes.int64, device=base.device)
    offsets = _byte_offsets(v, _address(b))
    if b.flags.c_contiguous:
        index = offsets // b.itemsize
        found = (offsets % b.itemsize == 0) & (index >= 0) & (index < b.size)
    else:                                   # look the offsets up among base's own
        where = _byte_offsets(b, _address(b)).ravel()
        order = np.argsort(where, kind="stable")
        index = order[np.searchsorted(where[order], offsets).clip(0, b.size - 1)]
        found = where[index] == offsets
    if not found.all():
        raise RuntimeError("in-place operation on a view whose memory is no longer inside its "
                           "base's (was the base's .data replaced?)")
    return F.as_tensor(np.ascontiguousarray(index), device=base.device)


def _byte_offsets(array, origin):
    """The byte offset from ``origin`` of each element of ``array``, shaped like it."""
    offsets = np.full((1,) * array.ndim, _address(array) - origin, dtype=np.int64)
    for dim, (n, stride) in enumerate(zip(array.shape, array.strides)):
        step = np.arange(n, dtype=np.int64) * stride
        offsets = offsets + step.reshape((n,) + (1,) * (array.ndim - dim - 1))
    return np.broadcast_to(offsets, array.shape)


def _address(array):
    if isinstance(array, np.ndarray):
        return array.__array_interface__["data"][0]
    return array.data.ptr                   # cupy


class CopySlices(GradFunction):
    """The base after an in-place op on its view, from (old base, op result): the old
    base gets grad_out with the view's region zeroed, the result that region."""

    def node_name(self, ctx):
        return "CopySlices"

    def apply(self, ctx, grad_out):
        flat = F.reshape(grad_out, (-1,))
        grad_base = grad_result = None
        if ctx.needs_input_grad[0]:
            zero = F.zeros((), dtype=grad_out.dtype, device=grad_out.device)
            grad_base = F.reshape(apply(get_op("index_put"), (flat, [ctx.index], zero),
                                        {"dims": (0,), "accumulate": False}), ctx.base_shape)
        if ctx.needs_input_grad[1]:
            grad_result = apply(get_op("index"), (flat, [ctx.index]), {"dims": (0,)})
        return grad_base, grad_result


class AsStrided(GradFunction):
    """A view read out of its base at flat indices: its grad is added back there."""

    def node_name(self, ctx):
        return "AsStridedBackward0"

    def apply(self, ctx, grad_out):
        zeros = F.zeros((_numel(ctx.base_shape),), dtype=grad_out.dtype, device=grad_out.device)
        put = apply(get_op("index_put"), (zeros, [ctx.index], grad_out),
                    {"dims": (0,), "accumulate": True})
        return F.reshape(put, ctx.base_shape)


class Overwritten(GradFunction):
    """A tensor overwritten in place by a value that does not depend on it (fill_,
    zero_, copy_ of a constant): its old value gets zero gradient."""

    def node_name(self, ctx):
        return backward_name(ctx.op_name)

    def apply(self, ctx, grad_out):
        return F.zeros_like(grad_out)


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


_COPY_SLICES, _AS_STRIDED, _OVERWRITTEN = CopySlices(), AsStrided(), Overwritten()

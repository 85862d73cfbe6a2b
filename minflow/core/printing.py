"""``repr`` of tensors in PyTorch's format: ``tensor([1., 2.], requires_grad=True)``."""
import numpy as np

from . import dtype as dtypes
from .device import to_numpy

_IMPLICIT = (dtypes.float32, dtypes.int64, dtypes.bool)


def _float_formatter(values):
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return lambda v: _special(v) or f"{v:.4f}"
    as_int = np.all(finite == np.round(finite))
    big, small = np.abs(finite).max(), np.abs(finite[finite != 0]).min() if np.any(finite) else 0
    if (big >= 1e8) or (small and small < 1e-4) or (small and big / small > 1000 and not as_int):
        return lambda v: _special(v) or f"{v:.4e}"
    if as_int:
        return lambda v: _special(v) or f"{v:.0f}."
    return lambda v: _special(v) or f"{v:.4f}"


def _special(v):
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return None


def _format_data(arr):
    if arr.dtype.kind == "f":
        fmt = _float_formatter(arr.astype(np.float64).ravel())
        formatter = {"float_kind": fmt}
    elif arr.dtype.kind == "b":
        formatter = {"bool": lambda v: "True" if v else "False"}
    else:
        formatter = None
    if arr.ndim == 0:
        return formatter["float_kind"](arr.item()) if arr.dtype.kind == "f" else \
            (formatter["bool"](arr.item()) if formatter else str(arr.item()))
    return np.array2string(arr, separator=", ", formatter=formatter, prefix="tensor(",
                           threshold=1000, edgeitems=3, max_line_width=80)


def tensor_repr(t):
    """PyTorch-style repr, with dtype, device and autograd details where they differ
    from the defaults."""
    extras = []
    if t.device.type == "meta":
        body = "..."
        extras.append(f"size={tuple(t.shape)}")
    else:
        arr = to_numpy(t._data)
        body = "[]" if arr.size == 0 else _format_data(arr)
        if arr.size == 0 and arr.ndim != 1:
            extras.append(f"size={tuple(arr.shape)}")
    if t.device.type != "cpu":
        extras.append(f"device='{t.device}'")
    if t.dtype not in _IMPLICIT or (t.dtype is dtypes.float32
                                    and dtypes.get_default_dtype() is not dtypes.float32):
        extras.append(f"dtype={t.dtype!r}")
    if t.grad_fn is not None:
        extras.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t._requires_grad:
        extras.append("requires_grad=True")
    return f"tensor({', '.join([body] + extras)})"

"""``repr`` of tensors in PyTorch's format: ``tensor([1., 2.], requires_grad=True)``.

A port of torch/_tensor_str.py with its default print options: 4 digits, summarised
(``...``) above 1000 elements with 3 items at each edge, lines of at most 80 characters.
One formatter, built from the (summarised) values, pads every element to the same width.
"""
import math

import numpy as np

from . import dtype as dtypes
from .device import to_numpy

PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH = 4, 1000, 3, 80
SCI_MODE = None         # None: chosen from the values; True / False: forced
_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80),
             "full": (4, math.inf, 3, 80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Options of tensor printing, as torch.set_printoptions: digits after the point,
    the element count above which a tensor is summarised, the items shown at each edge
    then, the line width; ``profile`` ("default", "short", "full") sets all four first;
    ``sci_mode`` forces (True / False) or lets the values choose (None) scientific notation.

    >>> minflow.set_printoptions(precision=2)
    >>> minflow.tensor([1.23456])
    tensor([1.23])
    >>> minflow.set_printoptions(profile="default")
    """
    global PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH, SCI_MODE
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"set_printoptions: profile must be one of {sorted(_PROFILES)}, "
                             f"got {profile!r}")
        PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH = _PROFILES[profile]
    PRECISION = PRECISION if precision is None else precision
    THRESHOLD = THRESHOLD if threshold is None else threshold
    EDGEITEMS = EDGEITEMS if edgeitems is None else edgeitems
    LINEWIDTH = LINEWIDTH if linewidth is None else linewidth
    SCI_MODE = sci_mode


class _Formatter:
    """Chooses int / fixed / scientific notation and one width for all elements."""

    def __init__(self, values):
        self.floating = values.dtype.kind == "f"
        self.int_mode, self.sci_mode, self.width = True, False, 1
        if not self.floating:
            for v in values.ravel().tolist():
                self.width = max(self.width, len(str(v)))
            return
        flat = values.astype(np.float64).ravel()
        finite = flat[np.isfinite(flat) & (flat != 0)]
        if finite.size == 0:
            return
        big, small = np.abs(finite).max(), np.abs(finite).min()
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        self.sci_mode = big / small > 1000.0 or big > 1.0e8 or (
            not self.int_mode and small < 1.0e-4) if SCI_MODE is None else SCI_MODE
        for v in finite.tolist():
            self.width = max(self.width, len(self._plain(v)) + (
                1 if self.int_mode and not self.sci_mode else 0))

    def _plain(self, v):
        if self.sci_mode:
            return f"{v:.{PRECISION}e}"
        return f"{v:.0f}" if self.int_mode else f"{v:.{PRECISION}f}"

    def format(self, v):
        if not self.floating:
            text = str(v)
        elif self.sci_mode:
            text = f"{v:{self.width}.{PRECISION}e}"
        elif self.int_mode:
            text = f"{v:.0f}" + ("" if math.isinf(v) or math.isnan(v) else ".")
        else:
            text = f"{v:.{PRECISION}f}"
        return " " * (self.width - len(text)) + text


def _summarized(arr):
    """The values the formatter sees: only the edge items of each dim when summarising."""
    if arr.ndim == 0:
        return arr
    if arr.shape[0] > 2 * EDGEITEMS:
        arr = np.concatenate([arr[:EDGEITEMS], arr[-EDGEITEMS:]])
    if arr.ndim == 1:
        return arr
    return np.stack([_summarized(row) for row in arr])


class _ComplexFormatter:
    """torch's pair of formatters for complex values: one for the real parts, one for the
    imaginary parts, printed as ``1.5000+2.0000j``."""

    def __init__(self, values):
        self.real, self.imag = _Formatter(values.real), _Formatter(values.imag)
        self.width = self.real.width + self.imag.width + 1     # the widths torch lays out by

    def format(self, v):
        imag = (self.imag.format(v.imag) + "j").lstrip()
        return self.real.format(v.real) + (imag if imag[0] in "+-" else "+" + imag)


def _vector(arr, indent, summarize, fmt):
    per_line = max(1, (LINEWIDTH - indent) // (fmt.width + 2))
    if summarize and arr.shape[0] > 2 * EDGEITEMS:
        items = ([fmt.format(v) for v in arr[:EDGEITEMS].tolist()] + [" ..."]
                 + [fmt.format(v) for v in arr[-EDGEITEMS:].tolist()])
    else:
        items = [fmt.format(v) for v in arr.tolist()]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(arr, indent, summarize, fmt):
    if arr.ndim == 0:
        return fmt.format(arr.item())
    if arr.ndim == 1:
        return _vector(arr, indent, summarize, fmt)
    rows = range(arr.shape[0])
    if summarize and arr.shape[0] > 2 * EDGEITEMS:
        rows = list(range(EDGEITEMS)) + [None] + list(range(arr.shape[0] - EDGEITEMS,
                                                            arr.shape[0]))
    parts = ["..." if i is None else _nested(arr[i], indent + 1, summarize, fmt) for i in rows]
    return "[" + ("," + "\n" * (arr.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def tensor_str(arr, indent):
    """The bracketed values of a numpy array, as torch prints them."""
    if arr.size == 0:
        return "[]"
    if arr.dtype == np.float16 or arr.dtype == dtypes.bfloat16.np:
        arr = arr.astype(np.float32)
    summarize = arr.size > THRESHOLD
    values = _summarized(arr) if summarize else arr
    fmt = _ComplexFormatter(values) if arr.dtype.kind == "c" else _Formatter(values)
    return _nested(arr, indent, summarize, fmt)


def _suffixes(t, numel):
    out = []
    if t.device.type != "cpu":
        out.append(f"device='{t.device}'")
    default = dtypes.get_default_dtype()
    if t.device.type == "meta" or numel == 0:
        if t.ndim != 1 or t.device.type == "meta":
            out.append(f"size={tuple(t.shape)}")
        if t.dtype is not default:
            out.append(f"dtype={t.dtype!r}")
    elif t.dtype not in (default, dtypes.int64, dtypes.bool, _default_complex()):
        out.append(f"dtype={t.dtype!r}")
    if t.grad_fn is not None:
        out.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        out.append("requires_grad=True")
    return out


def _default_complex():
    default = dtypes.get_default_dtype()
    return dtypes.to_complex(default) if default is not dtypes.float16 else None


def tensor_repr(t):
    """PyTorch-style repr, with device, size, dtype and autograd details where they are not
    the defaults."""
    if getattr(t._data, "is_lazy", False):      # graph mode: no values (minflow.graph.lazy)
        return f"tensor(<graph value {t._data.value!r}>, size={tuple(t.shape)}, " \
               f"dtype={t.dtype!r}{', requires_grad=True' if t.requires_grad else ''})"
    prefix = "tensor("
    indent = len(prefix)
    numel = t.numel()
    body = "..." if t.device.type == "meta" else tensor_str(to_numpy(t._data), indent)
    parts = [prefix + body]
    last = len(parts[0]) - parts[0].rfind("\n") + 1
    for suffix in _suffixes(t, numel):
        if last + len(suffix) + 2 > LINEWIDTH:
            parts.append(",\n" + " " * indent + suffix)
            last = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last += len(suffix) + 2
    return "".join(parts) + ")"

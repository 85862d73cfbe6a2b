"""``assert_close`` and ``make_tensor``, as ``torch.testing``'s.

assert_close compares tensors, Python numbers and (nested) sequences and mappings of them
pair by pair: a tensor pair must agree in shape, device and dtype (unless told not to), then
in values up to ``atol + rtol * |expected|``, with default tolerances chosen by dtype. A
failure is an AssertionError with torch's message: how many elements differ and the
greatest absolute and relative differences, with where they are.
"""
import collections.abc
import math
import warnings

import numpy as np

from ..core import dtype as dtypes
from ..core.dtype_info import finfo
from ..core.namespace import F
from ..core.tensor import Tensor

__all__ = ["assert_close", "assert_allclose", "make_tensor"]

# (rtol, atol) by dtype, as torch.testing: exact for bool and integers
_TOLERANCES = {dtypes.float16: (1e-3, 1e-5), dtypes.float32: (1.3e-6, 1e-5),
               dtypes.float64: (1e-7, 1e-7)}


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Raise AssertionError unless ``actual`` and ``expected`` are close (see the module).

    >>> minflow.testing.assert_close(minflow.tensor([1.0, 2.0]), minflow.tensor([1.0, 2.0 + 1e-7]))
    >>> minflow.testing.assert_close(minflow.tensor([1.0, 2.0]), minflow.tensor([1.0, 2.5]))
    Traceback (most recent call last):
    ...
    AssertionError: Tensor-likes are not close!
    <BLANKLINE>
    Mismatched elements: 1 / 2 (50.0%)
    Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)
    Greatest relative difference: 0.2 at index (1,) (up to 1.3e-06 allowed)
    """
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got "
                         f"no {'atol' if atol is None else 'rtol'}.")
    options = dict(rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=check_device,
                   check_dtype=check_dtype)
    problem = _compare(actual, expected, options, ())
    if problem is not None:
        message, path = problem
        if path:
            message += "\n\nThe failure occurred for item " + "".join(f"[{p!r}]" for p in path)
        if callable(msg):
            message = msg(message)
        elif msg is not None:
            message = msg
        raise AssertionError(message)


# assert_allclose's own defaults (looser than assert_close's), per dtype: (rtol, atol)
_ALLCLOSE_TOLERANCES = {dtypes.float16: (1e-3, 1e-3), dtypes.float32: (1e-4, 1e-5),
                        dtypes.float64: (1e-5, 1e-8)}


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """The older form of assert_close (deprecated in torch, which warns so too): numbers
    and sequences become tensors, dtypes need not match, NaNs compare equal, and the
    default tolerances are the looser ones of the two dtypes.

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     minflow.testing.assert_allclose(minflow.tensor([1.0, 2.0]), [1.0, 2.00001])
    """
    warnings.warn("minflow.testing.assert_allclose() is deprecated (as in torch); use "
                  "minflow.testing.assert_close() instead", FutureWarning, stacklevel=2)
    if not isinstance(actual, Tensor):
        actual = F.tensor(actual)
    if not isinstance(expected, Tensor):
        expected = F.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        pairs = [_ALLCLOSE_TOLERANCES.get(t.dtype, (0.0, 0.0)) for t in (actual, expected)]
        rtol, atol = max(p[0] for p in pairs), max(p[1] for p in pairs)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan,
                 check_device=True, check_dtype=False, check_stride=False, msg=msg or None)


def _compare(actual, expected, options, path):
    """None when the pair is close, else (message, path to the pair that is not)."""
    if isinstance(actual, Tensor) and isinstance(expected, Tensor):
        message = _compare_tensors(actual, expected, **options)
        return None if message is None else (message, path)
    if _is_number(actual) and _is_number(expected):
        message = _compare_numbers(actual, expected, options)
        return None if message is None else (message, path)
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            return f"The length of the sequences mismatch: {len(actual)} != {len(expected)}", path
        for i, (a, e) in enumerate(zip(actual, expected)):
            problem = _compare(a, e, options, path + (i,))
            if problem is not None:
                return problem
        return None
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected,
                                                                   collections.abc.Mapping):
        return _compare_mappings(actual, expected, options, path)
    raise TypeError(f"No comparison pair was able to handle inputs of type {type(actual)} and "
                    f"{type(expected)}.")


def _is_number(x):
    return isinstance(x, (bool, int, float)) or isinstance(x, np.number)


def _is_sequence(x):
    return isinstance(x, collections.abc.Sequence) and not isinstance(x, str)


def _compare_mappings(actual, expected, options, path):
    if set(actual) != set(expected):
        missing = sorted(set(expected) - set(actual), key=repr)
        extra = sorted(set(actual) - set(expected), key=repr)
        return (f"The keys of the mappings do not match:\nMissing keys in the actual mapping: "
                f"{missing}\nAdditional keys in the actual mapping: {extra}"), path
    for key in expected:
        problem = _compare(actual[key], expected[key], options, path + (key,))
        if problem is not None:
            return problem
    return None


def _compare_tensors(actual, expected, rtol, atol, equal_nan, check_device, check_dtype):
    for name, check in (("shape", True), ("device", check_device), ("dtype", check_dtype)):
        a, e = getattr(actual, name), getattr(expected, name)
        if check and a != e:
            return f"The values for attribute '{name}' do not match: {a} != {e}."
    if rtol is None:
        rtol, atol = (max(_TOLERANCES.get(t.dtype, (0.0, 0.0))[i] for t in (actual, expected))
                      for i in (0, 1))
    a = actual.detach().cpu().numpy().astype(np.float64)
    e = expected.detach().cpu().numpy().astype(np.float64)
    with np.errstate(invalid="ignore"):
        # infinities match only themselves
        close = (a == e) | (np.isfinite(e) & (np.abs(a - e) <= atol + rtol * np.abs(e)))
    if equal_nan:
        close |= np.isnan(a) & np.isnan(e)
    if close.all():
        return None
    return _mismatch_message(a, e, close, rtol, atol,
                             exact=not (actual.dtype.is_floating_point
                                        or expected.dtype.is_floating_point))


def _mismatch_message(a, e, close, rtol, atol, exact):
    with np.errstate(divide="ignore", invalid="ignore"):
        abs_diff = np.abs(a - e)
        rel_diff = abs_diff / np.abs(e)
    # NaN ranks first, as torch's argmax over the differences
    where_abs = np.unravel_index(np.argmax(np.where(np.isnan(abs_diff), np.inf, abs_diff)),
                                 a.shape)
    where_rel = np.unravel_index(np.argmax(np.where(np.isnan(rel_diff), np.inf, rel_diff)),
                                 a.shape)
    bad, total = int((~close).sum()), close.size
    verb = "equal" if rtol == 0 and atol == 0 else "close"
    number = (lambda x: int(x)) if exact else float
    lines = [f"Tensor-likes are not {verb}!", "",
             f"Mismatched elements: {bad} / {total} ({100 * bad / total:.1f}%)",
             f"Greatest absolute difference: {number(abs_diff[where_abs])} at index "
             f"{tuple(int(i) for i in where_abs)}" + _allowed(atol, rtol, atol),
             f"Greatest relative difference: {float(rel_diff[where_rel])} at index "
             f"{tuple(int(i) for i in where_rel)}" + _allowed(rtol, rtol, atol)]
    return "\n".join(lines)


def _allowed(value, rtol, atol):
    return "" if rtol == 0 and atol == 0 else f" (up to {value} allowed)"


def _compare_numbers(actual, expected, options):
    rtol, atol = options["rtol"], options["atol"]
    floating = isinstance(actual, float) or isinstance(expected, float)
    if rtol is None:
        rtol, atol = (1e-7, 1e-7) if floating else (0.0, 0.0)
    if actual == expected or (options["equal_nan"] and math.isnan(actual)
                              and math.isnan(expected)):
        return None
    diff = abs(actual - expected)
    if math.isfinite(expected) and diff <= atol + rtol * abs(expected):
        return None
    relative = diff / abs(expected) if expected != 0 else math.inf
    verb = "equal" if rtol == 0 and atol == 0 else "close"
    return (f"Scalars are not {verb}!\n\nExpected {expected} but got {actual}.\n"
            f"Absolute difference: {diff}{_allowed(atol, rtol, atol)}\n"
            f"Relative difference: {relative}{_allowed(rtol, rtol, atol)}")


def make_tensor(*shape, dtype, device=None, low=None, high=None, requires_grad=False,
                noncontiguous=False, exclude_zero=False):
    """A tensor of ``shape`` filled with uniform values in [low, high) as torch.testing's:
    floats default to [-9, 9), integers to [-9, 10) (clamped to the dtype's range: [0, 10)
    for uint8), bool to {False, True}.

    >>> _ = minflow.manual_seed(0)
    >>> t = minflow.testing.make_tensor(2, 3, dtype=minflow.int64, low=0, high=4)
    >>> t.shape, t.dtype, bool(((t >= 0) & (t < 4)).all())
    (minflow.Size([2, 3]), minflow.int64, True)
    """
    import minflow
    if len(shape) == 1 and _is_sequence(shape[0]):
        shape = tuple(shape[0])
    dtype = dtypes.as_dtype(dtype)
    if dtype is dtypes.bool:
        result = minflow.randint(0, 2, shape, device=device).bool()
    elif dtype.is_floating_point:
        low, high = -9.0 if low is None else low, 9.0 if high is None else high
        if low > high:
            raise ValueError(f"make_tensor: low must be <= high, got low={low} high={high}")
        result = (minflow.rand(shape, dtype=dtypes.float64, device=device) * (high - low)
                  + low).to(dtype)
    else:
        info = np.iinfo(dtype.np)           # defaults and bounds clamped to it, as torch's
        low = min(max(-9 if low is None else math.ceil(low), info.min), info.max)
        high = min(max(10 if high is None else math.ceil(high), info.min), info.max)
        if low >= high:
            raise ValueError(f"make_tensor: low must be < high, got low={low} high={high}")
        result = minflow.randint(low, high, shape, dtype=dtype, device=device)
    if exclude_zero:
        replacement = 1 if not dtype.is_floating_point else finfo(dtype).tiny
        result = minflow.where(result == 0, minflow.full_like(result, replacement), result)
    if noncontiguous and result.numel() > 1:
        result = minflow.repeat_interleave(result.reshape(-1), 2)[::2].reshape(result.shape)
    if requires_grad:
        result.requires_grad_()
    return result

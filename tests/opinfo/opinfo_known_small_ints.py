"""Known deviations on the OpInfo samples of the small integer dtypes uint8, int8 and int16
(see opinfo_known.py): mostly the int32/int64 deviations of the same ops, for the same
reasons."""
from opinfo_known_core import _MODE_TIES, _PARTIAL_SORT, _STABLE_SORT

_SMALL_INTS = ("uint8", "int8", "int16")

KNOWN = {
    **{f"kthvalue-{d}": _PARTIAL_SORT for d in _SMALL_INTS},
    **{f"topk-{d}": _PARTIAL_SORT for d in _SMALL_INTS},
    **{f"mode-{d}": _MODE_TIES for d in _SMALL_INTS},
    **{f"{op}-{d}": _STABLE_SORT for op in ("sort", "argsort") for d in ("uint8", "int8")},
}

"""The autocast state functions side by side with torch's: enabling outside a region,
dtypes, cache switch, nesting counters, what regions save and restore, deprecated forms."""
import warnings

import pytest

import minflow


@pytest.fixture(autouse=True)
def _restore():
    yield
    for lib in filter(None, (minflow, _torch())):
        lib.set_autocast_enabled("cpu", False)
        lib.set_autocast_enabled("cuda", False)
        lib.set_autocast_dtype("cpu", lib.bfloat16)
        lib.set_autocast_dtype("cuda", lib.float16)
        lib.set_autocast_cache_enabled(True)


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


def _script(lib):
    """A sequence of state changes and what each library reports."""
    seen = [lib.get_autocast_dtype("cpu"), lib.is_autocast_enabled("cpu"),
            lib.is_autocast_cache_enabled()]
    lib.set_autocast_dtype("cpu", lib.float16)
    seen.append(lib.get_autocast_dtype("cpu"))
    with lib.autocast("cpu", dtype=lib.bfloat16, cache_enabled=False):
        seen += [lib.get_autocast_dtype("cpu"), lib.is_autocast_enabled("cpu"),
                 lib.is_autocast_cache_enabled()]
    seen += [lib.get_autocast_dtype("cpu"), lib.is_autocast_enabled("cpu"),
             lib.is_autocast_cache_enabled()]
    lib.set_autocast_enabled("cpu", True)
    a = lib.ones(2, 2)
    seen += [lib.is_autocast_enabled("cpu"), (a @ a).dtype, a.exp().dtype]
    with lib.autocast("cpu", enabled=False):
        seen += [lib.is_autocast_enabled("cpu"), (a @ a).dtype]
    seen += [lib.is_autocast_enabled("cpu"), (a @ a).dtype]
    lib.set_autocast_enabled("cpu", False)
    seen.append((a @ a).dtype)
    seen += [lib.autocast_increment_nesting(), lib.autocast_increment_nesting(),
             lib.autocast_decrement_nesting(), lib.autocast_decrement_nesting()]
    lib.set_autocast_enabled(True)              # the deprecated cuda form
    seen.append(lib.is_autocast_enabled())
    lib.set_autocast_enabled(False)
    return [str(v).replace("torch.", "minflow.") for v in seen]


def test_state_as_torch():
    torch = pytest.importorskip("torch")
    assert _script(minflow) == _script(torch)


def test_deprecated_forms_as_torch():
    torch = pytest.importorskip("torch")
    results = []
    for lib in (minflow, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.set_autocast_cpu_dtype(lib.float16)
            lib.set_autocast_gpu_dtype(lib.float16)
            lib.set_autocast_cpu_enabled(True)
            seen = [lib.is_autocast_cpu_enabled(), lib.get_autocast_cpu_dtype(),
                    lib.get_autocast_gpu_dtype(), lib.is_autocast_enabled("cpu")]
            lib.set_autocast_cpu_enabled(False)
        assert {w.category for w in caught} == {DeprecationWarning}
        results.append([str(v).replace("torch.", "minflow.") for v in seen])
    assert results[0] == results[1]


def test_bad_arguments():
    with pytest.raises(TypeError, match="set_autocast_dtype\\(\\): argument 'dtype' \\(position "
                                        "2\\) must be minflow.dtype, not int"):
        minflow.set_autocast_dtype("cpu", 3)
    with pytest.raises(RuntimeError, match="unsupported autocast device_type 'tpu'"):
        minflow.set_autocast_enabled("tpu", True)
    with pytest.raises(TypeError, match="set_autocast_enabled\\(\\): argument 'enabled' must be "
                                        "bool, not str"):
        minflow.set_autocast_enabled("cpu", "yes")
    with pytest.raises(TypeError, match="set_autocast_cache_enabled\\(\\): argument 'enabled'"):
        minflow.set_autocast_cache_enabled(1)
    minflow.clear_autocast_cache()

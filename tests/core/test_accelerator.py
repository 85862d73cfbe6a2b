"""minflow.accelerator, minflow.version and the GPU memory queries of minflow.cuda."""
import re
from pathlib import Path

import pytest

import minflow

GPU = minflow.cuda.is_available()
needs_gpu = pytest.mark.skipif(not GPU, reason="needs cupy and a CUDA GPU")
without_gpu = pytest.mark.skipif(GPU, reason="checks the behaviour without a GPU")


def test_accelerator_answers_as_cuda():
    assert minflow.accelerator.is_available() is minflow.cuda.is_available()
    assert minflow.accelerator.device_count() == minflow.cuda.device_count()
    expected = minflow.device("cuda") if GPU else None
    assert minflow.accelerator.current_accelerator() == expected
    assert minflow.accelerator.current_accelerator(check_available=True) == expected


@without_gpu
def test_accelerator_without_gpu():
    for call in (minflow.accelerator.current_device_index,
                 lambda: minflow.accelerator.set_device_index(0),
                 minflow.accelerator.synchronize):
        with pytest.raises(RuntimeError, match="Cannot access accelerator device when none"):
            call()
    assert minflow.cuda.memory_allocated() == 0
    assert minflow.cuda.memory_reserved() == 0
    assert minflow.accelerator.memory_allocated() == 0
    minflow.cuda.empty_cache()          # a no-op, as torch's
    minflow.accelerator.empty_cache()


@needs_gpu
def test_memory_queries_follow_allocations():
    minflow.cuda.synchronize()
    before = minflow.cuda.memory_allocated()
    x = minflow.ones(1 << 20, device="cuda")
    assert minflow.cuda.memory_allocated() >= before + 4 * (1 << 20)
    assert minflow.cuda.memory_reserved() >= minflow.cuda.memory_allocated()
    del x
    minflow.cuda.empty_cache()
    assert minflow.cuda.memory_allocated() == before
    assert minflow.accelerator.current_device_index() == 0
    minflow.accelerator.synchronize()


def test_version_matches_the_package_metadata():
    pyproject = Path(__file__).parents[2] / "pyproject.toml"
    declared = re.search(r'^version = "(.+)"', pyproject.read_text(), re.M).group(1)
    assert minflow.__version__ == minflow.version.__version__ == declared
    assert minflow.version.cuda is None or re.fullmatch(r"\d+\.\d+", minflow.version.cuda)
    assert minflow.version.hip is None and minflow.version.debug is False

"""minflow.nn against PyTorch's ModuleInfo inputs (see moduleinfo_harness.py): outputs,
state after forward and float64 gradients on every input, and the error class on every
error input; where there is a GPU, again with minflow's modules and tensors on cuda."""
import pytest

from moduleinfo_harness import (error_module_cases, module_cases, run_module_case,
                                run_module_errors)

import torch
from minflow.core.device import cuda_is_available

DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(
    not cuda_is_available(), reason="needs cupy and a CUDA GPU"))]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("info, dtype, training",
                         [pytest.param(*rest, id=case_id) for case_id, *rest in module_cases()])
def test_modules_agree_with_torch(info, dtype, training, device):
    torch.manual_seed(0)        # the same inputs whatever ran before
    diffs = run_module_case(info, dtype, training, device)
    assert not diffs, f"{len(diffs)} inputs differ:\n" + "\n".join(diffs[:8])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("info", [pytest.param(info, id=f"errors-{name}")
                                  for name, info in error_module_cases()])
def test_module_error_inputs_raise_as_torch(info, device):
    torch.manual_seed(0)
    diffs = run_module_errors(info, device)
    assert not diffs, f"{len(diffs)} error inputs differ:\n" + "\n".join(diffs[:8])

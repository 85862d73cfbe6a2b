"""minflow.nn against PyTorch's ModuleInfo inputs (see moduleinfo_harness.py): outputs,
state after forward and float64 gradients on every input, and the error class on every
error input."""
import pytest

from moduleinfo_harness import (error_module_cases, module_cases, run_module_case,
                                run_module_errors)

import torch


@pytest.mark.parametrize("info, dtype, training",
                         [pytest.param(*rest, id=case_id) for case_id, *rest in module_cases()])
def test_modules_agree_with_torch(info, dtype, training):
    torch.manual_seed(0)        # the same inputs whatever ran before
    diffs = run_module_case(info, dtype, training)
    assert not diffs, f"{len(diffs)} inputs differ:\n" + "\n".join(diffs[:8])


@pytest.mark.parametrize("info", [pytest.param(info, id=f"errors-{name}")
                                  for name, info in error_module_cases()])
def test_module_error_inputs_raise_as_torch(info):
    torch.manual_seed(0)
    diffs = run_module_errors(info)
    assert not diffs, f"{len(diffs)} error inputs differ:\n" + "\n".join(diffs[:8])

"""minflow.optim against PyTorch's OptimizerInfo configurations (see optiminfo_harness.py):
the parameters after every step of every configuration, and the error class (or warning)
on every error input; where there is a GPU, again with minflow's parameters on cuda."""
import pytest

from optiminfo_harness import error_optim_cases, optim_cases, run_optim_case, run_optim_errors

import torch
from minflow.core.device import cuda_is_available

KNOWN = {
    "LBFGS-float32": "float32 rounding (one ulp in tanh or a dot product at the first "
                     "iteration) grows over L-BFGS's 20 inner iterations per step to 1e-4 and "
                     "more; in float64 every configuration, strong_wolfe included, agrees",
}


DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(
    not cuda_is_available(), reason="needs cupy and a CUDA GPU"))]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("info, dtype", [
    pytest.param(*rest, id=case_id, marks=pytest.mark.xfail(reason=KNOWN[case_id], strict=True)
                 if case_id in KNOWN else ()) for case_id, *rest in optim_cases()])
def test_optimizers_agree_with_torch(info, dtype, device):
    torch.manual_seed(0)
    diffs = run_optim_case(info, dtype, device)
    assert not diffs, f"{len(diffs)} configurations differ:\n" + "\n".join(diffs[:8])


@pytest.mark.parametrize("info", [pytest.param(info, id=f"errors-{name}")
                                  for name, info in error_optim_cases()])
def test_optimizer_error_inputs_raise_as_torch(info):
    torch.manual_seed(0)
    diffs = run_optim_errors(info)
    assert not diffs, f"{len(diffs)} error inputs differ:\n" + "\n".join(diffs[:8])

"""minflow against PyTorch's OpInfo samples (see opinfo_harness.py): values, dtypes and
shapes on every sample, float64 gradients, and the error class on every error input."""
import pytest

from opinfo_harness import cases, comparable, error_cases, run_errors, run_sample
from opinfo_known import KNOWN

import torch


def _params(pairs):
    return [pytest.param(*rest, id=case_id, marks=pytest.mark.xfail(
        reason=KNOWN[case_id], strict=True) if case_id in KNOWN else ())
            for case_id, *rest in pairs]


@pytest.mark.parametrize("opinfo, dtype", _params(cases()))
def test_samples_agree_with_torch(opinfo, dtype):
    torch.manual_seed(0)        # the same samples whatever ran before (make_tensor draws)
    functions = comparable(opinfo)
    grad = dtype is torch.float64 and opinfo.supports_autograd
    diffs = []
    for sample in opinfo.sample_inputs("cpu", dtype, requires_grad=grad):
        diffs += run_sample(opinfo, dtype, sample, functions)
    assert not diffs, f"{len(diffs)} samples differ:\n" + "\n".join(diffs[:8])


@pytest.mark.parametrize("opinfo", _params([(f"errors-{i}", o) for i, o in error_cases()]))
def test_error_inputs_raise_as_torch(opinfo):
    torch.manual_seed(0)
    diffs = run_errors(opinfo, comparable(opinfo))
    assert not diffs, f"{len(diffs)} error inputs differ:\n" + "\n".join(diffs[:8])

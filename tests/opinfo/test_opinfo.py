"""minflow against PyTorch's OpInfo samples (see opinfo_harness.py): values, dtypes and
shapes on every sample, float64 gradients, and the error class on every error input.

Where there is a GPU the same cases run again with minflow's tensors on cuda (torch's stay on
the cpu as the reference). The known deviations, found on the cpu, are expected there too but
not strictly: a cupy kernel may agree where the numpy one does not."""
import pytest

from opinfo_harness import cases, comparable, error_cases, run_errors, run_sample
from opinfo_known import KNOWN

import torch
from minflow.core.device import cuda_is_available

ON_CUDA = pytest.mark.skipif(not cuda_is_available(), reason="needs cupy and a CUDA GPU")


def _params(pairs, strict=True):
    return [pytest.param(*rest, id=case_id, marks=pytest.mark.xfail(
        reason=KNOWN[case_id], strict=strict) if case_id in KNOWN else ())
            for case_id, *rest in pairs]


def _samples_agree(opinfo, dtype, device):
    torch.manual_seed(0)        # the same samples whatever ran before (make_tensor draws)
    functions = comparable(opinfo)
    grad = dtype is torch.float64 and opinfo.supports_autograd
    diffs = []
    for sample in opinfo.sample_inputs("cpu", dtype, requires_grad=grad):
        diffs += run_sample(opinfo, dtype, sample, functions, device)
    assert not diffs, f"{len(diffs)} samples differ:\n" + "\n".join(diffs[:8])


def _errors_raise(opinfo, device):
    torch.manual_seed(0)
    diffs = run_errors(opinfo, comparable(opinfo), device)
    assert not diffs, f"{len(diffs)} error inputs differ:\n" + "\n".join(diffs[:8])


ERROR_CASES = [(f"errors-{i}", o) for i, o in error_cases()]


@pytest.mark.parametrize("opinfo, dtype", _params(cases()))
def test_samples_agree_with_torch(opinfo, dtype):
    _samples_agree(opinfo, dtype, "cpu")


@pytest.mark.parametrize("opinfo", _params(ERROR_CASES))
def test_error_inputs_raise_as_torch(opinfo):
    _errors_raise(opinfo, "cpu")


@ON_CUDA
@pytest.mark.parametrize("opinfo, dtype", _params(cases(), strict=False))
def test_samples_agree_with_torch_on_cuda(opinfo, dtype):
    _samples_agree(opinfo, dtype, "cuda")


@ON_CUDA
@pytest.mark.parametrize("opinfo", _params(ERROR_CASES, strict=False))
def test_error_inputs_raise_as_torch_on_cuda(opinfo):
    _errors_raise(opinfo, "cuda")

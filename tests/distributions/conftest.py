"""Run both libraries with float64 as their default dtype for the cases that need it (see
_dist_cases.py): torch's GeneralizedPareto makes a default-dtype tensor inside log_prob,
which fails against float64 parameters otherwise (minflow's is set alike, so that the two
reprs still agree)."""
import pytest

import minflow
from _dist_cases import CASES


@pytest.fixture(autouse=True)
def _float64_default(request):
    callspec = getattr(request.node, "callspec", None)
    key = callspec.params.get("key") if callspec else None
    if key not in CASES or not CASES[key].kwargs.get("torch_float64_default"):
        yield
        return
    torch = pytest.importorskip("torch")
    previous = torch.get_default_dtype(), minflow.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    minflow.set_default_dtype(minflow.float64)
    try:
        yield
    finally:
        torch.set_default_dtype(previous[0])
        minflow.set_default_dtype(previous[1])

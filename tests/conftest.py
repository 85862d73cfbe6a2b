import pytest

import minflow
from minflow.core.device import cuda_is_available

DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(
    not cuda_is_available(), reason="needs cupy and a CUDA GPU"))]


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param


@pytest.fixture(autouse=True)
def _seed():
    minflow.manual_seed(0)

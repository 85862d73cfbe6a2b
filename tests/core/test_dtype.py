import numpy as np
import pytest

import minflow
from minflow.core import dtype as dt


def t(dtype, ndim=1):
    return minflow.zeros(*(2,) * ndim, dtype=dtype)


@pytest.mark.parametrize("a, b, expected", [
    (dt.int32, dt.int64, dt.int64), (dt.int64, dt.float16, dt.float16),
    (dt.bool, dt.int32, dt.int32), (dt.float16, dt.float32, dt.float32),
    (dt.float32, dt.float64, dt.float64),
])
def test_tensor_tensor_promotion(a, b, expected):
    assert (t(a) + t(b)).dtype is expected
    assert minflow.promote_types(a, b) is expected


@pytest.mark.parametrize("dtype, scalar, expected", [
    (dt.int32, 2, dt.int32), (dt.int32, 2.5, dt.float32), (dt.float16, 2.5, dt.float16),
    (dt.bool, 1, dt.int64), (dt.bool, True, dt.bool), (dt.float64, 1, dt.float64),
    (dt.int64, 1.0, dt.float32),
])
def test_python_scalars_do_not_upcast_category(dtype, scalar, expected):
    assert (t(dtype) + scalar).dtype is expected
    assert (scalar * t(dtype)).dtype is expected


def test_zero_dim_tensor_ranks_below_dimensioned():
    assert (t(dt.float32) + t(dt.float64, ndim=0)).dtype is dt.float32
    assert (t(dt.int32) + t(dt.float64, ndim=0)).dtype is dt.float64
    assert (t(dt.int32, 0) + t(dt.int64, 0)).dtype is dt.int64


def test_int_true_division_gives_default_float():
    out = minflow.tensor([1, 2]) / minflow.tensor([2, 2])
    assert out.dtype is dt.float32
    np.testing.assert_allclose(out.numpy(), [0.5, 1.0])


def test_default_dtype_switch():
    minflow.set_default_dtype(minflow.float64)
    try:
        assert minflow.tensor([1.0]).dtype is dt.float64
        assert (minflow.tensor([1]) / 2).dtype is dt.float64
    finally:
        minflow.set_default_dtype(minflow.float32)
    with pytest.raises(TypeError, match="floating"):
        minflow.set_default_dtype(minflow.int32)


def test_unknown_dtype_is_a_clear_error():
    with pytest.raises(TypeError, match="unsupported dtype"):
        dt.as_dtype("complex64")
    with pytest.raises(TypeError, match="uint8"):
        minflow.from_numpy(np.zeros(2, np.uint8))


def test_promotion_matches_torch():
    torch = pytest.importorskip("torch")
    pairs = [(a, b) for a in dt.ALL for b in dt.ALL]
    for a, b in pairs:
        for nd_a, nd_b in ((1, 1), (1, 0), (0, 1)):
            ours = (t(a, nd_a) * t(b, nd_b)).dtype if {a, b} != {dt.bool} else None
            if ours is None:
                continue
            theirs = (torch.zeros((2,) * nd_a, dtype=getattr(torch, a.name))
                      * torch.zeros((2,) * nd_b, dtype=getattr(torch, b.name))).dtype
            assert ours.name == str(theirs).split(".")[1], (a, b, nd_a, nd_b)
    for a in dt.ALL:
        for scalar in (True, 3, 2.5):
            if a is dt.bool and scalar is True:
                continue
            theirs = (torch.zeros(2, dtype=getattr(torch, a.name)) * scalar).dtype
            assert (t(a) * scalar).dtype.name == str(theirs).split(".")[1], (a, scalar)

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
        dt.as_dtype("complex32")
    with pytest.raises(TypeError, match="uint16"):
        minflow.from_numpy(np.zeros(2, np.uint16))


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


# -- the small integer dtypes uint8, int8, int16 ---------------------------------------------
@pytest.mark.parametrize("dtype, itemsize, signed, low, high", [
    (dt.uint8, 1, False, 0, 255), (dt.int8, 1, True, -128, 127),
    (dt.int16, 2, True, -32768, 32767),
])
def test_small_int_dtype_objects(dtype, itemsize, signed, low, high):
    assert repr(dtype) == f"minflow.{dtype.name}" and getattr(minflow, dtype.name) is dtype
    assert (dtype.itemsize, dtype.is_signed, dtype.is_floating_point) == (itemsize, signed, False)
    info = minflow.iinfo(dtype)
    assert (info.min, info.max, info.bits, info.dtype) == (low, high, 8 * itemsize, dtype.name)
    assert dt.as_dtype(dtype.name) is dtype and dt.as_dtype(dtype.np) is dtype
    assert minflow.zeros(1, dtype=dtype).is_signed() is signed


def test_small_int_aliases_and_conversion_methods():
    assert minflow.short is dt.int16 and dt.as_dtype("short") is dt.int16
    assert not hasattr(minflow, "char") and not hasattr(minflow, "byte")   # as torch
    x = minflow.tensor([1.9, 200.0])
    assert x.byte().dtype is dt.uint8 and x.byte().tolist() == [1, 200]
    assert x.char().dtype is dt.int8 and x.short().dtype is dt.int16
    assert x.byte().type() == "minflow.ByteTensor" and x.type("torch.CharTensor").dtype is dt.int8
    assert isinstance(x.short(), minflow.ShortTensor) and minflow.ByteTensor([3]).dtype is dt.uint8


def test_small_int_dtypes_match_torch():
    torch = pytest.importorskip("torch")
    for dtype in (dt.uint8, dt.int8, dt.int16):
        theirs = getattr(torch, dtype.name)
        assert (dtype.itemsize, dtype.is_signed) == (theirs.itemsize, theirs.is_signed)
        assert repr(minflow.iinfo(dtype)) == repr(torch.iinfo(theirs))
    assert repr(minflow.finfo(minflow.bfloat16)) == repr(torch.finfo(torch.bfloat16))
    assert minflow.bfloat16.itemsize == torch.bfloat16.itemsize


def test_complex32_is_absent_with_a_clear_error():
    with pytest.raises(AttributeError, match="minflow has no dtype complex32: numpy"):
        minflow.complex32
    with pytest.raises(TypeError, match="minflow has no complex32"):
        dt.as_dtype("chalf")


@pytest.mark.parametrize("a, b, expected", [
    (dt.uint8, dt.int8, dt.int16), (dt.int8, dt.uint8, dt.int16), (dt.uint8, dt.bool, dt.uint8),
    (dt.uint8, dt.int16, dt.int16), (dt.int8, dt.int32, dt.int32),
    (dt.int16, dt.float16, dt.float16),
])
def test_small_int_promotion(a, b, expected):
    assert minflow.promote_types(a, b) is expected
    assert (t(a) + t(b)).dtype is expected


def test_uint8_arithmetic_wraps_as_torch():
    x = minflow.tensor([200, 3], dtype=dt.uint8)
    assert (x + 1000).dtype is dt.uint8 and (x + 1000).tolist() == [176, 235]
    assert (-x).tolist() == [56, 253] and (x - (-1)).tolist() == [201, 4]
    assert (x * 2).tolist() == [144, 6] and (x // 3).tolist() == [66, 1]
    assert (x < 300).tolist() == [False, True]      # 300 wraps to 44 first, as torch
    assert (x / 2).dtype is dt.float32 and (x / 2).tolist() == [100.0, 1.5]
    int32 = minflow.tensor([1], dtype=dt.int32)
    assert (int32 + 2 ** 32 + 1).tolist() == [2]


def test_small_int_reductions_widen_as_torch():
    x = minflow.tensor([200, 100], dtype=dt.uint8)
    assert x.sum().dtype is dt.int64 and x.sum().item() == 300
    assert x.prod().item() == 20000 and x.cumsum(0).tolist() == [200, 300]
    assert x.sum(dtype=dt.uint8).item() == 44
    assert x.max().dtype is dt.uint8 and x.any().dtype is dt.uint8 and x.all().item() == 1
    with pytest.raises(RuntimeError, match="mean.*floating point.*uint8"):
        x.mean()


def test_fill_values_are_checked_as_torch():
    assert minflow.full((2,), -1, dtype=dt.uint8).tolist() == [255, 255]
    assert minflow.tensor([-1, 5], dtype=dt.uint8).tolist() == [255, 5]
    assert minflow.zeros(2, dtype=dt.uint8).clamp(-1, 3).tolist() == [3, 3]
    for call in (lambda: minflow.full((2,), 256, dtype=dt.uint8),
                 lambda: minflow.full((2,), -129, dtype=dt.int8),
                 lambda: minflow.tensor([40000], dtype=dt.int16),
                 lambda: minflow.zeros(2, dtype=dt.uint8).fill_(-256),
                 lambda: minflow.zeros(2, dtype=dt.uint8).clamp(0, 256),
                 lambda: minflow.zeros(2, dtype=dt.uint8).masked_fill(
                     minflow.tensor([True, False]), 300)):
        with pytest.raises(RuntimeError, match="cannot be converted to type .*int.* without "
                                               "overflow"):
            call()


def test_small_int_numpy_round_trip_printing_and_save(tmp_path):
    for np_dtype in (np.uint8, np.int8, np.int16):
        a = np.array([[0, 1], [2, 127]], dtype=np_dtype)
        x = minflow.from_numpy(a)
        assert x.dtype.np == np.dtype(np_dtype) and x.numpy() is a
        assert x.tolist() == [[0, 1], [2, 127]] and x.to(dt.float32).dtype is dt.float32
        minflow.save({"x": x}, tmp_path / "x.pt")
        back = minflow.load(tmp_path / "x.pt")["x"]
        assert back.dtype is x.dtype and back.tolist() == x.tolist()
    assert repr(minflow.tensor([1, 255], dtype=dt.uint8)) == \
        "tensor([  1, 255], dtype=minflow.uint8)"
    assert minflow.tensor([-5.7, 3.2]).to(dt.int8).tolist() == [-5, 3]


def test_uint8_masks_and_indices_as_torch():
    x = minflow.arange(4.0)
    mask = minflow.tensor([1, 0, 1, 0], dtype=dt.uint8)
    with pytest.warns(UserWarning, match="indexing with dtype minflow.uint8 is deprecated"):
        assert x[mask].tolist() == [0.0, 2.0]
    with pytest.warns(UserWarning, match="uint8 condition"):
        assert minflow.where(mask, x, 0.0).tolist() == [0.0, 0.0, 2.0, 0.0]
    with pytest.raises(RuntimeError, match="masked_fill_ only supports boolean masks"):
        x[mask] = 1.0
    with pytest.raises(TypeError, match="masked_fill: expected mask with dtype in \\[bool\\]"):
        x.masked_fill(mask, 1.0)
    with pytest.raises(RuntimeError, match="embedding: expected input \\(indices\\) of dtype"):
        minflow.nn.functional.embedding(mask, minflow.ones(3, 2))
    with pytest.raises(RuntimeError, match="index_select.*int32 or int64.*uint8"):
        x.index_select(0, mask)
    assert x[minflow.tensor([3, 1], dtype=dt.int16).long()].tolist() == [3.0, 1.0]
    target = minflow.tensor([0, 2], dtype=dt.uint8)       # torch's (N, C) nll takes uint8
    logits = minflow.zeros(2, 3)
    assert minflow.nn.functional.cross_entropy(logits, target).item() == pytest.approx(np.log(3))


def test_small_int_random_draws_stay_in_range():
    for dtype in (dt.uint8, dt.int8, dt.int16):
        draws = minflow.empty(20000, dtype=dtype).random_()
        assert draws.dtype is dtype and draws.min().item() >= 0
        assert draws.max().item() <= minflow.iinfo(dtype).max
    assert minflow.randint(250, 256, (50,), dtype=dt.uint8).min().item() >= 250
    with pytest.raises(RuntimeError, match="randint: from is out of bounds for uint8"):
        minflow.randint(-3, 5, (2,), dtype=dt.uint8)
    with pytest.raises(RuntimeError, match="randint: to - 1 is out of bounds for int8"):
        minflow.randint(0, 129, (2,), dtype=dt.int8)

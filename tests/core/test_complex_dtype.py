"""complex64 / complex128: the dtypes, promotion, creation, printing, conversions and
checkpoints, and the clear refusal of every op without a complex kernel."""
import io
import warnings

import numpy as np
import pytest

import minflow
from minflow.core import dtype as dt

COMPLEX = (dt.complex64, dt.complex128)


def test_dtype_objects_and_aliases():
    assert minflow.cfloat is minflow.complex64 and minflow.cdouble is minflow.complex128
    assert dt.as_dtype("cfloat") is dt.complex64 and dt.as_dtype(complex) is dt.complex128
    assert dt.as_dtype(np.complex64) is dt.complex64
    c = minflow.complex64
    assert (c.is_complex, c.is_floating_point, c.is_signed, c.itemsize) == (True, False, True, 8)
    with pytest.raises(TypeError, match="minflow has no complex32"):
        dt.as_dtype("complex32")


def test_promotion_matches_torch():
    torch = pytest.importorskip("torch")
    others = (dt.bool, dt.uint8, dt.int32, dt.int64, dt.float16, dt.bfloat16, dt.float32,
              dt.float64) + COMPLEX
    for a in COMPLEX:
        for b in others:
            for nd_a, nd_b in ((1, 1), (1, 0), (0, 1)):
                x, y = minflow.ones([2] * nd_a, dtype=a), minflow.ones([2] * nd_b, dtype=b)
                tx = torch.ones([2] * nd_a, dtype=getattr(torch, a.name))
                ty = torch.ones([2] * nd_b, dtype=getattr(torch, b.name))
                expected = str(torch.result_type(tx, ty))[6:]
                if expected == "complex32":         # minflow has none: a clear error
                    with pytest.raises(minflow.DTypeError, match="complex32"):
                        minflow.result_type(x, y)
                    continue
                assert minflow.result_type(x, y).name == expected, (a, b, nd_a, nd_b)
                assert minflow.promote_types(a, b).name == \
                    str(torch.promote_types(tx.dtype, ty.dtype))[6:]


@pytest.mark.parametrize("dtype, scalar, expected", [
    (dt.float32, 1j, dt.complex64), (dt.float64, 1j, dt.complex128),
    (dt.int32, 1j, dt.complex64), (dt.bool, 2j, dt.complex64),
    (dt.bfloat16, 1j, dt.complex64), (dt.complex64, 2.5, dt.complex64),
    (dt.complex128, 1j, dt.complex128),
])
def test_python_complex_scalar_promotes_to_the_tensors_precision(dtype, scalar, expected):
    assert minflow.result_type(minflow.ones(2, dtype=dtype), scalar) is expected
    assert (minflow.ones(2, dtype=dtype) * scalar).dtype is expected


def test_float16_times_complex_refuses_complex32():
    with pytest.raises(minflow.DTypeError, match="complex32 is not supported"):
        minflow.ones(2, dtype=minflow.float16) * 1j


def test_default_complex_follows_the_default_float():
    assert minflow.tensor([1j]).dtype is minflow.complex64
    minflow.set_default_dtype(minflow.float64)
    try:
        assert minflow.tensor([1j, 2]).dtype is minflow.complex128
        assert minflow.full((2,), 1j).dtype is minflow.complex128
    finally:
        minflow.set_default_dtype(minflow.float32)


def test_tensor_from_python_and_numpy_complex():
    x = minflow.tensor([1 + 2j, 3.5, -1j])
    assert x.dtype is minflow.complex64 and x.tolist() == [1 + 2j, 3.5 + 0j, -1j]
    a = np.array([1 - 1j, 2j], np.complex128)
    assert minflow.tensor(a).dtype is minflow.complex128
    shared = minflow.from_numpy(a)
    a[0] = 7
    assert shared[0].item() == 7 + 0j and isinstance(shared[0].item(), complex)
    assert minflow.tensor([1j]).numpy().dtype == np.complex64
    with pytest.raises(TypeError, match="tensor: must be real number, not complex"):
        minflow.tensor([1j], dtype=minflow.float32)


def test_finfo_of_complex_is_its_real_counterparts():
    torch = pytest.importorskip("torch")
    for d in COMPLEX:
        ours, theirs = minflow.finfo(d), torch.finfo(getattr(torch, d.name))
        assert (ours.eps, ours.max, ours.tiny, ours.bits) == \
            (theirs.eps, theirs.max, theirs.tiny, theirs.bits)
        assert ours.dtype == str(theirs.dtype)


@pytest.mark.parametrize("values", [
    [1 + 2j, 3.5 - 1j], [[1 + 2j, -3.25e-5j], [1e6, 0]], [0j, 0j], [1e-10 + 1j],
    [complex("nan") + 1j, complex("inf") - 2j], [(1 + 0.5j) * k for k in range(12)],
    [(1 - 0.25j) * k for k in range(1500)], 1.5 + 2j,
])
def test_printing_matches_torch(values):
    torch = pytest.importorskip("torch")
    for dtype in ("complex64", "complex128"):
        ours = repr(minflow.tensor(values, dtype=getattr(minflow, dtype)))
        theirs = repr(torch.tensor(values, dtype=getattr(torch, dtype)))
        assert ours == theirs.replace("torch.", "minflow."), (ours, theirs)


def test_conversions():
    x = minflow.tensor([1.5, -2.0])
    assert x.cfloat().dtype is minflow.complex64 and x.cdouble().dtype is minflow.complex128
    assert x.to(complex).dtype is minflow.complex128
    assert x.cfloat().tolist() == [1.5 + 0j, -2 + 0j]
    assert minflow.tensor([1j]).type() == "minflow.ComplexFloatTensor"
    assert minflow.is_complex(x.cfloat()) and not x.is_complex()


def test_casting_complex_to_real_warns_and_keeps_the_real_part():
    z = minflow.tensor([1 + 2j, -3 - 4j])
    for target in (minflow.float32, minflow.float64, minflow.int64):
        with pytest.warns(UserWarning, match="Casting complex values to real discards the "
                                             "imaginary part"):
            assert z.to(target).tolist() == [1, -3]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert z.to(minflow.complex128).tolist() == [1 + 2j, -3 - 4j]


def test_python_numbers_from_complex_tensors_as_torch():
    z = minflow.tensor(1 + 2j)
    assert z.item() == 1 + 2j and complex(z) == 1 + 2j and bool(z)
    with pytest.raises(RuntimeError, match="cannot be converted to type double"):
        float(z)
    with pytest.raises(RuntimeError, match="cannot be converted to type int64_t"):
        int(z)
    with pytest.raises(TypeError, match="only integer tensors"):
        [0, 1][z]


def test_full_and_factories():
    assert minflow.zeros(2, dtype=minflow.cfloat).tolist() == [0j, 0j]
    assert minflow.ones(1, dtype=minflow.cdouble).dtype is minflow.complex128
    assert minflow.full((2,), 1 - 1j).tolist() == [1 - 1j, 1 - 1j]
    assert minflow.full((1,), 2 + 0j, dtype=minflow.float32).tolist() == [2.0]
    with pytest.raises(RuntimeError, match="full: value 1j cannot be converted to type "
                                           "float32"):
        minflow.full((2,), 1j, dtype=minflow.float32)


def test_complex_randn_has_half_variance_per_part():
    minflow.manual_seed(0)
    z = minflow.randn(20000, dtype=minflow.cfloat)
    assert z.dtype is minflow.complex64
    assert abs(z.real.numpy().var() - 0.5) < 0.03 and abs(z.imag.numpy().var() - 0.5) < 0.03
    assert abs(z.real.numpy().mean()) < 0.03


def test_save_and_load_complex_tensors():
    state = {"z": minflow.tensor([[1 + 2j, -1j]], dtype=minflow.complex128),
             "w": minflow.tensor([0.5j]), "scalar": 3 - 1j}
    buffer = io.BytesIO()
    minflow.save(state, buffer)
    buffer.seek(0)
    loaded = minflow.load(buffer)
    assert loaded["z"].dtype is minflow.complex128 and loaded["w"].dtype is minflow.complex64
    assert loaded["z"].tolist() == [[1 + 2j, -1j]] and loaded["scalar"] == 3 - 1j


@pytest.mark.parametrize("call, op", [
    (lambda z: minflow.lgamma(z), "lgamma"), (lambda z: minflow.nan_to_num(z), "nan_to_num"),
    (lambda z: z < z, "lt"), (lambda z: z.max(), "amax"), (lambda z: minflow.erf(z), "erf"),
])
def test_ops_without_complex_kernels_refuse_clearly(call, op):
    with pytest.raises(NotImplementedError,
                       match=f"{op}: no kernel for device 'cpu' and dtype complex64"):
        call(minflow.tensor([1 + 2j, 3 - 1j]))


def test_a_complex_input_never_reaches_a_real_kernel():
    """Ops whose kernel is chosen by a real input, or whose compute dtype is real, refuse a
    complex input instead of dropping its imaginary part."""
    z = minflow.tensor([1 + 2j, 3 - 1j])
    with pytest.raises(NotImplementedError, match="dtype complex64"):
        minflow.lgamma(minflow.where(minflow.tensor([True, False]), z, 0))
    with pytest.raises(NotImplementedError, match="complex64"):
        minflow.maximum(minflow.ones(2), z)
    with pytest.raises(minflow.DTypeError, match="relu: expected input with dtype"):
        minflow.relu(z)


def test_inplace_abs_of_complex_refused_as_torch():
    with pytest.raises(RuntimeError, match="In-place abs is not supported for complex"):
        minflow.tensor([1j]).abs_()
    with pytest.raises(RuntimeError, match="result type complex64 can't be cast to the "
                                           "desired output type float32"):
        minflow.ones(2).mul_(minflow.tensor([1j, 1j]))


def test_requires_grad_and_implicit_grad_rules():
    z = minflow.tensor([1j, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="only for real scalar outputs"):
        z.sum().backward()
    with pytest.raises(RuntimeError, match="floating point and complex dtype"):
        minflow.ones(2, dtype=minflow.int64).requires_grad_()


def test_graph_mode_refuses_complex_tensors():
    class Double(minflow.nn.Graph):
        def build(self, x):
            return x * 2

    with pytest.raises(minflow.DTypeError, match="complex tensors run in eager mode only"):
        Double()(minflow.tensor([1j, 2.0]))


def test_writing_complex_values_as_torch():
    z = minflow.zeros(3, dtype=minflow.cfloat)
    z[0] = 1j
    z[1:] = 2 + 1j
    z[minflow.tensor([2])] = 5j
    assert z.tolist() == [1j, 2 + 1j, 5j]
    x = minflow.ones(2)
    x[0] = 3 + 0j                       # no imaginary part: written, as torch
    assert x.tolist() == [3.0, 1.0]
    for write in (lambda: x.__setitem__(0, 1j), lambda: x.fill_(1j),
                  lambda: x.masked_fill_(x > 0, 2j)):
        with pytest.raises(RuntimeError, match="value 1j cannot be converted|value 2j cannot"):
            write()
    with pytest.warns(UserWarning, match="discards the imaginary part"):
        x.copy_(minflow.tensor([1j, 1 + 1j]))
    assert x.tolist() == [0.0, 1.0]

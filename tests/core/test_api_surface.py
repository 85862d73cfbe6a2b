"""The torch namespace surface scripts touch outside ops: dtype limits (finfo / iinfo),
tensor predicates, rng state save / restore, deterministic and matmul precision flags and
the default device. Values are checked against torch where it is installed."""
import warnings

import numpy as np
import pytest

import minflow

FINFO = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")


@pytest.mark.parametrize("name", ["float16", "float32", "float64"])
def test_finfo_as_torch(name):
    torch = pytest.importorskip("torch")
    ours, theirs = minflow.finfo(getattr(minflow, name)), torch.finfo(getattr(torch, name))
    assert repr(ours) == repr(theirs)
    for field in FINFO:
        assert getattr(ours, field) == getattr(theirs, field), field


@pytest.mark.parametrize("name", ["int32", "int64"])
def test_iinfo_as_torch(name):
    torch = pytest.importorskip("torch")
    ours, theirs = minflow.iinfo(getattr(minflow, name)), torch.iinfo(getattr(torch, name))
    assert repr(ours) == repr(theirs)
    assert (ours.bits, ours.max, ours.min, ours.dtype) == \
        (theirs.bits, theirs.max, theirs.min, theirs.dtype)


def test_finfo_values_and_default():
    assert minflow.finfo().dtype == "float32"
    f = minflow.finfo(minflow.float64)
    assert (f.bits, f.eps, f.resolution) == (64, 2.0 ** -52, 1e-15)
    assert f.tiny == f.smallest_normal == np.finfo(np.float64).tiny
    assert minflow.finfo(minflow.float32) == minflow.finfo(minflow.float)
    assert minflow.iinfo(minflow.int32).min == -2 ** 31


@pytest.mark.parametrize("call, fragment", [
    (lambda: minflow.finfo(minflow.int32), "finfo: expected a floating point dtype, got int32"),
    (lambda: minflow.iinfo(minflow.float32), "iinfo: expected an integer dtype, got float32"),
    (lambda: minflow.iinfo(minflow.bool), "iinfo: minflow.bool is not supported"),
    (lambda: minflow.finfo("complex32"), "finfo: expected a minflow dtype, got 'complex32'"),
    (lambda: minflow.iinfo(minflow.complex64), "iinfo: expected an integer dtype, got complex64"),
])
def test_info_errors(call, fragment):
    with pytest.raises(TypeError, match=fragment):
        call()


def test_predicates():
    x, i, b = minflow.tensor([1.5, -2.0]), minflow.tensor([0]), minflow.tensor([True])
    assert (x.is_signed(), i.is_signed(), b.is_signed()) == (True, True, False)
    assert minflow.is_signed(i) and not minflow.is_complex(x) and not x.is_complex()
    assert not i.is_nonzero() and minflow.tensor(float("nan")).is_nonzero()
    assert minflow.is_nonzero(minflow.tensor([[3]]))
    assert x.is_same_size(minflow.zeros(2)) and not x.is_same_size(minflow.zeros(2, 1))
    assert (x.get_device(), x.ndimension(), x.is_cpu, x.is_inference()) == (-1, 1, True, False)
    assert minflow.zeros(1, device="meta").get_device() == -1
    assert not minflow.zeros(1, device="meta").is_cpu
    with minflow.inference_mode():
        made = minflow.ones(2) * 2
    assert made.is_inference() and not (made + 1).is_inference()


def test_predicates_as_torch():
    torch = pytest.importorskip("torch")
    for values in ([1.0], [0], [True], [False], [[-0.0]], [float("nan")]):
        assert minflow.tensor(values).is_nonzero() == torch.tensor(values).is_nonzero()
        assert minflow.tensor(values).is_signed() == torch.tensor(values).is_signed()


@pytest.mark.parametrize("values, which", [([], "no values"), ([1, 2], "more than one value")])
def test_is_nonzero_errors(values, which):
    with pytest.raises(RuntimeError, match=f"is_nonzero: Boolean value of Tensor with {which}"):
        minflow.tensor(values).is_nonzero()
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        torch.tensor(values).is_nonzero()


def test_predicate_type_errors():
    with pytest.raises(TypeError, match="is_nonzero: expected input to be a Tensor, got int"):
        minflow.is_nonzero(3)
    with pytest.raises(TypeError, match="is_same_size: expected other to be a Tensor, got list"):
        minflow.is_same_size(minflow.ones(1), [1])


# ---- rng state ----------------------------------------------------------------------------

def test_rng_state_replays_draws():
    minflow.manual_seed(5)
    minflow.rand(3)
    state = minflow.get_rng_state()
    assert state.dtype is minflow.int64 and state.device.type == "cpu"
    first = (minflow.rand(4), minflow.randn(3), minflow.randint(0, 100, (5,)))
    minflow.set_rng_state(state)
    again = (minflow.rand(4), minflow.randn(3), minflow.randint(0, 100, (5,)))
    for a, b in zip(first, again):
        assert a.tolist() == b.tolist()


def test_rng_state_of_fresh_generator_and_other_generator():
    g = minflow.Generator().manual_seed(11)
    state = g.get_state()                       # nothing drawn yet: the seed alone
    a = minflow.rand(3, generator=g)
    b = minflow.rand(3, generator=minflow.Generator().set_state(state))
    assert a.tolist() == b.tolist()
    mid = g.get_state()
    c = minflow.normal(0.0, 1.0, (4,), generator=g)
    h = minflow.Generator().manual_seed(99).set_state(mid)
    assert minflow.normal(0.0, 1.0, (4,), generator=h).tolist() == c.tolist()
    assert h.initial_seed() == 11


def test_rng_state_survives_save_and_load(tmp_path):
    state = minflow.get_rng_state()
    minflow.save({"rng": state}, tmp_path / "ckpt.pt")
    a = minflow.rand(3)
    minflow.set_rng_state(minflow.load(tmp_path / "ckpt.pt")["rng"])
    assert minflow.rand(3).tolist() == a.tolist()


@pytest.mark.parametrize("bad, error, fragment", [
    ([1, 2], TypeError, "set_state: expected the int64 tensor of Generator.get_state, got list"),
    (minflow.zeros(9), TypeError, "got float32"),
    (minflow.tensor([1, 1, 0]), RuntimeError, "set_state: expected 6 state words for the cpu"),
    (minflow.tensor([2, 0, 0]), RuntimeError, "set_state: expected a state saved from a cpu"),
])
def test_set_rng_state_errors(bad, error, fragment):
    with pytest.raises(error, match=fragment):
        minflow.set_rng_state(bad)


def test_cuda_rng_state_needs_a_gpu():
    if minflow.cuda.is_available():
        state = minflow.cuda.get_rng_state()
        a = minflow.rand(5, device="cuda")
        minflow.cuda.set_rng_state(state)
        assert minflow.rand(5, device="cuda").tolist() == a.tolist()
    else:
        with pytest.raises(RuntimeError, match="cuda"):
            minflow.cuda.get_rng_state()


# ---- flags and the default device -----------------------------------------------------------

def test_deterministic_flags_as_torch():
    torch = pytest.importorskip("torch")
    try:
        for mode, warn_only in ((True, True), (True, False), (False, True), (False, False)):
            minflow.use_deterministic_algorithms(mode, warn_only=warn_only)
            torch.use_deterministic_algorithms(mode, warn_only=warn_only)
            assert minflow.are_deterministic_algorithms_enabled() == \
                torch.are_deterministic_algorithms_enabled()
            assert minflow.is_deterministic_algorithms_warn_only_enabled() == \
                torch.is_deterministic_algorithms_warn_only_enabled()
    finally:
        minflow.use_deterministic_algorithms(False)
        torch.use_deterministic_algorithms(False)
    with pytest.raises(TypeError, match="use_deterministic_algorithms: expected mode to be a "
                                        "bool, got str"):
        minflow.use_deterministic_algorithms("yes")


def test_float32_matmul_precision():
    assert minflow.get_float32_matmul_precision() == "highest"
    try:
        minflow.set_float32_matmul_precision("medium")
        assert minflow.get_float32_matmul_precision() == "medium"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            minflow.set_float32_matmul_precision("fastest")
        assert "no effect" in str(caught[0].message)
        assert minflow.get_float32_matmul_precision() == "medium"
        with pytest.raises(RuntimeError, match="set_float32_matmul_precision: expects a str"):
            minflow.set_float32_matmul_precision(3)
    finally:
        minflow.set_float32_matmul_precision("highest")


def test_default_device_applies_to_factories():
    x = minflow.ones(2)
    try:
        minflow.set_default_device("meta")
        assert minflow.get_default_device() == minflow.device("meta")
        made = [minflow.zeros(2), minflow.ones(1), minflow.empty(3), minflow.full((2,), 1.0),
                minflow.arange(3), minflow.linspace(0, 1, 3), minflow.eye(2), minflow.rand(2),
                minflow.randn(2), minflow.randint(0, 3, (2,)), minflow.randperm(3),
                minflow.tensor([1.0]), minflow.as_tensor([1.0])]
        assert all(t.device.type == "meta" for t in made)
        # from other tensors and numpy: their own device
        assert minflow.zeros_like(x).device.type == "cpu"
        assert minflow.from_numpy(np.ones(2)).device.type == "cpu"
        assert minflow.zeros(2, device="cpu").device.type == "cpu"
        assert minflow.nn.Linear(2, 3).weight.device.type == "meta"
        # index lists are host data: they still index a cpu tensor
        assert x[[1, 0]].device.type == "cpu" and x[[True, False]].shape == (1,)
    finally:
        minflow.set_default_device(None)
    assert minflow.get_default_device() == minflow.device("cpu")
    assert minflow.zeros(1).device.type == "cpu"


# ---- real-tensor conjugation, layout flags, small aliases ---------------------------------

def test_conjugation_is_identity_on_real_tensors_as_torch():
    torch = pytest.importorskip("torch")
    values = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    for lib in (minflow, torch):
        x = lib.tensor(values)
        assert lib.conj(x) is x and x.resolve_conj() is x and x.resolve_neg() is x
        assert not x.is_conj() and not x.is_neg() and not x.is_sparse and not x.is_quantized
    ours, theirs = minflow.tensor(values), torch.tensor(values)
    for get in (lambda t: t.H, lambda t: t.mH, lambda t: t.adjoint(),
                lambda t: t.reshape(1, 2, 3).mH):
        assert get(ours).tolist() == get(theirs).tolist()
    with pytest.raises(RuntimeError, match="H: tensor.H is only supported on matrices"):
        minflow.ones(2, 2, 2).H
    with pytest.raises(RuntimeError, match="adjoint: tensor.adjoint.. is only supported on "
                                           "matrices"):
        minflow.ones(3).adjoint()
    assert ours.adjoint()._base is not None           # a view, as torch


def test_small_aliases_as_torch():
    torch = pytest.importorskip("torch")
    for lib in (minflow, torch):
        assert (lib.pi, lib.e, lib.newaxis) == (np.pi, np.e, None)
        assert lib.inf == np.inf and np.isnan(lib.nan)
    assert str(minflow.scalar_tensor(3)) == str(torch.scalar_tensor(3))
    assert minflow.scalar_tensor(2, dtype=minflow.int64).dtype is minflow.int64
    rows = [[1, 2], [3, 4]]
    assert minflow.row_stack([minflow.tensor(r) for r in rows]).tolist() == \
        torch.row_stack([torch.tensor(r) for r in rows]).tolist()
    x, y = minflow.tensor([1.5, -1.5, 2.7]), torch.tensor([1.5, -1.5, 2.7])
    assert x.fix_().tolist() == y.fix_().tolist()
    a, b = minflow.tensor([1.0, -2.0]), torch.tensor([1.0, -2.0])
    np.testing.assert_allclose(a.arctan2_(minflow.tensor([-1.0, 3.0])).numpy(),
                               b.arctan2_(torch.tensor([-1.0, 3.0])).numpy(), rtol=1e-6)
    with minflow.inference_mode():
        assert minflow.is_inference(minflow.zeros(1))


@pytest.mark.parametrize("call", [
    lambda lib, x: x.sum(axis=-1),
    lambda lib, x: x.mean(axis=0, keepdims=True),
    lambda lib, x: lib.std(x, axis=(0, 1)),
    lambda lib, x: x.max(axis=1).values,
    lambda lib, x: x.argmax(axis=1, keepdims=True),
    lambda lib, x: lib.cat([x, x], axis=1),
    lambda lib, x: x.cumsum(axis=0),
    lambda lib, x: x.gather(axis=1, index=lib.tensor([[0], [2]])),
    lambda lib, x: lib.index_select(x, axis=1, index=lib.tensor([2, 0])),
    lambda lib, x: x.unsqueeze(axis=0),
    lambda lib, x: x.softmax(axis=1),
    lambda lib, x: x.topk(2, axis=1).values,
    lambda lib, x: x.logsumexp(axis=1, keepdims=True),
], ids=["sum", "mean_keepdims", "std", "max", "argmax", "cat", "cumsum", "gather",
        "index_select", "unsqueeze", "softmax", "topk", "logsumexp"])
def test_numpy_axis_and_keepdims_aliases_as_torch(call):
    torch = pytest.importorskip("torch")
    data = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]], dtype=np.float32)
    got = call(minflow, minflow.tensor(data))
    expected = call(torch, torch.tensor(data))
    assert got.shape == expected.shape
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6)


def test_numpy_aliases_need_the_arguments_they_stand_for():
    x = minflow.ones(2, 3)
    with pytest.raises(TypeError,
                       match=r"cumsum\(\) missing 1 required positional argument: 'dim'"):
        x.cumsum()
    with pytest.raises(TypeError,
                       match=r"gather\(\) missing 1 required positional argument: 'index'"):
        x.gather(axis=0)


def test_compile_returns_the_model_and_says_it_runs_eagerly():
    import warnings
    model = minflow.nn.Linear(2, 1)
    from minflow import compiler
    compiler._warned[0] = False
    with pytest.warns(UserWarning, match="minflow has no torch.compile backend"):
        assert minflow.compile(model) is model
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # once per process
        assert minflow.compile(mode="max-autotune")(abs) is abs
    with pytest.raises(RuntimeError, match="Unrecognized mode=fast"):
        minflow.compile(model, mode="fast")
    with pytest.raises(RuntimeError, match="Either mode or options can be specified"):
        minflow.compile(model, mode="default", options={})


def test_asarray_shares_memory_where_it_can_as_torch():
    a = np.zeros(2, dtype=np.float32)
    t = minflow.asarray(a)
    a[0] = 5
    assert t.tolist() == [5.0, 0.0]                     # an alias of the array
    assert minflow.asarray(a, copy=True).tolist() == [5.0, 0.0]
    a[1] = 7
    assert minflow.asarray(a, dtype=minflow.float64).dtype is minflow.float64
    x = minflow.ones(2, requires_grad=True)
    assert minflow.asarray(x) is x
    assert minflow.asarray(x, copy=True).grad_fn is not None      # clone keeps history
    assert not minflow.asarray(x, requires_grad=False).requires_grad
    assert minflow.asarray([1, 2]).dtype is minflow.int64
    assert minflow.asarray(3.5).item() == 3.5
    with pytest.raises(ValueError, match="can't alias a list"):
        minflow.asarray([1, 2], copy=False)
    with pytest.raises(ValueError, match="can't alias a numpy array of dtype float64"):
        minflow.asarray(np.zeros(2), dtype=minflow.float32, copy=False)


def test_asarray_against_torch():
    torch = pytest.importorskip("torch")
    for data in ([1, 2], [1.0, 2.5], np.arange(3, dtype=np.int32), np.float32(2), True):
        ours, theirs = minflow.asarray(data), torch.asarray(data)
        assert ours.dtype.name == str(theirs.dtype).split(".")[1]
        assert ours.tolist() == theirs.tolist()


def test_resize_keeps_elements_in_order_as_torch():
    t = minflow.arange(6.0).reshape(2, 3)
    assert t.resize_(3, 2) is t and t.tolist() == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
    assert t.resize_(2).tolist() == [0.0, 1.0]
    assert t.resize_((1, 2)).shape == (1, 2)
    assert t.resize_(4).tolist()[:2] == [0.0, 1.0]
    assert minflow.zeros(3).resize_as_(minflow.ones(2, 2)).shape == (2, 2)
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        minflow.ones(2, requires_grad=True).resize_(3)
    with pytest.raises(RuntimeError, match="non-negative int sizes"):
        minflow.ones(2).resize_(-1)


def test_top_level_function_forms_as_torch():
    x = minflow.ones(2, requires_grad=True)
    assert not minflow.detach(x).requires_grad
    y = x * 2
    assert minflow.detach_(y) is y and y.is_leaf
    z = minflow.zeros(2)
    assert minflow.fill_(z, 3) is z and z.tolist() == [3.0, 3.0]
    assert minflow.zero_(z) is z and z.tolist() == [0.0, 0.0]
    assert minflow.fill(z, 2.0).tolist() == [2.0, 2.0] and z.tolist() == [0.0, 0.0]
    assert minflow.vmap is minflow.func.vmap
    assert minflow.typename(minflow.ones(1, dtype=minflow.int64)) == "minflow.LongTensor"
    assert minflow.typename(np.zeros(1)) == "numpy.ndarray"
    assert minflow.typename(3) == "int"
    try:
        minflow.set_anomaly_enabled(True, check_nan=False)
        assert minflow.is_anomaly_enabled() and not minflow.is_anomaly_check_nan_enabled()
    finally:
        minflow.set_anomaly_enabled(False)
    assert not minflow.is_anomaly_enabled()


def test_assert_allclose_is_the_deprecated_looser_form():
    with pytest.warns(FutureWarning, match="deprecated"):
        minflow.testing.assert_allclose(minflow.tensor([1.0, 2.0]), [1.0, 2.00001])
    with pytest.warns(FutureWarning):
        minflow.testing.assert_allclose(minflow.tensor([float("nan")]), [float("nan")])
    with pytest.warns(FutureWarning), pytest.raises(AssertionError, match="not close"):
        minflow.testing.assert_allclose(minflow.tensor([1.0]), [1.01])


def test_torch_module_paths_for_generators_and_hook_handles():
    assert minflow.random.Generator is minflow.Generator
    assert minflow.random.default_generator is minflow.default_generator
    handle = minflow.nn.Linear(1, 1).register_forward_hook(lambda *a: None)
    assert isinstance(handle, minflow.utils.hooks.RemovableHandle)


def test_put_apply_map_dim_order_empty_strided_as_torch():
    torch = pytest.importorskip("torch")
    for lib in (torch, minflow):
        t = lib.arange(6.0).reshape(2, 3)
        got = [lib.put(t, lib.tensor([0, -1]), lib.tensor([9.0, 8.0])).tolist(),
               t.clone().put_(lib.tensor([1, 1]), lib.tensor([1.0, 2.0]), accumulate=True)
               .tolist(),
               t.t().clone().put_(lib.tensor([1]), lib.tensor([-1.0])).tolist(),
               t.clone().apply_(lambda v: v * 2).tolist(),
               t.clone().map_(lib.tensor([1.0, 2.0, 3.0]), lambda a, b: a + b).tolist(),
               t.clone().map2_(lib.ones(3), lib.full((2, 1), 2.0), lambda a, b, c: a + b * c)
               .tolist(),
               lib.ones(2, 3, 4, 5).contiguous(memory_format=lib.channels_last).dim_order(),
               lib.empty_strided((2, 3), (1, 2)).stride(),
               lib.ones(2).new_empty_strided((2, 2), (1, 2)).stride(),
               lib.ones(2, requires_grad=True).exp().output_nr]
        if lib is torch:
            expected = got
    assert got == expected
    with pytest.raises(RuntimeError, match="Expected a long tensor for index"):
        minflow.put(minflow.zeros(3), minflow.tensor([1.0]), minflow.tensor([1.0]))
    with pytest.raises(IndexError, match="same number of elements"):
        minflow.put(minflow.zeros(3), minflow.tensor([1]), minflow.tensor([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="requires grad"):
        minflow.ones(2, requires_grad=True).apply_(abs)
    with pytest.raises(RuntimeError, match="dimensionality of sizes"):
        minflow.empty_strided((2, 3), (1,))
    x = minflow.ones(3, requires_grad=True)
    source = minflow.tensor([5.0], requires_grad=True)
    minflow.put(x, minflow.tensor([0]), source).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 1.0] and source.grad.tolist() == [1.0]


def test_control_flow_nonzero_static_and_unsafe_splits_as_torch():
    torch = pytest.importorskip("torch")
    # NOTE: torch.cond loads torch's compiler, which turns torch.distributions' argument
    # validation off for the whole process; the other tests compare against it
    validating = torch.distributions.Distribution._validate_args
    try:
        _compare_control_flow(torch)
    finally:
        torch.distributions.Distribution.set_default_validate_args(validating)
    with pytest.raises(RuntimeError, match="Expected pred to be bool or single-element"):
        minflow.cond(minflow.tensor([True, False]), abs, abs, (minflow.ones(1),))


def _compare_control_flow(torch):
    results = {}
    for lib in (torch, minflow):
        x = lib.arange(6.0)
        results[lib.__name__] = [
            lib.cond(x.sum() > 10, lambda t: t + 1, lambda t: t - 1, (x,)).tolist(),
            lib.cond(False, lambda t: t + 1, lambda t: t - 1, [x]).tolist(),
            [v.tolist() for v in lib.while_loop(lambda i, t: i < 3, lambda i, t: (i + 1, t * 2),
                                                (lib.tensor(0), lib.ones(2)))],
            lib.nonzero_static(lib.tensor([0, 1, 0, 2]), size=3).tolist(),
            lib.nonzero_static(lib.tensor([[1, 0], [1, 1]]), size=2, fill_value=7).tolist(),
            [t.tolist() for t in lib.unsafe_split(x, 4)],
            [t.tolist() for t in lib.unsafe_chunk(x, 3)],
            [t.tolist() for t in x.unsafe_split_with_sizes([1, 5])],
        ]
    assert results["minflow"] == results["torch"]


def test_dlpack_and_frombuffer_share_memory():
    torch = pytest.importorskip("torch")
    t = torch.arange(4.0)
    m = minflow.from_dlpack(t)
    m[0] = 9.0
    assert t.tolist() == [9.0, 1.0, 2.0, 3.0]              # one memory, both ways
    x = minflow.arange(3.0)
    torch.from_dlpack(x)[1] = 7.0
    assert x.tolist() == [0.0, 7.0, 2.0]
    with pytest.raises(RuntimeError, match="requires grad"):
        torch.from_dlpack(minflow.ones(1, requires_grad=True))
    buffer = bytearray(np.arange(4, dtype=np.float32).tobytes())
    view = minflow.frombuffer(buffer, dtype=minflow.float32, count=2, offset=4)
    view.mul_(10)
    assert view.tolist() == [10.0, 20.0] and np.frombuffer(buffer, np.float32)[1] == 10.0
    with pytest.warns(UserWarning, match="not writable"):
        minflow.frombuffer(b"\x01\x02", dtype=minflow.uint8)
    with pytest.raises(ValueError, match="offset"):
        minflow.frombuffer(buffer, dtype=minflow.float32, offset=16)


def test_generic_convolution_dropout_forms_and_legacy_defaults():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    x, w, wt = (rng.standard_normal(s).astype(np.float32)
                for s in ((1, 2, 5, 5), (3, 2, 3, 3), (2, 3, 3, 3)))
    for weight, transposed, output_padding in ((w, False, [0, 0]), (wt, True, [1, 1])):
        args = ([2, 2] if transposed else [1, 1], [1, 1], [1, 1], transposed, output_padding, 1)
        ours = minflow.convolution(minflow.tensor(x), minflow.tensor(weight), None, *args)
        theirs = torch.convolution(torch.tensor(x), torch.tensor(weight), None, *args)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-5)
    y = minflow.ones(4, 3, 2)
    assert minflow.feature_dropout_(y, 0.5, True) is y
    channels = y[:, :, 0]
    assert set(channels.reshape(-1).tolist()) <= {0.0, 2.0}
    assert minflow.equal(y[:, :, 0], y[:, :, 1])             # whole channels at once
    assert minflow.dropout_(minflow.ones(3), 0.5, False).tolist() == [1.0, 1.0, 1.0]
    assert minflow.set_flush_denormal(True) is False
    try:
        with pytest.warns(UserWarning, match="deprecated"):
            minflow.set_default_tensor_type("torch.DoubleTensor")
        assert minflow.tensor([1.0]).dtype is minflow.float64
    finally:
        minflow.set_default_dtype(minflow.float32)
    with pytest.raises(TypeError, match="only floating-point types"):
        minflow.set_default_tensor_type(minflow.LongTensor)

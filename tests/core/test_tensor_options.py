"""Factory functions' ``layout=`` and ``pin_memory=`` (core/tensor_options.py): accepted where
torch's function takes them, checked as torch checks them, refused where it does not."""
import inspect
import pickle

import pytest

import minflow

needs_gpu = pytest.mark.skipif(not minflow.cuda.is_available(), reason="needs a GPU")
no_gpu = pytest.mark.skipif(minflow.cuda.is_available(), reason="behaviour without a GPU")


def _calls(lib, x):
    """{name: factory(**options)} for torch or minflow; ``x`` a 2 x 2 tensor of ``lib``."""
    return {
        "zeros": lambda **k: lib.zeros(2, **k), "ones": lambda **k: lib.ones(2, **k),
        "empty": lambda **k: lib.empty(2, **k), "full": lambda **k: lib.full((2,), 1.0, **k),
        "arange": lambda **k: lib.arange(3, **k),
        "linspace": lambda **k: lib.linspace(0, 1, 3, **k),
        "logspace": lambda **k: lib.logspace(0, 1, 3, **k), "eye": lambda **k: lib.eye(2, **k),
        "rand": lambda **k: lib.rand(2, **k), "randn": lambda **k: lib.randn(2, **k),
        "randint": lambda **k: lib.randint(0, 3, (2,), **k),
        "randperm": lambda **k: lib.randperm(3, **k),
        "normal": lambda **k: lib.normal(0.0, 1.0, (2,), **k),
        "empty_strided": lambda **k: lib.empty_strided((2,), (1,), **k),
        "scalar_tensor": lambda **k: lib.scalar_tensor(1.0, **k),
        "tensor": lambda **k: lib.tensor([1.0], **k),
        "as_tensor": lambda **k: lib.as_tensor([1.0], **k),
        "zeros_like": lambda **k: lib.zeros_like(x, **k),
        "ones_like": lambda **k: lib.ones_like(x, **k),
        "empty_like": lambda **k: lib.empty_like(x, **k),
        "full_like": lambda **k: lib.full_like(x, 1.0, **k),
        "rand_like": lambda **k: lib.rand_like(x, **k),
        "randn_like": lambda **k: lib.randn_like(x, **k),
        "randint_like": lambda **k: lib.randint_like(x, 3, **k),
        "tril_indices": lambda **k: lib.tril_indices(2, 2, **k),
        "triu_indices": lambda **k: lib.triu_indices(2, 2, **k),
        "hann_window": lambda **k: lib.hann_window(4, **k),
        "kaiser_window": lambda **k: lib.kaiser_window(4, **k),
        "fft.fftfreq": lambda **k: lib.fft.fftfreq(4, **k),
        "fft.rfftfreq": lambda **k: lib.fft.rfftfreq(4, **k),
        "new_zeros": lambda **k: x.new_zeros(2, **k), "new_ones": lambda **k: x.new_ones(2, **k),
        "new_empty": lambda **k: x.new_empty(2, **k),
        "new_full": lambda **k: x.new_full((2,), 1.0, **k),
        "new_empty_strided": lambda **k: x.new_empty_strided((2,), (1,), **k),
        "new_tensor": lambda **k: x.new_tensor([1.0], **k),
        "signal.windows.hann": lambda **k: lib.signal.windows.hann(4, **k),
    }


NAMES = list(_calls(minflow, minflow.ones(2, 2)))
# layout / pin_memory values to pass: "S" stands for the library's strided layout
OPTIONS = [{"layout": "S"}, {"layout": 3}, {"pin_memory": False}, {"pin_memory": 1},
           {"pin_memory": True}]


def _outcome(call, lib, options):
    options = {k: lib.strided if v == "S" else v for k, v in options.items()}
    try:
        out = call(**options)
    except Exception as err:        # noqa: BLE001  (the kind of error is compared)
        return type(err).__name__
    return "ok", out.layout is lib.strided


@pytest.mark.parametrize("options", OPTIONS, ids=str)
@pytest.mark.parametrize("name", NAMES)
def test_accepts_and_refuses_the_options_as_torch(name, options):
    torch = pytest.importorskip("torch")
    if options.get("pin_memory") is True and (torch.cuda.is_available()
                                              or minflow.cuda.is_available()):
        pytest.skip("pinning with a GPU: test_pin_memory_with_a_gpu")
    ours = _outcome(_calls(minflow, minflow.ones(2, 2))[name], minflow, options)
    theirs = _outcome(_calls(torch, torch.ones(2, 2))[name], torch, options)
    assert ours == theirs


def test_every_tensor_is_strided():
    x = minflow.randn(2, 3)
    assert x.layout is minflow.strided and x.t().layout is minflow.strided
    assert repr(minflow.strided) == "minflow.strided"
    assert isinstance(minflow.strided, minflow.layout)
    assert pickle.loads(pickle.dumps(minflow.strided)) is minflow.strided


@pytest.mark.parametrize("name", ["zeros", "arange", "zeros_like", "new_full", "fft.fftfreq"])
def test_a_bad_layout_names_the_function(name):
    call = _calls(minflow, minflow.ones(2, 2))[name]
    with pytest.raises(TypeError, match=rf"^{name}\(\): argument 'layout' must be "
                                        rf"minflow.layout, not str"):
        call(layout="sparse")
    with pytest.raises(RuntimeError, match="strided layout only"):
        call(layout=minflow.layout("sparse_coo"))


def test_options_only_where_torch_takes_them():
    with pytest.raises(TypeError, match="unexpected keyword argument 'layout'"):
        minflow.tensor([1.0], layout=minflow.strided)
    with pytest.raises(TypeError, match="unexpected keyword argument 'pin_memory'"):
        minflow.range(0, 2, pin_memory=True)
    with pytest.raises(TypeError, match="unexpected keyword argument 'layout'"):
        minflow.ones(2).new_tensor([1.0], layout=minflow.strided)
    with pytest.raises(ValueError, match="implemented for strided tensors only, got: 3"):
        minflow.signal.windows.blackman(4, layout=3)


def test_signatures_show_the_options():
    assert list(inspect.signature(minflow.zeros).parameters)[-3:] == [
        "layout", "pin_memory", "out"]
    assert "pin_memory" in inspect.signature(minflow.tensor).parameters
    assert "layout" not in inspect.signature(minflow.tensor).parameters
    assert "layout" in inspect.signature(minflow.Tensor.new_zeros).parameters


def test_defaults_change_nothing():
    minflow.manual_seed(3)
    a = minflow.randn(3, layout=minflow.strided, pin_memory=False, requires_grad=True)
    minflow.manual_seed(3)
    b = minflow.randn(3)
    assert a.tolist() == b.tolist() and a.requires_grad and a.is_leaf


@no_gpu
@pytest.mark.parametrize("name", ["zeros", "tensor", "zeros_like", "new_empty", "randperm"])
def test_pin_memory_without_a_gpu_raises_naming_the_function(name):
    call = _calls(minflow, minflow.ones(2, 2))[name]
    with pytest.raises(RuntimeError, match=rf"^{name}\(\): pin_memory=True requires a CUDA"):
        call(pin_memory=True)


@needs_gpu
@pytest.mark.parametrize("name", ["zeros", "tensor", "randn_like"])
def test_pin_memory_with_a_gpu(name):
    out = _calls(minflow, minflow.ones(2, 2))[name](pin_memory=True, requires_grad=True)
    assert out.is_pinned() and out.device.type == "cpu"
    assert out.requires_grad and out.is_leaf


def test_grad_scaler_at_the_top_level():
    assert minflow.GradScaler is minflow.amp.GradScaler

"""Memory formats (minflow.channels_last ...): layout changes with torch's strides and
errors, values and gradients unchanged."""
import pickle

import numpy as np
import pytest

import minflow


def _torch():
    return pytest.importorskip("torch")


@pytest.mark.parametrize("shape, fmt", [((2, 3, 4, 5), "channels_last"),
                                        ((2, 3, 1, 4), "channels_last"),
                                        ((1, 3, 1, 1), "channels_last"),
                                        ((2, 3, 2, 4, 5), "channels_last_3d")])
def test_strides_and_contiguity_match_torch(shape, fmt):
    torch = _torch()
    values = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    expected = torch.from_numpy(values).to(memory_format=getattr(torch, fmt))
    got = minflow.from_numpy(values).to(memory_format=getattr(minflow, fmt))
    assert got.stride() == expected.stride()
    assert got.is_contiguous() == expected.is_contiguous()
    for name in ("contiguous_format", "channels_last", "channels_last_3d", "preserve_format"):
        assert got.is_contiguous(memory_format=getattr(minflow, name)) == \
            expected.is_contiguous(memory_format=getattr(torch, name)), name
    np.testing.assert_array_equal(got.numpy(), values)
    back = got.contiguous()
    assert back.stride() == expected.contiguous().stride() and back.is_contiguous()


def test_contiguous_with_a_format_and_to_leave_a_tensor_in_it_alone():
    x = minflow.zeros(2, 3, 4, 4).contiguous(memory_format=minflow.channels_last)
    assert x.to(memory_format=minflow.channels_last) is x
    assert x.contiguous(memory_format=minflow.channels_last) is x
    assert x.to(memory_format=minflow.preserve_format) is x
    # a dtype change keeps the layout (preserve_format), as torch's
    assert x.double().is_contiguous(memory_format=minflow.channels_last)


def test_gradients_flow_through_a_format_change():
    x = minflow.randn(2, 3, 4, 4, requires_grad=True)
    y = x.to(memory_format=minflow.channels_last)
    (y * minflow.arange(4.0)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(),
                                  np.broadcast_to(np.arange(4.0), (2, 3, 4, 4)))


def test_layers_give_the_same_values_on_channels_last_inputs():
    minflow.manual_seed(0)
    x = minflow.randn(2, 3, 8, 8)
    net = minflow.nn.Sequential(minflow.nn.Conv2d(3, 4, 3, padding=1),
                                minflow.nn.BatchNorm2d(4), minflow.nn.ReLU(inplace=True),
                                minflow.nn.MaxPool2d(2), minflow.nn.ConvTranspose2d(4, 2, 2, 2))
    expected = net(x)
    got = net.to(memory_format=minflow.channels_last)(x.to(memory_format=minflow.channels_last))
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-5,
                               atol=1e-6)


def test_module_to_converts_4d_tensors_only():
    torch = _torch()
    got = minflow.nn.Sequential(minflow.nn.Conv2d(2, 4, 3), minflow.nn.Linear(4, 4),
                                minflow.nn.BatchNorm2d(4)).to(memory_format=minflow.channels_last)
    expected = torch.nn.Sequential(torch.nn.Conv2d(2, 4, 3), torch.nn.Linear(4, 4),
                                   torch.nn.BatchNorm2d(4)).to(memory_format=torch.channels_last)
    for (name, a), b in zip(got.state_dict().items(), expected.state_dict().values()):
        assert a.stride() == b.stride(), name
    with pytest.raises(RuntimeError, match="required rank 4 tensor"):
        minflow.nn.Conv3d(1, 1, 1).to(memory_format=minflow.channels_last)


def test_formats_print_and_pickle_as_one_object():
    assert repr(minflow.channels_last) == "minflow.channels_last"
    assert isinstance(minflow.preserve_format, minflow.memory_format)
    assert pickle.loads(pickle.dumps(minflow.channels_last)) is minflow.channels_last


def test_bad_formats_raise_like_torch():
    with pytest.raises(RuntimeError, match="to: required rank 4 tensor to use channels_last"):
        minflow.zeros(2, 3, 4).to(memory_format=minflow.channels_last)
    with pytest.raises(RuntimeError, match="contiguous: required rank 5 tensor"):
        minflow.zeros(2, 3, 4, 4).contiguous(memory_format=minflow.channels_last_3d)
    with pytest.raises(RuntimeError, match="preserve memory format is unsupported"):
        minflow.zeros(2, 3).T.contiguous(memory_format=minflow.preserve_format)
    assert minflow.zeros(2, 3).contiguous(memory_format=minflow.preserve_format).shape == (2, 3)
    with pytest.raises(TypeError, match="expected memory_format to be a minflow.memory_format"
                                        ", got str"):
        minflow.zeros(2, 3, 4, 4).to(memory_format="channels_last")
    assert not minflow.zeros(2, 3).is_contiguous(memory_format=minflow.channels_last)


def test_clone_and_like_functions_take_memory_format():
    """clone and the *_like functions lay their result out as torch's do: preserve_format
    (the default) keeps a channels-last input channels-last; an explicit format is used."""
    x = minflow.zeros(2, 3, 4, 5).to(memory_format=minflow.channels_last)
    last, rows = (60, 1, 15, 3), (60, 20, 5, 1)
    assert x.clone().stride() == last
    assert x.clone(memory_format=minflow.contiguous_format).stride() == rows
    for fn in (minflow.empty_like, minflow.zeros_like, minflow.ones_like, minflow.rand_like,
               minflow.randn_like, lambda t, **kw: minflow.full_like(t, 2.0, **kw)):
        assert fn(x).stride() == last
        assert fn(x, memory_format=minflow.contiguous_format).stride() == rows
        made = fn(minflow.zeros(2, 3, 4, 5), memory_format=minflow.channels_last,
                  requires_grad=True)
        assert made.stride() == last and made.is_leaf and made.requires_grad
    with pytest.raises(RuntimeError, match="clone: required rank 4 tensor to use "
                                           "channels_last format"):
        minflow.ones(2, 3).clone(memory_format=minflow.channels_last)
    w = minflow.ones(2, 3, 4, 5, requires_grad=True)
    (w.clone(memory_format=minflow.channels_last) * 3).sum().backward()
    assert w.grad.tolist() == minflow.full((2, 3, 4, 5), 3.0).tolist()

"""InstanceNorm1d/2d, ConvTranspose1d, the padding layers, convs with a padding_mode and
the adaptive 1-D pools against torch.nn: repr, state_dict keys, outputs, input grads and
running statistics in train and eval."""
import numpy as np
import pytest

import minflow

torch = pytest.importorskip("torch")

X = np.random.RandomState(0).randn(2, 3, 5, 4)

CASES = [
    ("InstanceNorm2d", (3,), dict(affine=True, track_running_stats=True), X),
    ("InstanceNorm2d", (3,), dict(affine=True, bias=False), X[0]),
    ("InstanceNorm1d", (3,), {}, X[:, :, 0]),
    ("InstanceNorm1d", (3,), dict(track_running_stats=True, momentum=None), X[0, :, 0]),
    ("ConvTranspose1d", (3, 2, 3), dict(stride=2, padding=1, output_padding=1), X[:, :, 0]),
    ("ConvTranspose1d", (3, 6, 2), dict(groups=3, dilation=2, bias=False), X[0, :, 0]),
    ("ZeroPad2d", ((1, 0, 2, 1),), {}, X),
    ("ZeroPad1d", (1,), {}, X),
    ("ConstantPad1d", (2, 1.5), {}, X),
    ("ConstantPad2d", (1, 0.5), {}, X),
    ("ReflectionPad1d", (2,), {}, X[0]),
    ("ReflectionPad2d", ((1, 2, 3, 0),), {}, X),
    ("ReplicationPad1d", ((0, 3),), {}, X[0]),
    ("ReplicationPad2d", (2,), {}, X),
    ("CircularPad1d", ((4, 1),), {}, X[0]),
    ("CircularPad2d", ((1, 0, 2, 4),), {}, X),
    ("Conv2d", (3, 4, 3), dict(padding=1, padding_mode="reflect"), X),
    ("Conv2d", (3, 6, 3), dict(padding="same", dilation=2, groups=3, padding_mode="circular"),
     X),
    ("Conv1d", (3, 2, 3), dict(padding=2, stride=2, padding_mode="replicate"), X[:, :, 0]),
    ("AdaptiveAvgPool1d", (3,), {}, X[:, :, 0]),
    ("AdaptiveMaxPool1d", ((2,),), {}, X[0, :, 0]),
]


@pytest.mark.parametrize("name, args, kwargs, x", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_matches_torch(name, args, kwargs, x):
    theirs = getattr(torch.nn, name)(*args, **kwargs).double()
    ours = getattr(minflow.nn, name)(*args, **kwargs).double()
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    ours.load_state_dict({k: minflow.tensor(v.detach().numpy())
                          for k, v in theirs.state_dict().items()})
    grad_out = None
    for mode in ("train", "eval", "train"):
        getattr(theirs, mode)()
        getattr(ours, mode)()
        tx, mx = torch.tensor(x, requires_grad=True), minflow.tensor(x, requires_grad=True)
        t_out, m_out = theirs(tx), ours(mx)
        if grad_out is None:
            grad_out = np.random.RandomState(1).randn(*t_out.shape)
        (t_out * torch.tensor(grad_out)).sum().backward()
        (m_out * minflow.tensor(grad_out)).sum().backward()
        np.testing.assert_allclose(m_out.detach().numpy(), t_out.detach().numpy(), atol=1e-12)
        np.testing.assert_allclose(mx.grad.numpy(), tx.grad.numpy(), atol=1e-12)
        for key, value in theirs.state_dict().items():
            np.testing.assert_allclose(ours.state_dict()[key].numpy(), value.numpy(),
                                       atol=1e-12, err_msg=key)


def test_conv_transpose1d_output_size_and_errors():
    layer = minflow.nn.ConvTranspose1d(3, 2, 3, stride=2)
    assert layer(minflow.ones(1, 3, 4), output_size=[10]).shape == (1, 2, 10)
    with pytest.raises(ValueError, match="ConvTranspose1d: requested an output size of \\[12\\]"):
        layer(minflow.ones(1, 3, 4), output_size=[12])
    with pytest.raises(ValueError, match="ConvTranspose1d: only 'zeros' padding mode"):
        minflow.nn.ConvTranspose1d(3, 2, 3, padding_mode="circular")


def test_instance_norm_and_padding_errors():
    with pytest.raises(ValueError, match="InstanceNorm2d: expected 3D \\(unbatched\\) or 4D"):
        minflow.nn.InstanceNorm2d(3)(minflow.ones(2, 3))
    with pytest.raises(ValueError, match="ZeroPad2d: expected padding to be an int or a tuple "
                                         "of 4 ints, got \\(1, 2\\)"):
        minflow.nn.ZeroPad2d((1, 2))


@pytest.mark.parametrize("call, error, match", [
    (lambda: minflow.nn.ReflectionPad1d(3)(minflow.ones(1, 2, 3)), RuntimeError,
     "pad: with mode 'reflect', padding \\(3, 3\\) at dimension 2 should be at most 2"),
    (lambda: minflow.nn.CircularPad1d(4)(minflow.ones(1, 2, 3)), RuntimeError,
     "pad: with mode 'circular', padding \\(4, 4\\) at dimension 2 should be at most 3"),
    (lambda: minflow.nn.functional.pad(minflow.ones(3), (1, 1), "reflect"),
     NotImplementedError, "pad: padding size 2 is not supported for 1D input"),
    (lambda: minflow.nn.functional.pad(minflow.ones(2, 3), (1, 1), "replicate", 1.0),
     RuntimeError, 'pad: Padding mode "replicate" doesn\'t take in value argument'),
    (lambda: minflow.nn.functional.pad(minflow.ones(2, 3), (1, 1), "mirror"),
     NotImplementedError, "pad: Unrecognised padding mode mirror"),
])
def test_edge_pad_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_adaptive_pool1d_errors():
    with pytest.raises(RuntimeError, match="adaptive_avg_pool1d: expected output_size to be a "
                                           "positive int, got 0"):
        minflow.nn.AdaptiveAvgPool1d(0)(minflow.ones(1, 2, 3))
    with pytest.raises(RuntimeError, match="adaptive_max_pool1d: expected output_size to be an "
                                           "int or a tuple of one int"):
        minflow.nn.functional.adaptive_max_pool1d(minflow.ones(1, 2, 3), (1, 1))

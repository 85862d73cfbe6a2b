"""minflow.nn.init: statistics of each initialiser, signatures, seeding and errors."""
import math

import numpy as np
import pytest

import minflow
from minflow.nn import init


def npy(x):
    return x.detach().cpu().numpy()


def test_calculate_gain():
    assert init.calculate_gain("linear") == 1 and init.calculate_gain("conv2d") == 1
    assert init.calculate_gain("tanh") == pytest.approx(5 / 3)
    assert init.calculate_gain("relu") == pytest.approx(math.sqrt(2))
    assert init.calculate_gain("leaky_relu") == pytest.approx(math.sqrt(2 / (1 + 0.01 ** 2)))
    assert init.calculate_gain("leaky_relu", math.sqrt(5)) == pytest.approx(math.sqrt(1 / 3))
    with pytest.raises(ValueError, match="Unsupported nonlinearity softsign"):
        init.calculate_gain("softsign")
    with pytest.raises(ValueError, match="not a valid number"):
        init.calculate_gain("leaky_relu", "x")


def test_fills_run_in_place_under_no_grad_and_return_the_tensor(device):
    w = minflow.empty(300, 200, device=device, requires_grad=True)
    for fn in (init.uniform_, init.normal_, init.zeros_, init.ones_, init.xavier_uniform_,
               init.xavier_normal_, init.kaiming_uniform_, init.kaiming_normal_,
               init.trunc_normal_, init.eye_, lambda x: init.constant_(x, 0.3)):
        assert fn(w) is w and w.is_leaf and w.requires_grad


@pytest.mark.parametrize("fn, bound, std", [
    (lambda w: init.uniform_(w, -0.5, 0.5), 0.5, 1 / math.sqrt(12)),
    (lambda w: init.normal_(w, 0.0, 0.02), None, 0.02),
    (init.xavier_uniform_, math.sqrt(6 / 500), math.sqrt(2 / 500)),
    (lambda w: init.xavier_normal_(w, gain=2.0), None, 2 * math.sqrt(2 / 500)),
    (lambda w: init.kaiming_uniform_(w, a=math.sqrt(5)), 1 / math.sqrt(200),
     1 / math.sqrt(600)),
    (lambda w: init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu"), None,
     math.sqrt(2 / 300)),
])
def test_distribution_statistics(fn, bound, std):
    w = npy(fn(minflow.empty(300, 200)))
    assert abs(w.std() - std) < 0.02 * std and abs(w.mean()) < 0.02 * std
    if bound is not None:
        assert 0.99 * bound < np.abs(w).max() <= bound


def test_trunc_normal_stays_in_bounds():
    w = npy(init.trunc_normal_(minflow.empty(5000), mean=1.0, std=2.0, a=0.0, b=1.5))
    assert w.min() >= 0.0 and w.max() <= 1.5 and w.std() > 0.1
    with pytest.raises(ValueError, match="a < b"):
        init.trunc_normal_(minflow.empty(2), a=1.0, b=0.0)


def test_fan_computation_for_conv_weights():
    w = minflow.empty(8, 4, 3, 3)
    assert init._calculate_fan_in_and_fan_out(w) == (36, 72)
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init.xavier_uniform_(minflow.empty(3))
    with pytest.raises(ValueError, match="Mode fan_avg not supported"):
        init.kaiming_uniform_(w, mode="fan_avg")


def test_seeding_and_generators():
    minflow.manual_seed(5)
    a = npy(init.normal_(minflow.empty(4)))
    minflow.manual_seed(5)
    assert npy(init.normal_(minflow.empty(4))).tolist() == a.tolist()
    g1, g2 = minflow.Generator().manual_seed(1), minflow.Generator().manual_seed(1)
    assert npy(init.uniform_(minflow.empty(3), generator=g1)).tolist() == \
        npy(init.uniform_(minflow.empty(3), generator=g2)).tolist()
    minflow.manual_seed(0)
    m1 = minflow.nn.Linear(3, 3)
    minflow.manual_seed(0)
    assert npy(minflow.nn.Linear(3, 3).weight).tolist() == npy(m1.weight).tolist()


def test_eye_and_zero_element_tensors():
    assert npy(init.eye_(minflow.empty(2, 2))).tolist() == [[1, 0], [0, 1]]
    with pytest.raises(ValueError, match="only tensors with 2 dimensions"):
        init.eye_(minflow.empty(2, 2, 2))
    with pytest.warns(UserWarning, match="zero-element"):
        init.kaiming_uniform_(minflow.empty(0, 3))


@pytest.mark.parametrize("shape,groups", [((4, 2, 3), 1), ((6, 4, 3, 3), 2), ((2, 3, 3, 1, 5), 1)])
def test_dirac_matches_torch(shape, groups):
    torch = pytest.importorskip("torch")
    w = init.dirac_(minflow.empty(*shape), groups)
    expected = torch.nn.init.dirac_(torch.empty(*shape), groups)
    np.testing.assert_array_equal(w.numpy(), expected.numpy())


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (5, 2, 3)])
def test_orthogonal_is_orthogonal_with_gain_and_dtype(shape):
    w = init.orthogonal_(minflow.empty(*shape, dtype=minflow.float64), gain=2.0)
    flat = w.numpy().reshape(shape[0], -1)
    small = min(flat.shape)
    gram = flat @ flat.T if flat.shape[0] == small else flat.T @ flat
    np.testing.assert_allclose(gram, 4.0 * np.eye(small), atol=1e-10)
    assert w.dtype == minflow.float64


def test_orthogonal_is_uniform_in_sign():
    # the diag(R) sign fix makes Q Haar-distributed: each entry's mean is 0
    mean = np.mean([init.orthogonal_(minflow.empty(3, 3)).numpy() for _ in range(400)], 0)
    assert np.abs(mean).max() < 0.1


def test_sparse_zero_count_and_std():
    minflow.manual_seed(0)
    w = init.sparse_(minflow.empty(200, 50), sparsity=0.1, std=0.5).numpy()
    assert ((w == 0).sum(0) == 20).all()
    assert abs(w[w != 0].std() - 0.5) < 0.02


@pytest.mark.parametrize("fn,args,message", [
    (init.dirac_, ((2, 3),), "only tensors with 3, 4, or 5 dimensions"),
    (init.orthogonal_, ((3,),), "only tensors with 2 or more dimensions"),
    (init.sparse_, ((3, 2, 2), 0.1), "only tensors with 2 dimensions"),
])
def test_new_init_errors(fn, args, message):
    shape, *rest = args
    with pytest.raises(ValueError, match=message):
        fn(minflow.empty(*shape), *rest)
    with pytest.raises(ValueError, match="dim 0 must be divisible by groups"):
        init.dirac_(minflow.empty(3, 2, 3), groups=2)


@pytest.mark.parametrize("old", ["uniform", "normal", "eye", "xavier_uniform", "xavier_normal",
                                 "kaiming_uniform", "kaiming_normal", "orthogonal"])
def test_deprecated_aliases_warn_as_torch(old):
    torch = pytest.importorskip("torch")
    with pytest.warns(FutureWarning, match=f"`nn.init.{old}` is now deprecated in favor of "
                                           f"`nn.init.{old}_`"):
        w = getattr(init, old)(minflow.empty(3, 4))
    assert tuple(w.shape) == (3, 4) and hasattr(torch.nn.init, old)


def test_range_and_std_checks_and_correct_fan_as_torch():
    with pytest.raises(RuntimeError, match=r"found from=3 > to=1"):
        init.uniform_(minflow.empty(2), 3, 1)
    with pytest.raises(RuntimeError, match="normal expects std >= 0.0, but found std -1"):
        init.normal_(minflow.empty(2), std=-1)
    assert init._calculate_correct_fan(minflow.empty(3, 4, 5), "fan_out") == 15
    with pytest.raises(ValueError, match=r"Mode fan_avg not supported"):
        init._calculate_correct_fan(minflow.empty(3, 4), "fan_avg")

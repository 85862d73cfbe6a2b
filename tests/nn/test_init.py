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

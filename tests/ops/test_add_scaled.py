"""``add_`` / ``sub_`` with alpha outside autograd: the ``add_scaled_`` op writes the target
in place with no temporary of other's size; every case it does not cover falls back to
add(self, alpha * other), with the same result."""
import tracemalloc

import numpy as np
import pytest

import minflow
from minflow.ops.elementwise import ADD_SCALED_


@pytest.mark.parametrize("shape", [(300, 257), (70000,), (4, 3), ()], ids=str)
@pytest.mark.parametrize("method, sign", [("add_", 1.0), ("sub_", -1.0)])
def test_scaled_add_in_place_matches_numpy(shape, method, sign, device):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(shape), rng.standard_normal(shape)
    target = minflow.tensor(x, device=device)
    other = minflow.tensor(y, device=device)
    data = target._data
    out = getattr(target, method)(other, alpha=-0.25)
    assert out is target and target._data is data
    np.testing.assert_allclose(target.cpu().numpy(), x + sign * -0.25 * y, rtol=1e-6)
    np.testing.assert_array_equal(other.cpu().numpy(), y)        # other untouched


def test_no_temporary_of_others_size():
    target, other = minflow.zeros(512, 512), minflow.ones(512, 512)
    target.add_(other, alpha=0.5)                # warm up
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        start, _ = tracemalloc.get_traced_memory()
        target.add_(other, alpha=0.5)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak - start < other.numel() * 4 // 2         # at most the scratch block
    assert target[0, 0].item() == 1.0


def test_version_counter_is_bumped():
    target, other = minflow.ones(3), minflow.ones(3)
    target._share_version()                      # as when saved for backward
    version = target._version_value
    target.add_(other, alpha=2.0)
    assert target._version_value == version + 1 and target.tolist() == [3.0, 3.0, 3.0]


@pytest.mark.parametrize("make, alpha", [
    (lambda: (minflow.arange(5), minflow.arange(5)), 2),                 # integer tensors
    (lambda: (minflow.ones(2, 3), minflow.ones(3)), 2.0),                # broadcast other
    (lambda: (minflow.ones(3, dtype=minflow.float64), minflow.ones(3)), 0.5),   # dtypes differ
    (lambda: (minflow.ones(3), 2.0), 3.0),                               # a Python number
])
def test_other_cases_fall_back_to_the_out_of_place_form(make, alpha):
    target, other = make()
    expected = minflow.add(target, other, alpha=alpha)
    target.add_(other, alpha=alpha)
    assert target.tolist() == expected.tolist() and target.dtype is expected.dtype


def test_overlapping_views_fall_back_and_match_torch():
    torch = pytest.importorskip("torch")
    x, tx = minflow.arange(10.0), torch.arange(10.0)
    x[2:].add_(x[:-2].clone(), alpha=2.0)
    tx[2:].add_(tx[:-2].clone(), alpha=2.0)
    assert x.tolist() == tx.tolist()
    y, ty = minflow.arange(10.0), torch.arange(10.0)
    y.add_(y, alpha=2.0)
    ty.add_(ty, alpha=2.0)
    assert y.tolist() == ty.tolist()


def test_bool_alpha_keeps_torchs_error():
    with pytest.raises(RuntimeError, match="add: Boolean alpha only supported for Boolean "
                                           "results"):
        minflow.ones(3).add_(minflow.ones(3), alpha=True)


def test_op_checks_its_inputs():
    with pytest.raises(RuntimeError, match=r"add_scaled_: expected other like input \(a "
                                           r"floating tensor of shape \[3\] and dtype float32\)"):
        minflow.core.dispatch.apply(ADD_SCALED_, (minflow.ones(3), minflow.ones(2)),
                                    {"alpha": 1.0})
    with pytest.raises(TypeError, match="add_scaled_: attr 'alpha' expected float"):
        minflow.core.dispatch.apply(ADD_SCALED_, (minflow.ones(3), minflow.ones(3)),
                                    {"alpha": "x"})


def test_under_autograd_add_with_alpha_is_recorded_as_before():
    w = minflow.ones(3, requires_grad=True)
    y = w * 1.0
    y.add_(w, alpha=2.0)
    y.sum().backward()
    assert w.grad.tolist() == [3.0, 3.0, 3.0]

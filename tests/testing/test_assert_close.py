"""minflow.testing.assert_close and make_tensor against torch.testing's."""
import numpy as np
import pytest

import minflow
from minflow.testing import assert_close, make_tensor

nan, inf = float("nan"), float("inf")

# (actual, expected, options) written once, built with either library
CASES = [
    (lambda t: t.tensor([1., 2., 3.]), lambda t: t.tensor([1., 2., 3.1]), {}),
    (lambda t: t.tensor([1., 2.]), lambda t: t.tensor([1., 2. + 1e-7]), {}),
    (lambda t: t.tensor([1, 2]), lambda t: t.tensor([1, 3]), {}),
    (lambda t: t.tensor([1., 2.]), lambda t: t.tensor([1., 2.], dtype=t.float64), {}),
    (lambda t: t.ones(2), lambda t: t.ones(3), {}),
    (lambda t: t.ones(2, 2), lambda t: t.zeros(2, 2), {}),
    (lambda t: 1.0, lambda t: 1.1, {}),
    (lambda t: 1.0, lambda t: 1.0 + 1e-9, {}),
    (lambda t: [t.ones(1), 2], lambda t: [t.ones(1), 3], {}),
    (lambda t: [1, 2], lambda t: [1, 2, 3], {}),
    (lambda t: {"a": t.ones(1)}, lambda t: {"b": t.ones(1)}, {}),
    (lambda t: {"a": [t.ones(2)]}, lambda t: {"a": [t.ones(2) * 2]}, {}),
    (lambda t: t.tensor([nan]), lambda t: t.tensor([nan]), {}),
    (lambda t: t.tensor([nan, 1.]), lambda t: t.tensor([nan, 1.]), {"equal_nan": True}),
    (lambda t: t.tensor([1., inf]), lambda t: t.tensor([1., inf]), {}),
    (lambda t: t.tensor([1., inf]), lambda t: t.tensor([1., -inf]), {}),
    (lambda t: t.ones(2), lambda t: t.ones(2) + 1e-6, {"rtol": 0, "atol": 0}),
    (lambda t: t.ones(2), lambda t: t.ones(2) + 0.01, {"rtol": 0, "atol": 0.1}),
    (lambda t: t.ones(2, dtype=t.float16), lambda t: t.ones(2) + 0.0005,
     {"check_dtype": False}),
    (lambda t: t.tensor([1, 2]), lambda t: t.tensor([1., 2.]), {"check_dtype": False}),
    (lambda t: t.tensor([True]), lambda t: t.tensor([False]), {}),
    (lambda t: t.tensor(1.), lambda t: 1.0, {}),
]


def _outcome(lib, case):
    actual, expected, options = case
    try:
        lib.testing.assert_close(actual(lib), expected(lib), **options)
    except Exception as err:
        return type(err), str(err)
    return None, ""


@pytest.mark.parametrize("case", CASES, ids=range(len(CASES)))
def test_assert_close_as_torch(case):
    torch = pytest.importorskip("torch")
    theirs, ours = _outcome(torch, case), _outcome(minflow, case)
    assert ours[0] is theirs[0], (ours, theirs)
    # the messages agree but for the library's name in reprs and the last digits of a
    # relative difference torch computes in float32
    lines = [line.replace("torch.", "minflow.") for line in theirs[1].splitlines()]
    for mine, expected in zip(ours[1].splitlines(), lines):
        if expected.startswith("Greatest relative difference"):
            assert mine.split(":")[0] == expected.split(":")[0]
        else:
            assert mine.replace("minflow.core.tensor.Tensor", "minflow.Tensor") == \
                expected.replace("minflow.Tensor", "minflow.Tensor"), (mine, expected)


def test_assert_close_message_options():
    with pytest.raises(AssertionError, match="^custom$"):
        assert_close(minflow.ones(2), minflow.zeros(2), msg="custom")
    with pytest.raises(AssertionError, match="^seen: Tensor-likes"):
        assert_close(minflow.ones(2), minflow.zeros(2), msg=lambda m: "seen: " + m)
    with pytest.raises(ValueError, match="Both 'rtol' and 'atol'"):
        assert_close(minflow.ones(2), minflow.ones(2), rtol=1e-3)
    with pytest.raises(AssertionError, match=r"failure occurred for item \['a'\]\[0\]"):
        assert_close({"a": [minflow.ones(2)]}, {"a": [minflow.zeros(2)]})


@pytest.mark.parametrize("dtype", [minflow.bool, minflow.int32, minflow.int64, minflow.float16,
                                   minflow.float32, minflow.float64])
def test_make_tensor_ranges(dtype):
    t = make_tensor(200, 3, dtype=dtype)
    assert t.shape == (200, 3) and t.dtype is dtype
    values = t.numpy().astype(np.float64)
    if dtype is minflow.bool:
        assert set(np.unique(values)) == {0.0, 1.0}
    elif dtype.is_floating_point:
        assert values.min() >= -9 and values.max() <= 9 and values.std() > 3
    else:
        assert values.min() >= -9 and values.max() < 10 and len(np.unique(values)) > 10
    bounded = make_tensor((50,), dtype=dtype, low=1, high=3, exclude_zero=True,
                          requires_grad=dtype.is_floating_point, noncontiguous=True)
    assert bounded.requires_grad is dtype.is_floating_point
    bounded = bounded.detach()
    if dtype is not minflow.bool:
        assert (bounded.numpy() >= 1).all() and (bounded.numpy() <= 3).all()
    assert not (bounded.numpy() == 0).any() or dtype is minflow.bool
    with pytest.raises(ValueError, match="make_tensor: low must be"):
        make_tensor(2, dtype=minflow.float32 if dtype.is_floating_point else minflow.int64,
                    low=3, high=1)

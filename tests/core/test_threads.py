"""get_num_threads / set_num_threads: the cpu BLAS thread pool, as torch's."""
import numpy as np
import pytest

import minflow


def test_set_num_threads_changes_the_blas_pool_and_results_stay_equal():
    pytest.importorskip("threadpoolctl")
    before = minflow.get_num_threads()
    a = minflow.tensor(np.random.default_rng(0).standard_normal((300, 300)))
    reference = (a @ a).numpy().copy()
    try:
        minflow.set_num_threads(1)
        assert minflow.get_num_threads() == 1
        np.testing.assert_allclose((a @ a).numpy(), reference, rtol=1e-9, atol=1e-9)
    finally:
        minflow.set_num_threads(before)
    assert minflow.get_num_threads() == before


@pytest.mark.parametrize("bad", [0, -2, 1.5, True, "2"])
def test_set_num_threads_rejects_what_is_not_a_positive_int(bad):
    with pytest.raises(ValueError, match="set_num_threads: expected a positive int"):
        minflow.set_num_threads(bad)

"""minflow.random: torch.random's functions, and fork_rng saving and restoring the streams."""
import pytest

import minflow


def test_names_are_the_top_level_functions():
    for name in ("manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state"):
        assert getattr(minflow.random, name) is getattr(minflow, name)


@pytest.mark.parametrize("enabled", [True, False])
def test_fork_rng_restores_the_streams(enabled, device):
    minflow.manual_seed(3)
    expected = minflow.rand(4, device=device).tolist()
    minflow.manual_seed(3)
    with minflow.random.fork_rng(enabled=enabled):
        minflow.manual_seed(99)
        minflow.rand(10, device=device)
    after = minflow.rand(4, device=device).tolist()
    assert (after == expected) is enabled


def test_fork_rng_restores_on_error_and_checks_device_type():
    minflow.manual_seed(5)
    state = minflow.get_rng_state()
    with pytest.raises(ValueError, match="inside"):
        with minflow.random.fork_rng():
            minflow.rand(3)
            raise ValueError("inside")
    assert minflow.equal(minflow.get_rng_state(), state)
    with pytest.raises(RuntimeError, match="fork_rng: expected device_type 'cuda', got 'xpu'"):
        with minflow.random.fork_rng(device_type="xpu"):
            pass

"""LBFGS against torch.optim.LBFGS: iterates, losses and state on a Rosenbrock problem and
a least-squares fit, for several history sizes and iteration limits. (Rosenbrock's
curvature amplifies rounding: after ~60 evaluations float64 iterates differ by ~1e-6.)"""
import numpy as np
import pytest

import minflow

torch = pytest.importorskip("torch")


def _rosenbrock(lib, w):
    return (1 - w[0]) ** 2 + 100 * (w[1] - w[0] ** 2) ** 2


def _least_squares(lib, w):
    a = lib.tensor(np.arange(12.0).reshape(4, 3) / 10)
    b = lib.tensor([1.0, -1.0, 0.5, 2.0])
    return ((a @ w[:3] + w[3] - b) ** 2).sum()


def _run(lib, problem, start, steps, **options):
    w = lib.tensor(start, requires_grad=True)
    opt = lib.optim.LBFGS([w], **options)
    losses = []

    def closure():
        opt.zero_grad()
        loss = problem(lib, w)
        losses.append(loss.item())
        loss.backward()
        return loss
    for _ in range(steps):
        opt.step(closure)
    return w.detach().numpy(), losses, opt.state[w]


@pytest.mark.parametrize("problem, start", [(_rosenbrock, [-1.2, 1.0]),
                                            (_least_squares, [0.0, 0.0, 0.0, 0.0])])
@pytest.mark.parametrize("options", [{}, {"lr": 0.5, "max_iter": 7, "history_size": 3},
                                     {"tolerance_change": 1e-3, "max_eval": 9},
                                     {"line_search_fn": "strong_wolfe"},
                                     {"line_search_fn": "strong_wolfe", "max_iter": 5,
                                      "max_eval": 8, "history_size": 2}],
                         ids=["defaults", "short_history", "tolerances", "strong_wolfe",
                              "strong_wolfe_limits"])
def test_matches_torch(problem, start, options):
    got, got_losses, state = _run(minflow, problem, np.array(start), 3, **options)
    expected, losses, t_state = _run(torch, problem, np.array(start), 3, **options)
    assert losses[-1] < losses[0]
    np.testing.assert_allclose(got_losses, losses, rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-8)
    assert (state["n_iter"], state["func_evals"]) == (t_state["n_iter"], t_state["func_evals"])


def test_float32_matches_torch():
    start = np.array([-1.2, 1.0], dtype=np.float32)
    got, got_losses, _ = _run(minflow, _rosenbrock, start, 2, lr=0.1)
    expected, losses, _ = _run(torch, _rosenbrock, start, 2, lr=0.1)
    np.testing.assert_allclose(got_losses, losses, rtol=1e-5)
    np.testing.assert_allclose(got, expected, rtol=1e-5)


def test_strong_wolfe_solves_least_squares():
    # torch-free: the line search lands on the minimum of a convex quadratic
    w = minflow.zeros(4, dtype=minflow.float64, requires_grad=True)
    opt = minflow.optim.LBFGS([w], line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = _least_squares(minflow, w)
        loss.backward()
        return loss
    opt.step(closure)
    a, b = np.hstack([np.arange(12.0).reshape(4, 3) / 10, np.ones((4, 1))]), [1, -1, 0.5, 2]
    best = np.linalg.lstsq(a, b, rcond=None)[0]
    assert _least_squares(minflow, w).item() == pytest.approx(((a @ best - b) ** 2).sum(),
                                                              abs=1e-8)


def test_errors():
    w = minflow.zeros(2, requires_grad=True)
    opt = minflow.optim.LBFGS([w], line_search_fn="backtracking")

    def closure():
        opt.zero_grad()
        loss = ((w - 1) ** 2).sum()
        loss.backward()
        return loss
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        opt.step(closure)
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        minflow.optim.LBFGS([w], lr=-1)
    with pytest.raises(ValueError, match="LBFGS doesn't support per-parameter options"):
        minflow.optim.LBFGS([{"params": [w]}, {"params": [minflow.zeros(1, requires_grad=True)]}])

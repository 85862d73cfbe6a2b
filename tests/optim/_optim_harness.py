"""Shared by the optimizer tests: fixed parameters and gradients, and a driver that runs
an optimizer for a few steps on them."""
import numpy as np

import minflow

SHAPES = [(3, 4), (5,), ()]
STEPS = 5


def initial_values(dtype):
    rng = np.random.default_rng(0)
    return [rng.standard_normal(shape).astype(dtype) for shape in SHAPES]


def gradients(dtype, steps=STEPS):
    """grads[step][param]: fixed, different at every step."""
    rng = np.random.default_rng(1)
    return [[rng.standard_normal(shape).astype(dtype) for shape in SHAPES]
            for _ in range(steps)]


def minflow_params(values):
    return [minflow.tensor(v, requires_grad=True) for v in values]


def set_grads(params, grads):
    for p, g in zip(params, grads):
        p.grad = minflow.tensor(g)


def tolerance(dtype):
    return {"rtol": 1e-6, "atol": 1e-12} if dtype == np.float64 else \
        {"rtol": 1e-5, "atol": 1e-6}

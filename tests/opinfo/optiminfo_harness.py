"""PyTorch's OptimizerInfo database (torch.testing._internal.common_optimizers) as an oracle
for minflow.optim.

Each OptimizerInfo names a torch.optim optimizer and lists its configurations (every option:
weight decay, momentum, amsgrad, maximize, a tensor lr...) and, for most, inputs that must
raise or warn. Where minflow.optim has the optimizer, both train the same small model from
the same weights and data with each configuration: the parameters must agree after every
step. On the error inputs, minflow must raise (or warn) with the class torch does.
"""
import warnings

import numpy as np
import pytest

import minflow

torch = pytest.importorskip("torch")
pytest.importorskip("expecttest")        # torch.testing._internal imports it
from torch.testing._internal.common_optimizers import (OptimizerErrorEnum,  # noqa: E402
                                                       optim_db)

from opinfo_harness import TOLERANCE, Unconvertible, to_minflow  # noqa: E402

DTYPES = (torch.float32, torch.float64)
STEPS = 6
# optimizers of matrices only (torch's refuse other parameters): they train the weights,
# the biases stay as they are
MATRIX_ONLY = {"Muon"}


def minflow_class(info):
    return getattr(minflow.optim, info.optim_cls.__name__, None)


def optim_cases():
    """(id, optimizer info, dtype) for every optimizer minflow.optim has too."""
    return [(f"{info.optim_cls.__name__}-{str(dtype)[6:]}", info, dtype)
            for info in optim_db if minflow_class(info) is not None for dtype in DTYPES]


def error_optim_cases():
    return [(info.optim_cls.__name__, info) for info in optim_db
            if minflow_class(info) is not None and info.optim_error_inputs_func is not None]


def _models(lib, dtype, device):
    """A 3 -> 4 -> 2 tanh MLP with fixed weights on ``device``, and its loss on fixed data."""
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(shape) for shape in ((4, 3), (4,), (2, 4), (2,))]
    params = [lib.nn.Parameter(lib.tensor(a, dtype=dtype, device=device)) for a in arrays]
    x = lib.tensor(rng.standard_normal((5, 3)), dtype=dtype, device=device)
    y = lib.tensor(rng.standard_normal((5, 2)), dtype=dtype, device=device)

    def loss():
        w1, b1, w2, b2 = params
        hidden = lib.tanh(lib.nn.functional.linear(x, w1, b1))
        return ((lib.nn.functional.linear(hidden, w2, b2) - y) ** 2).mean()
    return params, loss


def _train(lib, cls, kwargs, dtype, closure, device="cpu"):
    params, loss_fn = _models(lib, dtype, device)
    optimizer = cls([p for p in params if p.ndim == 2] if cls.__name__ in MATRIX_ONLY
                    else params, **kwargs)
    trajectory = []

    def closure_fn():
        optimizer.zero_grad()
        loss = loss_fn()
        loss.backward()
        return loss
    for _ in range(STEPS):
        if closure:
            optimizer.step(closure_fn)
        else:
            closure_fn()
            optimizer.step()
        trajectory.append([p.detach().cpu().numpy().copy() for p in params])
    return trajectory


def run_optim_case(info, dtype, device="cpu"):
    """Differences over all of the OptimizerInfo's configurations, with minflow's
    parameters on ``device`` (torch's stay on the cpu)."""
    diffs = []
    ours_cls = minflow_class(info)
    ours_dtype = to_minflow(dtype)
    atol, rtol = TOLERANCE[str(dtype)[6:]]
    for optim_input in info.optim_inputs_func(device="cpu", dtype=dtype):
        if optim_input.params is not None:
            continue
        kwargs = dict(optim_input.kwargs)
        label = f"{optim_input.desc} {kwargs}"
        try:
            ours_kwargs = to_minflow(kwargs)
        except Unconvertible:
            continue
        closure = info.step_requires_closure
        expected = _train(torch, info.optim_cls, kwargs, dtype, closure)
        try:
            got = _train(minflow, ours_cls, ours_kwargs, ours_dtype, closure, device)
        except Exception as err:
            diffs.append(f"{label}: raised {type(err).__name__}: {err}")
            continue
        for step, (e_params, g_params) in enumerate(zip(expected, got)):
            bad = [i for i, (e, g) in enumerate(zip(e_params, g_params))
                   if not np.allclose(g, e, rtol=rtol * 10, atol=atol * 10, equal_nan=True)]
            if bad:
                i = bad[0]
                diffs.append(f"{label}: step {step + 1}, parameter {i}: expected "
                             f"{e_params[i].ravel()[:4]}, got {g_params[i].ravel()[:4]}")
                break
    return diffs


def _convert_params(params, memo=None):
    """torch parameters (in lists, dicts, (name, param) pairs) as minflow Parameters; one
    torch parameter listed twice is one minflow parameter listed twice."""
    memo = {} if memo is None else memo
    if isinstance(params, torch.Tensor):
        if id(params) not in memo:
            memo[id(params)] = minflow.nn.Parameter(to_minflow(params.detach()))
        return memo[id(params)]
    if isinstance(params, dict):
        return {k: _convert_params(v, memo) for k, v in params.items()}
    if isinstance(params, (list, tuple)):
        return type(params)(_convert_params(p, memo) for p in params)
    return params


def run_optim_errors(info):
    """Differences on the error inputs: the same exception (or warning) class as torch, at
    construction or at the step, as the input says."""
    diffs = []
    cls = minflow_class(info)
    for error in info.optim_error_inputs_func(device="cpu", dtype=torch.float32):
        optim_input = error.optimizer_error_input
        try:
            kwargs = to_minflow(dict(optim_input.kwargs))
            params = _convert_params(optim_input.params)
        except Unconvertible:
            continue
        label = (f"{optim_input.desc} (torch: {error.error_type.__name__}: "
                 f"{error.error_regex!r:.80})")
        if params is None:
            params = [minflow.nn.Parameter(minflow.randn(2, 2))]
        expects_warning = issubclass(error.error_type, Warning)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                optimizer = cls(params, **kwargs)
                if error.error_on == OptimizerErrorEnum.STEP_ERROR:
                    for group in optimizer.param_groups:
                        for p in group["params"]:
                            p.grad = minflow.ones_like(p)
                    optimizer.step()
            except Exception as err:
                if expects_warning or not isinstance(err, error.error_type):
                    diffs.append(f"{label}: raised {type(err).__name__}: {err}")
                continue
        if expects_warning and any(issubclass(w.category, error.error_type) for w in caught):
            continue
        diffs.append(f"{label}: did not {'warn' if expects_warning else 'raise'}")
    return diffs

"""Each optimizer, for every combination of its options, side by side with torch.optim:
parameters and state after each of 5 steps on fixed gradients, in float32 and float64."""
import itertools

import numpy as np
import pytest

import minflow
from _optim_harness import STEPS, gradients, initial_values, minflow_params, set_grads, \
    tolerance

torch = pytest.importorskip("torch")


def _product(**options):
    names = list(options)
    return [dict(zip(names, values)) for values in itertools.product(*options.values())]


def _sgd_cases():
    cases = _product(lr=[0.1], momentum=[0, 0.9], dampening=[0, 0.3], nesterov=[False, True],
                     weight_decay=[0, 0.1], maximize=[False, True])
    return [c for c in cases if not c["nesterov"] or (c["momentum"] > 0 and c["dampening"] == 0)]


CASES = (
    [("SGD", c) for c in _sgd_cases()]
    + [("Adam", c) for c in _product(lr=[0.01], betas=[(0.9, 0.999), (0.3, 0.9)],
                                     weight_decay=[0, 0.1], amsgrad=[False, True],
                                     maximize=[False, True],
                                     decoupled_weight_decay=[False, True])]
    + [("AdamW", c) for c in _product(weight_decay=[1e-2, 0.3], amsgrad=[False, True],
                                      maximize=[False, True])]
    + [("RMSprop", c) for c in _product(alpha=[0.99, 0.3], weight_decay=[0, 0.1],
                                        momentum=[0, 0.5], centered=[False, True],
                                        maximize=[False, True])]
    + [("Adagrad", c) for c in _product(lr=[0.1], lr_decay=[0, 0.1], weight_decay=[0, 0.1],
                                        initial_accumulator_value=[0, 0.5],
                                        eps=[1e-10, 1e-3], maximize=[False, True])]
    + [("Adadelta", c) for c in _product(lr=[1.0, 0.1], rho=[0.9, 0.5], eps=[1e-6, 1e-2],
                                         weight_decay=[0, 0.1], maximize=[False, True])]
    + [("Adamax", c) for c in _product(lr=[0.01], betas=[(0.9, 0.999), (0.3, 0.5)],
                                       eps=[1e-8, 0.5], weight_decay=[0, 0.1],
                                       maximize=[False, True])]
    + [("NAdam", c) for c in _product(lr=[0.01], betas=[(0.9, 0.999), (0.3, 0.5)],
                                      weight_decay=[0, 0.1], momentum_decay=[4e-3, 0.5],
                                      decoupled_weight_decay=[False, True],
                                      maximize=[False, True])]
    + [("RAdam", c) for c in _product(lr=[0.01], betas=[(0.9, 0.999), (0.3, 0.5)],
                                      weight_decay=[0, 0.1], decoupled_weight_decay=[False, True],
                                      maximize=[False, True])]
    + [("Rprop", c) for c in _product(lr=[0.01, 0.3], etas=[(0.5, 1.2), (0.2, 1.9)],
                                      step_sizes=[(1e-6, 50), (0.02, 0.4)],
                                      maximize=[False, True])]
    + [("ASGD", c) for c in _product(lr=[0.01, 0.3], lambd=[1e-4, 0.1], alpha=[0.75, 0.3],
                                     t0=[1e6, 2], weight_decay=[0, 0.1],
                                     maximize=[False, True])]
    + [("Adafactor", c) for c in _product(lr=[0.01, 0.3], beta2_decay=[-0.8, -0.3],
                                          eps=[(None, 1e-3), (1e-20, 0.5)], d=[1.0, 1.5],
                                          weight_decay=[0, 0.1], maximize=[False, True])])


def _case_id(case):
    name, options = case
    return name + "-" + "-".join(f"{k}={v}" for k, v in options.items())


def _compare(mf_params, mf_opt, t_params, t_opt, dtype, where):
    tol = tolerance(dtype)
    for i, (p, tp) in enumerate(zip(mf_params, t_params)):
        np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), **tol,
                                   err_msg=f"{where}: param {i}")
        state, t_state = mf_opt.state.get(p, {}), t_opt.state.get(tp, {})
        assert sorted(state) == sorted(t_state), f"{where}: state keys of param {i}"
        for key, value in t_state.items():
            assert state[key].dtype.name == str(value.dtype).removeprefix("torch."), key
            np.testing.assert_allclose(state[key].numpy(), value.numpy(), **tol,
                                       err_msg=f"{where}: state {key!r} of param {i}")


def _run_side_by_side(name, options, dtype, groups=None):
    values = initial_values(dtype)
    mf_params = minflow_params(values)
    t_params = [torch.tensor(v, requires_grad=True) for v in values]
    wrap = groups or (lambda params: params)
    mf_opt = getattr(minflow.optim, name)(wrap(mf_params), **options)
    t_opt = getattr(torch.optim, name)(wrap(t_params), **options)
    for step, grads in enumerate(gradients(dtype)):
        set_grads(mf_params, grads)
        for tp, g in zip(t_params, grads):
            tp.grad = torch.tensor(g)
        mf_opt.step()
        t_opt.step()
        _compare(mf_params, mf_opt, t_params, t_opt, dtype, f"step {step + 1}")
    return mf_opt, t_opt


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_matches_torch(case, dtype):
    _run_side_by_side(*case, dtype)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta",
                                  "Adamax", "NAdam", "RAdam", "ASGD", "Adafactor"])
def test_per_group_options_match_torch(name):
    options = {"SGD": {"momentum": 0.9}, "RMSprop": {"momentum": 0.5}}.get(name, {})

    def groups(params):
        return [{"params": params[:1], "lr": 0.05, "weight_decay": 0.2},
                {"params": params[1:], "maximize": True}]
    _run_side_by_side(name, dict(options, lr=0.01), np.float64, groups)


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "Adagrad", "Adadelta", "Adamax",
                                  "NAdam", "RAdam", "Rprop", "ASGD", "Adafactor"])
def test_params_without_grad_are_skipped_as_torch(name):
    values = initial_values(np.float64)
    mf_params, t_params = minflow_params(values), [torch.tensor(v, requires_grad=True)
                                                  for v in values]
    options = {"momentum": 0.9} if name == "SGD" else {}
    mf_opt = getattr(minflow.optim, name)(mf_params, lr=0.1, **options)
    t_opt = getattr(torch.optim, name)(t_params, lr=0.1, **options)
    for grads in gradients(np.float64, 3):
        set_grads(mf_params[:2], grads[:2])
        for tp, g in zip(t_params[:2], grads[:2]):
            tp.grad = torch.tensor(g)
        mf_opt.step()
        t_opt.step()
    _compare(mf_params, mf_opt, t_params, t_opt, np.float64, "after 3 steps")
    assert mf_params[2].detach().numpy() == values[2]


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta",
                                  "Adamax", "NAdam", "RAdam", "Rprop", "ASGD", "Adafactor"])
def test_repr_and_state_dict_layout_match_torch(name):
    values = initial_values(np.float64)
    mf_params, t_params = minflow_params(values), [torch.tensor(v, requires_grad=True)
                                                  for v in values]
    mf_opt = getattr(minflow.optim, name)([{"params": mf_params[:1]},
                                           {"params": mf_params[1:], "lr": 0.5}])
    t_opt = getattr(torch.optim, name)([{"params": t_params[:1]},
                                        {"params": t_params[1:], "lr": 0.5}])
    set_grads(mf_params, gradients(np.float64)[0])
    for tp, g in zip(t_params, gradients(np.float64)[0]):
        tp.grad = torch.tensor(g)
    mf_opt.step()
    t_opt.step()
    torch_only = {"foreach", "fused", "differentiable", "capturable"} - set(mf_opt.defaults)
    t_repr = "\n".join(line for line in repr(t_opt).splitlines()
                       if line.strip().split(":")[0] not in torch_only)
    assert repr(mf_opt) == t_repr
    sd, t_sd = mf_opt.state_dict(), t_opt.state_dict()
    assert [{k: v for k, v in g.items()} for g in sd["param_groups"]] == [
        {k: v for k, v in g.items() if k not in torch_only} for g in t_sd["param_groups"]]
    assert sd["state"].keys() == t_sd["state"].keys()
    for index, t_state in t_sd["state"].items():
        assert sd["state"][index].keys() == t_state.keys()


def test_error_messages_match_torch():
    p, tp = minflow.zeros(1, requires_grad=True), torch.zeros(1, requires_grad=True)
    cases = [("SGD", {"lr": -1}), ("SGD", {"momentum": -0.5}), ("SGD", {"weight_decay": -1}),
             ("SGD", {"nesterov": True}), ("SGD", {"nesterov": True, "momentum": 0.9,
                                                   "dampening": 0.1}),
             ("Adam", {"lr": -1}), ("Adam", {"eps": -1}), ("Adam", {"betas": (1.0, 0.9)}),
             ("Adam", {"betas": (0.9, -0.1)}), ("Adam", {"weight_decay": -1}),
             ("AdamW", {"lr": -0.5}), ("RMSprop", {"alpha": -1}), ("RMSprop", {"momentum": -1}),
             ("RMSprop", {"eps": -1}), ("Adagrad", {"lr_decay": -1}),
             ("Adagrad", {"initial_accumulator_value": -1}), ("Adagrad", {"eps": -1}),
             ("Adadelta", {"lr": -1}), ("Adadelta", {"rho": 1.5}), ("Adadelta", {"rho": -0.1}),
             ("Adadelta", {"eps": -1}), ("Adadelta", {"weight_decay": -1}),
             ("Adamax", {"betas": (1.0, 0.9)}), ("Adamax", {"eps": -1}),
             ("NAdam", {"momentum_decay": -1}), ("NAdam", {"betas": (0.9, 1.0)}),
             ("RAdam", {"lr": -1}), ("RAdam", {"weight_decay": -1}),
             ("Rprop", {"lr": -1}), ("Rprop", {"etas": (1.5, 1.2)}),
             ("Rprop", {"etas": (0.5, 0.9)}), ("ASGD", {"lr": -1}),
             ("ASGD", {"weight_decay": -1}), ("Adafactor", {"lr": -1}),
             ("Adafactor", {"beta2_decay": 0.1}), ("Adafactor", {"eps": (-1.0, 1e-3)}),
             ("Adafactor", {"eps": (None, -1.0)}), ("Adafactor", {"d": 0.5}),
             ("Adafactor", {"weight_decay": -1})]
    for name, options in cases:
        with pytest.raises(ValueError) as expected:
            getattr(torch.optim, name)([tp], **options)
        with pytest.raises(ValueError) as got:
            getattr(minflow.optim, name)([p], **options)
        assert str(got.value) == str(expected.value), (name, options)

"""The Optimizer base: param groups, state_dict round trips, zero_grad, step(closure),
version counters, and its error messages."""
import pickle

import numpy as np
import pytest

import minflow
from _optim_harness import gradients, initial_values, minflow_params, set_grads

OPTIMIZERS = {
    "SGD": lambda p: minflow.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True),
    "Adam": lambda p: minflow.optim.Adam(p, lr=0.01, amsgrad=True),
    "AdamW": lambda p: minflow.optim.AdamW(p, lr=0.01),
    "RMSprop": lambda p: minflow.optim.RMSprop(p, momentum=0.5, centered=True),
    "Adagrad": lambda p: minflow.optim.Adagrad(p, lr_decay=0.1),
    "Adadelta": lambda p: minflow.optim.Adadelta(p, rho=0.5, weight_decay=0.1),
    "Adamax": lambda p: minflow.optim.Adamax(p, weight_decay=0.1),
    "NAdam": lambda p: minflow.optim.NAdam(p, decoupled_weight_decay=True, weight_decay=0.1),
    "RAdam": lambda p: minflow.optim.RAdam(p, weight_decay=0.1),
    "Rprop": lambda p: minflow.optim.Rprop(p, etas=(0.4, 1.3)),
    "ASGD": lambda p: minflow.optim.ASGD(p, t0=2, lambd=0.01),
}


def _params():
    return minflow_params(initial_values(np.float64))


def test_params_as_tensors_generator_or_groups():
    params = _params()
    opt = minflow.optim.SGD(iter(params), lr=0.1)
    assert len(opt.param_groups) == 1 and opt.param_groups[0]["params"] == params
    opt = minflow.optim.SGD([{"params": params[:2], "lr": 0.5, "momentum": 0.9},
                             {"params": params[2]}], lr=0.1)
    first, second = opt.param_groups
    assert (first["lr"], first["momentum"], second["lr"], second["momentum"]) == (0.5, 0.9,
                                                                                  0.1, 0)
    assert second["params"] == [params[2]]
    assert set(first) == {"params", "lr", "momentum", "dampening", "weight_decay", "nesterov",
                          "maximize", "foreach", "differentiable", "fused"}   # torch's keys


def test_add_param_group_fills_defaults():
    params = _params()
    opt = minflow.optim.Adam(params[:1], lr=0.1)
    opt.add_param_group({"params": params[1:], "betas": (0.5, 0.6)})
    group = opt.param_groups[1]
    assert (group["lr"], group["betas"], group["eps"]) == (0.1, (0.5, 0.6), 1e-8)


def test_named_params_keep_their_names():
    params = _params()
    opt = minflow.optim.SGD([("a", params[0]), ("b", params[1])])
    assert opt.param_groups[0]["param_names"] == ["a", "b"]
    assert opt.state_dict()["param_groups"][0]["param_names"] == ["a", "b"]


@pytest.mark.parametrize("params, error, message", [
    (lambda p: [], ValueError, "optimizer got an empty parameter list"),
    (lambda p: p[0], TypeError, "params argument given to the optimizer should be an iterable "
                                "of Tensors or dicts, but got minflow.Tensor"),
    (lambda p: [p[0], [1.0]], TypeError, "optimizer can only optimize Tensors, but one of the "
                                         "params is list"),
    (lambda p: [p[0] * 2], ValueError, "can't optimize a non-leaf Tensor"),
    (lambda p: [{"params": p[:2]}, {"params": p[1:]}], ValueError,
     "some parameters appear in more than one parameter group"),
    (lambda p: [{"params": set(p[:1])}], TypeError, "optimizer parameters need to be organized "
                                                    "in ordered collections"),
    (lambda p: [("a", p[0]), p[1]], ValueError, "all optimizer params should be with/without "
                                                "names"),
])
def test_bad_params_raise(params, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(")):
        minflow.optim.SGD(params(_params()), lr=0.1)


def test_add_param_group_errors():
    params = _params()
    opt = minflow.optim.SGD(params[:1])
    with pytest.raises(TypeError, match="param_group must be a dict, but got list"):
        opt.add_param_group([params[1]])
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": params[:2]})


def test_duplicate_param_in_one_group_warns():
    p = _params()[0]
    with pytest.warns(UserWarning, match="duplicate parameters"):
        minflow.optim.SGD([p, p])


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "Adagrad"])
@pytest.mark.parametrize("options, message", [
    ({"lr": -1}, "Invalid learning rate: -1"),
    ({"weight_decay": -0.5}, "Invalid weight_decay value: -0.5"),
])
def test_invalid_hyperparameters(name, options, message):
    with pytest.raises(ValueError, match=message):
        getattr(minflow.optim, name)(_params(), **options)


@pytest.mark.parametrize("options", [{"nesterov": True}, {"nesterov": True, "momentum": 0.9,
                                                          "dampening": 0.1}])
def test_nesterov_needs_momentum_and_no_dampening(options):
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero "
                                         "dampening"):
        minflow.optim.SGD(_params(), **options)


def test_adam_beta_errors():
    with pytest.raises(ValueError, match="Invalid beta parameter at index 0: 1.0"):
        minflow.optim.Adam(_params(), betas=(1.0, 0.9))
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1: -0.1"):
        minflow.optim.Adam(_params(), betas=(0.9, -0.1))


def test_repr():
    opt = minflow.optim.SGD(_params(), lr=0.1)
    assert repr(opt) == ("SGD (\nParameter Group 0\n    dampening: 0\n"
                         "    differentiable: False\n    foreach: None\n    fused: None\n"
                         "    lr: 0.1\n    maximize: False\n    momentum: 0\n"
                         "    nesterov: False\n    weight_decay: 0\n)")


def test_zero_grad():
    params = _params()
    opt = minflow.optim.SGD(params)
    set_grads(params, gradients(np.float64)[0])
    opt.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.numpy().any() for p in params)
    opt.zero_grad()
    assert all(p.grad is None for p in params)


def test_step_returns_the_closure_loss_computed_with_grad():
    w = minflow.tensor([2.0], requires_grad=True)
    opt = minflow.optim.SGD([w], lr=0.25)

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss
    with minflow.no_grad():
        loss = opt.step(closure)
    assert loss.item() == 4.0 and w.tolist() == [1.0]
    assert opt.step() is None


def test_state_dict_layout():
    params = _params()
    opt = minflow.optim.Adam([{"params": params[:1]}, {"params": params[1:], "lr": 0.1}])
    set_grads(params[:2], gradients(np.float64)[0][:2])      # the last param has no grad
    opt.step()
    sd = opt.state_dict()
    assert sorted(sd["state"]) == [0, 1]
    assert sorted(sd["state"][0]) == ["exp_avg", "exp_avg_sq", "step"]
    assert [g["params"] for g in sd["param_groups"]] == [[0], [1, 2]]
    assert sd["param_groups"][1]["lr"] == 0.1


# NOTE: not NAdam and ASGD: loading casts NAdam's float32 ``mu_product`` and ASGD's ``eta``
# and ``mu`` to the float64 parameters' dtype (as torch does), so the continued run is close
# but not bit-identical (test_loaded_float32_state_takes_the_param_dtype_as_torch)
@pytest.mark.parametrize("name", sorted(set(OPTIMIZERS) - {"NAdam", "ASGD"}))
def test_state_dict_round_trip_continues_identically(name):
    grads = gradients(np.float64, 6)
    first_params = _params()
    first = OPTIMIZERS[name](first_params)
    for step_grads in grads[:3]:
        set_grads(first_params, step_grads)
        first.step()
    second_params = minflow_params([p.detach().numpy() for p in first_params])
    second = OPTIMIZERS[name](second_params)
    second.load_state_dict(first.state_dict())
    for step_grads in grads[3:]:
        for params, opt in ((first_params, first), (second_params, second)):
            set_grads(params, step_grads)
            opt.step()
    for a, b in zip(first_params, second_params):
        assert np.array_equal(a.detach().numpy(), b.detach().numpy())
    for a, b in zip(first_params, second_params):     # the loaded state is a copy
        for key, value in first.state[a].items():
            assert value is not second.state[b][key]
            assert np.array_equal(value.numpy(), second.state[b][key].numpy())


def test_optimizer_pickles_after_a_scheduler_wrapped_its_step():
    params = _params()
    opt = minflow.optim.SGD(params, lr=0.1, momentum=0.9)
    minflow.optim.lr_scheduler.StepLR(opt, step_size=2)
    set_grads(params, gradients(np.float64)[0])
    opt.step()
    copy = pickle.loads(pickle.dumps(opt))
    assert copy.param_groups[0]["lr"] == 0.1 and len(copy.state) == len(params)


def test_load_state_dict_restores_group_options_and_checks_sizes():
    params = _params()
    opt = minflow.optim.SGD(params, lr=0.1)
    sd = opt.state_dict()
    sd["param_groups"][0]["lr"] = 0.7
    other = minflow.optim.SGD(_params(), lr=0.1)
    other.load_state_dict(sd)
    assert other.param_groups[0]["lr"] == 0.7
    assert opt.param_groups[0]["lr"] == 0.1
    with pytest.raises(ValueError, match="different number of parameter groups"):
        minflow.optim.SGD([{"params": params[:1]}, {"params": params[1:]}]).load_state_dict(sd)
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        minflow.optim.SGD(params[:2]).load_state_dict(sd)


def test_load_state_dict_casts_state_to_the_param_dtype_but_not_step():
    p64 = minflow.tensor([1.0, 2.0], dtype=minflow.float64, requires_grad=True)
    opt = minflow.optim.Adam([p64])
    p64.grad = minflow.ones(2, dtype=minflow.float64)
    opt.step()
    p32 = minflow.tensor([1.0, 2.0], requires_grad=True)
    other = minflow.optim.Adam([p32])
    other.load_state_dict(opt.state_dict())
    state = other.state[p32]
    assert state["exp_avg"].dtype is minflow.float32 and state["step"].dtype is minflow.float32


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_step_bumps_versions_so_stale_saved_tensors_are_caught(name):
    w = minflow.tensor([1.0, 2.0], requires_grad=True)
    opt = OPTIMIZERS[name]([w])
    loss = (w * w).sum()              # saves w for backward
    w.grad = minflow.ones(2)
    opt.step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def test_step_updates_parameters_in_place():
    w = minflow.tensor([1.0, 2.0], requires_grad=True)
    data = w._data
    view = w.detach()
    opt = minflow.optim.Adam([w])
    w.grad = minflow.ones(2)
    opt.step()
    assert w._data is data and view.tolist() == w.tolist() != [1.0, 2.0]


def test_parameters_of_a_module_are_optimized():
    layer = minflow.nn.Linear(3, 2)
    opt = minflow.optim.SGD(layer.parameters(), lr=0.5, momentum=0.9)
    before = [p.detach().numpy().copy() for p in layer.parameters()]
    layer(minflow.ones(4, 3)).sum().backward()
    opt.step()
    for p, old in zip(layer.parameters(), before):
        assert isinstance(p, minflow.nn.Parameter)
        np.testing.assert_allclose(p.detach().numpy(), old - 0.5 * p.grad.numpy())


def test_new_param_group_gets_state_lazily():
    params = _params()
    opt = minflow.optim.Adagrad(params[:1])
    opt.add_param_group({"params": params[1:]})
    set_grads(params, gradients(np.float64)[0])
    opt.step()
    assert all(opt.state[p]["step"].item() == 1.0 for p in params)


def test_custom_optimizer_must_define_an_update():
    class Custom(minflow.optim.Optimizer):
        pass
    opt = Custom(_params(), {"lr": 0.1})
    with pytest.raises(NotImplementedError, match="Custom must define step"):
        opt.step()


def test_loaded_float32_state_takes_the_param_dtype_as_torch():
    torch = pytest.importorskip("torch")
    dtypes = []
    for lib in (minflow, torch):
        w = lib.ones(3, dtype=lib.float64, requires_grad=True)
        opt = lib.optim.ASGD([w])
        w.grad = lib.ones(3, dtype=lib.float64)
        opt.step()
        other = lib.optim.ASGD([lib.ones(3, dtype=lib.float64, requires_grad=True)])
        other.load_state_dict(opt.state_dict())
        state = other.state[other.param_groups[0]["params"][0]]
        dtypes.append({k: str(v.dtype).split(".")[-1] for k, v in state.items()})
    assert dtypes[0] == dtypes[1] == {"step": "float32", "eta": "float64", "mu": "float64",
                                      "ax": "float64"}


def test_implementation_flags_are_checked_and_kept_as_torch():
    p = [minflow.nn.Parameter(minflow.ones(2))]
    group = minflow.optim.Adam(p, fused=True).param_groups[0]
    assert (group["foreach"], group["capturable"], group["differentiable"], group["fused"]) \
        == (None, False, False, True)
    with pytest.raises(RuntimeError, match="`fused` and `foreach` cannot be `True` together"):
        minflow.optim.SGD(p, lr=0.1, foreach=True, fused=True)
    with pytest.raises(NotImplementedError, match="differentiable=True"):
        minflow.optim.RMSprop(p, differentiable=True)
    with pytest.raises(ValueError, match="Tensor lr must be 1-element"):
        minflow.optim.Adagrad(p, lr=minflow.tensor([0.1, 0.1]))
    with pytest.raises(ValueError, match="lr as a Tensor is not supported for capturable=False"):
        minflow.optim.NAdam(p, lr=minflow.tensor(0.1), foreach=True)
    with pytest.raises(ValueError, match="betas must be either both floats or both Tensors"):
        minflow.optim.AdamW(p, betas=(minflow.tensor(0.9), 0.999))


def test_tensor_betas_step_as_floats():
    def run(betas):
        w = minflow.nn.Parameter(minflow.tensor([1.0, -2.0]))
        opt = minflow.optim.Adam([w], lr=0.1, betas=betas)
        for _ in range(3):
            w.grad = w.detach() * 2
            opt.step()
        return w.tolist()
    assert run((minflow.tensor(0.8), minflow.tensor(0.99))) == run((0.8, 0.99))

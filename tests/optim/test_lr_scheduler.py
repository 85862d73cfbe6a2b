"""Learning-rate schedulers: 30 steps side by side with torch's (exact equality), with
two param groups, plus state_dict round trips and the step-order warning."""
import warnings

import pytest

import minflow
from minflow.optim import lr_scheduler

torch = pytest.importorskip("torch")

STEPS = 30


def _schedulers(module):
    return {
        "StepLR": lambda opt: module.StepLR(opt, step_size=4, gamma=0.5),
        "MultiStepLR": lambda opt: module.MultiStepLR(opt, milestones=[3, 7, 7, 20], gamma=0.3),
        "ExponentialLR": lambda opt: module.ExponentialLR(opt, gamma=0.9),
        "CosineAnnealingLR": lambda opt: module.CosineAnnealingLR(opt, T_max=10, eta_min=0.01),
        "LambdaLR": lambda opt: module.LambdaLR(opt, [lambda e: 1 / (e + 1),
                                                      lambda e: 0.95 ** e]),
        "LinearLR": lambda opt: module.LinearLR(opt, start_factor=0.25, end_factor=0.9,
                                                total_iters=12),
        "CosineAnnealingWarmRestarts": lambda opt: module.CosineAnnealingWarmRestarts(
            opt, T_0=3, T_mult=2, eta_min=0.01),
        "OneCycleLR-cos": lambda opt: module.OneCycleLR(opt, max_lr=[1.0, 0.5],
                                                        total_steps=STEPS + 1),
        "OneCycleLR-linear": lambda opt: module.OneCycleLR(
            opt, max_lr=0.8, epochs=4, steps_per_epoch=8, anneal_strategy="linear",
            pct_start=0.25, div_factor=10.0, final_div_factor=100.0),
        "OneCycleLR-three-phase": lambda opt: module.OneCycleLR(
            opt, max_lr=1.0, total_steps=STEPS + 1, three_phase=True, base_momentum=0.8,
            max_momentum=[0.9, 0.99]),
        "OneCycleLR-no-momentum": lambda opt: module.OneCycleLR(
            opt, max_lr=1.0, total_steps=STEPS, cycle_momentum=False),
        "MultiplicativeLR": lambda opt: module.MultiplicativeLR(
            opt, [lambda e: 0.9, lambda e: 1.0 - 0.01 * e]),
        "ConstantLR": lambda opt: module.ConstantLR(opt, factor=0.25, total_iters=7),
        "PolynomialLR": lambda opt: module.PolynomialLR(opt, total_iters=20, power=1.7),
        "CyclicLR-triangular": lambda opt: module.CyclicLR(
            opt, base_lr=0.01, max_lr=[0.1, 0.2], step_size_up=4, step_size_down=3),
        "CyclicLR-triangular2": lambda opt: module.CyclicLR(
            opt, base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=3, mode="triangular2",
            base_momentum=0.7, max_momentum=[0.95, 0.9]),
        "CyclicLR-exp_range": lambda opt: module.CyclicLR(
            opt, base_lr=0.01, max_lr=0.1, step_size_up=5, mode="exp_range", gamma=0.97),
        "CyclicLR-scale_fn-no-momentum": lambda opt: module.CyclicLR(
            opt, base_lr=0.01, max_lr=0.1, step_size_up=2, scale_fn=lambda x: 0.8 ** x,
            scale_mode="iterations", cycle_momentum=False),
        "SequentialLR": lambda opt: module.SequentialLR(opt, [
            module.LinearLR(opt, start_factor=0.1, total_iters=5),
            module.ExponentialLR(opt, gamma=0.9),
            module.CosineAnnealingLR(opt, T_max=6, eta_min=0.001)], milestones=[5, 18]),
        "SequentialLR-constant-step": lambda opt: module.SequentialLR(opt, [
            module.ConstantLR(opt, factor=0.5, total_iters=3),
            module.StepLR(opt, step_size=4, gamma=0.5)], milestones=[3]),
        "ChainedScheduler": lambda opt: module.ChainedScheduler([
            module.ConstantLR(opt, factor=0.1, total_iters=4),
            module.ExponentialLR(opt, gamma=0.9),
            module.PolynomialLR(opt, total_iters=25, power=0.5)]),
        "ChainedScheduler-sequential": lambda opt: module.ChainedScheduler([
            module.SequentialLR(opt, [module.ConstantLR(opt, factor=0.5, total_iters=2),
                                      module.MultiplicativeLR(opt, lambda e: 0.95)],
                                milestones=[4]),
            module.StepLR(opt, step_size=5, gamma=0.5)], optimizer=opt),
    }


def _optimizers(module, name):
    def make(params):
        groups = [{"params": params[:1]}, {"params": params[1:], "lr": 0.05}]
        if name == "Adam":
            return module.Adam(groups, lr=0.1)
        return module.SGD(groups, lr=0.1, momentum=0.9)
    return make


def _run(module, tensor, scheduler, optimizer):
    params = [tensor([1.0], requires_grad=True), tensor([2.0], requires_grad=True)]
    opt = _optimizers(module.optim, optimizer)(params)
    sched = _schedulers(module.optim.lr_scheduler)[scheduler](opt)
    seen = [(sched.get_last_lr(), _momenta(opt))]
    for _ in range(STEPS):
        opt.step()
        sched.step()
        seen.append((sched.get_last_lr(), _momenta(opt)))
    return seen, sched


def _momenta(opt):
    return [g.get("momentum", g.get("betas")) for g in opt.param_groups]


@pytest.mark.parametrize("optimizer", ["SGD", "Adam"])
@pytest.mark.parametrize("scheduler", sorted(_schedulers(lr_scheduler)))
def test_lr_sequence_matches_torch(scheduler, optimizer):
    got, _ = _run(minflow, minflow.tensor, scheduler, optimizer)
    expected, _ = _run(torch, torch.tensor, scheduler, optimizer)
    assert got == expected


def _plateau(module, tensor, metrics, **options):
    opt = module.optim.SGD([tensor([1.0], requires_grad=True)], lr=1.0)
    sched = module.optim.lr_scheduler.ReduceLROnPlateau(opt, **options)
    lrs = []
    for metric in metrics:
        sched.step(metric)
        lrs.append(sched.get_last_lr())
    return lrs


@pytest.mark.parametrize("options", [
    {}, {"patience": 2, "factor": 0.5}, {"mode": "max", "patience": 1, "cooldown": 2},
    {"threshold_mode": "abs", "threshold": 0.1, "patience": 0, "min_lr": 0.05},
])
def test_reduce_lr_on_plateau_matches_torch(options):
    metrics = [1.0, 0.9, 0.95, 0.95, 0.89, 0.9, 1.2, 0.5] + [0.5] * 12 + [0.7, 0.3] * 5
    assert _plateau(minflow, minflow.tensor, metrics, **options) == \
        _plateau(torch, torch.tensor, metrics, **options)


@pytest.mark.parametrize("scheduler", ["StepLR", "MultiStepLR", "ExponentialLR",
                                       "CosineAnnealingLR", "LinearLR", "ConstantLR",
                                       "PolynomialLR"])
def test_step_with_epoch_uses_the_closed_form_as_torch(scheduler):
    results = []
    for module, tensor in ((minflow, minflow.tensor), (torch, torch.tensor)):
        params = [tensor([1.0], requires_grad=True), tensor([2.0], requires_grad=True)]
        opt = _optimizers(module.optim, "SGD")(params)
        sched = _schedulers(module.optim.lr_scheduler)[scheduler](opt)
        opt.step()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for epoch in (5, 2, 17):
                sched.step(epoch)
                results.append(sched.get_last_lr())
    assert results[:3] == results[3:]


@pytest.mark.parametrize("scheduler", ["StepLR", "CosineAnnealingLR", "OneCycleLR-cos",
                                       "LambdaLR", "MultiplicativeLR", "ConstantLR",
                                       "PolynomialLR", "CyclicLR-triangular2",
                                       "CyclicLR-exp_range"])
def test_state_dict_round_trip(scheduler):
    _, first = _run(minflow, minflow.tensor, scheduler, "SGD")
    state = first.state_dict()
    assert "optimizer" not in state and state["last_epoch"] == STEPS
    params = [minflow.tensor([1.0], requires_grad=True), minflow.tensor([2.0],
                                                                        requires_grad=True)]
    opt = _optimizers(minflow.optim, "SGD")(params)
    second = _schedulers(lr_scheduler)[scheduler](opt)
    second.load_state_dict(state)
    assert second.last_epoch == STEPS and second.get_last_lr() == first.get_last_lr()
    assert second.base_lrs == first.base_lrs


def test_initial_lr_and_base_lrs():
    opt = minflow.optim.SGD([{"params": [minflow.zeros(1, requires_grad=True)], "lr": 0.3}])
    sched = lr_scheduler.StepLR(opt, step_size=1)
    assert opt.param_groups[0]["initial_lr"] == 0.3 and sched.base_lrs == [0.3]
    assert sched.last_epoch == 0 and sched.get_last_lr() == [0.3]
    with pytest.raises(KeyError, match="initial_lr"):
        lr_scheduler.StepLR(minflow.optim.SGD([minflow.zeros(1, requires_grad=True)]),
                            step_size=1, last_epoch=3)


def test_warns_when_scheduler_steps_before_optimizer():
    opt = minflow.optim.SGD([minflow.zeros(1, requires_grad=True)], lr=0.1)
    sched = lr_scheduler.ExponentialLR(opt, gamma=0.5)
    with pytest.warns(UserWarning, match=r"`lr_scheduler.step\(\)` before `optimizer.step\(\)`"):
        sched.step()
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()


def test_errors():
    opt = minflow.optim.SGD([minflow.zeros(1, requires_grad=True)], lr=0.1)
    with pytest.raises(TypeError, match="list is not an Optimizer"):
        lr_scheduler.StepLR([], step_size=1)
    with pytest.raises(ValueError, match="Expected 1 lr_lambdas, but got 2"):
        lr_scheduler.LambdaLR(opt, [lambda e: 1, lambda e: 1])
    with pytest.raises(ValueError, match="You must define either total_steps OR"):
        lr_scheduler.OneCycleLR(opt, max_lr=1.0)
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        lr_scheduler.OneCycleLR(minflow.optim.Adagrad([minflow.zeros(1, requires_grad=True)]),
                                max_lr=1.0, total_steps=5)
    sched = lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=2)
    opt.step()
    sched.step()
    sched.step()
    with pytest.raises(ValueError, match="Tried to step 3 times"):
        sched.step()
    with pytest.raises(ValueError, match="Factor should be < 1.0"):
        lr_scheduler.ReduceLROnPlateau(opt, factor=1.0)


def test_warm_restarts_fractional_epochs_match_torch():
    lrs = []
    for lib in (torch, minflow):
        opt = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=0.5)
        sched = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=3)
        values = []
        for epoch in [0.5, 1.75, 2.0, 7.25, 7.0, 30.5]:
            sched.step(epoch)
            values.append((sched.get_last_lr()[0], sched.last_epoch, sched.T_i))
        lrs.append(values)
    assert lrs[0] == lrs[1]


def test_warm_restarts_state_dict_matches_torch():
    """After whole and fractional epochs, every state entry equals torch's (its step count
    included: torch's step never counts)."""
    states = []
    for lib in (torch, minflow):
        opt = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=0.5)
        sched = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2,
                                                                   eta_min=0.01)
        for epoch in [None, None, 2.5, None, 9.0]:
            opt.step()
            sched.step(epoch)
        states.append({k: v for k, v in sched.state_dict().items()
                       if k != "_get_lr_called_within_step"})
    assert states[1] == states[0]


@pytest.mark.parametrize("kwargs, match", [
    ({"T_0": 0}, "Expected positive integer T_0, but got 0"),
    ({"T_0": 2, "T_mult": 0}, "Expected integer T_mult >= 1, but got 0"),
    ({"T_0": 2, "eta_min": "0"}, "Expected float or int eta_min"),
])
def test_warm_restarts_errors(kwargs, match):
    opt = minflow.optim.SGD([minflow.zeros(1, requires_grad=True)], lr=0.5)
    with pytest.raises(ValueError, match=match):
        lr_scheduler.CosineAnnealingWarmRestarts(opt, **kwargs)


NEW_SCHEDULERS = ["MultiplicativeLR", "ConstantLR", "PolynomialLR", "CyclicLR-triangular",
                  "CyclicLR-triangular2", "CyclicLR-exp_range", "SequentialLR",
                  "ChainedScheduler", "ChainedScheduler-sequential"]


def _state_keys(state):
    keys = sorted(state)
    inner = [_state_keys(s) for s in state.get("_schedulers", [])]
    return keys, inner


@pytest.mark.parametrize("scheduler", NEW_SCHEDULERS)
def test_state_dict_keys_match_torch(scheduler):
    _, ours = _run(minflow, minflow.tensor, scheduler, "SGD")
    _, theirs = _run(torch, torch.tensor, scheduler, "SGD")
    assert _state_keys(ours.state_dict()) == _state_keys(theirs.state_dict())


@pytest.mark.parametrize("scheduler", NEW_SCHEDULERS)
def test_resumed_scheduler_continues_the_sequence(scheduler):
    """Save the scheduler and optimizer halfway, load both into fresh ones: the rest of the
    lr sequence is the uninterrupted one."""
    runs = []
    for _ in range(2):
        params = [minflow.tensor([1.0], requires_grad=True),
                  minflow.tensor([2.0], requires_grad=True)]
        opt = _optimizers(minflow.optim, "SGD")(params)
        runs.append((opt, _schedulers(lr_scheduler)[scheduler](opt)))
    (opt, sched), (opt2, sched2) = runs
    for _ in range(STEPS // 2):
        opt.step()
        sched.step()
    opt2.load_state_dict(opt.state_dict())
    sched2.load_state_dict(sched.state_dict())
    assert sched2.get_last_lr() == sched.get_last_lr()
    for _ in range(STEPS // 2):
        opt.step()
        sched.step()
        opt2.step()
        sched2.step()
        assert sched2.get_last_lr() == sched.get_last_lr()
        assert _momenta(opt2) == _momenta(opt)


def test_composite_and_cyclic_errors():
    opt = minflow.optim.SGD([minflow.zeros(1, requires_grad=True)], lr=0.1)
    other = minflow.optim.SGD([minflow.zeros(1, requires_grad=True)], lr=0.1)
    with pytest.raises(ValueError, match="SequentialLR expects at least one scheduler"):
        lr_scheduler.SequentialLR(opt, [], milestones=[])
    with pytest.raises(ValueError, match="number of schedulers 2 and the number of "
                                         "milestones to be equal to 0"):
        lr_scheduler.SequentialLR(opt, [lr_scheduler.ConstantLR(opt),
                                        lr_scheduler.ConstantLR(opt)], milestones=[])
    with pytest.raises(ValueError, match="does not support `ReduceLROnPlateau`"):
        lr_scheduler.ChainedScheduler([lr_scheduler.ReduceLROnPlateau(opt)])
    with pytest.raises(ValueError, match="same optimizer, but got scheduler ConstantLR at "
                                         "index 1"):
        lr_scheduler.ChainedScheduler([lr_scheduler.ConstantLR(opt),
                                       lr_scheduler.ConstantLR(other)])
    with pytest.raises(TypeError, match="ChainedScheduler at index 0 should have `optimizer`"):
        lr_scheduler.ChainedScheduler([object()], optimizer=opt)
    with pytest.raises(ValueError, match="mode is invalid and scale_fn is None"):
        lr_scheduler.CyclicLR(opt, 0.1, 1.0, mode="sine")
    with pytest.raises(ValueError, match="max_lr must have the same length as "
                                         "optimizer.param_groups"):
        lr_scheduler.CyclicLR(opt, 0.1, [1.0, 2.0])
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        lr_scheduler.CyclicLR(minflow.optim.Adagrad([minflow.zeros(1, requires_grad=True)]),
                              0.1, 1.0)
    with pytest.raises(ValueError, match="Constant multiplicative factor expected"):
        lr_scheduler.ConstantLR(opt, factor=1.5)
    with pytest.raises(TypeError, match="lr_lambda should be a function, but got float"):
        lr_scheduler.MultiplicativeLR(opt, 0.5)

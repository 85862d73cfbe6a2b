"""CyclicLR, OneCycleLR and ReduceLROnPlateau: the schedulers that also read or write more
than lr (momentum / betas, a metric). Exported by minflow.optim.lr_scheduler."""
import math
import types
from functools import partial

from .lr_scheduler import LRScheduler, _group_values
from .optimizer import Optimizer

__all__ = ["CyclicLR", "OneCycleLR", "ReduceLROnPlateau"]


def _per_group(name, optimizer, value):
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. "
                             f"{name} has {len(value)} values, param_groups has "
                             f"{len(optimizer.param_groups)}.")
        return list(value)
    return [value] * len(optimizer.param_groups)


def _phase(end_step, start_lr, end_lr, start_momentum, end_momentum):
    return {"end_step": end_step, "start_lr": start_lr, "end_lr": end_lr,
            "start_momentum": start_momentum, "end_momentum": end_momentum}


def _set_momentum(group, use_beta1, momentum):
    if use_beta1:
        group["betas"] = (momentum, *group["betas"][1:])
    else:
        group["momentum"] = momentum


class CyclicLR(LRScheduler):
    """Cyclical learning rate: lr goes from ``base_lr`` up to ``max_lr`` over
    ``step_size_up`` steps and back over ``step_size_down``; the amplitude is scaled by
    ``mode`` ("triangular": 1, "triangular2": halved each cycle, "exp_range":
    gamma ** iteration) or by ``scale_fn``. With ``cycle_momentum``, momentum (SGD) or
    beta1 (Adam) moves the opposite way between ``base_momentum`` and ``max_momentum``.
    Step it after every batch.

    >>> opt = minflow.optim.SGD([minflow.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)
    >>> sched = minflow.optim.lr_scheduler.CyclicLR(opt, base_lr=0.1, max_lr=0.5,
    ...                                             step_size_up=2)
    >>> lrs = [round(sched.get_last_lr()[0], 6)]
    >>> for _ in range(4):
    ...     opt.step(); sched.step(); lrs.append(round(sched.get_last_lr()[0], 6))
    >>> lrs, round(opt.param_groups[0]["momentum"], 6)
    ([0.1, 0.3, 0.5, 0.3, 0.1], 0.9)
    """

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None,
                 mode="triangular", gamma=1.0, scale_fn=None, scale_mode="cycle",
                 cycle_momentum=True, base_momentum=0.8, max_momentum=0.9, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        base_lrs = _per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                group["lr"] = lr
        self.max_lrs = _per_group("max_lr", optimizer, max_lr)
        step_size_up = float(step_size_up)
        step_size_down = float(step_size_down) if step_size_down is not None else step_size_up
        self.total_size = step_size_up + step_size_down
        self.step_ratio = step_size_up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode, self.gamma = mode, gamma
        self._scale_fn_custom, self.scale_mode = scale_fn, scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self._init_momentum(optimizer, base_momentum, max_momentum, last_epoch)
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_momentum(self, optimizer, base_momentum, max_momentum, last_epoch):
        if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
            raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` "
                             "option enabled")
        self.use_beta1 = "betas" in optimizer.defaults
        self.base_momentums = _per_group("base_momentum", optimizer, base_momentum)
        self.max_momentums = _per_group("max_momentum", optimizer, max_momentum)
        if last_epoch != -1:
            return
        for high, low, group in zip(self.max_momentums, self.base_momentums,
                                    optimizer.param_groups):
            _set_momentum(group, self.use_beta1, high)
            group["max_momentum"], group["base_momentum"] = high, low

    def _init_scale_fn(self):
        if self._scale_fn_custom is not None:
            return
        if self.mode == "triangular":
            self._scale_fn_ref, self.scale_mode = self._triangular_scale_fn, "cycle"
        elif self.mode == "triangular2":
            self._scale_fn_ref, self.scale_mode = self._triangular2_scale_fn, "cycle"
        elif self.mode == "exp_range":
            self._scale_fn_ref = partial(self._exp_range_scale_fn, self.gamma)
            self.scale_mode = "iterations"

    def scale_fn(self, x):
        """The amplitude's scale at cycle (or iteration) ``x``."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        return self._scale_fn_ref(x)

    @staticmethod
    def _triangular_scale_fn(x):
        return 1.0

    @staticmethod
    def _triangular2_scale_fn(x):
        return 1 / (2.0 ** (x - 1))

    @staticmethod
    def _exp_range_scale_fn(gamma, x):
        return gamma ** x

    def get_lr(self):
        self._warn_if_outside_step()
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [base_lr + (max_lr - base_lr) * scale_factor * scale
               for base_lr, max_lr in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, low, high in zip(self.optimizer.param_groups, self.base_momentums,
                                        self.max_momentums):
                _set_momentum(group, self.use_beta1, high - (high - low) * scale_factor * scale)
        return lrs

    def state_dict(self):
        """As the base's, without the scale function (a custom one's ``__dict__`` is kept
        if it is a callable object)."""
        state = super().state_dict()
        state.pop("_scale_fn_ref", None)
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = None
        if fn is not None and not isinstance(fn, types.FunctionType):
            state["_scale_fn_custom"] = fn.__dict__.copy()
        return state

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        fn = state_dict.pop("_scale_fn_custom")
        super().load_state_dict(state_dict)
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_fn()


class OneCycleLR(LRScheduler):
    """The 1cycle policy: lr rises from max_lr / div_factor to max_lr over ``pct_start`` of
    ``total_steps``, then falls to initial_lr / final_div_factor (with ``three_phase``: back
    to initial_lr first); momentum (SGD) or beta1 (Adam) moves the opposite way.
    ``anneal_strategy``: "cos" or "linear". Step it after every batch.

    >>> opt = minflow.optim.SGD([minflow.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)
    >>> sched = minflow.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10)
    >>> round(sched.get_last_lr()[0], 6), opt.param_groups[0]["momentum"]
    (0.04, 0.95)
    """

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
                 pct_start=0.3, anneal_strategy="cos", cycle_momentum=True,
                 base_momentum=0.85, max_momentum=0.95, div_factor=25.0,
                 final_div_factor=1e4, three_phase=False, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        self.total_steps = _total_steps(total_steps, epochs, steps_per_epoch)
        first = float(pct_start * self.total_steps) - 1
        if three_phase:
            self._schedule_phases = [
                _phase(first, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                _phase(float(2 * pct_start * self.total_steps) - 2, "max_lr", "initial_lr",
                       "base_momentum", "max_momentum"),
                _phase(self.total_steps - 1, "initial_lr", "min_lr", "max_momentum",
                       "max_momentum")]
        else:
            self._schedule_phases = [
                _phase(first, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                _phase(self.total_steps - 1, "max_lr", "min_lr", "base_momentum",
                       "max_momentum")]
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        if last_epoch == -1:
            for lr, group in zip(_per_group("max_lr", optimizer, max_lr),
                                 optimizer.param_groups):
                group["initial_lr"] = lr / div_factor
                group["max_lr"] = lr
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self._init_momentum(optimizer, base_momentum, max_momentum, last_epoch)
        super().__init__(optimizer, last_epoch)

    def _init_momentum(self, optimizer, base_momentum, max_momentum, last_epoch):
        if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
            raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` "
                             "option enabled")
        self.use_beta1 = "betas" in optimizer.defaults
        if last_epoch != -1:
            return
        for high, low, group in zip(_per_group("max_momentum", optimizer, max_momentum),
                                    _per_group("base_momentum", optimizer, base_momentum),
                                    optimizer.param_groups):
            _set_momentum(group, self.use_beta1, high)
            group["max_momentum"], group["base_momentum"] = high, low

    def _anneal(self, start, end, pct):
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self):
        self._warn_if_outside_step()
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError(f"Tried to step {step_num} times. The specified number of total "
                             f"steps is {self.total_steps}")
        lrs = []
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step_num <= end_step or i == len(self._schedule_phases) - 1:
                    pct = (step_num - start_step) / (end_step - start_step)
                    lr = self._anneal(group[phase["start_lr"]], group[phase["end_lr"]], pct)
                    momentum = self._anneal(group[phase["start_momentum"]],
                                            group[phase["end_momentum"]], pct) \
                        if self.cycle_momentum else None
                    break
                start_step = phase["end_step"]
            lrs.append(lr)
            if self.cycle_momentum:
                _set_momentum(group, self.use_beta1, momentum)
        return lrs


def _total_steps(total_steps, epochs, steps_per_epoch):
    if total_steps is not None:
        if not isinstance(total_steps, int) or total_steps <= 0:
            raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
        return total_steps
    if epochs is not None and steps_per_epoch is not None:
        if not isinstance(epochs, int) or epochs <= 0:
            raise ValueError(f"Expected positive integer epochs, but got {epochs}")
        if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
            raise ValueError(f"Expected positive integer steps_per_epoch, but got "
                             f"{steps_per_epoch}")
        return epochs * steps_per_epoch
    raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")


class ReduceLROnPlateau(LRScheduler):
    """Multiply lr by ``factor`` once a metric (``step(metric)``) has not improved for
    ``patience`` epochs; ``cooldown`` epochs then pass before bad epochs count again.

    >>> opt = minflow.optim.SGD([minflow.zeros(1, requires_grad=True)], lr=1.0)
    >>> sched = minflow.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1)
    >>> for loss in [1.0, 1.0, 1.0]:
    ...     sched.step(loss)
    >>> sched.get_last_lr()
    [0.1]
    """

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.factor, self.optimizer = factor, optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(f"expected {len(optimizer.param_groups)} min_lrs, got "
                                 f"{len(min_lr)}")
            self.default_min_lr, self.min_lrs = None, list(min_lr)
        else:
            self.default_min_lr, self.min_lrs = min_lr, [min_lr] * len(optimizer.param_groups)
        self.patience, self.cooldown, self.eps = patience, cooldown, eps
        self.last_epoch = 0
        self._last_lr = _group_values(optimizer, "lr")
        self._init_is_better(mode, threshold, threshold_mode)
        self.best, self.cooldown_counter, self.num_bad_epochs = self.mode_worse, 0, 0

    def step(self, metrics, epoch=None):
        """Record one epoch's ``metrics`` (a number) and reduce lr if it has plateaued."""
        current = float(metrics)
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        if self._is_better(current, self.best):
            self.best, self.num_bad_epochs = current, 0
        else:
            self.num_bad_epochs += 1
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
        self._last_lr = _group_values(self.optimizer, "lr")

    def _reduce_lr(self):
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(f"The number of param groups in the `optimizer` "
                                   f"({len(groups)}) differs from when `ReduceLROnPlateau` was "
                                   f"initialized ({len(self.min_lrs)})")
            self.min_lrs = [self.default_min_lr] * len(groups)
        for group, min_lr in zip(groups, self.min_lrs):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, min_lr)
            if old_lr - new_lr > self.eps:
                group["lr"] = new_lr

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def _is_better(self, a, best):
        if self.mode == "min":
            return a < best * (1.0 - self.threshold) if self.threshold_mode == "rel" \
                else a < best - self.threshold
        return a > best * (self.threshold + 1.0) if self.threshold_mode == "rel" \
            else a > best + self.threshold

    def _init_is_better(self, mode, threshold, threshold_mode):
        if mode not in ("min", "max"):
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode, self.threshold, self.threshold_mode = mode, threshold, threshold_mode

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._init_is_better(self.mode, self.threshold, self.threshold_mode)

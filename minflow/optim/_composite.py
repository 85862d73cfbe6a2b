"""SequentialLR and ChainedScheduler: schedulers made of other schedulers of one optimizer.
Exported by minflow.optim.lr_scheduler."""
from bisect import bisect_right

from ._cyclic import ReduceLROnPlateau
from .lr_scheduler import LRScheduler, _group_values

__all__ = ["SequentialLR", "ChainedScheduler"]


def _check_schedulers(name, optimizer, schedulers):
    if len(schedulers) < 1:
        raise ValueError(f"{name} expects at least one scheduler, but got no scheduler.")
    for index, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{name} at index {index} should have `optimizer` as its "
                            f"attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(f"{name} does not support `ReduceLROnPlateau` scheduler as it "
                             f"requires additional kwargs to be specified when calling "
                             f"`step`, but got one at index {index} in the given schedulers "
                             f"sequence.")
        if optimizer != scheduler.optimizer:
            raise ValueError(f"{name} expects all schedulers to belong to the same optimizer, "
                             f"but got scheduler {type(scheduler).__name__} at index {index} "
                             f"has {scheduler.optimizer}, which is different from "
                             f"{type(optimizer).__name__}.")


class _Composite(LRScheduler):
    """The state dict holds each inner scheduler's state dict under ``_schedulers``."""

    def state_dict(self):
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer",
                                                                     "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        inner = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        for scheduler, state in zip(self._schedulers, inner):
            scheduler.load_state_dict(state)


class SequentialLR(_Composite):
    """Run ``schedulers[i]`` from epoch ``milestones[i - 1]`` on; each one starts again
    from its own first epoch (its closed form at epoch 0) at its milestone.

    >>> opt = minflow.optim.SGD([minflow.zeros(1, requires_grad=True)], lr=1.0)
    >>> warmup = minflow.optim.lr_scheduler.ConstantLR(opt, factor=0.1, total_iters=2)
    >>> decay = minflow.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
    >>> sched = minflow.optim.lr_scheduler.SequentialLR(opt, [warmup, decay], milestones=[2])
    >>> lrs = [sched.get_last_lr()[0]]
    >>> for _ in range(4):
    ...     opt.step(); sched.step(); lrs.append(round(sched.get_last_lr()[0], 6))
    >>> lrs
    [0.1, 0.1, 1.0, 0.5, 0.25]
    """

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        _check_schedulers(type(self).__name__, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(f"Sequential Schedulers expects number of schedulers provided to "
                             f"be one more than the number of milestone points, but got number "
                             f"of schedulers {len(schedulers)} and the number of milestones to "
                             f"be equal to {len(milestones)}")
        self._schedulers, self._milestones = schedulers, milestones
        self.last_epoch, self.optimizer = last_epoch + 1, optimizer
        # the inner schedulers each took an initial step when made: undo them, then take
        # the first one's again from the initial lr
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        self._undo_initial_steps(self)
        first = self._schedulers[bisect_right(milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def _undo_initial_steps(self, scheduler):
        if hasattr(scheduler, "_schedulers"):
            for inner in scheduler._schedulers:
                self._undo_initial_steps(inner)
        elif hasattr(scheduler, "last_epoch"):
            scheduler.last_epoch -= 1

    def step(self):
        """Advance one epoch with the scheduler whose milestone range holds it."""
        self.last_epoch += 1
        index = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[index]
        if index > 0 and self._milestones[index - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_Composite):
    """Step every scheduler of ``schedulers`` at each step, in order: their changes to lr
    compose (for the chainable ones, which compute lr from the current lr).

    >>> opt = minflow.optim.SGD([minflow.zeros(1, requires_grad=True)], lr=1.0)
    >>> warmup = minflow.optim.lr_scheduler.ConstantLR(opt, factor=0.1, total_iters=2)
    >>> decay = minflow.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
    >>> sched = minflow.optim.lr_scheduler.ChainedScheduler([warmup, decay])
    >>> lrs = [sched.get_last_lr()[0]]
    >>> for _ in range(3):
    ...     opt.step(); sched.step(); lrs.append(round(sched.get_last_lr()[0], 6))
    >>> lrs
    [0.1, 0.05, 0.25, 0.125]
    """

    def __init__(self, schedulers, optimizer=None):
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler to be "
                             f"chained, but got no scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        _check_schedulers(type(self).__name__, optimizer, schedulers)
        self._schedulers, self.optimizer = schedulers, optimizer
        self._last_lr = _group_values(schedulers[-1].optimizer, "lr")

    def step(self):
        """Step each scheduler once, in order."""
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = _group_values(self._schedulers[-1].optimizer, "lr")

"""Weight averaging, as torch.optim.swa_utils: AveragedModel keeps a running average of a
model's parameters (SWA: equal weights; EMA: exponential decay), SWALR anneals the learning
rate to a constant for the averaging phase, update_bn recomputes BatchNorm statistics for
the averaged weights."""
import itertools
import math
from copy import deepcopy

from ..core import dtype as dtypes
from ..core.grad_mode import no_grad
from ..core.namespace import F
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from ._cyclic import _per_group
from .lr_scheduler import LRScheduler

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn",
           "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn"]


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         f"[0,1] range.")


def get_ema_multi_avg_fn(decay=0.999):
    """An in-place EMA update of lists of tensors: ema = lerp(ema, current, 1 - decay).

    >>> ema, cur = [minflow.zeros(2)], [minflow.ones(2)]
    >>> minflow.optim.swa_utils.get_ema_multi_avg_fn(0.9)(ema, cur, 1); ema[0].tolist()
    [0.10000000149011612, 0.10000000149011612]
    """
    _check_decay(decay)

    def ema_update(ema_param_list, current_param_list, _):
        with no_grad():
            for p_ema, p_model in zip(ema_param_list, current_param_list):
                if p_ema.dtype.is_floating_point:
                    p_ema.lerp_(p_model, 1 - decay)
                else:
                    p_ema.copy_(p_ema * decay + p_model * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn():
    """An in-place running-mean update of lists of tensors: avg += (cur - avg) / (n + 1).

    >>> avg, cur = [minflow.tensor([1.0])], [minflow.tensor([4.0])]
    >>> minflow.optim.swa_utils.get_swa_multi_avg_fn()(avg, cur, 2); avg[0].tolist()
    [2.0]
    """
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        with no_grad():
            for p_avg, p_model in zip(averaged_param_list, current_param_list):
                if p_avg.dtype.is_floating_point:
                    p_avg.lerp_(p_model, 1 / (float(num_averaged) + 1))
                else:
                    p_avg.copy_(p_avg + (p_model - p_avg) / (num_averaged + 1))
    return swa_update


def get_ema_avg_fn(decay=0.999):
    """EMA of one tensor: decay * ema + (1 - decay) * current (a new tensor).

    >>> minflow.optim.swa_utils.get_ema_avg_fn(0.5)(minflow.zeros(1), minflow.ones(1), 3)
    tensor([0.5000])
    """
    _check_decay(decay)

    def ema_update(ema_param, current_param, num_averaged):
        with no_grad():
            return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    """Running mean of one tensor: avg + (current - avg) / (num_averaged + 1).

    >>> minflow.optim.swa_utils.get_swa_avg_fn()(minflow.ones(1), minflow.full((1,), 4.0), 2)
    tensor([2.])
    """
    def swa_update(averaged_param, current_param, num_averaged):
        with no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` whose parameters (and, with ``use_buffers``, buffers) are the
    average of the ones ``update_parameters(model)`` was called with: the running mean
    (SWA, default), or ``avg_fn(avg, current, n)`` per tensor, or ``multi_avg_fn(avgs,
    currents, n)`` on lists in place. Without ``use_buffers`` the buffers are copied.

    >>> model = minflow.nn.Linear(1, 1, bias=False)
    >>> swa = minflow.optim.swa_utils.AveragedModel(model)
    >>> for value in (1.0, 2.0, 6.0):
    ...     _ = model.weight.data.fill_(value); swa.update_parameters(model)
    >>> swa.module.weight.item(), swa.n_averaged.item()
    (3.0, 3)
    """

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None,
                 use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("AveragedModel: Only one of avg_fn and multi_avg_fn should be "
                             "provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", F.tensor(0, dtype=dtypes.int64,
                                                    device=device or "cpu"))
        self.avg_fn, self.multi_avg_fn, self.use_buffers = avg_fn, multi_avg_fn, use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def _pairs(self, model):
        if self.use_buffers:
            return zip(itertools.chain(self.module.parameters(), self.module.buffers()),
                       itertools.chain(model.parameters(), model.buffers()))
        return zip(self.parameters(), model.parameters())

    def update_parameters(self, model):
        """Fold ``model``'s current parameters into the average (the first call copies)."""
        averaged, current = [], []
        first = int(self.n_averaged.item()) == 0
        with no_grad():
            for p_avg, p_model in self._pairs(model):
                p_model = p_model.detach().to(p_avg.device)
                averaged.append(p_avg.detach())
                current.append(p_model)
                if first:
                    p_avg.detach().copy_(p_model)
            if not first:
                self._average(averaged, current)
            if not self.use_buffers:
                for b_avg, b_model in zip(self.module.buffers(), model.buffers()):
                    b_avg.detach().copy_(b_model.detach().to(b_avg.device))
            self.n_averaged.add_(1)

    def _average(self, averaged, current):
        if self.avg_fn is not None:
            for p_avg, p_model in zip(averaged, current):
                n = self.n_averaged.to(p_avg.device)
                p_avg.copy_(self.avg_fn(p_avg, p_model, n))
            return
        multi_avg_fn = self.multi_avg_fn or get_swa_multi_avg_fn()
        multi_avg_fn(averaged, current, self.n_averaged.to(averaged[0].device))


def update_bn(loader, model, device=None):
    """Recompute the running statistics of every BatchNorm in ``model`` by one pass over
    ``loader`` (cumulative average: momentum None), e.g. for SWA weights. A batch that is
    a list or tuple contributes its first element.

    >>> model = minflow.nn.Sequential(minflow.nn.Linear(2, 2), minflow.nn.BatchNorm1d(2))
    >>> loader = [minflow.tensor([[0.0, 1.0], [2.0, 3.0]]) for _ in range(3)]
    >>> minflow.optim.swa_utils.update_bn(loader, model)
    >>> model[1].num_batches_tracked.item(), model[1].momentum
    (3, 0.1)
    """
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    with no_grad():
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            if device is not None:
                batch = batch.to(device)
            model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's lr from its value to ``swa_lr`` over ``anneal_epochs`` steps
    ("cos" or "linear"), then hold it there.

    >>> opt = minflow.optim.SGD([minflow.zeros(1, requires_grad=True)], lr=1.0)
    >>> sched = minflow.optim.swa_utils.SWALR(opt, swa_lr=0.1, anneal_epochs=2,
    ...                                       anneal_strategy="linear")
    >>> lrs = []
    >>> for _ in range(3):
    ...     opt.step(); sched.step(); lrs.append(round(sched.get_last_lr()[0], 4))
    >>> lrs
    [0.55, 0.1, 0.1]
    """

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos",
                 last_epoch=-1):
        for value, group in zip(_per_group("swa_lr", optimizer, swa_lr),
                                optimizer.param_groups):
            group["swa_lr"] = value
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"SWALR: anneal_strategy must be one of 'cos' or 'linear', "
                             f"instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"SWALR: anneal_epochs must be equal or greater than 0, got "
                             f"{anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        """The lr the schedule started from, recovered from the current one."""
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        self._warn_if_outside_step()
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [group["swa_lr"] * alpha + lr * (1 - alpha)
                for group, lr in zip(self.optimizer.param_groups, prev_lrs)]

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else \
            self._linear_anneal

    def state_dict(self):
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)

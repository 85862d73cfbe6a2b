"""Optimizers and learning-rate schedulers, as torch.optim.

Each optimizer holds its state per parameter and calls one update op per parameter
(minflow/ops/optim.py) under no_grad; the op's kernel updates the parameter and the state
in place.

>>> w = minflow.tensor([3.0], requires_grad=True)
>>> opt = minflow.optim.SGD([w], lr=0.25)
>>> for _ in range(2):
...     opt.zero_grad()
...     (w * w).sum().backward()
...     opt.step()
>>> w.item()
0.75
"""
from . import lr_scheduler, swa_utils
from .adafactor import Adafactor
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adamax import Adamax
from .asgd import ASGD
from .lbfgs import LBFGS
from .muon import Muon
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax",
           "NAdam", "RAdam", "Rprop", "ASGD", "LBFGS", "Adafactor", "Muon", "lr_scheduler",
           "swa_utils"]

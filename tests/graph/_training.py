"""A training graph shared by the graph tests: cross-entropy of ``model`` with
``opt`` (and an optional lr scheduler); ``compiles`` counts the traces of ``build``."""
from minflow import nn


class Train(nn.Graph):
    def __init__(self, model, opt, sched=None):
        super().__init__()
        self.model = model
        self.add_optimizer(opt, lr_sch=sched)
        self.compiles = 0

    def build(self, x, y):
        self.compiles += 1
        loss = nn.functional.cross_entropy(self.model(x), y)
        loss.backward()
        return loss

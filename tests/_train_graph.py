"""A training nn.Graph over any model: mean squared error, one optimizer (shared by tests
that check a feature also trains inside nn.Graph)."""
from minflow import nn


class TrainGraph(nn.Graph):
    def __init__(self, model, opt):
        super().__init__()
        self.model = model
        self.add_optimizer(opt)

    def build(self, x, y):
        loss = (self.model(x) - y).square().mean()
        loss.backward()
        return loss
